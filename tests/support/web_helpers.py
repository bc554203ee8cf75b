"""A real server on a free loopback port, for the web tests."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

import uvicorn

from elferraus.server import WS_MAX_SIZE, create_app
from tests.support.forked_server import ForkedServer, ServerHandle, launch

PORTS_PER_PROCESS = 1500
"""Ports of each test process's own block (below the system's range for outgoing connections)."""

BROWSER_REFUSED_PORTS = frozenset({5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6697, 10080})
"""Ports Chromium will not open a page on (net::ERR_UNSAFE_PORT), above 1023: never handed out, so that a
server any test starts can be opened in the browser."""


def _port_block() -> Iterator[int]:
    """This test process's ports in turn, for ever: xdist worker N (``gwN``) has the N-th block from 10000."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    first = 10000 + (int(worker) if worker.isdigit() else 0) % 14 * PORTS_PER_PROCESS
    return itertools.cycle(range(first, first + PORTS_PER_PROCESS))


_PORTS = _port_block()


def free_port() -> int:
    """A loopback port nobody listens on, that no other test process is handed: a server a test stops and starts
    again on its port finds it free (a port the system picks could meanwhile go to another process's server,
    whose answers the restarted one's would then be taken for)."""
    for _ in range(PORTS_PER_PROCESS):
        port = next(_PORTS)
        if port in BROWSER_REFUSED_PORTS:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port among this test process's {PORTS_PER_PROCESS}")


@contextlib.asynccontextmanager
async def serving(db: str, **settings: Any) -> AsyncIterator[str]:
    """Run the app (``create_app(db, **settings)``) on a free port in this event loop; yields its base URL."""
    async with serving_app(create_app(db, **settings)) as base:
        yield base


@contextlib.asynccontextmanager
async def serving_app(app: Any) -> AsyncIterator[str]:
    """Run ``app`` (made by ``create_app``) on a free port in this event loop; yields its base URL."""
    port = free_port()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        ws_max_size=WS_MAX_SIZE,
        log_level="warning",
        lifespan="on",
        server_header=False,  # as `elferraus serve` runs
    )
    server = uvicorn.Server(config)
    task = asyncio.get_running_loop().create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


class ServerProcess:
    """``elferraus serve`` in a subprocess, on a free port, with its own database (its stderr in ``log``,
    by default ``DB.log``)."""

    def __init__(
        self,
        db: Path,
        log: Path | None = None,
        args: Sequence[str] = (),
        prefix: Sequence[str] = (),
        entry: Sequence[str] = ("-m", "elferraus.cli.main"),
    ) -> None:
        self.db = db
        self.args = list(args)
        """More options of ``elferraus serve``."""
        self.prefix = list(prefix)
        """A command to run it under, e.g. ``["prlimit", "--nofile=1024"]``."""
        self.entry = list(entry)
        """What Python runs: the command line's module, or a helper that starts it
        (``["-m", "tests.support.seeded_server", SEED]``)."""
        self.log = log or db.with_suffix(".log")
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process: ServerHandle | None = None

    def start(self) -> None:
        """Start it (again, on the same port and database) and wait until it answers."""
        log = self.log
        command = [sys.executable, *self.entry, "serve", "--db", str(self.db), "--port", str(self.port), *self.args]
        self.process = launch(command, stderr=log, prefix=self.prefix)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.base}/healthz", timeout=1) as answer:
                    if answer.read() == b"ok":
                        return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise AssertionError(f"the server did not come up: {log.read_text()}")

    def kill(self) -> None:
        """``kill -9``: no goodbye to anyone."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(10)
        self.process = None

    def stop(self) -> None:
        """Stop it politely, or kill it if it will not go."""
        end_process(self.process)
        self.process = None


def end_process(process: subprocess.Popen[Any] | ForkedServer | None) -> None:
    """Stop a server the tests started (SIGTERM), kill it if it will not go within 10 s, and wait for it."""
    if process is None:
        return
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)
