"""A process that has imported the server once and forks a copy of itself for each ``elferraus serve``.

    python -m tests.support.server_template

The tests start about 120 servers; each fresh interpreter spends half a second of CPU importing Starlette,
FastAPI, pydantic and the server before it serves anything. This process pays that once per test process:
on each request it forks, and the child runs ``python -m elferraus.cli.main serve ...`` exactly as a new
interpreter would (``runpy``, as ``-m`` does, then the interpreter's own exit), with the request's command
line, folder, environment, priority and stderr file. What happens after the imports is the server's own,
in a process of its own: a test may kill it with -9, trace it, or count its children.

Requests and answers are JSON lines on stdin and stdout (``forked_server.launch`` is the other end):

    {"start": {"argv": [...], "cwd": "...", "env": {...}, "stderr": "path", "nice": 0}}  ->  {"pid": 123}
    {"wait": 123, "block": false}  ->  {"code": null} while it runs, then {"code": 0} (minus a signal's number)

When its stdin closes (the test process is gone), it kills the servers it started that still run, and ends.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import json
import os
import runpy
import signal
import sys
import threading
from typing import Any

MODULE = "elferraus.cli.main"
"""What each child runs, as ``python -m`` would."""

PRELOADED = (
    MODULE,
    "elferraus.cli.backup",
    "elferraus.server",
    "elferraus.server.process.collector",
    "elferraus.server.site.redis",
    "elferraus.server.storage.postgres",
    "elferraus.server.storage.sqlite_store",
    "elferraus.server.thinking.pool",
    "uvicorn.lifespan.on",
    "uvicorn.loops.auto",
    "uvicorn.main",
    "uvicorn.protocols.http.h11_impl",
    "uvicorn.protocols.websockets.websockets_sansio_impl",
)
"""What a server imports before it serves: everything ``serve`` imports, on SQLite or PostgreSQL."""


def preload() -> None:
    """Import what every server needs, then forget the command line's module itself, as a new interpreter
    has not imported it when ``-m`` runs it as ``__main__``."""
    for name in PRELOADED:
        importlib.import_module(name)
    del sys.modules[MODULE]
    delattr(sys.modules["elferraus.cli"], MODULE.rpartition(".")[2])
    # What is imported now lives as long as any server: left out of the collector's rounds, its pages are
    # not copied into each child when the child's collector would walk them (Python's advice before fork).
    gc.freeze()


def _child(request: dict[str, Any]) -> None:
    """Become the server's process: its own stdio, folder, environment and priority."""
    null = os.open(os.devnull, os.O_RDWR)
    errors = os.open(request["stderr"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.dup2(null, 0)  # in place of the template's pipes
    os.dup2(null, 1)
    os.dup2(errors, 2)
    os.close(null)
    os.close(errors)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    if request["nice"]:
        os.nice(request["nice"])
    sys.argv = [MODULE, *request["argv"]]


def serve_requests() -> dict[str, Any] | None:
    """Answer requests until stdin closes (then None); in each forked child, return its request."""
    if threading.active_count() != 1:
        raise RuntimeError("the template must fork from one thread: an import started another")
    requests, answers = sys.stdin.buffer, sys.stdout.buffer
    ended: dict[int, int] = {}
    started: set[int] = set()
    for line in requests:
        request = json.loads(line)
        if "start" in request:
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                _child(request["start"])
                return dict(request["start"])
            started.add(pid)
            answer: dict[str, Any] = {"pid": pid}
        else:
            pid = request["wait"]
            if pid not in ended:
                done, status = os.waitpid(pid, 0 if request["block"] else os.WNOHANG)
                if done:
                    ended[pid] = os.waitstatus_to_exitcode(status)
                    started.discard(pid)
            answer = {"code": ended.get(pid)}
        answers.write(json.dumps(answer).encode() + b"\n")
        answers.flush()
    for pid in started:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return None


if __name__ == "__main__":
    preload()
    if serve_requests() is not None:
        runpy.run_module(MODULE, run_name="__main__", alter_sys=True)
