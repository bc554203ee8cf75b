"""The three-process site for the tests: ``elferraus serve`` started N times on one PostgreSQL and one Redis,
behind nginx running the deployed configuration, each part on a free port in a temporary folder.

    with cluster(3) as site:
        create_room(site.url, ...)                       # through nginx
        RoomClient(site.processes[1].url, code, token)   # straight to one process
        site.processes[0].kill9(); site.processes[0].start()
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.support.forked_server import ServerHandle, launch
from tests.support.nginx_helpers import Nginx
from tests.support.postgres_helpers import PostgresServer
from tests.support.redis_helpers import RedisServer
from tests.support.web_helpers import free_port

STARTUP = 30.0
"""Seconds a process has to answer ``/healthz`` after it is started."""


class ServerProcess:
    """One ``python -m elferraus.cli.main serve`` subprocess on 127.0.0.1 at a port of its own.

    Args:
        args: the options of ``serve`` after ``--host`` and ``--port`` (``--db``, ``--bus``, limits, ...).
        log: the file its stderr is appended to, across restarts.
        name: how assertion messages call it (``process 2``).
    """

    def __init__(self, args: Sequence[str], log: Path, name: str = "process") -> None:
        self.args = list(args)
        self.log_file = log
        self.name = name
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._process: ServerHandle | None = None

    @property
    def pid(self) -> int | None:
        """Its process id while it runs, else None."""
        return self._process.pid if self._process is not None else None

    def command(self) -> list[str]:
        """The command line it is started with."""
        serve = [sys.executable, "-m", "elferraus.cli.main", "serve"]
        return [*serve, "--host", "127.0.0.1", "--port", str(self.port), *self.args]

    def start(self) -> None:
        """Start it (again, on the same port) and wait until ``/healthz`` says ``ok`` (at most 30 s).

        Raises:
            AssertionError: it exited or did not answer in time (it is then stopped), with its log.
        """
        if self._process is not None:
            raise RuntimeError(f"{self.name} on port {self.port} is already running (pid {self.pid})")
        self._process = launch(self.command(), stderr=self.log_file)
        deadline = time.monotonic() + STARTUP
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                code = self._process.returncode
                self._process = None
                raise AssertionError(f"{self.name} on port {self.port} exited with {code}:\n{self.log()}")
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=1) as answer:
                    if answer.read() == b"ok":
                        return
            except OSError:
                time.sleep(0.05)
        self._end(signal.SIGKILL)
        raise AssertionError(f"{self.name} on port {self.port} did not come up in {STARTUP:.0f} s:\n{self.log()}")

    def kill9(self) -> None:
        """``kill -9``: gone at once, no goodbye to any client; waits for the exit."""
        self._end(signal.SIGKILL)

    def stop(self) -> None:
        """Stop it as an operator would (SIGTERM; SIGKILL after 15 s if it will not go) and wait for the exit."""
        self._end(signal.SIGTERM)

    def running(self) -> bool:
        """Whether it was started and has not exited."""
        return self._process is not None and self._process.poll() is None

    def log(self) -> str:
        """Its stderr so far, over all its starts (for assertion messages)."""
        return self.log_file.read_text(errors="replace") if self.log_file.exists() else ""

    def _end(self, how: signal.Signals) -> None:
        if self._process is None:
            return
        if self._process.poll() is None:
            os.kill(self._process.pid, how)
            try:
                self._process.wait(15)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(10)
        self._process = None


@dataclass
class Cluster:
    """A running site: N processes behind nginx on one PostgreSQL database and one Redis."""

    url: str
    """nginx's base URL, ``http://127.0.0.1:PORT``: where a browser would go."""
    processes: list[ServerProcess]
    postgres: PostgresServer
    redis: RedisServer
    db: str
    """The PostgreSQL URL of the (fresh) database the processes share."""
    nginx: Nginx
    folder: Path
    """The temporary folder of everything: logs of the processes, nginx's and Redis's files."""

    def logs(self) -> str:
        """Every process's stderr and nginx's error log, headed by their names (for assertion messages)."""
        parts = [f"--- {process.name} ({process.url}) ---\n{process.log()}" for process in self.processes]
        parts.append(f"--- nginx ({self.url}) ---\n{self.nginx.log()}")
        return "\n".join(parts)


@contextlib.contextmanager
def cluster(
    processes: int = 3,
    *,
    rooms_per_minute: float = 0,
    per_address: int = 128,
    extra_args: Sequence[str] = (),
    bus: bool = True,
    postgres: PostgresServer | None = None,
    durable: bool = False,
) -> Iterator[Cluster]:
    """Start a site of ``processes`` server processes and tear all of it down on exit, also when the body fails.

    Each process runs ``serve --host 127.0.0.1 --port P --db DB --bus REDIS --forwarded-allow-ips 127.0.0.1
    --rooms-per-minute R --max-connections-per-address N`` and then ``extra_args``.

    Args:
        processes: how many server processes.
        rooms_per_minute: ``--rooms-per-minute`` of each (0: no limit).
        per_address: ``--max-connections-per-address`` of each.
        extra_args: more options of ``serve``.
        bus: whether to pass ``--bus`` (False: processes that share the database only and do not tell each
            other of changes, as before there was a bus).
        postgres: a running PostgreSQL to make the database on (default: one of the cluster's own, which
            the test may stop and start).
        durable: whether the cluster's own PostgreSQL writes each commit to disk (``PostgresServer``).
    """
    if processes < 1:
        raise ValueError(f"a cluster needs at least one process, not {processes}")
    folder = Path(tempfile.mkdtemp(prefix="elferraus-cluster-"))
    folder.chmod(0o711)  # PostgreSQL runs as its own user (as root) and must reach its folder inside
    with contextlib.ExitStack() as stack:
        stack.callback(shutil.rmtree, folder, ignore_errors=True)
        if postgres is None:
            (folder / "postgres").mkdir()
            postgres = PostgresServer(folder / "postgres", durable=durable)
            postgres.start()
            stack.callback(_quietly, postgres.stop, "immediate")
        db = postgres.new_database()
        (folder / "redis").mkdir()
        redis = RedisServer(folder / "redis")
        redis.start()
        stack.callback(redis.stop)
        args = ["--db", db]
        if bus:
            args += ["--bus", redis.url()]
        args += ["--forwarded-allow-ips", "127.0.0.1", "--rooms-per-minute", f"{rooms_per_minute:g}"]
        args += ["--max-connections-per-address", str(per_address), *extra_args]
        servers = [ServerProcess(args, folder / f"process{n}.log", f"process {n}") for n in range(processes)]
        for server in servers:
            stack.callback(server.stop)
        # The first process makes the schema; the others then start side by side.
        servers[0].start()
        with concurrent.futures.ThreadPoolExecutor(max(1, processes - 1)) as starting:
            list(starting.map(ServerProcess.start, servers[1:]))
        (folder / "nginx").mkdir()
        nginx = Nginx(folder / "nginx", [server.port for server in servers], free_port())
        nginx.start()
        stack.callback(nginx.stop)
        yield Cluster(nginx.url, servers, postgres, redis, db, nginx, folder)


def _quietly(stop: Callable[[str], None], mode: str) -> None:
    """Call ``stop(mode)``, ignoring that it is already stopped (a test may have stopped it itself)."""
    with contextlib.suppress(RuntimeError):
        stop(mode)
