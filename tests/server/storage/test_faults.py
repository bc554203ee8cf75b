"""The server through faults of its database: a lock held too long, a full disk, a read-only file.

Each fault test plays rooms through the fault, then ``kill -9`` at a seeded
moment after it (``ELFERRAUS_FAULT_SEED`` chooses the seed; it is printed),
restarts the server and checks the store (see ``fault_helpers``).
``benchmarks/site/faults.py`` runs the same with more kills and prints the figures.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from elferraus.errors import RecordError
from elferraus.record import read_record
from elferraus.server.client import RoomClient
from elferraus.server.storage.sqlite import SCHEMA
from tests.support.fault_helpers import (
    FAULTS,
    Mounts,
    fault_problem,
    mount_problem,
    record_of,
    stored_games,
)
from tests.support.fault_scenario import run_fault, summary
from tests.support.server_helpers import OVER, act, chooser, get, play_round, room_with_people, start, wait_online
from tests.support.web_helpers import ServerProcess, free_port

KILLS = 1
"""kill -9 rounds per fault here (the figures script makes more)."""
MIN_SAMPLES = {"ping": 100, "spectator": 25, "healthz": 50, "room": 50}
"""At least this many round trips of each kind during one fault (it lasts 5 s)."""


@pytest.fixture
def mounts(tmp_path: Path) -> Iterator[Mounts]:
    """tmpfs mounts under ``tmp_path``, unmounted after the test whatever happened."""
    mounted = Mounts(tmp_path / "mnt")
    try:
        yield mounted
    finally:
        mounted.close()


@pytest.mark.timeout(240)
@pytest.mark.parametrize("kind", FAULTS)
def test_a_fault_then_kill_9_loses_no_move_and_holds_up_no_other_room(
    kind: str, tmp_path: Path, mounts: Mounts, record_property: Callable[[str, object], None]
) -> None:
    """Nothing acknowledged is lost, every refused move goes through afterwards, and the rooms that need no
    write are answered all through the fault (each probe many times, none in error). How fast they are
    answered depends on the machine's load: ``make bench-faults`` (``benchmarks/site/faults.py``) measures and
    reports it on a quiet machine (p99 under 50 ms); this test asserts no latency."""
    problem = fault_problem(kind)
    assert problem is None, problem  # make test installs what the faults need (strace), as root
    seed = int(os.environ.get("ELFERRAUS_FAULT_SEED", random.randrange(2**32)))
    print(f"{kind}: seed {seed} (ELFERRAUS_FAULT_SEED={seed} repeats it)")
    reports = run_fault(kind, tmp_path, mounts, seed, KILLS)
    text = "\n".join(summary(report) for report in reports)
    for report in reports:
        assert not report.problems, text
        assert report.acknowledged > 0, text
        assert report.found == report.acknowledged, text
        assert report.replayed == report.games > 0, text
    for report in reports[:-1]:
        assert report.refusals, text
        assert all(refusal.accepted for refusal in report.refusals), text
        assert report.resumed, text
        for probe, least in MIN_SAMPLES.items():
            assert report.latency[probe].samples >= least, text
            assert report.latency[probe].errors == 0, text
    for number, report in enumerate(reports[:-1]):  # reported, not asserted: the figure is the benchmark's
        record_property(f"p99_ms_round_{number}", round(report.latency["all"].p99, 1))
        record_property(f"control_p99_ms_round_{number}", round(report.latency["control"].p99, 1))


# -- a stored game that no longer replays -------------------------------------------


def _wrong_seat(text: str) -> str:
    seat, rest = text.split(" ", 1)
    return f"{1 - int(seat)} {rest}"


def _not_a_move(text: str) -> str:
    return text.split(maxsplit=1)[0] + " jump"


CORRUPTIONS: dict[str, Callable[[str], str]] = {"a move by the wrong seat": _wrong_seat, "not a move": _not_a_move}


async def _two_people_play(base: str, moves: int) -> tuple[str, list[str], dict[str, Any]]:
    """A room of two people who make ``moves`` moves; returns its code, tokens and last state."""
    code, tokens = await room_with_people(base, 2, name="Anna", players=2, pace=0, away=60)
    async with RoomClient(base, code, tokens[0]) as host, RoomClient(base, code, tokens[1]) as guest:
        await wait_online(host, [0, 1])
        await start(host, guest)
        for _ in range(10 * moves):
            assert host.state is not None
            assert guest.state is not None
            if len(host.state["game"]["moves"]) >= moves:
                break
            mover = await chooser([host, guest])  # the table makes a person's only moves itself
            other = guest if mover is host else host
            assert mover.state is not None
            answer = await act(mover, mover.state["view"]["legal"][0])
            assert answer["type"] == "state" or answer["code"] == "stale", answer
            seen = await other.until(lambda state, seq=mover.state["seq"]: state["seq"] >= seq, 10)
            await mover.until(lambda state, seq=seen["seq"]: state["seq"] >= seq, 10)
        assert host.state is not None
        return code, tokens, host.state


async def _play_to_the_end(base: str, code: str, tokens: list[str]) -> dict[str, Any]:
    async with RoomClient(base, code, tokens[0]) as host, RoomClient(base, code, tokens[1]) as guest:
        await wait_online(host, [0, 1])
        ends = await asyncio.gather(play_round(host), play_round(guest))
        return ends[0]


@pytest.mark.timeout(120)
def test_a_room_whose_game_no_longer_replays_is_set_aside_and_the_rest_come_back(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "games.sqlite3")
    server.start()
    try:
        rooms = [asyncio.run(_two_people_play(server.base, 6)) for _ in range(len(CORRUPTIONS) + 2)]
        server.stop()
        bad = {}
        with contextlib.closing(sqlite3.connect(server.db)) as db, db:
            for (code, _tokens, state), (name, corrupt) in zip(rooms, CORRUPTIONS.items(), strict=False):
                game = state["game"]["id"]
                (text,) = db.execute("SELECT text FROM moves WHERE game = ? AND n = 2", (game,)).fetchone()
                db.execute("UPDATE moves SET text = ? WHERE game = ? AND n = 2", (corrupt(text), game))
                bad[code] = (name, game)
        stored = stored_games(server.db)
        reasons = {}
        for code, (_name, game) in bad.items():
            with pytest.raises(RecordError) as error:
                read_record(record_of(stored[game]))
            reasons[code] = error.value.problem
        server.start()
        log = server.log.read_text()
        for code, (name, game) in bad.items():
            reason = reasons[code]
            answer = asyncio.run(get(server.base, f"/api/rooms/{code}"))
            assert answer.status_code == 409, (name, answer.text)
            assert answer.json()["error"] == "set_aside", (name, answer.text)
            lines = [line for line in log.splitlines() if code in line]
            assert any(str(game) in line and reason in line for line in lines), (name, reason, log[-3000:])
        for code, tokens, state in rooms[len(CORRUPTIONS) :]:
            answer = asyncio.run(get(server.base, f"/api/rooms/{code}"))
            assert answer.status_code == 200, answer.text
            end = asyncio.run(_play_to_the_end(server.base, code, tokens))
            assert end["room"]["status"] in OVER
            assert end["game"]["moves"][: len(state["game"]["moves"])] == state["game"]["moves"]
            with urllib.request.urlopen(f"{server.base}/api/games/{end['game']['id']}/record", timeout=10) as answer:
                read_record(json.loads(answer.read()))
    finally:
        server.stop()


# -- a database that cannot be used --------------------------------------------------


def _read_only_database(tmp_path: Path, mounts: Mounts) -> Path:
    """A good database, on a tmpfs mounted read-only: read-only for root too."""
    folder = mounts.tmpfs("ro", "8m")
    server = ServerProcess(folder / "games.sqlite3", log=tmp_path / "made.log")
    server.start()
    server.stop()
    mounts.remount(folder, "ro")
    with pytest.raises(OSError, match="Read-only file system"):
        (folder / "games.sqlite3").open("r+b")
    return folder / "games.sqlite3"


def _not_a_database(tmp_path: Path, mounts: Mounts) -> Path:
    path = tmp_path / "notes.sqlite3"
    path.write_text("These are my notes, not a database.\n" * 100)
    return path


def _tables(script: str) -> Callable[[Path, Mounts], Path]:
    def make(tmp_path: Path, mounts: Mounts) -> Path:
        path = tmp_path / "games.sqlite3"
        with contextlib.closing(sqlite3.connect(path)) as connection:
            connection.executescript(script)
        return path

    return make


BAD_DATABASES = {
    "a read-only file": _read_only_database,
    "a missing folder": lambda tmp_path, mounts: tmp_path / "no such folder" / "games.sqlite3",
    "a file that is not a database": _not_a_database,
    "a foreign rooms table": _tables(
        "CREATE TABLE rooms (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO rooms (name) VALUES ('kitchen');"
    ),
    "the server's tables, one lacking a column": _tables(SCHEMA.replace("    status TEXT NOT NULL,\n", "")),
    "another program's database": _tables("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('milk');"),
}
"""Each ``--db`` that ``serve`` refuses, made in a temporary folder."""
NAMED_IN_THE_LINE = {
    "a foreign rooms table": "the table 'rooms'",
    "the server's tables, one lacking a column": "the table 'rooms'",
    "another program's database": "notes",
}
"""What the refusal names besides the path."""


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", BAD_DATABASES)
def test_serve_refuses_a_database_it_cannot_use_in_one_line(name: str, tmp_path: Path, mounts: Mounts) -> None:
    problem = mount_problem() if name == "a read-only file" else None
    assert problem is None, problem
    path = BAD_DATABASES[name](tmp_path, mounts)
    before = path.read_bytes() if path.exists() else None
    port = free_port()
    command = [sys.executable, "-m", "elferraus.cli.main", "serve", "--db", str(path), "--port", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while process.poll() is None and time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                    pytest.fail(f"serve started on {name}")
            except OSError:
                time.sleep(0.1)
        out, err = process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 2, (process.returncode, out, err)
    assert out == "", out
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert str(path) in lines[0], err
    assert "Traceback" not in err
    assert NAMED_IN_THE_LINE.get(name, "") in lines[0], err
    # refused before anything was written: no table added, the file not even switched to WAL
    assert (path.read_bytes() if path.exists() else None) == before
    assert [file.name for file in path.parent.glob(f"{path.name}-*")] == []
