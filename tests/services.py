"""Real services the fleet tests start and stop themselves: a one-node Slurm cluster (munged, slurmctld,
slurmd from Debian's slurm-wlm and munge) and Debian's prometheus-node-exporter. Every daemon is started in
the foreground as a child of the test, its config and state in a temporary directory, and stopped by its PID
(SIGTERM, then SIGKILL), even when the test fails. Loopback addresses only.
"""
from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from typing import Iterator, Optional

SLURM_TOOLS = ("munged", "mungekey", "slurmctld", "slurmd", "sbatch", "sinfo")
NODE_EXPORTER = "prometheus-node-exporter"


def missing_slurm() -> Optional[str]:
    """Why the Slurm cluster can't be started here, or None."""
    absent = [t for t in SLURM_TOOLS if shutil.which(t) is None and not os.path.exists(f"/usr/sbin/{t}")]
    if absent:
        return f"{', '.join(absent)} not installed (apt-get install slurm-wlm munge; .ci/run does)"
    if os.geteuid() != 0:
        return "the one-node Slurm cluster needs root (SlurmUser=root, munged as the munge user)"
    try:
        pwd.getpwnam("munge")
    except KeyError:
        return "no munge user (apt-get install munge creates it)"
    return None


def missing_node_exporter() -> Optional[str]:
    if shutil.which(NODE_EXPORTER) is None and not os.path.exists(f"/usr/bin/{NODE_EXPORTER}"):
        return f"{NODE_EXPORTER} not installed (apt-get install prometheus-node-exporter; .ci/run does)"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tool(name: str) -> str:
    return shutil.which(name) or f"/usr/sbin/{name}"


def _stop(proc: subprocess.Popen) -> None:
    """Stop one daemon we started, by its PID: SIGTERM, then SIGKILL after 10 s."""
    if proc.poll() is not None:
        return
    os.kill(proc.pid, signal.SIGTERM)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)


def _wait_for(check, what: str, log: str, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    tail = ""
    if os.path.exists(log):
        with open(log, errors="replace") as fh:
            tail = fh.read()[-2000:]
    raise RuntimeError(f"{what} did not come up in {timeout_s:.0f} s; log tail:\n{tail}")


class SlurmCluster:
    """What a test needs to talk to the cluster: the environment (SLURM_CONF) and the work directory."""

    def __init__(self, root: str, env: dict) -> None:
        self.root = root
        self.env = env

    def run(self, args, **kwargs) -> subprocess.CompletedProcess:
        kwargs.setdefault("env", self.env)
        kwargs.setdefault("timeout", 300)
        return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                              **kwargs)


@contextlib.contextmanager
def slurm_cluster(cpus: int = 2) -> Iterator[SlurmCluster]:
    """munged + slurmctld + slurmd on this machine, all in a temporary directory."""
    root = tempfile.mkdtemp(prefix="phasewrap-slurm-")
    os.chmod(root, 0o755)  # munged (the munge user) must reach its own directory below
    munge_dir = os.path.join(root, "munge")
    os.mkdir(munge_dir)
    os.chmod(munge_dir, 0o755)  # munged wants its socket directory searchable by all (the key stays 0600)
    munge = pwd.getpwnam("munge")
    os.chown(munge_dir, munge.pw_uid, munge.pw_gid)
    for sub in ("state", "spool", "log"):
        os.mkdir(os.path.join(root, sub))
    key = os.path.join(munge_dir, "munge.key")
    sock = os.path.join(munge_dir, "munge.socket")
    procs: list = []
    try:
        subprocess.run([_tool("mungekey"), "-c", "-k", key], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=30)
        os.chown(key, munge.pw_uid, munge.pw_gid)
        os.chmod(key, 0o600)
        munge_log = os.path.join(munge_dir, "munged.log")
        procs.append(subprocess.Popen(
            [_tool("munged"), "-F", f"--socket={sock}", f"--key-file={key}", f"--log-file={munge_log}",
             f"--pid-file={munge_dir}/munged.pid", f"--seed-file={munge_dir}/munged.seed"],
            user=munge.pw_uid, group=munge.pw_gid, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL))
        _wait_for(lambda: os.path.exists(sock), "munged", munge_log)
        node = socket.gethostname().split(".")[0]
        conf = os.path.join(root, "slurm.conf")
        with open(conf, "w") as fh:
            fh.write(f"""ClusterName=phasewrap-test
SlurmctldHost={node}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={sock}
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd.pid
SlurmctldLogFile={root}/log/slurmctld.log
SlurmdLogFile={root}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmdTimeout=30
NodeName={node} NodeAddr=127.0.0.1 NodeHostname={node} CPUs={cpus} State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
""")
        env = {**os.environ, "SLURM_CONF": conf}
        for var in [k for k in env if k.startswith("SLURM_") and k != "SLURM_CONF"]:
            del env[var]
        for daemon in ("slurmctld", "slurmd"):
            procs.append(subprocess.Popen([_tool(daemon), "-D", "-f", conf], env=env, stdin=subprocess.DEVNULL,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

        def node_idle() -> bool:
            for proc in procs:
                if proc.poll() is not None:
                    raise RuntimeError(f"{proc.args[0]} exited with {proc.returncode}; see {root}/log")
            out = subprocess.run([_tool("sinfo"), "-h", "-N", "-o", "%T"], env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, timeout=30)
            return out.returncode == 0 and out.stdout.strip() == b"idle"

        _wait_for(node_idle, "the Slurm node", os.path.join(root, "log", "slurmctld.log"))
        yield SlurmCluster(root, env)
    finally:
        for proc in reversed(procs):
            _stop(proc)
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def node_exporter(textfile_dir: str) -> Iterator[str]:
    """prometheus-node-exporter on a free 127.0.0.1 port with only the textfile collector; yields the
    /metrics URL."""
    port = free_port()
    log = os.path.join(textfile_dir, "..", "node_exporter.log")
    with open(log, "wb") as out:
        proc = subprocess.Popen([shutil.which(NODE_EXPORTER) or f"/usr/bin/{NODE_EXPORTER}",
                                 f"--web.listen-address=127.0.0.1:{port}", "--collector.disable-defaults",
                                 "--collector.textfile", f"--collector.textfile.directory={textfile_dir}"],
                                stdin=subprocess.DEVNULL, stdout=out, stderr=out)
    url = f"http://127.0.0.1:{port}/metrics"
    try:
        def up() -> bool:
            if proc.poll() is not None:
                raise RuntimeError(f"{NODE_EXPORTER} exited with {proc.returncode}; see {log}")
            try:
                with urllib.request.urlopen(url, timeout=2):
                    return True
            except OSError:
                return False

        _wait_for(up, NODE_EXPORTER, log)
        yield url
    finally:
        _stop(proc)


def scrape(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read().decode("utf-8")
