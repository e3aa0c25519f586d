"""One real SLURM cluster (tests/support/slurm.py) for the session's cluster tests: started once, stopped at the end with
nothing of it left running; each test gets it with its node idle and back up."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.slurm import SlurmCluster, slurm_cluster, unavailable


@pytest.fixture(scope="session")
def running_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SlurmCluster]:
    why = unavailable()
    if why is not None:
        pytest.skip(why)
    with slurm_cluster(logs=tmp_path_factory.mktemp("slurm-logs")) as cluster:  # kept with the tests' folders
        print(f"\nSLURM cluster up in {cluster.started_in_s:.2f} s (munged, slurmctld, slurmd; node {cluster.node} idle)")
        yield cluster


@pytest.fixture
def cluster(running_cluster: SlurmCluster) -> Iterator[SlurmCluster]:
    running_cluster.wait_idle()
    yield running_cluster
    if "slurmd" not in running_cluster.pids:  # a test that lost the node and failed before bringing it back
        running_cluster.start_node()
    running_cluster.run("scancel", "--full", "--user=root", check=False)
    if running_cluster.node_state() != "idle":  # drained, or down: back in service for the next test
        running_cluster.run("scontrol", "update", f"nodename={running_cluster.node}", "state=resume", check=False)
