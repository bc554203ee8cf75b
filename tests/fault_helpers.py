"""Faults of the server's database, and rooms played through them, for the fault tests and ``benchmarks/faults.py``.

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
import random
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Protocol

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from elferraus.arena.stats import percentile
from elferraus.errors import RecordError
from elferraus.record import read_record
from elferraus.server.client import RoomClient, create_room
from server_helpers import OVER, post, room_with_people, send_move, start, wait_online
from web_helpers import ServerProcess

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

PEOPLE_ROOM = {"name": "Anna", "players": 2, "rounds": 20, "away": 60, "pace": 0}
COMPUTER_ROOM = {
    "name": "Host",
    "players": 4,
    "rounds": 20,
    "away": AWAY,
    "pace": 0,
    "seats": [{"kind": "computer", "level": "easy"}] * 3,
}
PROBED_ROOM = {"name": "Probe", "players": 2, "rounds": 1, "away": 3600, "pace": 0}
"""Rooms only the probes visit: a game started, nobody moves, nobody stands in for an hour."""


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
        script = str(Path(__file__).resolve())
        self.command = [*PRIORITY, sys.executable, script, "probe", base, control_base, *codes]
        self.log = log
        """Its stderr: a file, not a pipe, so that nothing it says can block it."""
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start probing; returns once every kind of probe has had an answer."""
        with self.log.open("ab") as said:
            self._process = _helper(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=said)
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


# -- rooms played through a fault ---------------------------------------------------


@dataclass
class Table:
    """One room of the scenario."""

    code: str
    kind: str
    """``people``, ``computers`` or ``probed``."""
    tokens: list[str]


@dataclass
class Refusal:
    """A person's frame that the server could not store."""

    code: str
    seat: int
    frame: str
    at: float
    waited: float
    """Seconds from sending the frame to its refusal."""
    accepted: float | None = None
    retries: int = 0


@dataclass
class RoundReport:
    """One fault and the ``kill -9`` after it (``number`` 0: the final play to the end, with no fault)."""

    kind: str
    number: int
    seed: int
    kill_after: float = 0.0
    creation: str = ""
    """What ``POST /api/rooms`` during the fault got, and after how long."""
    refusals: list[Refusal] = field(default_factory=list)
    resumed: dict[str, float] = field(default_factory=dict)
    """Seconds after the fault until each computer room moved again."""
    latency: dict[str, Latency] = field(default_factory=dict)
    window: list[Sample] = field(default_factory=list)
    """The probes' round trips that began during the fault."""
    acknowledged: int = 0
    found: int = 0
    games: int = 0
    replayed: int = 0
    problems: list[str] = field(default_factory=list)


def _moved_on(before: dict[str, Any], now: dict[str, Any]) -> bool:
    """True if ``now`` shows the room moved on from ``before`` (not just someone coming or going)."""
    if now["seq"] <= before["seq"]:
        return False
    if now["room"]["status"] != before["room"]["status"]:
        return True
    old, new = before["game"] or {}, now["game"] or {}
    return bool(old.get("id") != new.get("id") or len(old.get("moves", [])) != len(new.get("moves", [])))


async def _sleep_until(moment: float) -> None:
    await asyncio.sleep(max(0.0, moment - time.monotonic()))


class Person:
    """One person's seat, played by the test: the first legal move at once, and as host ``next``/``rematch``."""

    def __init__(self, scenario: Scenario, table: Table, seat: int, keep_playing: bool) -> None:
        self.scenario = scenario
        self.table = table
        self.seat = seat
        self.keep_playing = keep_playing
        """Go on to the next round (as host); else stop once the round is over."""

    async def run(self) -> None:
        """Play until the server goes (``kill -9``) or, unless keep_playing, until the round is over."""
        scenario = self.scenario
        with contextlib.suppress(ConnectionClosed, ConnectionError):  # the server was killed
            async with Witness(scenario.base, self.table.code, self.table.tokens[self.seat], scenario.ledger) as me:
                await me.until(lambda state: True, 10)
                await self.play(me)

    async def play(self, me: RoomClient) -> None:
        """Play on ``me``'s connection."""
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            state = me.state
            assert state is not None
            if state["room"]["status"] in OVER and not self.keep_playing:
                return
            frame = self._frame(state)
            if frame is None:
                with contextlib.suppress(TimeoutError):
                    await me.receive(0.5)
                continue
            await self._act(me, frame, state)
        self.scenario.problem(f"room {self.table.code}: seat {self.seat} still playing after 300 s")

    def _frame(self, state: dict[str, Any]) -> dict[str, Any] | None:
        status = state["room"]["status"]
        if status == "playing" and state["view"] and state["view"]["legal"]:
            return {"type": "move", "move": state["view"]["legal"][0], "seq": state["seq"]}
        if status in OVER and self.seat == 0 and self.keep_playing:
            return {"type": "next" if status == "round_over" else "rematch"}
        return None

    async def _send(self, me: RoomClient, frame: dict[str, Any]) -> None:
        if frame["type"] == "move":
            await send_move(me, frame["move"], frame["seq"])
        else:
            await me.send(frame)

    async def _answer(self, me: RoomClient, before: dict[str, Any], errors: int) -> dict[str, Any] | None:
        """None once the room moved on, or the error that refused the frame."""
        await me.until(lambda state: _moved_on(before, state) or len(me.errors) > errors, 30)
        return me.errors[errors] if len(me.errors) > errors else None

    async def _act(self, me: RoomClient, frame: dict[str, Any], before: dict[str, Any]) -> None:
        errors = len(me.errors)
        sent = time.monotonic()
        await self._send(me, frame)
        error = await self._answer(me, before, errors)
        if error is None or error["code"] == "stale":
            return
        if error["code"] != "store_unavailable":
            self.scenario.problem(f"room {self.table.code}: {frame} refused: {error}")
            await asyncio.sleep(0.5)
            return
        now = time.monotonic()
        refusal = Refusal(self.table.code, self.seat, str(frame.get("move", frame["type"])), now, now - sent)
        await self.scenario.refused(self.table, me, before, error, refusal)
        await self.scenario.fault_over.wait()
        for _ in range(100):
            refusal.retries += 1
            errors = len(me.errors)
            await self._send(me, frame)
            error = await self._answer(me, before, errors)
            if error is None:
                refusal.accepted = time.monotonic()
                return
            if error["code"] != "store_unavailable":
                self.scenario.problem(f"room {self.table.code}: {frame} sent again after the fault: {error}")
                return
            await asyncio.sleep(RETRY_PAUSE)
        self.scenario.problem(f"room {self.table.code}: {frame} was never accepted after the fault")


class Scenario:
    """Rooms on one server, played through faults of one kind, each followed by a ``kill -9`` and a restart.

    Args:
        server: the server (started).
        control: another server, idle (started).
        fault: the fault to make.
        seed: chooses the moments of the kills.
        workdir: a folder for scratch files.
    """

    def __init__(self, server: ServerProcess, control: ServerProcess, fault: Fault, seed: int, workdir: Path) -> None:
        self.server = server
        self.control = control
        """An idle server without any fault, for the probes' ``control`` round trips."""
        self.base = server.base
        self.fault = fault
        self.seed = seed
        self.rng = random.Random(seed)
        self.workdir = workdir
        self.ledger = Ledger()
        self.tables: list[Table] = []
        self.fault_over = asyncio.Event()
        self.times: dict[str, float] = {}
        """When the fault was ``asked`` for, ``lifting`` (its end asked for) and ``lifted`` (over), this round."""
        self.report = RoundReport(fault.kind, 0, seed)

    def of(self, kind: str) -> list[Table]:
        return [table for table in self.tables if table.kind == kind]

    def problem(self, text: str) -> None:
        """Something the server promised did not hold."""
        self.report.problems.append(text)

    async def open_rooms(self, people: int = 3, computers: int = 2, probed: int = 2) -> None:
        """Rooms of people (playing), rooms of computers (waiting for their host) and rooms for the probes."""
        for _ in range(people):
            code, tokens = await room_with_people(self.base, 2, **PEOPLE_ROOM)
            self.tables.append(Table(code, "people", tokens))
            async with RoomClient(self.base, code, tokens[0]) as host, RoomClient(self.base, code, tokens[1]) as guest:
                await wait_online(host, [0, 1])
                await start(host, guest)
        for _ in range(computers):
            info = await create_room(self.base, **COMPUTER_ROOM)
            self.tables.append(Table(info["code"], "computers", [info["token"]]))
        for _ in range(probed):
            code, tokens = await room_with_people(self.base, 2, **PROBED_ROOM)
            self.tables.append(Table(code, "probed", tokens))
            async with RoomClient(self.base, code, tokens[0]) as host:
                await host.until(lambda state: True, 10)
                await start(host)

    async def look(self, table: Table) -> dict[str, Any]:
        """The room's state as a new spectator gets it."""
        async with Witness(self.base, table.code, None, self.ledger) as spectator:
            return await spectator.until(lambda state: True, 10)

    async def watch(self, table: Table) -> None:
        """A spectator that stays, so that every state the room sends is in the ledger."""
        with contextlib.suppress(ConnectionClosed, ConnectionError):  # the server was killed
            async with Witness(self.base, table.code, None, self.ledger) as spectator:
                for _ in range(1_000_000):
                    with contextlib.suppress(TimeoutError):
                        await spectator.receive(1)

    async def refused(
        self, table: Table, me: RoomClient, before: dict[str, Any], error: dict[str, Any], refusal: Refusal
    ) -> None:
        """A person's frame could not be stored: check that the room is exactly as it was."""
        self.report.refusals.append(refusal)
        where = f"room {table.code}, seat {refusal.seat}, {refusal.frame}"
        if not self.during_fault(refusal.at - refusal.waited, refusal.at):
            self.problem(f"{where}: store_unavailable with no fault")
        if error.get("seq") != before["seq"]:
            self.problem(f"{where}: the refusal's seq {error.get('seq')} is not the room's {before['seq']}")
        assert me.state is not None
        seen = await self.look(table)
        for name, state in (("the mover", me.state), ("a new spectator", seen)):
            if state["seq"] != before["seq"] or (state["game"] or {}).get("moves") != before["game"]["moves"]:
                self.problem(f"{where}: after the refusal {name} sees seq {state['seq']}, the room changed")

    def during_fault(self, sent: float, answered: float) -> bool:
        """True if a request sent and answered at these moments may have met the fault."""
        return self.times.get("asked", answered + 1) <= answered and sent <= self.times.get("lifted", sent)

    async def _deal_and_leave(self, table: Table) -> None:
        """The computer room's host finishes his round if need be, deals the next one and goes."""
        async with Witness(self.base, table.code, table.tokens[0], self.ledger) as host:
            state = await host.until(lambda state: True, 10)
            if state["room"]["status"] == "playing":
                await Person(self, table, 0, keep_playing=False).play(host)
                assert host.state is not None
                state = host.state
            old = (state["game"] or {}).get("id")
            frame = {"waiting": "start", "round_over": "next", "match_over": "rematch"}[state["room"]["status"]]
            await host.send({"type": frame})
            await host.until(lambda s: s["room"]["status"] == "playing" and s["game"]["id"] != old, 10)

    async def _until(self, done: Callable[[], bool], limit: float, failure: str) -> bool:
        deadline = time.monotonic() + limit
        while not done():
            if time.monotonic() > deadline:
                self.problem(failure)
                return False
            await asyncio.sleep(0.02)
        return True

    async def kill_round(self, number: int) -> RoundReport:
        """Play through one fault, kill the server at a seeded moment after it, restart and check the store."""
        self.report = report = RoundReport(self.fault.kind, number, self.seed)
        self.fault_over = asyncio.Event()
        self.times = {}
        codes = [table.code for table in self.of("probed")]
        probe = Probe(self.base, self.control.base, codes, self.workdir / "probe.log")
        await asyncio.to_thread(probe.start)
        playing = self.of("people") + self.of("computers")
        tasks = [asyncio.create_task(self.watch(table)) for table in playing]
        tasks += [
            asyncio.create_task(Person(self, table, seat, keep_playing=True).run())
            for table in self.of("people")
            for seat in (0, 1)
        ]
        window = (0.0, 0.0)
        logged = self.server.log.stat().st_size
        try:
            try:
                await asyncio.to_thread(self.fault.prepare)
                await self._deal_computers()
                window = await self._fault(report)
            finally:
                self.fault_over.set()
            await self._resume(report, window[1])
            with self.server.log.open("rb") as log:
                log.seek(logged)
                if self.fault.says not in log.read().decode(errors="replace"):
                    self.problem(f"the server's log does not say {self.fault.says!r} about the fault")
            report.kill_after = round(self.rng.uniform(0, KILL_WINDOW), 3)
            await asyncio.sleep(report.kill_after)
        finally:
            try:
                await asyncio.to_thread(self.server.kill)
                for result in await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 30):
                    if isinstance(result, BaseException):
                        self.problem(f"a client of the test failed: {result!r}")
                samples = await asyncio.to_thread(probe.stop)
            finally:
                probe.close()
        report.latency = latencies(samples, *window)
        report.window = [sample for sample in samples if window[0] <= sample[1] <= window[1]]
        await asyncio.to_thread(self.server.start)
        await self.check_store(report)
        return report

    async def _deal_computers(self) -> None:
        """Once the people play, each computer room's host deals and goes, ``STAND_IN_AT`` apart."""
        moves = self.ledger.moves()
        await self._until(lambda: self.ledger.moves() > moves + 10, 30, "the people's rooms did not play")
        left: list[float] = []
        for index, table in enumerate(self.of("computers")):
            if left:
                await _sleep_until(left[0] + STAND_IN_AT[index] - STAND_IN_AT[0])
            await self._deal_and_leave(table)
            left.append(time.monotonic())
        if left:  # a stand-in plays AWAY seconds after its host went: its first move falls into the fault
            await _sleep_until(left[0] + AWAY - STAND_IN_AT[0])

    async def _fault(self, report: RoundReport) -> tuple[float, float]:
        """Make the fault, check the rooms while it lasts, end it; returns when it began and ended."""
        computers = self.of("computers")
        assert self.server.process is not None
        self.times["asked"] = asked = time.monotonic()
        await asyncio.to_thread(self.fault.begin, self.server.process.pid)
        began = time.monotonic()
        creating = asyncio.create_task(self._create_room_during_fault())
        try:
            before = {table.code: await self.look(table) for table in computers}
            for code, state in before.items():
                if state["room"]["status"] != "playing":
                    self.problem(f"room {code}: game ended before the fault ({began - asked:.2f} s to make)")
            await _sleep_until(began + FAULT_SECONDS - 0.5)
            stored = await asyncio.to_thread(stored_games, self.server.db)
            for table in self.of("people") + computers:
                seen = await self.look(table)
                game = seen["game"]
                if game is None or hidden(stored.get(game["id"], {}).get("moves", [])) != game["moves"]:
                    self.problem(f"room {table.code}: during the fault it shows moves that are not stored")
                if table.kind == "computers" and game is not None:
                    if game["moves"] != before[table.code]["game"]["moves"]:
                        self.problem(f"room {table.code}: its computers moved during the fault")
                    if not seen["room"]["seats"][0]["auto"]:
                        self.problem(f"room {table.code}: no computer stood in for its host during the fault")
            for table in self.of("people"):  # each has a move on its way: refused within the busy timeout
                if not any(refusal.code == table.code for refusal in report.refusals):
                    self.problem(f"room {table.code}: no frame of its people was refused during the fault")
            await _sleep_until(began + FAULT_SECONDS)
        finally:
            self.times["lifting"] = time.monotonic()
            await asyncio.to_thread(self.fault.end)
            self.times["lifted"] = time.monotonic()
        ended = time.monotonic()
        await creating
        return began, ended

    async def _create_room_during_fault(self) -> None:
        """``POST /api/rooms`` while no room can be stored: 503 ``store_unavailable`` before the fault ends."""
        sent = time.monotonic()
        answer = await post(self.base, "/api/rooms", json=PROBED_ROOM)
        answered = time.monotonic()
        self.report.creation = f"{answer.status_code} after {answered - sent:.1f} s"
        where = f"POST /api/rooms sent {sent - self.times['asked']:.1f} s into the fault"
        if answer.status_code != 503 or answered > self.times.get("lifting", answered):
            self.problem(f"{where}: {answer.status_code} after {answered - sent:.1f} s, {answer.text[:100]}")
        elif answer.json().get("error") != "store_unavailable" or answer.headers.get("retry-after") != "1":
            self.problem(f"{where}: {answer.text[:200]}, {dict(answer.headers)}")

    async def _resume(self, report: RoundReport, ended: float) -> None:
        """Wait until every refused frame was accepted and every computer room moved again."""
        computers = {}
        for table in self.of("computers"):
            state = await self.look(table)
            if state["game"] is not None and state["room"]["status"] == "playing":
                computers[table.code] = (state["game"]["id"], len(state["game"]["moves"]))
        deadline = ended + RESUME_LIMIT
        while time.monotonic() < deadline:
            for code, (game, moves) in computers.items():
                if code not in report.resumed and len(self.ledger.games.get(game, [])) > moves:
                    report.resumed[code] = round(time.monotonic() - ended, 3)
            if len(report.resumed) == len(computers) and all(r.accepted for r in report.refusals):
                return
            await asyncio.sleep(0.02)
        for code in computers.keys() - report.resumed.keys():
            self.problem(f"room {code}: its computers did not move again within {RESUME_LIMIT:g} s of the fault")
        for refusal in report.refusals:
            if refusal.accepted is None:
                self.problem(f"room {refusal.code}: {refusal.frame} not accepted within {RESUME_LIMIT:g} s")

    async def check_store(self, report: RoundReport) -> None:
        """The restarted server's store: every acknowledged move in it, every game replays, every room is back."""
        stored = await asyncio.to_thread(stored_games, self.server.db)
        report.problems += self.ledger.conflicts
        self.ledger.conflicts.clear()
        report.acknowledged = self.ledger.moves()
        for game, moves in self.ledger.games.items():
            kept = hidden(stored.get(game, {}).get("moves", []))
            found = next((n for n, (a, b) in enumerate(zip(moves, kept, strict=False)) if a != b), len(kept))
            report.found += min(found, len(moves))
            if found < len(moves):
                self.problem(f"room {self.ledger.rooms[game]}, game {game}: acknowledged move {found + 1} is lost")
        report.games = len(stored)
        async with httpx.AsyncClient(base_url=self.base, timeout=10) as http:
            for game, data in stored.items():
                record = record_of(data)
                try:
                    read_record(record)
                except RecordError as error:
                    self.problem(f"room {data['room']}, game {game} does not replay: {error}")
                    continue
                if record["result"] is not None:
                    answer = await http.get(f"/api/games/{game}/record")
                    if answer.status_code != 200 or answer.json() != record:
                        self.problem(f"game {game}: GET record gives {answer.status_code}, not the stored record")
                        continue
                report.replayed += 1
            for table in self.tables:
                answer = await http.get(f"/api/rooms/{table.code}")
                if answer.status_code != 200:
                    self.problem(f"room {table.code} did not come back: {answer.status_code} {answer.text[:200]}")
        said = await asyncio.to_thread(check_records, [record_of(data) for data in stored.values()], self.workdir)
        if said is not None:
            self.problem(said)

    async def finish(self) -> RoundReport:
        """Every room's game plays on to its end; then the store is checked once more."""
        self.report = report = RoundReport(self.fault.kind, 0, self.seed)
        players = [Person(self, table, seat, keep_playing=False) for table in self.of("people") for seat in (0, 1)]
        tasks = [asyncio.create_task(person.run()) for person in players]
        tasks += [asyncio.create_task(self._play_out(table)) for table in self.of("computers")]
        await asyncio.wait_for(asyncio.gather(*tasks), 300)
        for table in self.of("people") + self.of("computers"):
            state = await self.look(table)
            if state["room"]["status"] not in OVER:
                self.problem(f"room {table.code}: its game did not end ({state['room']['status']})")
        await self.check_store(report)
        return report

    async def _play_out(self, table: Table) -> None:
        async with Witness(self.base, table.code, table.tokens[0], self.ledger) as host:
            await host.until(lambda state: True, 10)
            await Person(self, table, 0, keep_playing=False).play(host)


def make_fault(kind: str, workdir: Path, mounts: Mounts) -> Fault:
    """The fault ``kind`` for a database made for it (on its own tmpfs when the fault needs one)."""
    if kind == "locked":
        return Locked(workdir / "games.sqlite3")
    if kind == "full":
        return Full(mounts.tmpfs("db") / "games.sqlite3")
    if kind == "readonly":
        return ReadOnly(workdir / "games.sqlite3")
    raise ValueError(f"no fault {kind!r}: choose from {FAULTS}")


def run_fault(
    kind: str, workdir: Path, mounts: Mounts, seed: int, kills: int, say: Callable[[str], None] = print
) -> list[RoundReport]:
    """Rooms through ``kills`` faults of ``kind``, each with a ``kill -9`` after it, then played to their end.

    Returns a report for each fault and one (``number`` 0) for the end.
    """
    fault = make_fault(kind, workdir, mounts)
    server = ServerProcess(fault.db, log=workdir / "server.log", prefix=PRIORITY)
    control = ServerProcess(workdir / "control.sqlite3", prefix=PRIORITY)
    reports = []

    async def main() -> None:
        scenario = Scenario(server, control, fault, seed, workdir)
        await scenario.open_rooms()
        for number in range(1, kills + 1):
            reports.append(await scenario.kill_round(number))
            say(summary(reports[-1]))
        reports.append(await scenario.finish())
        say(summary(reports[-1]))

    server.start()
    try:
        control.start()
        asyncio.run(main())
    finally:
        control.stop()
        server.stop()
        fault.end()
    return reports


def summary(report: RoundReport) -> str:
    """One report in a few lines."""
    what = f"kill -9 round {report.number}" if report.number else "played to the end"
    lines = [
        f"{report.kind}, {what} (seed {report.seed}, killed {report.kill_after:.3f} s after resuming): "
        f"{report.found}/{report.acknowledged} acknowledged moves stored, "
        f"{report.replayed}/{report.games} stored games replay",
    ]
    if report.refusals:
        waited = [round(refusal.waited, 1) for refusal in report.refusals]
        retries = [refusal.retries for refusal in report.refusals]
        lines.append(f"  {len(report.refusals)} frames refused after {waited} s, accepted after {retries} tries")
        lines.append(f"  computers resumed after {report.resumed} s; POST /api/rooms: {report.creation}")
    lines += [f"  {latency}" for latency in report.latency.values()]
    lines += [f"  PROBLEM: {problem}" for problem in report.problems]
    return "\n".join(lines)


if __name__ == "__main__":
    if sys.argv[1:2] == ["probe"]:
        sys.exit(_probe_main(sys.argv[2], sys.argv[3], sys.argv[4:]))
    sys.exit(f"usage: {sys.argv[0]} probe BASE CONTROL_BASE CODE...")
