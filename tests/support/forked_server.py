"""``elferraus serve`` for the tests, forked from :mod:`tests.support.server_template` instead of a new interpreter.

    process = launch([sys.executable, "-m", "elferraus.cli.main", "serve", "--port", port], stderr=log)
    process.terminate(); process.wait(10)

Each test process starts one template the first time it needs a server; a command that needs a different
interpreter set-up (another module, another environment, a wrapper such as ``prlimit``) is started as a new
interpreter, as before. See the template for why.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.support import repo_env

VOLATILE = frozenset({"PYTEST_CURRENT_TEST", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "HOME", "TEXTUAL_ANIMATIONS"})
"""Variables that differ from test to test (pytest's, and what ``tests/conftest.py`` sets for each test but
not yet for a fixture of a whole module) and that nothing the server imports reads as it is imported: a
template serves any value of them (its child gets the request's whole environment)."""


class Template:
    """The template process of this test process, and the one conversation with it (a lock per request)."""

    def __init__(self) -> None:
        self.env = repo_env()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.support.server_template"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=self.env,
        )
        self._lock = threading.Lock()

    def serves(self, env: dict[str, str]) -> bool:
        """Whether a server with this environment would import what the template imported."""

        def fixed(variables: dict[str, str]) -> dict[str, str]:
            return {key: value for key, value in variables.items() if key not in VOLATILE}

        return fixed(env) == fixed(self.env)

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send one request and read its answer."""
        pipe_in, pipe_out = self.process.stdin, self.process.stdout
        assert pipe_in is not None
        assert pipe_out is not None
        with self._lock:
            pipe_in.write(json.dumps(request).encode() + b"\n")
            pipe_in.flush()
            line = pipe_out.readline()
        if not line:
            raise RuntimeError(f"the server template ended (exit code {self.process.poll()})")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def close(self) -> None:
        """End it: it kills the servers it started that still run."""
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()
        self.process.wait(10)


class _Templates:
    """This test process's template, started when first needed and again if it ended."""

    def __init__(self) -> None:
        self._running: Template | None = None
        self._lock = threading.Lock()

    def get(self) -> Template:
        with self._lock:
            if self._running is None or self._running.process.poll() is not None:
                self._running = Template()
                atexit.register(self._running.close)
            return self._running


_templates = _Templates()


class ForkedServer:
    """A server forked by the template, with the part of :class:`subprocess.Popen` the tests use."""

    def __init__(self, template: Template, pid: int) -> None:
        self._template = template
        self.pid = pid
        self.returncode: int | None = None
        self._exited = os.pidfd_open(pid)  # readable once it has ended, though it is not our child

    def poll(self) -> int | None:
        """Its exit code if it has ended (minus the signal's number if a signal ended it), else None."""
        return self._ask(block=False)

    def wait(self, timeout: float | None = None) -> int:
        """Wait for its end, as ``Popen.wait`` does (``subprocess.TimeoutExpired`` after ``timeout``)."""
        if self.returncode is None and not select.select([self._exited], [], [], timeout)[0]:
            raise subprocess.TimeoutExpired(["elferraus", "serve"], timeout or 0.0)
        code = self._ask(block=True)  # it has ended: the template reaps it at once
        assert code is not None
        return code

    def _ask(self, *, block: bool) -> int | None:
        if self.returncode is None:
            self.returncode = self._template.ask({"wait": self.pid, "block": block})["code"]
            if self.returncode is not None:
                os.close(self._exited)
        return self.returncode

    def send_signal(self, how: int) -> None:
        """Send it a signal, unless it has ended."""
        if self.poll() is None:
            os.kill(self.pid, how)

    def terminate(self) -> None:
        """SIGTERM."""
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        """SIGKILL."""
        self.send_signal(signal.SIGKILL)


ServerHandle = subprocess.Popen[bytes] | ForkedServer
"""A server the tests started, either way."""


SERVE = ("-m", "elferraus.cli.main")
"""How the template's children are run: the command line's module, as ``python -m`` runs it."""


def _nice(prefix: Sequence[str]) -> int | None:
    """The priority a ``nice -n N`` prefix asks for, or None for any other prefix."""
    if not prefix:
        return 0
    if len(prefix) == 3 and prefix[0] == "nice" and prefix[1] == "-n":
        return int(prefix[2])
    return None


def launch(command: Sequence[str], *, stderr: Path, prefix: Sequence[str] = ()) -> ServerHandle:
    """Start ``command`` (a Python command line, under ``prefix``) in :func:`repo_env`, its stdout to
    /dev/null and its stderr appended to ``stderr``: forked from the template when it is
    ``python -m elferraus.cli.main ...`` in an environment the template serves, else as a new interpreter."""
    env, nice = repo_env(), _nice(prefix)
    if nice is not None and list(command[:3]) == [sys.executable, *SERVE]:
        template = _templates.get()
        if template.serves(env):
            request = {"argv": list(command[3:]), "cwd": os.getcwd(), "env": env, "stderr": str(stderr), "nice": nice}
            return ForkedServer(template, template.ask({"start": request})["pid"])
    with stderr.open("ab") as errors:
        return subprocess.Popen([*prefix, *command], stdout=subprocess.DEVNULL, stderr=errors, env=env)
