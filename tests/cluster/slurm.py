"""A real single-node SLURM cluster with accounting, for tests: install, configure, start, stop.

Every daemon (munged, mariadbd, slurmdbd, slurmctld, slurmd) runs in the foreground as a child of the test
process, with its configuration, state, sockets and logs under one temporary directory, and is stopped by its
pid. The SLURM executor plugin checks job states with `sacct`, so accounting (slurmdbd on MariaDB) is not
optional. Needs root (the daemons run as root) and Debian's packages, which are installed when missing.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

PACKAGES = ("slurm-wlm", "slurmdbd", "munge", "mariadb-server")
DAEMONS = ("munged", "mariadbd", "mariadb-install-db", "slurmdbd", "slurmctld", "slurmd", "sbatch", "sacct")
CLUSTER = "decoders"
SYSTEM_CONF = Path("/etc/slurm/slurm.conf")
MARKER = "# written by the project's SLURM test (tests/cluster/slurm.py); removed when the test cluster stops"


def _left_by_a_test_run(link: Path) -> bool:
    """Whether `link` points at a configuration this test wrote (its first line is MARKER, or, before the marker
    existed, its cluster name and pid files are ours) whose controller is no longer running."""
    try:
        lines = link.read_text().splitlines()
    except OSError:
        return False
    settings = dict(line.split("=", 1) for line in lines if "=" in line and not line.startswith("#"))
    ours = (lines[:1] == [MARKER]) or (
        settings.get("ClusterName") == CLUSTER and "pytest-of-" in settings.get("SlurmctldPidFile", "")
    )
    if not ours:
        return False
    pid_file = Path(settings.get("SlurmctldPidFile", "/nonexistent"))
    try:
        pid = int(pid_file.read_text().strip())
    except (OSError, ValueError):
        return True
    return not Path(f"/proc/{pid}").exists()


ACCOUNT = "bench"


class ClusterError(RuntimeError):
    """A daemon did not start, or a SLURM command failed; the message includes the daemon's log."""


def install_packages() -> None:
    """apt-get install the Debian packages of a SLURM cluster unless every program is already there."""
    if all(_which(name) for name in DAEMONS):
        return
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-q"], check=True, env=env, capture_output=True, text=True)
    result = subprocess.run(
        ["apt-get", "install", "-y", "-q", "--no-install-recommends", *PACKAGES],
        env=env,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise ClusterError(f"apt-get install {' '.join(PACKAGES)} failed:\n{result.stdout}\n{result.stderr}")
    missing = [name for name in DAEMONS if not _which(name)]
    if missing:
        raise ClusterError(f"installed {' '.join(PACKAGES)} but still missing: {', '.join(missing)}")


def _which(name: str) -> str | None:
    """Find a program also in the sbin folders, which a non-login PATH may lack."""
    return shutil.which(name, path=f"{os.environ.get('PATH', '')}:/usr/sbin:/sbin:/usr/bin")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _mem_total_mb() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) // 1024
    raise ClusterError("no MemTotal in /proc/meminfo")


class SlurmCluster:
    """One node (this machine, all its CPUs) in one partition `debug`, accounting through slurmdbd.

    Use as a context manager, or call start() and stop(). `env` is the environment clients (sbatch, sacct,
    Snakemake) need: SLURM_CONF pointing at this cluster's slurm.conf.
    """

    def __init__(self, root: Path):
        self.root = Path(root)
        self.etc = self.root / "etc"
        self.run = self.root / "run"
        self.logs = self.root / "log"
        self.processes: dict[str, subprocess.Popen] = {}
        self.linked_conf = False
        self.node = socket.gethostname()
        # at least 2 CPUs, as a decode group of the test configuration's 2 shards asks for: on a 1-CPU machine
        # the node claims 2 (config_overrides), which only slows that group down
        self.cpus = max(os.cpu_count() or 1, 2)
        self.munge_socket = self.run / "munge.socket"
        self.mysql_socket = self.run / "mysqld.sock"
        self.ports = {name: _free_port() for name in ("mysql", "dbd", "ctld", "slurmd")}
        self.env = {**os.environ, "SLURM_CONF": str(self.etc / "slurm.conf")}

    def __enter__(self) -> SlurmCluster:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- configuration -------------------------------------------------------------------------------------

    def write_config(self) -> None:
        for folder in (
            self.etc,
            self.run,
            self.logs,
            self.root / "state",
            self.root / "spool",
            self.root / "db",
        ):
            folder.mkdir(parents=True, exist_ok=True)
        self.root.chmod(0o755)
        self.run.chmod(0o755)
        auth = f"AuthType=auth/munge\nAuthInfo=socket={self.munge_socket}\n"
        slurm_conf = (
            f"{MARKER}\n"
            f"ClusterName={CLUSTER}\n"
            f"SlurmctldHost={self.node}\n"
            f"SlurmctldPort={self.ports['ctld']}\n"
            f"SlurmdPort={self.ports['slurmd']}\n"
            "SlurmUser=root\nSlurmdUser=root\n"
            f"{auth}CredType=cred/munge\n"
            f"StateSaveLocation={self.root / 'state'}\n"
            f"SlurmdSpoolDir={self.root / 'spool'}\n"
            f"SlurmctldPidFile={self.run / 'slurmctld.pid'}\n"
            f"SlurmdPidFile={self.run / 'slurmd.pid'}\n"
            f"SlurmctldLogFile={self.logs / 'slurmctld.log'}\n"
            f"SlurmdLogFile={self.logs / 'slurmd.log'}\n"
            "SlurmctldDebug=info\nSlurmdDebug=info\n"
            "MpiDefault=none\nReturnToService=2\nSchedulerType=sched/backfill\n"
            "SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU_Memory\n"
            "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
            "JobAcctGatherType=jobacct_gather/linux\nJobAcctGatherFrequency=5\n"
            "AccountingStorageType=accounting_storage/slurmdbd\n"
            f"AccountingStorageHost={self.node}\nAccountingStoragePort={self.ports['dbd']}\n"
            # connections to slurmdbd take their munge socket from here, not from AuthInfo
            f"AccountingStoragePass={self.munge_socket}\n"
            "AccountingStorageEnforce=associations\nAccountingStoreFlags=job_comment\n"
            "JobCompType=jobcomp/none\nMinJobAge=300\nKillWait=5\n"
            "PlugStackConfig=/dev/null\n"
            "SlurmdParameters=config_overrides\n"  # the node may claim more CPUs than the machine has (see cpus)
            f"NodeName={self.node} NodeAddr=127.0.0.1 CPUs={self.cpus} RealMemory={_mem_total_mb() - 512} "
            "State=UNKNOWN\n"
            "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n"
        )
        (self.etc / "slurm.conf").write_text(slurm_conf)
        dbd_conf = self.etc / "slurmdbd.conf"
        dbd_conf.write_text(
            f"{auth}DbdHost={self.node}\nDbdPort={self.ports['dbd']}\nSlurmUser=root\n"
            f"PidFile={self.run / 'slurmdbd.pid'}\nLogFile={self.logs / 'slurmdbd.log'}\nDebugLevel=info\n"
            "StorageType=accounting_storage/mysql\n"
            f"StorageHost=127.0.0.1\nStoragePort={self.ports['mysql']}\n"
            "StorageUser=slurm\nStoragePass=slurm\nStorageLoc=slurm_acct_db\n"
        )
        dbd_conf.chmod(0o600)  # slurmdbd refuses a readable file holding the database password
        self._link_system_config()

    def _link_system_config(self) -> None:
        """Link /etc/slurm/slurm.conf to this cluster's file (removed by stop()). Clients find the cluster through
        SLURM_CONF, but the executor plugin's job step strips SLURM_* variables before it calls srun, which then
        reads the default path, as on a real cluster. An existing configuration is never replaced."""
        if SYSTEM_CONF.is_symlink() and not SYSTEM_CONF.exists():
            SYSTEM_CONF.unlink()  # left dangling by a test run that was killed
        if SYSTEM_CONF.is_symlink() and _left_by_a_test_run(SYSTEM_CONF):
            SYSTEM_CONF.unlink()  # a test run that was killed left its link (and its files) behind
        if SYSTEM_CONF.exists() or SYSTEM_CONF.is_symlink():
            raise ClusterError(
                f"{SYSTEM_CONF} exists: this machine has a SLURM configuration, not replacing it"
            )
        SYSTEM_CONF.parent.mkdir(parents=True, exist_ok=True)
        SYSTEM_CONF.symlink_to(self.etc / "slurm.conf")
        self.linked_conf = True

    # -- daemons -------------------------------------------------------------------------------------------

    def _spawn(self, name: str, command: list[str]) -> subprocess.Popen:
        log = (self.logs / f"{name}.out").open("ab")
        process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, env=self.env, start_new_session=True
        )
        log.close()
        self.processes[name] = process
        return process

    def _wait_for(self, name: str, ready, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            process = self.processes.get(name)
            if process is not None and process.poll() is not None:
                raise ClusterError(f"{name} exited with {process.returncode}:\n{self.log_tail(name)}")
            if ready():
                return
            time.sleep(0.5)
        raise ClusterError(f"{name} not ready after {timeout:.0f} s:\n{self.log_tail(name)}")

    def log_tail(self, name: str, chars: int = 3000) -> str:
        texts = []
        for path in sorted(self.logs.glob(f"{name}*")):
            texts.append(f"--- {path}\n{path.read_text(errors='replace')[-chars:]}")
        return "\n".join(texts) or "(no log)"

    def _ok(self, *command: str) -> bool:
        return subprocess.run(command, env=self.env, capture_output=True).returncode == 0

    def command(self, *command: str, timeout: float = 60) -> str:
        """Run a SLURM client command against this cluster and return its stdout (raises on failure)."""
        result = subprocess.run(command, env=self.env, capture_output=True, text=True, timeout=timeout)
        if result.returncode != 0:
            raise ClusterError(f"{' '.join(command)} failed ({result.returncode}):\n{result.stderr}")
        return result.stdout

    def start(self) -> None:
        install_packages()
        self.write_config()
        key = self.etc / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        self._spawn(
            "munged",
            [
                _which("munged"),
                "--foreground",
                "--force",  # the temporary folders are not laid out the way munged's strict checks expect
                f"--key-file={key}",
                f"--socket={self.munge_socket}",
                f"--pid-file={self.run / 'munged.pid'}",
                f"--log-file={self.logs / 'munged.log'}",
                f"--seed-file={self.run / 'munged.seed'}",
            ],
        )
        self._wait_for("munged", self.munge_socket.exists)

        datadir = self.root / "db"
        install = subprocess.run(
            [
                _which("mariadb-install-db"),
                f"--datadir={datadir}",
                "--user=root",
                "--auth-root-authentication-method=socket",
            ],
            capture_output=True,
            text=True,
        )
        if install.returncode != 0:
            raise ClusterError(f"mariadb-install-db failed:\n{install.stdout}\n{install.stderr}")
        self._spawn(
            "mariadbd",
            [
                _which("mariadbd"),
                "--no-defaults",
                f"--datadir={datadir}",
                "--user=root",
                f"--socket={self.mysql_socket}",
                f"--pid-file={self.run / 'mariadbd.pid'}",
                f"--port={self.ports['mysql']}",
                "--bind-address=127.0.0.1",
                "--skip-name-resolve",
                "--innodb-buffer-pool-size=64M",
                "--innodb-lock-wait-timeout=900",  # slurmdbd's recommended setting
            ],
        )
        client = [_which("mariadb") or _which("mysql"), f"--socket={self.mysql_socket}", "-u", "root"]
        self._wait_for("mariadbd", lambda: self._ok(*client, "-e", "SELECT 1"))
        subprocess.run(
            [
                *client,
                "-e",
                "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurm';"
                "GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1'; FLUSH PRIVILEGES;",
            ],
            check=True,
            capture_output=True,
        )

        self._spawn("slurmdbd", [_which("slurmdbd"), "-D"])
        self._wait_for("slurmdbd", lambda: self._ok("sacctmgr", "-n", "list", "cluster"), timeout=90)
        self.command("sacctmgr", "-i", "add", "cluster", CLUSTER)
        self.command("sacctmgr", "-i", "add", "account", ACCOUNT, f"cluster={CLUSTER}")
        self.command("sacctmgr", "-i", "add", "user", "root", f"account={ACCOUNT}", f"cluster={CLUSTER}")

        self._spawn("slurmctld", [_which("slurmctld"), "-D", "-i"])
        self._wait_for("slurmctld", lambda: self._ok("scontrol", "ping"), timeout=90)
        self._spawn("slurmd", [_which("slurmd"), "-D", "-N", self.node])
        self._wait_for("slurmd", self._node_idle, timeout=90)

    def command_ok_output(self, *command: str) -> str:
        """stdout of a client command, empty when it fails (for polling while daemons stop)."""
        result = subprocess.run(command, env=self.env, capture_output=True, text=True)
        return result.stdout.strip() if result.returncode == 0 else ""

    def _node_idle(self) -> bool:
        result = subprocess.run(
            ["sinfo", "-h", "-N", "-o", "%T"], env=self.env, capture_output=True, text=True
        )
        return result.returncode == 0 and result.stdout.strip().rstrip("*") == "idle"

    def stop(self) -> None:
        """Cancel this cluster's jobs, then stop the daemons in reverse start order (SIGTERM, SIGKILL after
        30 s). Idempotent."""
        ctld = self.processes.get("slurmctld")
        if ctld is not None and ctld.poll() is None:
            subprocess.run(["scancel", "--full", "--user=root"], env=self.env, capture_output=True)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and self.command_ok_output("squeue", "-h", "-o", "%i"):
                time.sleep(1)
        for name, process in reversed(list(self.processes.items())):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=30)
            del self.processes[name]
        if (
            self.linked_conf
            and SYSTEM_CONF.is_symlink()
            and SYSTEM_CONF.resolve() == (self.etc / "slurm.conf").resolve()
        ):
            SYSTEM_CONF.unlink()
        self.linked_conf = False
