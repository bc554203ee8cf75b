"""Faults of the server's database, probes of the other rooms, the bookkeeping of moves.

For the fault tests and ``benchmarks/site/faults.py``; ``fault_scenario.py`` plays rooms through a fault.

Each fault lasts ``FAULT_SECONDS`` while rooms play:

- ``locked``: another process holds the database's write lock (``BEGIN IMMEDIATE``)
  for longer than the server's busy timeout (2 s).
- ``full``: the database lies on a tmpfs of its own, which a filler file fills up;
  the server's commits fail (SQLITE_FULL) until the filler is deleted.
- ``readonly``: every write to the database's files fails with EROFS, as on a
  filesystem that went read-only under the server (SQLite: "disk I/O error",
  SQLITE_IOERR_WRITE). ``mount -o remount,ro`` cannot do this: Linux refuses it
  (EBUSY) while a process holds a file of the mount open for writing, and SQLite
  keeps its files open; ``chattr +i`` and permission bits do not reach files that
  are open already. So ``strace`` attaches to the server and answers its writes
  to those files with EROFS, which is what the kernel answers once a filesystem
  has gone read-only (seen with ext4's ``errors=remount-ro``). Opening a file is
  let through: a connection opened during the fault opens read-write, where on a
  read-only filesystem SQLite would open it read-only (SQLITE_READONLY on write).

:class:`Scenario` plays rooms of people (the test moves for them over the
WebSocket) and rooms of computers (pace 0) through a fault, measures round
trips in other rooms from a process of its own (:class:`Probe`), kills the
server (``kill -9``) at a seeded moment after the fault, restarts it and checks
that every acknowledged move is stored and every stored game replays.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import faulthandler
import json
import os
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

import httpx
from websockets.asyncio.client import connect

from elferraus.arena.stats import percentile
from elferraus.server.client import RoomClient
from tests.support import repo_env

FAULTS = ("locked", "full", "readonly")
FAULT_SECONDS = 5.0
"""How long each fault lasts: well over the server's busy timeout (2 s)."""
AWAY = 5.0
"""The computer rooms' ``away``: a computer stands in for their absent host after it."""
STAND_IN_AT = (1.5, 2.5)
"""Seconds into the fault at which each computer room's stand-in makes its first move (which then cannot be stored)."""
KILL_WINDOW = 1.0
"""The kill comes at a seeded moment up to this long after every room has resumed."""
RESUME_LIMIT = 30.0
"""Seconds the rooms have to resume after a fault (a computer retries at most 8 s apart)."""
RETRY_PAUSE = 0.2
TMPFS_SIZE = "24m"
PROBE_INTERVALS = {"ping": 0.01, "spectator": 0.04, "healthz": 0.02, "room": 0.02, "control": 0.01}
"""Each probe's pause between two round trips (seconds): hundreds of samples during one fault. ``control``
is ``GET /healthz`` of a second server, idle and without any fault: what the machine's load alone does to a
round trip."""
PROBE_TIMEOUT = 10.0
PING_SOCKETS = 6
"""Connections the pings take turns on: each sends fewer than the 20 frames a second the server allows."""

PRIORITY = ["nice", "-n", "-10"] if os.geteuid() == 0 and shutil.which("nice") else []
"""What the server and the probes run under: ahead of the rest of a busy machine, so that the probes measure
the server and not the other work of the machine (the ``control`` round trips show what the machine leaves)."""

PEOPLE_ROOM = {"name": "Anna", "players": 2, "rounds": 20, "away": 60, "pace": 5}
"""Rooms of two people who make every move at once, their only legal ones too: the table would make those
after its pace of 5 s, so every move of these rooms is a frame of its people (one is on its way in each
room when a fault begins)."""
COMPUTER_ROOM = {
    "name": "Host",
    "players": 4,
    "rounds": 20,
    "away": AWAY,
    "pace": 0,
    "seats": [{"kind": "computer", "level": "easy"}] * 3,
}
PROBED_ROOM = {"name": "Probe", "players": 2, "rounds": 1, "away": 3600, "pace": 0}
"""Rooms only the probes visit: a game started, nobody moves (the table makes the opening 11, and any other
only move, at once), nobody stands in for an hour."""


# -- mounts -------------------------------------------------------------------------


def mount_problem() -> str | None:
    """Why this machine cannot mount a tmpfs here, or None."""
    if os.geteuid() != 0:
        return "needs root, to mount a tmpfs"
    if shutil.which("mount") is None or shutil.which("umount") is None:
        return "needs mount and umount"
    return None


def _run_quietly(*command: str) -> int:
    return subprocess.run(command, check=False, capture_output=True).returncode


class Mounts:
    """tmpfs mounts under one folder; :meth:`close` unmounts every one, whatever happened."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.points: list[Path] = []

    def tmpfs(self, name: str, size: str = TMPFS_SIZE) -> Path:
        """A fresh tmpfs of ``size`` at ``root/name``."""
        point = self.root / name
        point.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(point)], check=True)
        self.points.append(point)
        return point

    def remount(self, point: Path, mode: str) -> None:
        """``mount -o remount,MODE`` (``ro`` or ``rw``)."""
        subprocess.run(["mount", "-o", f"remount,{mode}", str(point)], check=True, capture_output=True)

    def close(self) -> None:
        """Unmount everything, the newest first."""
        stuck = []
        while self.points:
            point = self.points.pop()
            if _run_quietly("umount", str(point)) != 0 and _run_quietly("umount", "-l", str(point)) != 0:
                stuck.append(str(point))  # "umount -l" detaches one still in use (a server that would not stop)
        if stuck:
            raise RuntimeError(f"could not unmount {stuck}")


# -- the faults ---------------------------------------------------------------------


class Fault(Protocol):
    """Something wrong with the database, from :meth:`begin` (it bites once this returns) to :meth:`end`."""

    kind: str
    says: str
    """Words of what SQLite reports, which the server's log must show."""
    db: Path
    """The database it is made for."""

    def prepare(self) -> None:
        """Get ready, so that :meth:`begin` takes no time (a helper process started, say)."""

    def begin(self, server_pid: int) -> None: ...

    def end(self) -> None: ...


_LOCKER = """
import sqlite3, sys
sys.stdin.readline()  # "lock": this process is up already, so the lock is taken at once
db = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
db.execute("BEGIN IMMEDIATE")  # in WAL mode EXCLUSIVE is the same lock: writers wait, readers go on
print("locked", flush=True)
sys.stdin.readline()  # until told, or until the test is gone
db.execute("ROLLBACK")
"""


def _first_line(pipe: IO[bytes] | None, seconds: float = 30.0) -> str:
    """The first line a helper process writes to ``pipe`` (unbuffered), or what came before it gave up."""
    assert pipe is not None
    deadline = time.monotonic() + seconds
    line = b""
    while not line.endswith(b"\n") and select.select([pipe], [], [], max(0.0, deadline - time.monotonic()))[0]:
        byte = pipe.read(1)
        if not byte:
            break
        line += byte
    return line.decode(errors="replace").strip()


def _helper(command: list[str], **pipes: Any) -> subprocess.Popen[bytes]:
    """A helper process with unbuffered pipes (a line can be waited for with a deadline)."""
    return subprocess.Popen(command, bufsize=0, **pipes)


def _wait_or_kill(process: subprocess.Popen[bytes]) -> None:
    """Wait for a helper process to end (killing it after 10 s), and close its pipes."""
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)
    for pipe in (process.stdin, process.stdout, process.stderr):
        if pipe is not None:
            pipe.close()


class Locked:
    """Another process holds the database's write lock."""

    kind = "locked"
    says = "database is locked"

    def __init__(self, db: Path) -> None:
        self.db = db
        self._holder: subprocess.Popen[bytes] | None = None

    def prepare(self) -> None:
        if self._holder is None:
            command = [sys.executable, "-c", _LOCKER, str(self.db)]
            self._holder = _helper(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def begin(self, server_pid: int) -> None:
        self.prepare()
        assert self._holder is not None
        assert self._holder.stdin is not None
        self._holder.stdin.write(b"lock\n")
        if _first_line(self._holder.stdout, 40) != "locked":
            raise RuntimeError(f"the lock holder did not get the lock on {self.db}")

    def end(self) -> None:
        holder, self._holder = self._holder, None
        if holder is not None:
            assert holder.stdin is not None
            holder.stdin.close()
            _wait_or_kill(holder)


class Full:
    """The database's own tmpfs, filled up by another file."""

    kind = "full"
    says = "database or disk is full"

    def __init__(self, db: Path) -> None:
        self.db = db
        self.filler = db.parent / "filler"

    def prepare(self) -> None:
        pass

    def begin(self, server_pid: int) -> None:
        # After a checkpoint SQLite writes its WAL from the start again, into space the file already has,
        # and a full disk would go unnoticed for up to 1000 pages. An empty WAL makes the next commit grow it.
        with contextlib.closing(sqlite3.connect(self.db, timeout=1)) as db:
            for _ in range(20):
                if db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0] == 0:
                    break
                time.sleep(0.05)
            else:
                raise RuntimeError(f"could not empty the WAL of {self.db}: a reader or writer held on to it")
        chunk = 1 << 20
        with self.filler.open("wb", buffering=0) as out:
            while chunk >= 512:
                try:
                    out.write(bytes(chunk))
                except OSError as error:
                    if error.errno != errno.ENOSPC:
                        raise
                    chunk //= 2
        probe = self.db.parent / "probe"
        try:
            probe.write_bytes(bytes(4096))
        except OSError as error:
            if error.errno != errno.ENOSPC:
                raise
        else:
            raise RuntimeError(f"{self.db.parent} is not full")
        finally:
            probe.unlink(missing_ok=True)

    def end(self) -> None:
        self.filler.unlink(missing_ok=True)


class ReadOnly:
    """Every write of the server to the database's files answered with EROFS (see the module's docstring)."""

    kind = "readonly"
    says = "disk I/O error"
    WRITES = "pwrite64,pwritev,pwritev2,write,writev,ftruncate,fallocate"

    def __init__(self, db: Path) -> None:
        self.db = db
        self._tracer: subprocess.Popen[bytes] | None = None

    def prepare(self) -> None:
        pass

    def begin(self, server_pid: int) -> None:
        files = [self.db, *(self.db.with_name(self.db.name + end) for end in ("-wal", "-shm", "-journal"))]
        command = ["strace", "-f", "-p", str(server_pid), "-o", "/dev/null", "-e", f"trace={self.WRITES}"]
        command += ["-e", f"inject={self.WRITES}:error=EROFS", *(f"-P{path}" for path in files)]
        self._tracer = _helper(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        said = _first_line(self._tracer.stderr)  # "strace: Process N attached [with M threads]"
        if "attached" not in said:
            self.end()
            raise RuntimeError(f"strace could not attach to the server: {said}")

    def end(self) -> None:
        tracer, self._tracer = self._tracer, None
        if tracer is not None:
            tracer.send_signal(signal.SIGINT)  # strace detaches; the server goes on untouched
            _wait_or_kill(tracer)


def fault_problem(kind: str) -> str | None:
    """Why this machine cannot make fault ``kind``, or None."""
    if kind == "full":
        return mount_problem()
    if kind == "readonly" and shutil.which("strace") is None:
        return "needs strace"
    return None


# -- round trips that need no database write ----------------------------------------

Sample = tuple[str, float, float, str]
"""A probe's kind, its start (``time.monotonic()``, the same clock in every process), seconds, and its error or ""."""


class Probe:
    """Round trips in the probed rooms, measured by a process of its own, whose event loop does nothing else."""

    def __init__(self, base: str, control_base: str, codes: list[str], log: Path) -> None:
        probe = ["-m", "tests.support.fault_helpers", "probe"]  # this module, run as below
        self.command = [*PRIORITY, sys.executable, *probe, base, control_base, *codes]
        self.log = log
        """Its stderr: a file, not a pipe, so that nothing it says can block it."""
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start probing; returns once every kind of probe has had an answer."""
        with self.log.open("ab") as said:
            self._process = _helper(
                self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=said, env=repo_env()
            )
        if _first_line(self._process.stdout) != "ready":
            self.close()
            raise RuntimeError("the probes did not start")

    def stop(self) -> list[Sample]:
        """Stop probing; returns every sample."""
        process, self._process = self._process, None
        assert process is not None
        try:
            text, _ = process.communicate(b"stop\n", timeout=60)
        finally:
            process.kill()
            _wait_or_kill(process)
        if process.returncode != 0:
            raise RuntimeError(f"the probes failed ({process.returncode}): {self.log.read_text()[-3000:]}")
        return [(kind, began, seconds, error) for kind, began, seconds, error in json.loads(text)]

    def close(self) -> None:
        """Make sure the probing process is gone."""
        if self._process is not None:
            self._process.kill()
            _wait_or_kill(self._process)
        self._process = None


async def _probe(base: str, control_base: str, codes: list[str], stop: asyncio.Future[None]) -> list[Sample]:
    samples: list[Sample] = []
    pingers: dict[int, RoomClient] = {}

    async def ping(turn: int) -> float | None:
        socket = turn % PING_SOCKETS
        if socket not in pingers:
            client = RoomClient(base, codes[socket % len(codes)], None)
            await client.__aenter__()
            pingers[socket] = client
        client = pingers[socket]
        try:
            await client.send({"type": "ping"})
            while (answer := await client.receive(PROBE_TIMEOUT))["type"] != "pong":
                if answer["type"] == "error":
                    raise RuntimeError(f"ping refused: {answer}")
        except BaseException:
            del pingers[socket]
            raise
        return None

    async def spectator(turn: int) -> float | None:
        async with RoomClient(base, codes[turn % len(codes)], None) as client:
            await client.until(lambda state: True, PROBE_TIMEOUT)
            return time.monotonic()  # the closing handshake is not part of it

    async def healthz(turn: int) -> float | None:
        (await http.get("/healthz")).raise_for_status()
        return None

    async def room(turn: int) -> float | None:
        (await http.get(f"/api/rooms/{codes[turn % len(codes)]}")).raise_for_status()
        return None

    async def control(turn: int) -> float | None:
        (await idle.get("/healthz")).raise_for_status()
        return None

    async def measure(kind: str, once: Callable[[int], Awaitable[float | None]]) -> None:
        """Round trips one after the other, ``once(turn)`` returning when the answer came (None: on return)."""
        for turn in range(1_000_000):
            began = time.monotonic()
            error = ""
            answered = None
            try:
                answered = await asyncio.wait_for(once(turn), PROBE_TIMEOUT)
            except Exception as failure:  # a failed round trip is a sample too: the room was held up
                error = f"{type(failure).__name__}: {failure}"[:200]
            samples.append((kind, began, (answered or time.monotonic()) - began, error))
            await asyncio.sleep(PROBE_INTERVALS[kind] + (0.1 if error else 0))

    async with (
        httpx.AsyncClient(base_url=base, timeout=PROBE_TIMEOUT) as http,
        httpx.AsyncClient(base_url=control_base, timeout=PROBE_TIMEOUT) as idle,
    ):
        probes = {"ping": ping, "spectator": spectator, "healthz": healthz, "room": room, "control": control}
        tasks = [asyncio.create_task(measure(kind, once)) for kind, once in probes.items()]
        while {sample[0] for sample in samples} != set(probes):
            await asyncio.sleep(0.01)
        print("ready", flush=True)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop, 600)
        for task in tasks:
            task.cancel()
        _done, pending = await asyncio.wait(tasks, timeout=5)
        for task in pending:
            print(f"a probe does not stop: {task.get_stack()}", file=sys.stderr, flush=True)
        for client in pingers.values():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.close(), 1)
    return samples


def _probe_main(base: str, control_base: str, codes: list[str]) -> int:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        stop: asyncio.Future[None] = loop.create_future()

        def wait_for_word() -> None:
            sys.stdin.readline()
            faulthandler.dump_traceback_later(30, exit=True)  # a probe that will not stop says where it hangs
            loop.call_soon_threadsafe(stopped)

        def stopped() -> None:
            if not stop.done():
                stop.set_result(None)

        threading.Thread(target=wait_for_word, daemon=True).start()
        samples = await _probe(base, control_base, codes, stop)
        sys.stdout.write(json.dumps(samples) + "\n")
        sys.stdout.flush()
        os._exit(0)  # at once: nothing left over (a connection still closing) may hold the samples back

    asyncio.run(main())
    return 1


@dataclass(frozen=True)
class Latency:
    """Round trips of one kind (or ``all``) in a window, in milliseconds."""

    kind: str
    samples: int
    errors: int
    p50: float
    p99: float
    max: float

    def __str__(self) -> str:
        errors = f", {self.errors} failed" if self.errors else ""
        return f"{self.kind}: p50 {self.p50:.1f} p99 {self.p99:.1f} max {self.max:.1f} ms ({self.samples}{errors})"


def latencies(samples: list[Sample], begin: float, end: float) -> dict[str, Latency]:
    """The round trips started between ``begin`` and ``end``, by kind, and all of the server's together."""
    inside = [sample for sample in samples if begin <= sample[1] <= end]
    result = {}
    for kind in [*PROBE_INTERVALS, "all"]:
        chosen = [sample for sample in inside if sample[0] == kind or (kind == "all" and sample[0] != "control")]
        times = sorted(1000 * sample[2] for sample in chosen)
        errors = sum(1 for sample in chosen if sample[3])
        result[kind] = Latency(
            kind,
            len(times),
            errors,
            percentile(times, 0.5),
            percentile(times, 0.99),
            times[-1] if times else 0.0,
        )
    return result


# -- what was acknowledged, what is stored ------------------------------------------


def hidden(moves: list[str]) -> list[str]:
    """A history as everybody sees it: ``"2 draw Y4"`` becomes ``"2 draw"``."""
    return [" ".join(text.split()[:2]) if " draw " in text else text for text in moves]


class Ledger:
    """Every move the server acknowledged to the test's clients: the longest history of each game any of them got."""

    def __init__(self) -> None:
        self.games: dict[int, list[str]] = {}
        self.rooms: dict[int, str] = {}
        self.conflicts: list[str] = []

    def note(self, code: str, state: dict[str, Any]) -> None:
        """A client of room ``code`` received ``state``."""
        game = state.get("game")
        if not game or game.get("id") is None:
            return
        moves, known = game["moves"], self.games.get(game["id"], [])
        shorter, longer = sorted((known, moves), key=len)
        if longer[: len(shorter)] != shorter:
            self.conflicts.append(f"room {code}, game {game['id']}: two clients were told different histories")
        if len(moves) > len(known):
            self.games[game["id"]] = list(moves)
            self.rooms[game["id"]] = code

    def moves(self) -> int:
        """Moves acknowledged, all games together."""
        return sum(len(moves) for moves in self.games.values())


class Witness(RoomClient):
    """A room client whose every ``state`` goes into the ledger."""

    def __init__(self, base: str, code: str, token: str | None, ledger: Ledger) -> None:
        super().__init__(base, code, token)
        self.code = code
        self.ledger = ledger

    async def __aenter__(self) -> Witness:
        # RoomClient's connection stops reading after 16 frames nobody took (the library's default), and then
        # cannot read the server's answer to its close either: leaving a room that plays at pace 0 took 10 s.
        self._socket = await connect(self.url, max_size=2**20, max_queue=None)
        await self.send({"type": "hello", "token": self.token, "lang": self.lang})
        return self

    async def receive(self, timeout: float = 10.0) -> dict[str, Any]:
        message = await super().receive(timeout)
        if message.get("type") == "state":
            self.ledger.note(self.code, message)
        return message


def stored_games(db: Path) -> dict[int, dict[str, Any]]:
    """Every game in the database file, read directly: its ``elferraus/1`` record, with ``"room"`` its code."""
    with contextlib.closing(sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=10)) as con:
        moves: dict[int, list[str]] = {}
        for game, number, text in con.execute("SELECT game, n, text FROM moves ORDER BY game, n"):
            kept = moves.setdefault(game, [])
            if number != len(kept):  # a row is missing: the record must not replay as if it were not
                kept.append(f"(move {len(kept)} is missing)")
            kept.append(text)
        games = {}
        for game, code, deal, result in con.execute("SELECT id, code, deal, result FROM games"):
            record = {**json.loads(deal), "moves": moves.get(game, []), "result": result and json.loads(result)}
            games[game] = {**record, "room": code}
    return games


def record_of(game: dict[str, Any]) -> dict[str, Any]:
    """A stored game's record without the test's ``room``."""
    return {key: value for key, value in game.items() if key != "room"}


def check_records(records: list[dict[str, Any]], workdir: Path) -> str | None:
    """``elferraus check`` on the records; None if it says they are all legal, else what it said."""
    path = workdir / "records.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    answer = subprocess.run(
        [sys.executable, "-m", "elferraus.cli.main", "check", str(path)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if answer.returncode != 0 or f"{len(records)} legal" not in answer.stdout:
        return f"elferraus check: {answer.returncode} {answer.stdout[-500:]} {answer.stderr[-500:]}"
    return None


if __name__ == "__main__":
    if sys.argv[1:2] == ["probe"]:
        sys.exit(_probe_main(sys.argv[2], sys.argv[3], sys.argv[4:]))
    sys.exit(f"usage: {sys.argv[0]} probe BASE CONTROL_BASE CODE...")
