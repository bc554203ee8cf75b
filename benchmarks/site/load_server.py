"""The load benchmark's settings, results and server side (see ``load.py``).

The server side of a run is a *site* of one configuration (``CONFIGS``): one
``elferraus serve`` on SQLite, or one on PostgreSQL, or several on PostgreSQL
and Redis behind nginx. PostgreSQL, Redis and nginx are started as the tests
start them (``tests/support/postgres_helpers.py``, ``tests/support/cluster_helpers.py``: each
on a free port in a temporary folder). A site knows the process of each of its
parts, so that every part's CPU time is measured and every part can be pinned.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from elferraus.arena.stats import percentile
from tests.support.web_helpers import free_port

SEATS = 4
THINK_FLOOR = 0.05
"""The sweep never lets a person think less than this (the server allows 20 frames/s per connection)."""
CLIENT_BOUND = 0.9
"""Share of its core at which this client process counts as the bottleneck."""
HTTP_CONCURRENCY = 16
CONNECT_CONCURRENCY = 64
"""The tests' helpers, which start PostgreSQL, Redis, nginx and a cluster of processes."""

CONFIGS = {
    "sqlite": "one process on SQLite",
    "pg1": "one process on PostgreSQL",
    "pg2": "two processes on PostgreSQL + Redis, behind nginx",
    "site3": "three processes on PostgreSQL + Redis, behind nginx",
}
"""The server sides a run can play against, by name."""


# -- settings and results -------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    rooms: int
    seconds: float
    warmup: float
    think: tuple[float, float]
    computers: int
    level: str
    pace: float
    rounds: int
    policy: str
    seed: int
    compression: bool
    grace: float
    think_workers: int | None = None
    """``elferraus serve --think-workers`` of every server process (None: the server's default)."""

    @property
    def serve_args(self) -> list[str]:
        """The options of ``elferraus serve`` these settings add."""
        return [] if self.think_workers is None else ["--think-workers", str(self.think_workers)]

    @property
    def people(self) -> int:
        return SEATS - self.computers

    @property
    def target_rate(self) -> float:
        """Moves/s if the server answered instantly (computers taking only the pace)."""
        mean_think = (self.think[0] + self.think[1]) / 2
        per_move = (self.people * mean_think + self.computers * self.pace) / SEATS
        return self.rooms / per_move if per_move > 0 else float("inf")


@dataclass
class RunResult:
    settings: dict[str, Any]
    sockets: int = 0
    setup_seconds: float = 0.0
    measured_seconds: float = 0.0
    moves: int = 0
    """People's moves sent in the measured window and delivered to everyone."""
    moves_per_s: float = 0.0
    all_moves_per_s: float = 0.0
    """Every move (computers' too) that the hosts saw in the measured window, per second."""
    latency_ms: dict[str, float | None] = field(default_factory=dict)
    moves_sent: int = 0
    moves_acknowledged: int = 0
    moves_verified: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    error_samples: list[str] = field(default_factory=list)
    lost: int = 0
    lost_samples: list[str] = field(default_factory=list)
    undelivered: int = 0
    dropped: int = 0
    connect_failures: int = 0
    games_finished: int = 0
    server_cpu_s: float = 0.0
    server_cpu_share: float = 0.0
    server_peak_rss_mb: float = 0.0
    server_exit: str | None = None
    """None while every part of the server side ran to the end; else which one exited, and how."""
    client_cpu_s: float = 0.0
    client_cpu_share: float = 0.0
    client_peak_rss_mb: float = 0.0
    client_loop_lag_ms: dict[str, float | None] = field(default_factory=dict)
    ping_ms: dict[str, float | None] = field(default_factory=dict)
    """Round trip of a spectator's ``ping``, sent 10 times a second."""
    computer_moves: int = 0
    """Computers' moves the hosts saw in the measured window, each the only new move of its state."""
    computer_ms: dict[str, float | None] = field(default_factory=dict)
    """How long a computer's move took beyond the room's pace, as its room's host saw it: from the state
    with the move before to the state with the computer's, minus the pace (its thinking, any wait for a
    thinker, storing it and sending it)."""
    load_average: dict[str, float | None] = field(default_factory=dict)
    """The machine's load average over one minute (``/proc/loadavg``) at the start of the measured window,
    its mean and highest over the window (read every 2 s), and at its end: how busy the machine was."""
    target_rate: float = 0.0
    config: str = "sqlite"
    parts: dict[str, dict[str, float | None]] = field(default_factory=dict)
    """Each part of the server side (``serve 1``.., ``postgres``, ``redis``, ``nginx``): its CPU time over the
    measured window (``cpu_s``, ``cpu_share`` of one core) and, for a ``serve`` process, its peak RSS."""

    @property
    def failures(self) -> int:
        failed = sum(self.errors.values()) + self.lost + self.undelivered + self.dropped + self.connect_failures
        return failed + (1 if self.server_exit is not None else 0)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "failures": self.failures}


def summary_ms(values: list[float]) -> dict[str, float | None]:
    """Median, p95, p99 (nearest rank, as the arena reports them) and max, in ms; None without values."""
    ordered = sorted(values)
    if not ordered:
        return {"median": None, "p95": None, "p99": None, "max": None}
    return {
        "median": 1000 * percentile(ordered, 0.5),
        "p95": 1000 * percentile(ordered, 0.95),
        "p99": 1000 * percentile(ordered, 0.99),
        "max": 1000 * ordered[-1],
    }


# -- the server process ---------------------------------------------------------


def pin(pid: int, cpu: int | None) -> None:
    """Pin every thread of ``pid`` (0: this process's calling thread) to ``cpu``."""
    if cpu is None:
        return
    if pid == 0:
        os.sched_setaffinity(0, {cpu})
        return
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError):
                os.sched_setaffinity(int(task), {cpu})


def _stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command's name (field 3 on), or None if it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def process_tree(pid: int) -> list[int]:
    """``pid`` and every process below it (PostgreSQL's backends, nginx's workers), as they are now."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (fields := _stat(int(entry))) is not None:
            children.setdefault(int(fields[1]), []).append(int(entry))
    tree, todo = [], [pid]
    while todo:
        current = todo.pop()
        tree.append(current)
        todo.extend(children.get(current, ()))
    return tree


def tree_cpu_seconds(pid: int) -> float:
    """User + system CPU time so far of ``pid`` and every process below it, with that of the children they
    have waited for (a backend that ended still counts, in its parent's)."""
    ticks = 0
    for member in process_tree(pid):
        fields = _stat(member)
        if fields is not None:
            ticks += sum(int(fields[i]) for i in (11, 12, 13, 14))
    return ticks / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds(pid: int) -> float:
    """User + system CPU time so far of ``pid`` alone (all its threads), without its child processes."""
    fields = _stat(pid)
    return 0.0 if fields is None else sum(int(fields[i]) for i in (11, 12)) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid: int) -> float:
    """``VmHWM`` of ``pid`` in MB (0 when it is gone)."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def pin_tree(pid: int, cpu: int | None) -> None:
    """Pin every thread of ``pid`` and of every process below it to ``cpu`` (processes they start later
    inherit it)."""
    for member in process_tree(pid):
        pin(member, cpu)


class Stoppable(Protocol):
    def stop(self) -> None: ...


RUNNING: set[Stoppable] = set()
"""Servers and sites started and not yet stopped (``main`` stops any left, whatever happened)."""


class Server:
    """``elferraus serve`` on a free loopback port with a fresh database, pinned to a core."""

    def __init__(self, workdir: Path, cpu: int | None, name: str, args: Sequence[str] = ()) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.db = workdir / f"{name}.sqlite3"
        self.log = workdir / f"{name}.log"
        self.cpu = cpu
        self.args = list(args)
        """More options of ``elferraus serve``."""
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = [sys.executable, "-m", "elferraus.cli.main", "serve", "--host", "127.0.0.1"]
        command += ["--port", str(self.port), "--db", str(self.db)]
        # Every simulated table, and every one of its people's connections, comes from this one address.
        command += ["--rooms-per-minute", "0", "--max-connections-per-address", "0", *self.args]
        with self.log.open("ab") as errors:
            self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors)
        RUNNING.add(self)
        pin(self.process.pid, self.cpu)  # the interpreter has no other thread yet; later ones inherit this

    def wait_healthy(self, timeout: float = 30.0) -> None:
        assert self.process is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited ({self.process.returncode}): {self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.base}/healthz", timeout=1) as answer:
                    if answer.read() == b"ok":
                        pin(self.process.pid, self.cpu)
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"the server did not come up within {timeout} s: {self.log_tail()}")

    def cpu_seconds(self) -> float:
        """User + system CPU time of the server process (all threads) so far."""
        assert self.process is not None
        return tree_cpu_seconds(self.process.pid)

    def peak_rss_mb(self) -> float:
        assert self.process is not None
        return peak_rss_mb(self.process.pid)

    def exit_code(self) -> int | None:
        """None while it runs."""
        return self.process.poll() if self.process is not None else None

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        RUNNING.discard(self)

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


# -- sites: the server side of one configuration ---------------------------------


SERVE_LIMITS = ["--rooms-per-minute", "0", "--max-connections-per-address", "0"]
"""Every simulated table, and every one of its people's connections, comes from one address."""


class Site:
    """The server side of one configuration: where clients go (``base``) and the process of each part.

    ``start`` and ``stop`` block (run them in a thread from the event loop); ``stop`` may be called twice.
    """

    config = ""

    def __init__(self, workdir: Path, cpu: int | None, name: str, args: Sequence[str] = ()) -> None:
        self.workdir = workdir
        self.cpu = cpu
        self.name = name
        self.args = list(args)
        """More options of every ``elferraus serve`` of the site."""
        self.base = ""

    def start(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def parts(self) -> dict[str, int]:
        """Each part's name and its (top) process id: ``serve 1``.., and ``postgres``, ``redis``, ``nginx``."""
        raise NotImplementedError

    def down(self) -> str | None:
        """None while every part runs; else which one exited, and how."""
        raise NotImplementedError

    def log_tail(self, lines: int = 20) -> str:
        raise NotImplementedError

    def pin(self) -> None:
        """Pin every thread of every part (its processes too) to this site's CPU, if it has one."""
        for pid in self.parts().values():
            pin_tree(pid, self.cpu)

    def cpu_seconds(self) -> dict[str, float]:
        """Each part's CPU time so far, its processes and their threads together; a ``serve`` process's
        child processes (its thinkers) as a part of their own, ``serve N thinkers``."""
        seconds = {}
        for part, pid in self.parts().items():
            seconds[part] = tree_cpu_seconds(pid)
            if part.startswith("serve"):
                own = own_cpu_seconds(pid)
                if seconds[part] - own > 0:
                    seconds[f"{part} thinkers"] = seconds[part] - own
                seconds[part] = own
        return seconds

    def peak_rss_mb(self) -> dict[str, float]:
        """The peak RSS of each ``serve`` process, and the sum of its child processes' (``serve N thinkers``)."""
        peaks = {}
        for part, pid in self.parts().items():
            if part.startswith("serve"):
                peaks[part] = peak_rss_mb(pid)
                children = sum(peak_rss_mb(child) for child in process_tree(pid) if child != pid)
                if children:
                    peaks[f"{part} thinkers"] = children
        return peaks


class SqliteSite(Site):
    """One process on a fresh SQLite file (the benchmark's first configuration, ``Server``)."""

    config = "sqlite"

    def __init__(self, workdir: Path, cpu: int | None, name: str, args: Sequence[str] = ()) -> None:
        super().__init__(workdir, cpu, name, args)
        self.server = Server(workdir, cpu, name, args)
        self.base = self.server.base

    def start(self) -> None:
        RUNNING.add(self)
        self.server.start()
        self.server.wait_healthy()

    def stop(self) -> None:
        self.server.stop()
        RUNNING.discard(self)

    def parts(self) -> dict[str, int]:
        process = self.server.process
        return {"serve 1": process.pid} if process is not None else {}

    def down(self) -> str | None:
        code = self.server.exit_code()
        return None if code is None else f"serve 1 exited ({code})"

    def log_tail(self, lines: int = 20) -> str:
        return self.server.log_tail(lines)


class ClusterSite(Site):
    """``processes`` processes on a fresh PostgreSQL database; with ``shared``, on one Redis too and behind
    nginx (``tests/support/cluster_helpers.cluster``), else alone and reached directly."""

    def __init__(
        self,
        config: str,
        workdir: Path,
        cpu: int | None,
        name: str,
        processes: int,
        shared: bool,
        args: Sequence[str] = (),
    ) -> None:
        super().__init__(workdir, cpu, name, args)
        self.config = config
        self.processes_wanted = processes
        self.shared = shared
        self.stack = contextlib.ExitStack()
        self.site: Any = None
        self.processes: list[Any] = []
        self.postgres: Any = None

    def start(self) -> None:
        # PostgreSQL, Redis and nginx, started as the tests start them
        from tests.support.cluster_helpers import ServerProcess, cluster
        from tests.support.postgres_helpers import PostgresServer

        RUNNING.add(self)
        if self.shared:
            site = cluster(self.processes_wanted, per_address=0, extra_args=self.args, durable=True)
            self.site = self.stack.enter_context(site)
            self.processes = list(self.site.processes)
            self.postgres = self.site.postgres
            self.base = self.site.url
        else:
            folder = Path(tempfile.mkdtemp(prefix="elferraus-load-pg-"))
            folder.chmod(0o711)  # PostgreSQL runs as its own user (as root) and must reach its folder inside
            self.stack.callback(shutil.rmtree, folder, ignore_errors=True)
            (folder / "postgres").mkdir()
            self.postgres = PostgresServer(folder / "postgres", durable=True)
            self.postgres.start()
            self.stack.callback(_quietly, self.postgres.stop)
            args = ["--db", self.postgres.new_database(), *SERVE_LIMITS, *self.args]
            self.processes = [
                ServerProcess(args, self.workdir / f"{self.name}-process{n}.log", f"process {n}")
                for n in range(self.processes_wanted)
            ]
            for process in self.processes:
                self.stack.callback(process.stop)
                process.start()
            self.base = self.processes[0].url
        self.pin()

    def stop(self) -> None:
        self.stack.close()
        RUNNING.discard(self)

    def parts(self) -> dict[str, int]:
        found = {f"serve {n + 1}": p.pid for n, p in enumerate(self.processes) if p.pid is not None}
        if self.postgres is not None:
            with contextlib.suppress(OSError, ValueError, IndexError):
                found["postgres"] = int((self.postgres.data / "postmaster.pid").read_text().split()[0])
        if self.site is not None:
            for part, server in (("redis", self.site.redis), ("nginx", self.site.nginx)):
                if server.process is not None:
                    found[part] = server.process.pid
        return found

    def down(self) -> str | None:
        for n, process in enumerate(self.processes):
            if not process.running():
                return f"serve {n + 1} exited"
        if self.site is not None:
            for part, server in (("redis", self.site.redis), ("nginx", self.site.nginx)):
                if server.process is None or server.process.poll() is not None:
                    return f"{part} exited"
        return None

    def log_tail(self, lines: int = 20) -> str:
        texts = [
            f"--- serve {n + 1} ---\n" + "\n".join(p.log().splitlines()[-lines:]) for n, p in enumerate(self.processes)
        ]
        if self.site is not None:
            texts.append("--- nginx ---\n" + "\n".join(self.site.nginx.log().splitlines()[-lines:]))
        return "\n".join(texts)


def _quietly(stop: Any) -> None:
    with contextlib.suppress(RuntimeError):
        stop("immediate")


def make_site(config: str, workdir: Path, cpu: int | None, name: str, args: Sequence[str] = ()) -> Site:
    """A site of ``config`` (one of ``CONFIGS``) whose ``elferraus serve`` processes also take ``args``, not
    started."""
    if config == "sqlite":
        return SqliteSite(workdir, cpu, name, args)
    if config == "pg1":
        return ClusterSite(config, workdir, cpu, name, 1, shared=False, args=args)
    if config == "pg2":
        return ClusterSite(config, workdir, cpu, name, 2, shared=True, args=args)
    if config == "site3":
        return ClusterSite(config, workdir, cpu, name, 3, shared=True, args=args)
    raise ValueError(f"no configuration {config!r}: choose from {', '.join(CONFIGS)}")
