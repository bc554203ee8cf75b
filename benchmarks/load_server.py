"""The load benchmark's settings, results and server process (see ``load.py``)."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from elferraus.arena.stats import percentile

SEATS = 4
THINK_FLOOR = 0.05
"""The sweep never lets a person think less than this (the server allows 20 frames/s per connection)."""
CLIENT_BOUND = 0.9
"""Share of its core at which this client process counts as the bottleneck."""
HTTP_CONCURRENCY = 16
CONNECT_CONCURRENCY = 64


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
    server_exit: int | None = None
    client_cpu_s: float = 0.0
    client_cpu_share: float = 0.0
    client_peak_rss_mb: float = 0.0
    client_loop_lag_ms: dict[str, float | None] = field(default_factory=dict)
    ping_ms: dict[str, float | None] = field(default_factory=dict)
    """Round trip of a spectator's ``ping``, sent 10 times a second."""
    target_rate: float = 0.0

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


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


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


RUNNING: set[Server] = set()
"""Servers started and not yet stopped (``main`` kills any left, whatever happened)."""


class Server:
    """``elferraus serve`` on a free loopback port with a fresh database, pinned to a core."""

    def __init__(self, workdir: Path, cpu: int | None, name: str) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.db = workdir / f"{name}.sqlite3"
        self.log = workdir / f"{name}.log"
        self.cpu = cpu
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = [sys.executable, "-m", "elferraus.cli.main", "serve", "--host", "127.0.0.1"]
        command += ["--port", str(self.port), "--db", str(self.db)]
        # Every simulated table, and every one of its people's connections, comes from this one address.
        command += ["--rooms-per-minute", "0", "--max-connections-per-address", "0"]
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
        try:
            text = Path(f"/proc/{self.process.pid}/stat").read_text()
        except OSError:
            return 0.0
        fields = text.rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def peak_rss_mb(self) -> float:
        assert self.process is not None
        try:
            for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            pass
        return 0.0

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
