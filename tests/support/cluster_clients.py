"""People and spectators of rooms served by several processes, for the cluster's fault tests.

A :class:`Person` plays his seat over a WebSocket to one process, makes a legal move from his ``view.legal``
as soon as it is his turn, and comes back through the load balancer when his connection is lost. He keeps
every move the server acknowledged to him (:class:`Ack`: his move at its place, in the state that answered
it) and every refusal. A :class:`Watcher` is a spectator that notes when each move reached it. Every state
any of them receives goes into a :class:`~fault_helpers.Ledger`: the longest history of each game the
server told anybody, which the final records must hold.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from websockets.exceptions import WebSocketException

from elferraus.record import read_record
from elferraus.server.client import create_room, join_room
from tests.support.fault_helpers import Ledger, Witness, hidden
from tests.support.server_helpers import get, send_move

TURN_WAIT = 20.0
"""Seconds a person waits for his turn (or the end) before he calls the room stuck."""
ANSWER_WAIT = 15.0
"""Seconds a sent move may go without an answer (a state with it, or a refusal) on a live connection."""
RETRY_PAUSE = 0.25
"""A person sends a move refused ``store_unavailable`` again after this pause (the protocol allows it)."""
RECONNECT_PAUSE = 0.05
RECONNECT_FOR = 15.0
"""Seconds a client keeps trying to come back through the load balancer before it gives up."""


def over(state: dict[str, Any]) -> bool:
    """The match of the room is over."""
    return bool(state["room"]["status"] == "match_over")


def to_move(state: dict[str, Any]) -> bool:
    """The state asks this seat for a move: a choice, or its only move (``making``) it may make itself first."""
    view = state["view"]
    return bool(state["room"]["status"] == "playing" and view and view["legal"])


def history(state: dict[str, Any]) -> tuple[int | None, list[str]]:
    """The game of a state and its moves as everybody reads them (``(None, [])`` before the first deal)."""
    game = state.get("game")
    if not game:
        return None, []
    return game["id"], hidden(list(game["moves"]))


def seat_moves(state: dict[str, Any]) -> list[str]:
    """The moves of the game as the state's seat reads them (none before the first deal)."""
    view = state.get("view")
    return list(view["moves"]) if view else []


@dataclass(frozen=True)
class Ack:
    """A move of the person the server acknowledged: a state answering it had it at ``index`` of game ``game``."""

    game: int
    index: int
    text: str
    """As the person's own view shows it (his draws with their card: ``"0 draw Y4"``)."""
    at: float


@dataclass(frozen=True)
class Refusal:
    """An ``error`` the server answered one of the person's frames with."""

    code: str
    message: str
    move: str
    at: float


@dataclass(frozen=True)
class Seen:
    """A state as a spectator received it."""

    at: float
    seq: int
    game: int | None
    moves: list[str]
    status: str


class Connection(Witness):
    """A room connection whose states go into the ledger and, with their arrival time, to ``noted``."""

    def __init__(self, base: str, code: str, token: str | None, ledger: Ledger, noted: Callable[[Any], None]) -> None:
        super().__init__(base, code, token, ledger)
        self.noted = noted

    async def receive(self, timeout: float = 10.0) -> dict[str, Any]:
        message = await super().receive(timeout)
        if message.get("type") == "state":
            self.noted(message)
        return message


class _Client:
    """A connection to a room that comes back through ``fallback`` (the load balancer) when it is lost."""

    def __init__(self, name: str, code: str, token: str | None, first: str, fallback: str, ledger: Ledger) -> None:
        self.name = name
        self.code = code
        self.token = token
        self.base = first
        """The address it is connected to now: first the process chosen for it, after a drop the balancer."""
        self.fallback = fallback
        self.ledger = ledger
        self.drops: list[float] = []
        """When each connection was lost (``time.monotonic()``)."""
        self.connected: list[tuple[float, str]] = []
        """When and where each connection was made."""
        self.state: dict[str, Any] | None = None

    def _noted(self, state: dict[str, Any]) -> None:
        self.state = state

    async def _session(self, work: Callable[[Connection], Any], until: Callable[[dict[str, Any]], bool]) -> None:
        """Run ``work`` on a connection until it returns; after a drop, connect again and run it anew."""
        gave_up_at: float | None = None
        while True:
            try:
                async with Connection(self.base, self.code, self.token, self.ledger, self._noted) as client:
                    self.connected.append((time.monotonic(), self.base))
                    gave_up_at = None
                    await work(client)
                    return
            except (WebSocketException, OSError) as drop:
                now = time.monotonic()
                if gave_up_at is None:
                    self.drops.append(now)
                    gave_up_at = now + RECONNECT_FOR
                if now > gave_up_at:
                    raise AssertionError(
                        f"{self.name} of room {self.code} could not come back through {self.fallback} "
                        f"within {RECONNECT_FOR:g} s: {drop!r}"
                    ) from drop
                self.base = self.fallback
                if self.state is not None and until(self.state):
                    return
                await asyncio.sleep(RECONNECT_PAUSE)


class Person(_Client):
    """A person at seat ``seat`` of room ``code``, playing legal moves (chosen with ``seed``) until the match is
    over; the host (seat 0) starts the game once every seat in ``people`` is online.

    ``gate``: while it is clear, he waits at his turn instead of moving (:attr:`held` says he does, at a choice of
    his own).
    """

    def __init__(
        self,
        code: str,
        seat: int,
        token: str,
        first: str,
        fallback: str,
        ledger: Ledger,
        *,
        seed: int,
        people: tuple[int, ...] = (),
    ) -> None:
        super().__init__(f"seat {seat}", code, token, first, fallback, ledger)
        self.seat = seat
        self.people = people
        self.random = random.Random(seed)
        self.gate = asyncio.Event()
        self.gate.set()
        self.held = False
        self.acks: list[Ack] = []
        self.refusals: list[Refusal] = []
        self.views: dict[int, list[str]] = {}
        """The longest history of each game his own view showed him (his draws with their cards)."""

    def _noted(self, state: dict[str, Any]) -> None:
        super()._noted(state)
        view, game = state.get("view"), state.get("game")
        if view and game:
            known = self.views.get(game["id"], [])
            if len(view["moves"]) > len(known):
                self.views[game["id"]] = list(view["moves"])

    def choose(self, state: dict[str, Any]) -> str:
        """His move: the table's only move for him if there is one, else a lay if he has one, else the first."""
        view = state["view"]
        if view["making"] is not None:
            return str(view["making"])
        legal = [str(move) for move in view["legal"]]
        lays = [move for move in legal if move not in ("draw", "pass")]
        return self.random.choice(lays) if lays else legal[0]

    async def play(self, until: Callable[[dict[str, Any]], bool] = over) -> None:
        """Play until ``until(state)`` holds (by default: the match is over)."""
        await self._session(lambda client: self._play_on(client, until), until)

    async def _play_on(self, client: Connection, until: Callable[[dict[str, Any]], bool]) -> None:
        host_waits = self.seat == 0 and bool(self.people)
        while True:

            def ready(state: dict[str, Any]) -> bool:
                all_here = all(state["room"]["seats"][seat]["online"] for seat in self.people)
                return (
                    until(state) or to_move(state) or (host_waits and state["room"]["status"] == "waiting" and all_here)
                )

            try:
                state = await client.until(ready, TURN_WAIT)
            except TimeoutError:
                raise AssertionError(
                    f"{self.name} of room {self.code} on {self.base}: neither his turn nor the end came within "
                    f"{TURN_WAIT:g} s; last state: {_brief(client.state)}"
                ) from None
            if until(state):
                return
            if state["room"]["status"] == "waiting":
                await client.send({"type": "start"})
                await client.until(lambda s: s["room"]["status"] != "waiting", TURN_WAIT)
                continue
            if not self.gate.is_set():
                # Held only at a choice: the table makes an only move (``making``) after its pace anyway.
                self.held = state["view"]["making"] is None
                await self.gate.wait()
                self.held = False
                continue
            await self._move(client, state)

    async def _move(self, client: Connection, state: dict[str, Any]) -> None:
        """Send his move at the state's seq and wait for its answer: a state with it, or a refusal."""
        move = self.choose(state)
        game, index, seq = state["game"]["id"], len(state["view"]["moves"]), state["seq"]
        errors = len(client.errors)

        def answered(s: dict[str, Any]) -> bool:
            moved_on = s["game"] is None or s["game"]["id"] != game or len(s["view"]["moves"]) > index
            return len(client.errors) > errors or moved_on or s["room"]["status"] != "playing"

        await send_move(client, move, seq)
        try:
            answer = await client.until(answered, ANSWER_WAIT)
        except TimeoutError:
            raise AssertionError(
                f"{self.name} of room {self.code} on {self.base}: no answer to his move {move} (seq {seq}, game "
                f"{game}, move {index}) within {ANSWER_WAIT:g} s; last state: {_brief(client.state)}"
            ) from None
        now = time.monotonic()
        if len(client.errors) > errors:
            error = client.errors[errors]
            self.refusals.append(Refusal(error["code"], error.get("message", ""), move, now))
            if error["code"] == "store_unavailable":
                await asyncio.sleep(RETRY_PAUSE)
            else:  # a newer state is on its way (or this process is behind and the person waits for it)
                with contextlib.suppress(TimeoutError):
                    await client.until(lambda s: s["seq"] > seq, RETRY_PAUSE)
            return
        moves = answer["view"]["moves"] if answer["game"] and answer["game"]["id"] == game else []
        if len(moves) > index and moves[index].split()[:2] == f"{self.seat} {move}".split()[:2]:
            self.acks.append(Ack(game, index, moves[index], now))


class Watcher(_Client):
    """A spectator of room ``code``: when each state reached it, and what it showed."""

    def __init__(self, code: str, first: str, fallback: str, ledger: Ledger, name: str = "spectator") -> None:
        super().__init__(name, code, None, first, fallback, ledger)
        self.seen: list[Seen] = []

    def _noted(self, state: dict[str, Any]) -> None:
        super()._noted(state)
        game, moves = history(state)
        self.seen.append(Seen(time.monotonic(), state["seq"], game, moves, state["room"]["status"]))

    async def watch(self, until: Callable[[dict[str, Any]], bool] = over) -> None:
        """Watch until ``until(state)`` holds (by default: the match is over)."""

        async def work(client: Connection) -> None:
            await client.until(until, 3600)

        await self._session(work, until)

    def moves_known(self) -> int:
        """How many moves of the newest game it has been told."""
        return len(self.seen[-1].moves) if self.seen else 0

    def first_seen(self, count: int, after: float = 0.0) -> float | None:
        """When it first knew at least ``count`` moves of the newest game, at or after ``after``."""
        for seen in self.seen:
            if seen.at >= after and len(seen.moves) >= count:
                return seen.at
        return None

    def arrivals(self) -> list[tuple[float, int, str]]:
        """Each move as it first reached this spectator: when, its index, its text."""
        result: list[tuple[float, int, str]] = []
        for seen in self.seen:
            for index in range(len(result), len(seen.moves)):
                result.append((seen.at, index, seen.moves[index]))
        return result


def _brief(state: dict[str, Any] | None) -> str:
    if state is None:
        return "none"
    game, moves = history(state)
    view = state.get("view") or {}
    return (
        f"seq {state['seq']}, status {state['room']['status']}, game {game}, {len(moves)} moves, "
        f"turn {(state.get('game') or {}).get('turn')}, legal {view.get('legal')}, making {view.get('making')}"
    )


# -- rooms ----------------------------------------------------------------------------------


@dataclass
class Table:
    """A room of the test: which seats are people (and on which process each starts), which are computers."""

    code: str
    people: dict[int, tuple[str, str]]
    """Seat -> (token, address of the process it starts on)."""
    computers: tuple[int, ...]
    persons: list[Person] = field(default_factory=list)


async def open_table(
    host_base: str,
    people: dict[int, str],
    computers: dict[int, str],
    *,
    players: int,
    pace: float,
    rules: str = "beginners",
) -> Table:
    """A room of ``players`` seats created through ``host_base``: person seats (seat -> the address of the
    process the person starts on; seat 0 must be one) join through their own process, computer seats have
    their level. Nobody is connected yet."""
    assert 0 in people
    seats = [
        {"kind": "computer", "level": computers[seat]} if seat in computers else {"kind": "open"}
        for seat in range(1, players)
    ]
    made = await create_room(
        host_base, name="Host", players=players, rules=rules, rounds=1, seats=seats, pace=pace, away=60
    )
    tokens = {0: (made["token"], people[0])}
    for seat, base in sorted(people.items()):
        if seat != 0:
            joined = await join_room(base, made["code"], seat, f"Person {seat}")
            tokens[seat] = (joined["token"], base)
    return Table(made["code"], tokens, tuple(sorted(computers)))


def seat_people(table: Table, fallback: str, ledger: Ledger, seed: int) -> list[Person]:
    """A :class:`Person` for each person seat of ``table``, on the process chosen for it."""
    table.persons = [
        Person(table.code, seat, token, base, fallback, ledger, seed=seed * 10 + seat, people=tuple(table.people))
        for seat, (token, base) in sorted(table.people.items())
    ]
    return table.persons


# -- what the records must hold -------------------------------------------------------------


async def final_record(base: str, game: int) -> dict[str, Any]:
    """``GET /api/games/ID/record`` of a finished game."""
    answer = await get(base, f"/api/games/{game}/record")
    assert answer.status_code == 200, f"game {game}'s record: {answer.status_code} {answer.text[:300]}"
    record: dict[str, Any] = answer.json()
    return record


def record_problems(game: int, record: dict[str, Any], ledger: Ledger, persons: list[Person]) -> list[str]:
    """Where the record of ``game`` is not what its clients were told: it replays, holds every history told to
    anybody and every acknowledged move at its place, once."""
    problems = []
    try:
        read_record(record, game=game)
    except ValueError as error:
        problems.append(f"game {game}: the record does not replay: {error}")
    moves = [str(move) for move in record["moves"]]
    told = ledger.games.get(game, [])
    if hidden(moves)[: len(told)] != told:
        problems.append(f"game {game}: the record {hidden(moves)} does not begin with what clients were told {told}")
    for person in persons:
        for ack in person.acks:
            if ack.game == game and (ack.index >= len(moves) or moves[ack.index] != ack.text):
                found = moves[ack.index] if ack.index < len(moves) else "nothing"
                problems.append(f"game {game}: move {ack.index} acknowledged as {ack.text!r}, recorded as {found!r}")
        seen = person.views.get(game, [])
        mine = [index for index, text in enumerate(seen) if text.startswith(f"{person.seat} ")]
        for index in mine:
            if index >= len(moves) or moves[index] != seen[index]:
                problems.append(f"game {game}: seat {person.seat} was shown {seen[index]!r} as move {index}")
    return problems


@contextlib.asynccontextmanager
async def running(*jobs: Any) -> Any:
    """Run coroutines as tasks; on leaving, cancel those still running (a failed test leaves nothing behind)."""
    tasks = [asyncio.ensure_future(job) for job in jobs]
    try:
        yield tasks
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
