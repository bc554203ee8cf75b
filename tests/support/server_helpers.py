"""Shared pieces of the web server tests: rooms, raw sockets, play loops, what a client may see."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from elferraus.game import Game
from elferraus.record import parse_record_move, read_record
from elferraus.server.client import RoomClient, create_room, join_room, whole_log

CARD_TOKEN = re.compile(r"\b([RYGB](?:1[0-9]|20|[1-9]))\b")
"""A card code as a whole token (``R12``, ``B3``)."""
OVER = ("round_over", "match_over")
GAME_KEYS = ("rows", "hand_counts", "pile", "turn", "laid", "draws", "moves", "winner", "id")


def ws_url(base: str, code: str) -> str:
    return base.replace("http://", "ws://") + f"/ws/{code}"


async def room_with_people(base: str, people: int, **settings: Any) -> tuple[str, list[str]]:
    """A room whose seats ``0..people-1`` are taken by people; returns its code and their tokens."""
    info = await create_room(base, **settings)
    tokens = [info["token"]]
    for seat in range(1, people):
        joined = await join_room(base, info["code"], seat, f"Person {seat + 1}")
        tokens.append(joined["token"])
    return info["code"], tokens


async def look(base: str, code: str) -> dict[str, Any]:
    """The room's newest state as a spectator sees it (a spectator coming and going changes nothing)."""
    async with RoomClient(base, code, None) as spectator:
        return await spectator.until(lambda state: True, 10)


def game_of(state: dict[str, Any]) -> dict[str, Any]:
    """The public game of a state, without anything that depends on who asks."""
    assert state["game"] is not None
    return {key: state["game"][key] for key in GAME_KEYS}


async def wait_online(client: RoomClient, seats: list[int]) -> None:
    await client.until(lambda state: all(state["room"]["seats"][seat]["online"] for seat in seats), 10)


async def start(host: RoomClient, *others: RoomClient) -> None:
    """The host starts; waits until every client sees the game running."""
    await host.send({"type": "start"})
    for client in (host, *others):
        await client.until(lambda state: state["room"]["status"] == "playing" and state["game"] is not None, 10)


def my_turn(state: dict[str, Any]) -> bool:
    """The seat of this state chooses a move now (not while the table makes its only move, ``making``)."""
    view = state["view"]
    return bool(state["room"]["status"] == "playing" and view and view["legal"] and view["making"] is None)


async def chooser(clients: Sequence[RoomClient], timeout: float = 15, *, only_moves: bool = False) -> RoomClient:
    """The client whose seat chooses a move now, once one does; every client is read while waiting.

    Meanwhile the table makes a person's only moves (at the room's pace), or with ``only_moves`` each
    client makes its own at once (as a client may, before the table does)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        for client in clients:
            if client.state is not None and my_turn(client.state):
                return client
            view = client.state["view"] if client.state else None
            if only_moves and view and view["making"] is not None:
                await act(client, view["making"])
        assert loop.time() < deadline, "nobody came to choose a move"
        for client in clients:
            with contextlib.suppress(TimeoutError):
                await client.receive(0.02)


RATE = 18.0
BURST = 30.0
"""Moves a second (and burst) a client of these tests sends at most: below the server's 20 (burst 40)."""
_buckets: dict[int, tuple[float, float]] = {}


async def send_move(client: RoomClient, move: str, seq: int) -> None:
    """Send a move, never faster than the server lets one connection send."""
    loop = asyncio.get_running_loop()
    tokens, stamp = _buckets.get(id(client), (BURST, loop.time()))
    tokens = min(BURST, tokens + (loop.time() - stamp) * RATE)
    if tokens < 1:
        await asyncio.sleep((1 - tokens) / RATE)
        tokens = 1.0
    _buckets[id(client)] = (tokens - 1, loop.time())
    await client.send({"type": "move", "move": move, "seq": seq})


async def act(client: RoomClient, move: str) -> dict[str, Any]:
    """Send ``move`` at the client's newest seq; returns the next state, or the error refusing it."""
    assert client.state is not None
    seq = client.state["seq"]
    errors = len(client.errors)
    await send_move(client, move, seq)
    await client.until(lambda state: state["seq"] > seq or len(client.errors) > errors, 10)
    if len(client.errors) > errors:
        return client.errors[errors]
    return client.state


async def play_round(
    client: RoomClient,
    choose: Callable[[dict[str, Any]], str] = lambda state: state["view"]["legal"][0],
    before: Callable[[RoomClient, dict[str, Any]], Any] | None = None,
    timeout: float = 60,
) -> dict[str, Any]:
    """Play this client's moves until the round is over; returns the state that says so.

    ``before(client, state)`` may do something (an illegal move, say) on each turn before the real move.
    """
    while True:
        state = await client.until(lambda s: s["room"]["status"] in OVER or my_turn(s), timeout)
        if state["room"]["status"] in OVER:
            return state
        if before is not None:
            await before(client, state)
            state = await client.until(lambda s: s["room"]["status"] in OVER or my_turn(s), timeout)
            if state["room"]["status"] in OVER:
                return state
        seq = state["seq"]
        errors = len(client.errors)
        await send_move(client, choose(state), seq)
        await client.until(lambda s, seq=seq, errors=errors: s["seq"] > seq or len(client.errors) > errors, timeout)
        if len(client.errors) > errors:
            error = client.errors[errors]
            assert error["code"] == "stale", (
                error,
                f"the last frames this client received: {[frame[:300] for frame in client.received[-6:]]}",
            )
            await client.until(lambda s, now=error["seq"]: s["seq"] >= now, timeout)


@dataclass
class Raw:
    """A WebSocket client without any politeness, for sending what a page never would."""

    socket: ClientConnection
    frames: list[dict[str, Any]]

    async def send(self, frame: str | bytes | dict[str, Any]) -> None:
        await self.socket.send(json.dumps(frame) if isinstance(frame, dict) else frame)

    async def receive(self, timeout: float = 10) -> dict[str, Any]:
        text = await asyncio.wait_for(self.socket.recv(), timeout)
        message: dict[str, Any] = json.loads(text)
        self.frames.append(message)
        return message

    async def reply(self, timeout: float = 10) -> dict[str, Any]:
        """The next frame that is not a ``state`` (states come whenever the room changes)."""
        while True:
            message = await self.receive(timeout)
            if message["type"] != "state":
                return message

    async def until_closed(self, timeout: float = 10) -> int | None:
        """Receive until the server closes; returns the close code."""
        with contextlib.suppress(ConnectionClosed):
            while True:
                await self.receive(timeout)
        return self.socket.close_code

    def errors(self, code: str | None = None) -> list[dict[str, Any]]:
        return [f for f in self.frames if f["type"] == "error" and (code is None or f["code"] == code)]


@contextlib.asynccontextmanager
async def raw(base: str, code: str, hello: dict[str, Any] | None = None) -> AsyncIterator[Raw]:
    """A raw socket to the room; sends ``hello`` first if given.

    A room that cannot be played (unknown, expired) answers at once and closes without waiting for the hello,
    which may then find the socket closed: what the server sent stays to be received."""
    async with connect(ws_url(base, code), max_size=2**20) as socket:
        client = Raw(socket, [])
        if hello is not None:
            with contextlib.suppress(ConnectionClosed):
                await client.send(hello)
        yield client


async def get(base: str, path: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        return await http.get(path)


async def post(base: str, path: str, **kwargs: Any) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        return await http.post(path, **kwargs)


# -- what a client may know --------------------------------------------------


@dataclass(frozen=True)
class Moment:
    """Where every card was after some moves of a recorded game."""

    hands: tuple[frozenset[str], ...]
    pile: frozenset[str]
    laid: frozenset[str]
    drawn: tuple[frozenset[str], ...]
    """Cards each seat drew so far."""
    neighbours: frozenset[str]
    """The cards next to the ends of the open rows and the 11s of the others (anyone may name those)."""

    def hidden_from(self, seat: int | None) -> frozenset[str]:
        """Cards ``seat`` (None: a spectator) may not see: every other hand and the pile."""
        hidden = set(self.pile)
        for other, hand in enumerate(self.hands):
            if other != seat:
                hidden |= hand
        if seat is not None:
            hidden -= self.hands[seat] | self.drawn[seat] | self.laid
        return frozenset(hidden)


def moments(record: dict[str, Any]) -> list[Moment]:
    """The moment after each number of moves of a finished game (index = moves made)."""
    game = read_record({**record, "moves": [], "result": None})
    drawn: list[set[str]] = [set() for _ in range(game.players)]
    result = [_moment(game, drawn)]
    for text in record["moves"]:
        seat, move, card = parse_record_move(text)
        game.push(move)
        if card is not None:
            drawn[seat].add(str(card))
        result.append(_moment(game, drawn))
    return result


def _moment(game: Game, drawn: list[set[str]]) -> Moment:
    laid = set()
    rows = game.rows()
    neighbours = {f"{color}11" for color in game.rules.colors if color not in rows}
    for color, (low, high) in rows.items():
        laid |= {f"{color.value}{number}" for number in range(low, high + 1)}
        neighbours |= {f"{color.value}{number}" for number in (low - 1, high + 1) if 1 <= number <= 20}
    return Moment(
        hands=tuple(frozenset(str(card) for card in game.hand(seat)) for seat in range(game.players)),
        pile=frozenset(str(card) for card in game.pile()),
        laid=frozenset(laid),
        drawn=tuple(frozenset(cards) for cards in drawn),
        neighbours=frozenset(neighbours),
    )


def leaks(
    frames: list[str], seat: int | None, records: dict[int, dict[str, Any]], named: frozenset[str] = frozenset()
) -> tuple[list[str], int]:
    """Every frame received while a round ran that names a card hidden from ``seat`` at that moment.

    ``named``: cards this client itself named in its moves (an error may repeat them).
    Returns descriptions of the leaks and how many frames were checked.
    """
    states = [(index, json.loads(text)) for index, text in enumerate(frames)]
    previous = None
    for _, message in states:
        if message["type"] == "state":
            whole_log(message, previous)  # a connection sends each move once
            previous = message
    state_frames = [(index, message) for index, message in states if message["type"] == "state"]
    cache = {game_id: moments(record) for game_id, record in records.items()}
    found = []
    checked = 0
    for index, message in states:
        if message["type"] == "state":
            context = message
        elif message["type"] == "error":
            context = _context_of_error(index, message, state_frames)
            if context is None:
                continue
        else:
            continue
        game = context["game"]
        if game is None or game["result"] is not None or context["room"]["status"] != "playing":
            continue
        moment = cache[game["id"]][len(game["moves"])]
        hidden = moment.hidden_from(seat)
        if message["type"] == "error":
            hidden -= named | moment.neighbours
        checked += 1
        shown = set(CARD_TOKEN.findall(frames[index])) & hidden
        if shown:
            found.append(f"frame {index} shows {sorted(shown)} to seat {seat}: {frames[index][:300]}")
    return found, checked


def _context_of_error(
    index: int, error: dict[str, Any], state_frames: list[tuple[int, dict[str, Any]]]
) -> dict[str, Any] | None:
    """The state an error was made in: the last one before it if it has the error's seq, else the next one."""
    before = [message for at, message in state_frames if at < index]
    if before and before[-1]["seq"] == error["seq"]:
        return before[-1]
    after = [message for at, message in state_frames if at > index and message["seq"] >= error["seq"]]
    if after:
        return after[0]
    return before[-1] if before else None
