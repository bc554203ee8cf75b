"""How a server process paces the garbage collector (``server/process/collector.py``).

Each case runs in a fresh interpreter: thresholds and frozen objects are the whole process's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from elferraus.server.process.collector import MIDDLE, OLD, YOUNG


def _run(script: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def test_paced_and_settled_a_process_still_collects_the_cycles_it_makes_later() -> None:
    found = _run(
        """
import gc, json
from elferraus.server.process import collector
collector.pace()
collector.settle()
frozen = gc.get_freeze_count()
class Node:
    pass
a, b = Node(), Node()
a.other, b.other = b, a
del a, b
print(json.dumps({"thresholds": gc.get_threshold(), "frozen": frozen, "collected": gc.collect()}))
"""
    )
    assert found["thresholds"] == [YOUNG, MIDDLE, OLD]
    assert found["frozen"] > 1000, "start-up's objects are frozen"
    assert found["collected"] >= 2, "a new cycle is still collected"


def test_the_server_is_paced_before_it_serves(tmp_path: Path) -> None:
    db = tmp_path / "rooms.db"
    found = _run(
        f"""
import gc, json
from elferraus.server import run_server
from elferraus.server.web import limits
seen = {{}}
def run(self, sockets=None):
    seen["thresholds"] = gc.get_threshold()
limits.BoundedServer.run = run
code = run_server("127.0.0.1", 0, {str(db)!r})
print(json.dumps(seen))
"""
    )
    assert found["thresholds"] == [YOUNG, MIDDLE, OLD]


def test_the_server_settles_after_its_start_up_and_before_it_listens(tmp_path: Path) -> None:
    db = tmp_path / "rooms.db"
    found = _run(
        f"""
import json
from elferraus.server import run_server
from elferraus.server.web import limits
from elferraus.server.process import collector
servers = []
make = limits.BoundedServer.__init__
def init(self, *args, **kwargs):
    make(self, *args, **kwargs)
    servers.append(self)
limits.BoundedServer.__init__ = init
seen = {{}}
def settle():
    server = servers[0]
    seen["app_started"] = server.lifespan.startup_event.is_set()
    seen["listening"] = bool(getattr(server, "servers", []))
    server.should_exit = True
collector.settle = settle
run_server("127.0.0.1", 0, {str(db)!r})
print(json.dumps(seen))
"""
    )
    assert found == {"app_started": True, "listening": False}
