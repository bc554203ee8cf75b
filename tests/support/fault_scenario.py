"""Rooms played through a fault of the server's database, then ``kill -9``, and what is checked after.

The faults, the probes and the bookkeeping are in ``fault_helpers.py``; this
module plays the scenario the fault tests and ``benchmarks/site/faults.py`` share.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed

from elferraus.errors import RecordError
from elferraus.record import read_record
from elferraus.server.client import RoomClient, create_room
from tests.support.fault_helpers import (
    AWAY,
    COMPUTER_ROOM,
    FAULT_SECONDS,
    FAULTS,
    KILL_WINDOW,
    PEOPLE_ROOM,
    PRIORITY,
    PROBED_ROOM,
    RESUME_LIMIT,
    RETRY_PAUSE,
    STAND_IN_AT,
    Fault,
    Full,
    Latency,
    Ledger,
    Locked,
    Mounts,
    Probe,
    ReadOnly,
    Sample,
    Witness,
    check_records,
    hidden,
    latencies,
    record_of,
    stored_games,
)
from tests.support.server_helpers import OVER, post, room_with_people, send_move, start, wait_online
from tests.support.web_helpers import ServerProcess

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
        if status == "playing" and state["view"] and state["view"]["legal"]:  # the only moves too (PEOPLE_ROOM)
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
