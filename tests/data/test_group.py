"""Group rollouts (`crab-gym collect --group N --branch-at K`) on the simulated phone: branches share their
prefix, each continues from the saved state with its own seed, and the exporters keep the group."""

from __future__ import annotations

import json

import pytest

from crab_gym.cli import main
from crab_gym.episode import load_episodes
from crab_gym.runs.collect import collect
from crab_gym.runs.group import GroupError
from crab_gym.runs.replay import replay_episode

TASK = ["contacts_add-0"]
SMALL = {"obs_size": {"android": (96, 208)}}  # RL-sized observations: a small Minari dataset


def _actions(ep) -> list:
    return [s["readable"] for s in ep.actions]


@pytest.mark.parametrize("branch_at", [0, 3])
def test_a_group_of_four_shares_its_prefix_and_branches_with_their_own_seeds(tmp_path, branch_at):
    summary = collect(tmp_path, agent="random", tasks=TASK, num_envs=1, progress=False, group=4,
                      branch_at=branch_at, env_kwargs={"max_steps": branch_at + 4, **SMALL})  # fmt: skip
    assert summary["ran"] == 1
    eps = sorted(load_episodes(tmp_path), key=lambda e: e.meta["group"]["branch"])
    assert [e.meta["group"]["branch"] for e in eps] == [0, 1, 2, 3]
    assert {e.meta["group"]["id"] for e in eps} == {"contacts_add-0-e0"}
    first = eps[0]
    for ep in eps:
        assert ep.complete and len(ep.actions) == branch_at + 4
        assert ep.steps[: branch_at + 1] == first.steps[: branch_at + 1]  # the shared prefix, repeated
        # each branch really continued from the saved state: replayed from reset on a fresh phone, its
        # actions give the recorded screens, node states and rewards (a branch that went on from the last
        # one's end would not)
        result = replay_episode(ep, screens=True)
        assert result.matches, (ep.id, result.mismatches[:1])
    continuations = {json.dumps(_actions(ep)[branch_at:]) for ep in eps}
    assert len(continuations) == 4  # different seeds, different branches
    assert not list(tmp_path.glob(".prefixes/*"))  # the prefix set aside is removed
    records = [json.loads(line) for line in (tmp_path / "records.jsonl").read_text().splitlines()]
    assert sorted(r["extra"]["group"]["branch"] for r in records) == [0, 1, 2, 3]
    if branch_at:
        return
    # the exporters keep the group (run once: the same code for any branch step)
    from crab_gym.episode.hf_export import export_hf
    from crab_gym.episode.minari_export import export_minari

    ds = export_hf(tmp_path, tmp_path / "hf")
    assert set(ds["group_id"]) == {"contacts_add-0-e0"} and sorted(set(ds["branch"])) == [0, 1, 2, 3]
    assert not any(ds["prefix"])  # branched at the pristine state: no action is shared
    export_minari(tmp_path, "crab-gym/group-test-v0", data_path=tmp_path / "minari")
    import minari

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
        dataset = minari.load_dataset("crab-gym/group-test-v0")
        meta = list(dataset.storage.get_episode_metadata(range(dataset.total_episodes)))
    assert {m["group_id"] for m in meta} == {"contacts_add-0-e0"}
    assert sorted(int(m["group_branch"]) for m in meta) == [0, 1, 2, 3]


def test_hf_rows_mark_the_shared_prefix(tmp_path):
    from crab_gym.episode.hf_export import export_hf

    collect(tmp_path, agent="random", tasks=TASK, num_envs=1, progress=False, group=2, branch_at=2,
            env_kwargs={"max_steps": 4, **SMALL})  # fmt: skip
    ds = export_hf(tmp_path, tmp_path / "hf")
    rows = ds.select_columns(["branch", "step", "prefix"])
    assert [(r["branch"], r["step"], r["prefix"]) for r in rows] == [
        (b, t, t <= 2) for b in (0, 1) for t in range(1, 5)
    ]


def test_a_branch_step_past_the_episode_end_is_a_clear_error(tmp_path):
    # the oracle ends contacts_add-0 (complete) long before step 25
    with pytest.raises(GroupError, match="beyond the end of the episode.*contacts_add-0.*ended with success"):
        collect(tmp_path, agent="oracle", tasks=TASK, num_envs=1, progress=False, group=2, branch_at=25,
                env_kwargs={"max_steps": 30})  # fmt: skip
    assert not list(load_episodes(tmp_path))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--group", "0"], "--group must be at least 1"),
        (["--group", "2", "--branch-at", "-1"], "--branch-at must be a step >= 0"),
        (["--group", "2", "--branch-at", "30", "--max-steps", "30"], "beyond the episode's end"),
        (["--branch-at", "3"], "--branch-at needs --group"),
    ],
)
def test_bad_group_arguments_are_one_line_errors(tmp_path, capsys, args, message):
    assert main(["collect", "--out", str(tmp_path / "run"), "--tasks", TASK[0], *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
