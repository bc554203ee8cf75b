"""A real Redis for the tests: Debian's ``redis-server`` on 127.0.0.1 at a free port, nothing kept on disk.

``make test`` installs the package when it is missing.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from tests.support.web_helpers import end_process, free_port


def server_program() -> str:
    """The path of ``redis-server``, or an error that says how to get it."""
    found = shutil.which("redis-server") or next((p for p in ("/usr/bin/redis-server",) if Path(p).exists()), None)
    if found is None:
        raise RuntimeError("Redis is not installed: apt-get install redis-server (make test does)")
    return found


def ping(port: int, timeout: float = 1.0) -> bool:
    """Whether a Redis answers ``PING`` on 127.0.0.1:``port`` with ``PONG`` (a raw RESP exchange)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(64).startswith(b"+PONG")
    except OSError:
        return False


class RedisServer:
    """A Redis of its own, listening on 127.0.0.1 at a free port, without persistence.

    Args:
        folder: a folder for its working directory and its log (``redis.log``).
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.log = folder / "redis.log"
        self.port = free_port()
        self.program = server_program()
        self.process: subprocess.Popen[bytes] | None = None

    def url(self, database: int = 0) -> str:
        """The URL of logical database ``database`` on this server."""
        return f"redis://127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        """Start it (again, on the same port) and wait until it answers ``PING`` (at most 30 s)."""
        if self.process is not None:
            raise RuntimeError(f"Redis on port {self.port} is already running (pid {self.process.pid})")
        command = [self.program, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        command += ["--dir", str(self.folder), "--logfile", str(self.log), "--daemonize", "no"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if ping(self.port):
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.02)
        self._end()
        log = self.log.read_text(errors="replace") if self.log.exists() else ""
        raise RuntimeError(f"redis-server on port {self.port} did not come up:\n{log}")

    def stop(self) -> None:
        """Stop it (SIGTERM, then SIGKILL if it will not go) and wait for the exit; nothing if it is stopped."""
        self._end()

    def kill9(self) -> None:
        """``kill -9``: gone at once, as if its machine died."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(10)
            self.process = None

    def restart(self) -> None:
        """Stop it and start it again on the same port: every connection dropped, every key gone."""
        self.stop()
        self.start()

    def _end(self) -> None:
        end_process(self.process)
        self.process = None


@contextlib.contextmanager
def redis_server() -> Iterator[RedisServer]:
    """A started Redis in a temporary folder; stopped and removed on exit."""
    folder = Path(tempfile.mkdtemp(prefix="elferraus-redis-"))
    try:
        server = RedisServer(folder)
        server.start()
        try:
            yield server
        finally:
            server.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
