"""A real nginx for the tests: Debian's, running the deployed configuration ``deploy/nginx/elferraus.conf``.

The site file is rendered with the test's upstream ports and listen port (nothing else changes) and included
from a small main configuration that keeps the pid file, the logs and the temporary files in the test's folder.
``make test`` installs the package when it is missing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path

from tests.support import ROOT
from tests.support.web_helpers import end_process

SITE = ROOT / "deploy" / "nginx" / "elferraus.conf"
"""The configuration an operator deploys, which the tests run."""

_UPSTREAM = re.compile(r"(upstream elferraus \{\n)(.*?)(\n\})", re.DOTALL)
_SERVER_LINE = re.compile(r"^(\s*)server 127\.0\.0\.1:\d+( [^;]*)?;$", re.MULTILINE)
_LISTEN_LINE = re.compile(r"^(\s*)listen 80;$", re.MULTILINE)


def nginx_program() -> str:
    """The path of ``nginx``, or an error that says how to get it."""
    found = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if Path(p).exists()), None)
    if found is None:
        raise RuntimeError("nginx is not installed: apt-get install nginx-light (make test does)")
    return found


def render_site(site: str, upstream_ports: Sequence[int], listen_port: int) -> str:
    """The site file ``site`` with one upstream server per port (each with the file's own parameters) and
    listening on 127.0.0.1:``listen_port``.

    Raises:
        ValueError: the file has no ``upstream elferraus`` with a ``server 127.0.0.1:PORT ...;`` line, or no
            ``listen 80;`` line, so that a changed deploy file fails here rather than runs untested.
    """
    if not upstream_ports:
        raise ValueError("an upstream needs at least one port")
    block = _UPSTREAM.search(site)
    if block is None:
        raise ValueError(f"{SITE}: no 'upstream elferraus {{ ... }}' block")
    servers = list(_SERVER_LINE.finditer(block.group(2)))
    if not servers:
        raise ValueError(f"{SITE}: the upstream has no 'server 127.0.0.1:PORT ...;' line")
    indent, parameters = servers[0].group(1), servers[0].group(2) or ""
    lines = "\n".join(f"{indent}server 127.0.0.1:{port}{parameters};" for port in upstream_ports)
    body = block.group(2)
    body = body[: servers[0].start()] + lines + body[servers[-1].end() :]
    rendered = site[: block.start(2)] + body + site[block.end(2) :]
    rendered, listens = _LISTEN_LINE.subn(lambda line: f"{line.group(1)}listen 127.0.0.1:{listen_port};", rendered)
    if listens != 1:
        raise ValueError(f"{SITE}: expected one 'listen 80;' line, found {listens}")
    return rendered


def main_config(folder: Path, site: Path) -> str:
    """A main configuration that runs ``site`` with everything nginx writes inside ``folder``."""
    user = "user root;\n" if os.geteuid() == 0 else ""  # its workers write the temporary files in the folder
    kinds = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    temp = "".join(f"    {kind}_temp_path {folder / 'temp' / kind};\n" for kind in kinds)
    return (
        f"{user}worker_processes 1;\n"
        "worker_rlimit_nofile 16384;\n"
        f"pid {folder / 'nginx.pid'};\n"
        f"error_log {folder / 'error.log'} notice;\n"
        "events {\n    worker_connections 8192;\n}\n"
        "http {\n"
        # which process served each request (for the tests to see that clients were spread over them)
        "    log_format upstreams '$remote_addr \"$request\" $status $upstream_addr';\n"
        f"    access_log {folder / 'access.log'} upstreams;\n"
        f"{temp}"
        f"    include {site};\n"
        "}\n"
    )


class Nginx:
    """nginx on 127.0.0.1:``listen_port`` in front of the processes at ``upstream_ports``, in the foreground.

    Args:
        folder: a folder of its own for the rendered configuration, the pid file, the logs and the temporary files.
        upstream_ports: the ports of the ``elferraus serve`` processes on 127.0.0.1.
        listen_port: where nginx listens on 127.0.0.1.
    """

    def __init__(self, folder: Path, upstream_ports: Sequence[int], listen_port: int) -> None:
        self.folder = folder
        self.listen_port = listen_port
        self.url = f"http://127.0.0.1:{listen_port}"
        self.program = nginx_program()
        self.site = folder / "elferraus.conf"
        self.config = folder / "nginx.conf"
        self.error_log = folder / "error.log"
        (folder / "temp").mkdir(parents=True, exist_ok=True)
        self.site.write_text(render_site(SITE.read_text(), upstream_ports, listen_port))
        self.config.write_text(main_config(folder, self.site))
        self.process: subprocess.Popen[bytes] | None = None

    def _command(self, *more: str) -> list[str]:
        return [self.program, "-p", str(self.folder), "-e", str(self.error_log), "-c", str(self.config), *more]

    def test_config(self) -> str:
        """``nginx -t`` on the rendered configuration; returns its report.

        Raises:
            AssertionError: nginx does not accept it, with nginx's words and the rendered file.
        """
        done = subprocess.run(self._command("-t"), capture_output=True, text=True, timeout=30, check=False)
        report = done.stdout + done.stderr
        assert done.returncode == 0, f"nginx -t refused {self.config}:\n{report}\n{self.site.read_text()}"
        return report

    def start(self) -> None:
        """Start nginx (``daemon off``) and wait until it answers on its port (at most 30 s)."""
        if self.process is not None:
            raise RuntimeError(f"nginx on port {self.listen_port} is already running (pid {self.process.pid})")
        self.process = subprocess.Popen(
            self._command("-g", "daemon off;"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=1):
                    return
            except urllib.error.HTTPError as error:
                error.close()  # it holds the answer's connection open until closed
                return  # nginx answered (a 502 while no process is up is an answer too)
            except OSError:
                time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"nginx on port {self.listen_port} did not come up:\n{self.log()}")

    def stop(self) -> None:
        """Stop nginx (SIGTERM, a fast shutdown; SIGKILL if it will not go) and wait for it."""
        end_process(self.process)
        self.process = None

    def served(self, path: str) -> list[str]:
        """The upstream address (``127.0.0.1:PORT``, the last one tried) of each finished request whose path
        starts with ``path``, in the order they finished (a WebSocket finishes when it closes)."""
        log = self.folder / "access.log"
        found = []
        for line in log.read_text(errors="replace").splitlines() if log.exists() else []:
            request, _, rest = line.partition('"')[2].partition('"')
            parts = request.split()
            if len(parts) >= 2 and parts[1].startswith(path) and rest.split():
                found.append(rest.split()[-1].split(",")[-1].strip())
        return found

    def log(self) -> str:
        """Its error log so far (for assertion messages)."""
        return self.error_log.read_text(errors="replace") if self.error_log.exists() else ""
