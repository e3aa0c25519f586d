"""A real SLURM cluster for the tests: munge, slurmctld and one slurmd (SLURM 22.05 from the OS packages) on 127.0.0.1,
configured in a temporary folder, and stopped by PID with nothing of it left running.

One node with the machine's (at most 2) CPUs, one partition, no accounting (as many small clusters): what
``apt-get install -y slurmctld slurmd slurm-client munge`` gives a root user, with a generated ``slurm.conf``. Its own
munge key and socket, its own ports, state and spool folders, so it touches no system configuration and no other
cluster; every SLURM command of the tests (and of skillbench in their subprocesses) finds it through ``SLURM_CONF``.

Timings differ from a production cluster's defaults on purpose, to keep the fault tests short: ``KillWait=5`` (30 s
by default: SIGTERM to SIGKILL), ``SlurmdTimeout=10`` (300 s: how long a silent node stays up), ``cred_expire=10``
(120 s: how long a requeued job waits before it may start again), ``sched_interval=1`` (60 s: how often the main
scheduler looks at every pending job; a requeued task whose hold has passed, or one on a resumed node, waited up to
a minute for it), ``bf_interval=1`` (30 s: the backfill scheduler's) and ``batch_sched_delay=0`` (3 s: how long a
submitted batch job may wait for the scheduler). docs/cluster.md gives both.

``unavailable()`` says why it cannot run here (not root, packages missing); the tests skip with that reason.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from skillbench.core.scheduler import ENDED_STATES

PACKAGES = "slurmctld slurmd slurm-client munge"
COMMANDS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "scancel", "sinfo")
PARTITION = "debug"
KILL_WAIT_S = 5


def unavailable() -> str | None:
    """Why a real SLURM cannot be started here (None: it can)."""
    if not sys.platform.startswith("linux"):
        return "a real SLURM needs Linux"
    if os.geteuid() != 0:
        return "a real SLURM needs root here (munged, slurmctld and slurmd run as root and jobs run as their user)"
    missing = [command for command in COMMANDS if shutil.which(command) is None]
    if missing:
        return (f"SLURM is not installed ({', '.join(missing)} missing): apt-get install -y {PACKAGES} "
                "(.ci/run installs them)")
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _alive(pid: int) -> bool:
    """Running (a zombie, ended but not yet reaped by whoever adopted it, is not)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def _on_the_node(pid: int) -> bool:
    """slurmd, a slurmstepd, or a process of a job (what a node's death takes; not the controller, not a launcher)."""
    try:
        name = Path(f"/proc/{pid}/comm").read_text().strip()
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return False
    return name in ("slurmd", "slurmstepd") or any(item.startswith(b"SLURM_JOB_ID=") for item in environ)


@dataclass
class SlurmCluster:
    """A running cluster of one node: its folder, its node and partition, its daemons' PIDs."""

    root: Path
    node: str
    cpus: int
    started_in_s: float = 0.0  # from the first daemon's start to the node idle
    pids: dict[str, int] = field(default_factory=dict)

    @property
    def conf(self) -> Path:
        return self.root / "slurm.conf"

    @property
    def env(self) -> dict[str, str]:
        """The environment of a process that uses this cluster (skillbench launched by a test)."""
        return {**os.environ, "SLURM_CONF": str(self.conf)}

    def run(self, *command: str, check: bool = True, timeout: float = 60) -> str:
        done = subprocess.run(list(command), env=self.env, capture_output=True, text=True, timeout=timeout, check=False)
        if check and done.returncode != 0:
            raise AssertionError(f"{' '.join(command)}: exit {done.returncode}: {done.stderr.strip()}")
        return done.stdout

    def tasks(self, job_id: str | None = None) -> dict[str, tuple[str, str]]:
        """Task id → (state, reason) of every job the controller knows (or of ``job_id``'s), ended ones too."""
        args = ["squeue", "--noheader", "--array", "--states=all", "--format=%i|%T|%r"]
        out = self.run(*args, *([f"--jobs={job_id}"] if job_id else []), check=False)
        return {task: (state, reason) for task, state, reason in
                (line.split("|", 2) for line in out.splitlines() if line.count("|") == 2)}

    def node_state(self) -> str:
        return self.run("sinfo", "--noheader", f"--nodes={self.node}", "--format=%T", check=False).strip()

    def wait_until(self, condition: object, what: str, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while not condition():  # type: ignore[operator]
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what} (node {self.node_state()!r}, "
                                     f"queue {self.tasks()})")
            time.sleep(0.2)

    def wait_idle(self, timeout: float = 120) -> None:
        self.wait_until(lambda: self.node_state() == "idle", "the node to be idle", timeout)

    # The faults a test injects ------------------------------------------------------------------------------

    def start_node(self) -> None:
        self._daemon("slurmd", ["slurmd", "-N", self.node], self.root / "slurmd.pid")

    def lose_node(self) -> list[int]:
        """The node dies as if it lost power: slurmd and every process of its jobs are killed (SIGKILL) at once.
        Returns what was killed. The controller notices after SlurmdTimeout."""
        victims = [pid for pid in self._processes() if _on_the_node(pid)]
        for pid in victims:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        self.pids.pop("slurmd", None)
        return victims

    def resume_node(self) -> None:
        self.run("scontrol", "update", f"nodename={self.node}", "state=resume")

    # Stopping ----------------------------------------------------------------------------------------------------

    def stop(self) -> list[int]:
        """Cancel every job, stop the daemons by PID, then kill (and return) any process of the cluster still running:
        after this nothing started by this cluster runs."""
        if self.pids.get("slurmctld") and _alive(self.pids["slurmctld"]):
            self.run("scancel", "--full", "--user=root", check=False)  # every job of this cluster (all run as root)
            with contextlib.suppress(AssertionError):
                self.wait_until(lambda: not any(s not in ENDED_STATES for s, _ in self.tasks().values()), "jobs to end",
                                timeout=KILL_WAIT_S + 30)
        for name in ("slurmd", "slurmctld", "munged"):
            pid = self.pids.pop(name, None)
            if pid is not None and _alive(pid):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGTERM)
                deadline = time.monotonic() + 15
                while _alive(pid) and time.monotonic() < deadline:
                    time.sleep(0.1)
                if _alive(pid):
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)
        leftovers = self._processes()
        for pid in leftovers:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in leftovers) and time.monotonic() < deadline:
            time.sleep(0.1)
        return leftovers

    def _processes(self) -> list[int]:
        """Every running process of this cluster: its daemons and whatever they started (their environment names this
        cluster's slurm.conf), never this test process."""
        marker = f"SLURM_CONF={self.conf}".encode()
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == os.getpid():
                continue
            try:
                environ = Path(f"/proc/{entry}/environ").read_bytes()
            except OSError:
                continue
            if marker in environ.split(b"\0") and _alive(int(entry)):
                found.append(int(entry))
        return found

    def _daemon(self, name: str, command: list[str], pid_file: Path) -> None:
        pid_file.unlink(missing_ok=True)
        subprocess.run(command, env=self.env, check=True, capture_output=True, timeout=60)
        deadline = time.monotonic() + 30
        while not pid_file.exists() or not pid_file.read_text().strip():
            if time.monotonic() > deadline:
                raise AssertionError(f"{name} wrote no pid file; its log: {self.root / 'log'}")
            time.sleep(0.05)
        self.pids[name] = int(pid_file.read_text().strip())


def _config(root: Path, node: str, cpus: int, memory_mb: int) -> str:
    return "\n".join([
        "ClusterName=skillbench-test",
        f"SlurmctldHost={node}(127.0.0.1)",
        f"SlurmctldPort={_free_port()}",
        f"SlurmdPort={_free_port()}",
        "SlurmUser=root",
        "SlurmdUser=root",
        "AuthType=auth/munge",
        f"AuthInfo=socket={root / 'munge.socket'},cred_expire=10",
        "CredType=cred/munge",
        f"StateSaveLocation={root / 'state'}",
        f"SlurmdSpoolDir={root / 'spool'}",
        f"SlurmctldPidFile={root / 'slurmctld.pid'}",
        f"SlurmdPidFile={root / 'slurmd.pid'}",
        f"SlurmctldLogFile={root / 'log' / 'slurmctld.log'}",
        f"SlurmdLogFile={root / 'log' / 'slurmd.log'}",
        f"PlugStackConfig={root / 'plugstack.conf'}",
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_CPU",
        "AccountingStorageType=accounting_storage/none",
        "JobAcctGatherType=jobacct_gather/none",
        "JobCompType=jobcomp/none",
        "MpiDefault=none",
        "MailProg=/bin/true",
        "ReturnToService=2",
        f"KillWait={KILL_WAIT_S}",
        "SchedulerParameters=sched_interval=1,bf_interval=1,batch_sched_delay=0",
        "SlurmdTimeout=10",
        "InactiveLimit=0",
        f"NodeName={node} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={memory_mb} State=UNKNOWN",
        f"PartitionName={PARTITION} Nodes={node} Default=YES MaxTime=INFINITE State=UP",
        "",
    ])


def _memory_mb() -> int:
    """What slurmd will find (a node configured with more than it has is drained), capped: the tasks need little."""
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return min(8192, int(line.split()[1]) // 1024 - 256)
    return 2048


@contextlib.contextmanager
def slurm_cluster(logs: Path | None = None) -> Iterator[SlurmCluster]:
    """Start the cluster (until its node is idle), yield it, stop it; fails if anything of it is left running.
    ``logs``: where the daemons' logs are copied when it stops (its own folder is removed)."""
    # Short path: munge's socket path must fit in 108 bytes.
    root = Path(tempfile.mkdtemp(prefix="sb-slurm-"))
    for folder in ("state", "spool", "log"):
        (root / folder).mkdir()
    (root / "plugstack.conf").write_text("")
    key = root / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o400)
    cluster = SlurmCluster(root=root, node=socket.gethostname().split(".")[0], cpus=min(2, os.cpu_count() or 1))
    cluster.conf.write_text(_config(root, cluster.node, cluster.cpus, _memory_mb()))
    started = time.monotonic()
    try:
        cluster._daemon("munged", ["munged", "--force", f"--socket={root / 'munge.socket'}", f"--key-file={key}",
                                   f"--pid-file={root / 'munged.pid'}", f"--log-file={root / 'log' / 'munged.log'}",
                                   f"--seed-file={root / 'munge.seed'}"], root / "munged.pid")
        cluster._daemon("slurmctld", ["slurmctld"], root / "slurmctld.pid")
        cluster.start_node()
        cluster.wait_idle(timeout=60)
        cluster.started_in_s = time.monotonic() - started
        yield cluster
    finally:
        leftovers = cluster.stop()  # killed by now: the check below only says that they had been left running
        if logs is not None:
            shutil.copytree(root / "log", logs, dirs_exist_ok=True)
        still = cluster._processes()
        if not still:
            shutil.rmtree(root, ignore_errors=True)
        assert not still, f"processes of the test cluster still running after SIGKILL: {still}"
        assert not leftovers, (f"processes of the test cluster were left running after its jobs were cancelled and its "
                               f"daemons stopped (killed): {leftovers}")
