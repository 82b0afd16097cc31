"""One local Ray (2 CPUs) for the distributed tests, started once and shut down at the end."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def local_ray():
    ray = pytest.importorskip("ray")
    if ray.is_initialized():  # another test module started it
        yield ray
        return
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()
