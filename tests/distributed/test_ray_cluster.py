"""Joining a Ray cluster by address: two Ray nodes on this machine (``ray.cluster_utils.Cluster``, its own
processes, shut down by it), collect with the default of one actor per node. Runs in a subprocess, since
this test process may already hold the local Ray of the other tests."""

from __future__ import annotations

import json
import sys

import pytest
from ray_scripts import run_script

SCRIPT = r"""
import json, sys
from ray.cluster_utils import Cluster
from crab_gym.runs.collect import collect
from crab_gym.runs.distributed import RayOptions

cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
try:
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    events = []
    summary = collect(sys.argv[1], agent="oracle", tasks=["contacts_add-0", "sms_send-0"],
                      episodes_per_task=3, num_envs=1, progress=False,
                      ray=RayOptions(address=cluster.address), on_episode=events.append)
    print(json.dumps({"summary": summary, "events": events}))
finally:
    cluster.shutdown()
"""


@pytest.mark.ray
def test_collect_joins_a_two_node_cluster_with_one_actor_per_node(tmp_path):
    pytest.importorskip("ray")
    out = tmp_path / "run"
    proc = run_script([sys.executable, "-c", SCRIPT, str(out)], timeout=280)
    stdout, stderr = proc.stdout, proc.stderr
    assert proc.returncode == 0, stderr[-3000:]
    result = json.loads(stdout.strip().splitlines()[-1])
    assert result["summary"]["ran"] == 6 and result["summary"]["metrics"]["SR"] == 1.0
    nodes = {e["node"] for e in result["events"]}
    assert len(nodes) == 2  # the two actors were spread over the two nodes
    assert json.loads((out / "collect.json").read_text())["ray"]["address"].count(":") == 1
    assert len(list(out.glob("*-e[012]"))) == 6
