"""Hypothesis-generated WebSocket frames against a real server (``elferraus serve`` in a subprocess).

The fuzzed room has two people and no computer: one connection holds each
seat and nothing moves unless a frame is accepted, and the generator never
sends a frame that the protocol lets through (a legal move at the current
seq goes with a seq long past). So every frame must be refused, each with
one ``error`` frame (a ``ping`` with a ``pong``), and afterwards the room
must be exactly as before. A pool of connections from several loopback
addresses sends the frames, each no faster than the documented rate, one at
a time (the next only after the answer to the last). Meanwhile people and
computers play a match in another room, which must reach its end with no
move refused except as ``stale``.

The only closes allowed: 1008 after an ``error``, on the fifth bad frame of a
connection or after a bad first frame; 1009 for a frame over the transport
limit (64 KB). Anything else (1006, 1011, a close without an error first, a
frame with no answer) is a finding, kept with the exact frame.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import weakref
from collections import Counter, deque
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from elferraus.moves import Move
from elferraus.server import WS_MAX_SIZE
from elferraus.server.client import RoomClient, whole_log
from tests.support.fuzz_helpers import (
    BURST,
    THREADS_USE_RANDOM,
    VOLUME,
    Burst,
    FirstFrame,
    Frame,
    FuzzedRoom,
    LoopThread,
    Send,
    Tally,
    Token,
    describe,
    every_wrong_type,
    first_frames,
    frame_size,
    frames,
    fuzz_settings,
    is_bad_frame,
    log_problems,
)
from tests.support.server_helpers import look, my_turn, play_round, raw, room_with_people, start, wait_online, ws_url
from tests.support.web_helpers import ServerProcess, serving

KNOWN_CODES = {
    "bad_frame",
    "too_big",
    "unknown_type",
    "bad_token",
    "not_a_player",
    "not_host",
    "not_your_turn",
    "illegal",
    "bad_move",
    "stale",
    "wrong_status",
    "rate_limited",
    "no_room",
    "store_unavailable",
}
"""The error codes docs/web-protocol.md lists."""
BAD_CODES = {"bad_frame", "too_big"}
"""Refusals that count towards the five bad frames after which a connection is closed."""
BAD_FRAMES_ALLOWED = 5
PACE = 16.0
"""Frames a second each pool connection sends at most, counted from the answer to the last (below 20)."""
ANSWER_TIMEOUT = 15.0


roles = st.sampled_from(["mover", "mover", "mover", "other", "watcher"])
FIRST_FRAMES = 2
"""New connections per batch, each with a generated first frame."""
BURST_EVERY = 15
"""One batch in so many also sends a burst."""
CHUNK = 200
"""Examples per Hypothesis run: a run keeps what it generated (about 0.3 MB an example), so a long pass is
several runs."""
batches = st.tuples(
    st.lists(st.builds(Send, frames, roles), min_size=VOLUME.ws_batch, max_size=VOLUME.ws_batch),
    st.lists(st.builds(FirstFrame, first_frames), min_size=FIRST_FRAMES, max_size=FIRST_FRAMES),
    st.builds(Burst, st.integers(BURST + 1, BURST + 15)),
)


# -- the pool and the judge ----------------------------------------------------------


class Outcome(Enum):
    MESSAGE = "message"
    CLOSED = "closed"
    SILENT = "silent"


@dataclass
class Peer:
    """One connection of the pool: says hello with its role's token, then sends one frame at a time.

    A reader of its own takes in every frame as it comes (each ``state`` is checked at once; the rest wait in
    ``inbox`` for the frame they answer), so a connection between two frames never stops reading.
    """

    harness: Harness
    role: str
    address: str
    socket: ClientConnection | None = None
    inbox: asyncio.Queue[tuple[Outcome, dict[str, Any]]] = field(default_factory=asyncio.Queue)
    reader: asyncio.Task[None] | None = None
    bad: int = 0
    ready_at: float = 0.0
    last: str = "its hello"

    async def open(self) -> None:
        token = {"mover": Token.MOVER, "other": Token.OTHER}.get(self.role)
        room = self.harness.room
        self.socket = await connect(ws_url(room.base, room.code), local_addr=(self.address, 0), max_size=2**21)
        self.harness.tally.add("connections")
        self.bad = 0
        self.last = "its hello"
        self.inbox = asyncio.Queue()
        greeted = asyncio.Event()
        self.reader = asyncio.get_running_loop().create_task(self._read(self.socket, greeted))
        await self.socket.send(json.dumps({"type": "hello", "token": token and room.tokens[token], "lang": "en"}))
        try:
            await asyncio.wait_for(greeted.wait(), ANSWER_TIMEOUT)
        except TimeoutError:
            self.harness.tally.find(
                "a good hello refused", f"{self.role}: {self.inbox.qsize() and self.inbox.get_nowait()}"
            )

    async def _read(self, socket: ClientConnection, greeted: asyncio.Event) -> None:
        previous = None
        with contextlib.suppress(ConnectionClosed):
            async for text in socket:
                try:
                    message = json.loads(text)
                except ValueError:
                    self.harness.tally.find("a frame from the server that is not JSON", describe(text))
                    continue
                if message.get("type") == "state":
                    whole_log(message, previous)  # a connection sends each move once
                    previous = message
                    self.harness.check(message, "a pool connection")
                    greeted.set()
                else:
                    self.inbox.put_nowait((Outcome.MESSAGE, message))
        code = None if socket.close_code is None else int(socket.close_code)
        self.inbox.put_nowait((Outcome.CLOSED, {"code": code, "reason": socket.close_reason}))

    async def next(self) -> tuple[Outcome, dict[str, Any]]:
        """The next frame that is not a ``state``, the close, or silence."""
        try:
            return await asyncio.wait_for(self.inbox.get(), ANSWER_TIMEOUT)
        except TimeoutError:
            return Outcome.SILENT, {}

    async def serve(self, queue: asyncio.Queue[Frame]) -> None:
        while True:
            frame = await queue.get()
            try:
                await self.exchange(frame)
            except (OSError, InvalidHandshake, TimeoutError) as error:
                self.harness.tally.find("could not connect", f"{self.address}: {error!r}")
                await self.drop()
            except Exception as error:  # the pool must go on: a broken worker would hang the drain
                self.harness.tally.find("the fuzzer itself failed", f"{error!r} at {self.last}")
                await self.drop()
            finally:
                queue.task_done()

    async def exchange(self, frame: Frame) -> None:
        loop = asyncio.get_running_loop()
        if self.socket is None:
            await self.open()
        assert self.socket is not None
        await asyncio.sleep(max(0.0, self.ready_at - loop.time()))
        payload = self.harness.room.render(frame)
        shown = describe(payload)
        self.harness.recent.append(f"{self.role}: {shown}")
        while self.inbox.qsize():
            kind, message = self.inbox.get_nowait()
            if kind is Outcome.CLOSED:
                self._unexpected(f"closed while idle: {message} after {self.last}")
                await self.drop()
                return
            self.harness.tally.find("a second answer to one frame", f"{self.role}: {message} after {self.last}")
        try:
            await self.socket.send(payload)
        except ConnectionClosed:
            self._unexpected(f"closed ({self.socket.close_code}) while idle, after {self.last}")
            await self.drop()
            return
        self.harness.tally.add("frames")
        self.last = shown
        kind, message = await self.next()
        self.ready_at = loop.time() + 1 / PACE
        if frame_size(payload) > WS_MAX_SIZE and kind is Outcome.CLOSED and message.get("code") == 1009:
            await self.drop()
        elif kind is Outcome.SILENT:
            self.harness.tally.find("a frame with no answer", f"{self.role}: {shown}")
            await self.drop()
        elif kind is Outcome.CLOSED:
            self._unexpected(f"{message} at {shown}")
            await self.drop()
        else:
            await self.judge(message, shown)

    async def judge(self, message: dict[str, Any], shown: str) -> None:
        tally = self.harness.tally
        if message.get("type") == "pong":
            return
        if message.get("type") != "error":
            tally.find("an answer that is neither error nor pong", f"{self.role}: {shown} -> {message}")
            return
        code = message.get("code")
        if code not in KNOWN_CODES:
            tally.find("an undocumented error code", f"{self.role}: {shown} -> {message}")
        if not isinstance(message.get("message"), str) or type(message.get("seq")) is not int:
            tally.find("an error without message or seq", f"{self.role}: {shown} -> {message}")
        if code == "rate_limited":
            tally.find("rate limited though sent below the rate", f"{self.role}: {shown}")
        if code in BAD_CODES:
            self.bad += 1
        if self.bad >= BAD_FRAMES_ALLOWED:
            kind, closing = await self.next()
            if kind is not Outcome.CLOSED or closing.get("code") != 1008:
                tally.find("not closed (1008) after five bad frames", f"{kind.value} {closing} after {shown}")
            await self.drop()

    def _unexpected(self, detail: str) -> None:
        self.harness.tally.add("unexpected_closes")
        self.harness.tally.find("an unexpected close", f"{self.role} (bad frames so far {self.bad}): {detail}")

    async def drop(self) -> None:
        socket, reader, self.socket, self.reader = self.socket, self.reader, None, None
        if socket is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(socket.close(), 2)
        if reader is not None:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader


@dataclass
class Harness:
    """The fuzzed room, its holders and pool, the concurrent game, and the checks between them."""

    room: FuzzedRoom
    tally: Tally
    holders: list[RoomClient]
    peers: dict[str, list[Peer]] = field(default_factory=dict)
    queues: dict[int, asyncio.Queue[Frame]] = field(default_factory=dict)
    fresh: asyncio.Queue[FirstFrame | Burst] = field(default_factory=asyncio.Queue)
    recent: deque[str] = field(default_factory=lambda: deque(maxlen=40))
    tasks: list[asyncio.Task[Any]] = field(default_factory=list)
    turn: int = 0
    """Frames handed out so far (for round robin)."""
    batches: int = 0
    game: asyncio.Task[int] | None = None
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    last_states: weakref.WeakKeyDictionary[ClientConnection, dict[str, Any]] = field(
        default_factory=weakref.WeakKeyDictionary
    )
    """The newest state each of the fresh connections had (it sends each move once)."""

    @classmethod
    async def open(cls, base: str, tally: Tally) -> Harness:
        elsewhere, elsewhere_tokens = await room_with_people(
            base, 2, name="Olga", players=4, rounds=2, pace=0, fill="easy"
        )
        code, tokens = await room_with_people(base, 2, name="Fuzz", players=2, pace=0, away=3600)
        holders = [RoomClient(base, code, token) for token in tokens]
        for holder in holders:
            await holder.__aenter__()
        await wait_online(holders[0], [0, 1])
        await start(*holders)
        while True:  # until the table waits for the mover's choice: then only an accepted frame changes the room
            state = await look(base, code)
            mover = state["game"]["turn"]
            seen = await holders[mover].until(lambda s, now=state["seq"]: s["seq"] >= now, 10)
            if seen["seq"] == state["seq"] and my_turn(seen):
                break
            await asyncio.sleep(0.01)
        token = tokens[mover]
        room = FuzzedRoom(
            base,
            code,
            {
                Token.MOVER: token,
                Token.OTHER: tokens[1 - mover],
                Token.ELSEWHERE: elsewhere_tokens[1],
                Token.CUT: token[:-1],
                Token.LOUD: token.upper(),
                Token.SURROGATE: token + "\ud800",
            },
            {Move.parse(move) for move in holders[mover].state["view"]["legal"]},
            state["seq"],
            shared(state),
            since=state["seq"],  # the frames before it (the table's opening moves) are from before the fuzzing
        )
        harness = cls(room, tally, holders)
        split = {"mover": VOLUME.pool // 2, "other": VOLUME.pool // 6, "watcher": VOLUME.pool // 3}
        addresses = [f"127.0.0.{2 + n}" for n in range(VOLUME.addresses)]
        for role, count in split.items():
            harness.peers[role] = [Peer(harness, role, addresses[n % len(addresses)]) for n in range(max(1, count))]
        await asyncio.gather(*(peer.open() for peer in harness.all_peers()))
        loop = asyncio.get_running_loop()
        for peer in harness.all_peers():
            queue: asyncio.Queue[Frame] = asyncio.Queue()
            harness.queues[id(peer)] = queue
            harness.tasks.append(loop.create_task(peer.serve(queue)))
        harness.tasks += [loop.create_task(harness.serve_fresh()) for _ in range(2)]
        harness.tasks += [loop.create_task(harness.hold(holder)) for holder in holders]
        harness.tasks.append(loop.create_task(harness.watch()))
        harness.game = loop.create_task(play_a_match(base, elsewhere, elsewhere_tokens, harness.stop, tally))
        return harness

    def all_peers(self) -> list[Peer]:
        return [peer for group in self.peers.values() for peer in group]

    # -- sending ----------------------------------------------------------------

    async def submit(self, batch: tuple[list[Send], list[FirstFrame], Burst]) -> None:
        """Queue a batch for the pool (round robin within each role); wait while too much is queued."""
        sends, firsts, burst = batch
        self.batches += 1
        extra = [burst] if self.batches % BURST_EVERY == 1 else []
        for action in [*sends, *firsts, *extra]:
            if isinstance(action, Send):
                role = "watcher" if is_bad_frame(self.room.render(action.frame)) else action.role
                group = self.peers[role]
                peer = group[self.turn % len(group)]
                self.turn += 1
                self.queues[id(peer)].put_nowait(action.frame)
            else:
                self.fresh.put_nowait(action)
        while sum(queue.qsize() for queue in self.queues.values()) > 3 * len(self.queues) or self.fresh.qsize() > 8:
            await asyncio.sleep(0.01)

    async def drain(self) -> None:
        await asyncio.gather(*(queue.join() for queue in self.queues.values()), self.fresh.join())

    async def answer(
        self, socket: ClientConnection, states: bool = False, timeout: float = ANSWER_TIMEOUT
    ) -> tuple[Outcome, dict[str, Any]]:
        """The next frame that is not a ``state`` (the first ``state`` if ``states``), the close, or silence."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            try:
                text = await asyncio.wait_for(socket.recv(), max(0.0, deadline - loop.time()))
            except ConnectionClosed:
                code = None if socket.close_code is None else int(socket.close_code)
                return Outcome.CLOSED, {"code": code, "reason": socket.close_reason}
            except TimeoutError:
                return Outcome.SILENT, {}
            try:
                message = json.loads(text)
            except ValueError:
                self.tally.find("a frame from the server that is not JSON", describe(text))
                continue
            if message.get("type") == "state":
                whole_log(message, self.last_states.get(socket))
                self.last_states[socket] = message
                self.check(message, "a pool connection")
                if states:
                    return Outcome.MESSAGE, message
                continue
            return Outcome.MESSAGE, message

    # -- what must not change -----------------------------------------------------

    def check(self, state: dict[str, Any], seen_by: str) -> None:
        if state["seq"] < self.room.since:
            return  # sent before the last change found, to a connection that reads slowly
        public = shared(state)
        if public != self.room.public:
            before_moves = (self.room.public[1] or {}).get("moves")
            detail = (
                f"seen by {seen_by}: status {state['room']['status']}, moves {before_moves} -> "
                f"{(state['game'] or {}).get('moves')}; frames just sent: {list(self.recent)[-12:]}"
            )
            self.tally.find("a refused frame changed the room", detail)
            self.room.public = public
            self.room.since = state["seq"]
        self.room.seq = max(self.room.seq, state["seq"])

    async def hold(self, holder: RoomClient) -> None:
        """Keep a seat's own connection reading (and checking) what the room says."""
        while True:
            message = await holder.receive(3600)
            if message.get("type") == "state":
                self.check(message, "a seat's holder")

    async def watch(self) -> None:
        """Look at the room from outside every second: a spectator's state and ``GET /api/rooms/CODE``."""
        async with httpx.AsyncClient(base_url=self.room.base, timeout=30) as http:
            while True:
                await asyncio.sleep(1)
                await self.look_once(http)

    async def look_once(self, http: httpx.AsyncClient) -> None:
        state = await look(self.room.base, self.room.code)
        self.check(state, "a spectator")
        answer = await http.get(f"/api/rooms/{self.room.code}")
        if answer.json() != self.room.public[0]:
            self.tally.find("a refused frame changed the room", f"GET /api/rooms: {answer.text[:300]}")

    # -- new connections ----------------------------------------------------------------

    async def serve_fresh(self) -> None:
        address = 0
        while True:
            action = await self.fresh.get()
            address += 1
            source = f"127.0.0.{2 + address % VOLUME.addresses}"
            try:
                if isinstance(action, FirstFrame):
                    await self.first_frame(action.frame, source)
                elif isinstance(action, Burst):
                    await self.burst(action.size, source)
            except (OSError, InvalidHandshake, TimeoutError) as error:
                self.tally.find("could not connect", f"{source}: {error!r}")
            except Exception as error:  # the fuzzer must go on (a broken worker would hang the drain)
                self.tally.find("the fuzzer itself failed", f"{error!r} at {action}")
            finally:
                self.fresh.task_done()

    async def first_frame(self, frame: Frame, source: str) -> None:
        payload = self.room.render(frame)
        shown = describe(payload)
        async with connect(ws_url(self.room.base, self.room.code), local_addr=(source, 0)) as socket:
            self.tally.add("connections")
            await socket.send(payload)
            self.tally.add("frames")
            kind, message = await self.answer(socket, states=True)
            if kind is Outcome.MESSAGE and message.get("type") == "state":
                if not self.room.well_formed_hello(payload):
                    self.tally.find("a bad first frame taken as a hello", shown)
                return
            if kind is Outcome.CLOSED:
                if not (frame_size(payload) > WS_MAX_SIZE and message.get("code") == 1009):
                    self.tally.add("unexpected_closes")
                    self.tally.find("a first frame closed without an error", f"{message} at {shown}")
                return
            if kind is Outcome.SILENT:
                self.tally.find("a first frame with no answer", shown)
                return
            if message.get("type") != "error" or message.get("code") not in KNOWN_CODES:
                self.tally.find("an odd answer to a first frame", f"{shown} -> {message}")
            while kind is Outcome.MESSAGE and message.get("type") == "error":
                kind, message = await self.answer(socket)
            if kind is not Outcome.CLOSED or message.get("code") != 1008:
                self.tally.add("unexpected_closes")
                self.tally.find("a bad first frame not closed with 1008", f"{kind.value} {message} at {shown}")

    async def burst(self, size: int, source: str) -> None:
        async with connect(ws_url(self.room.base, self.room.code), local_addr=(source, 0)) as socket:
            self.tally.add("connections")
            await socket.send(json.dumps({"type": "hello", "token": None}))
            await self.answer(socket, states=True)
            for _ in range(size):
                await socket.send('{"type":"ping"}')
            self.tally.add("frames", size)
            answers: Counter[str] = Counter()
            while sum(answers.values()) < size:
                # the answers to a burst come at once: a short silence is enough to know one is missing
                kind, message = await self.answer(socket, timeout=3)
                if kind is not Outcome.MESSAGE:
                    answers[kind.value] += 1
                    break
                answers[message.get("code", message["type"])] += 1
            if sum(answers.values()) < size or set(answers) - {"pong", "rate_limited"}:
                detail = f"{size} pings at once (burst {BURST}) answered {dict(answers)}"
                self.tally.find("a rate-limited frame without its answer", detail)

    # -- the end ---------------------------------------------------------------------

    async def finish(self) -> int:
        """Drain the queues, look once more, let the other room's match end; returns the matches played there."""
        await self.drain()
        async with httpx.AsyncClient(base_url=self.room.base, timeout=30) as http:
            await self.look_once(http)
        self.stop.set()
        assert self.game is not None
        matches = await asyncio.wait_for(self.game, 300)
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await asyncio.gather(*(peer.drop() for peer in self.all_peers()))
        for holder in self.holders:
            await holder.close()
        return matches


def shared(state: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """ROOM and GAME of a state as every reader gets them (a spectator's GAME also carries his move log,
    from the line his connection has not had yet)."""
    game = state["game"]
    return state["room"], None if game is None else {k: v for k, v in game.items() if k not in ("log", "log_from")}


async def play_a_match(base: str, code: str, tokens: list[str], stop: asyncio.Event, tally: Tally) -> int:
    """Two people (this test) and two computers (pace 0) play matches until ``stop``; returns how many ended.

    Every refusal of a person's move must be ``stale`` (``play_round`` checks).
    """
    matches = 0
    async with RoomClient(base, code, tokens[0]) as host, RoomClient(base, code, tokens[1]) as guest:
        await wait_online(host, [0, 1])
        await start(host, guest)
        try:
            while True:
                ends = await asyncio.gather(play_round(host, timeout=120), play_round(guest, timeout=120))
                if ends[0]["room"]["status"] == "match_over":
                    matches += 1
                    if stop.is_set():
                        return matches
                    await host.send({"type": "rematch"})
                else:
                    await host.send({"type": "next"})
                for client in (host, guest):
                    await client.until(lambda s: s["room"]["status"] == "playing" and not s["game"]["result"], 60)
        except (AssertionError, TimeoutError) as error:
            tally.find("the game in the other room was held up", repr(error))
            return matches


@THREADS_USE_RANDOM
@pytest.mark.timeout(VOLUME.timeout)
def test_fuzzed_frames_are_refused_answered_and_change_nothing(tmp_path: Path, record_property: Any) -> None:
    tally = Tally()
    server = ServerProcess(tmp_path / "fuzz.db")
    server.start()
    try:
        with LoopThread() as loop:
            harness = loop.run(Harness.open(server.base, tally), 60)

            def fuzz(examples: int) -> None:
                @fuzz_settings(examples)
                @given(batch=batches)
                def run(batch: tuple[list[Send], list[FirstFrame], Burst]) -> None:
                    loop.run(harness.submit(batch))

                run()

            try:
                each = every_wrong_type()
                hellos = [FirstFrame(frame) for frame in each if frame.value.get("type") != "move"]
                sends = [Send(frame, role) for frame in each for role in ("mover", "other", "watcher")]
                loop.run(harness.submit((sends, hellos, Burst(BURST + 10))))
                examples = VOLUME.ws_frames // (VOLUME.ws_batch + FIRST_FRAMES)
                for start_at in range(0, examples, CHUNK):
                    fuzz(min(CHUNK, examples - start_at))
            finally:
                matches = loop.run(harness.finish(), 600)
    finally:
        server.stop()
    for problem in log_problems(server.db.with_suffix(".log").read_text()):
        tally.find("a traceback in the server's log", problem)
    tally.add("matches_elsewhere", matches)
    tally.publish(record_property)
    print(tally.report())
    if matches < 1:
        tally.find("the game in the other room never ended", f"{matches} matches")
    assert not tally.findings, tally.report()


# -- what the fuzzer found, kept as plain tests ----------------------------------------


@pytest.mark.parametrize("token", ["\ud800", "A" * 42 + "\udfff", "\udc00" * 43, "x\ud800y"])
def test_a_hello_with_a_lone_surrogate_in_its_token_is_refused(tmp_path: Path, token: str) -> None:
    """Sent as a JSON escape (``"\\ud800"``): the frame is valid UTF-8, the string is not. Once: 1006."""

    async def main() -> None:
        async with serving(str(tmp_path / "rooms.db")) as base:
            code, _tokens = await room_with_people(base, 1, name="Anna", players=2, pace=0)
            async with raw(base, code, {"type": "hello", "token": token}) as client:
                assert await client.until_closed() == 1008
                assert client.frames
                assert all(frame["type"] == "error" for frame in client.frames)
                assert {frame["code"] for frame in client.frames} <= {"bad_token", "bad_frame"}

    asyncio.run(main())


def test_every_frame_past_the_burst_is_answered(tmp_path: Path) -> None:
    """55 pings at once: 40 pass (a few more as the bucket refills), each of the rest is refused with an error
    of its own. Once only the first and every tenth refusal were answered."""

    async def main() -> None:
        async with serving(str(tmp_path / "rooms.db")) as base:
            code, _tokens = await room_with_people(base, 1, name="Anna", players=2, pace=0)
            async with raw(base, code, {"type": "hello", "token": None}) as client:
                assert (await client.receive())["type"] == "state"
                for _ in range(55):
                    await client.send({"type": "ping"})
                answers = [await client.reply(5) for _ in range(55)]
                codes = Counter(answer.get("code", answer["type"]) for answer in answers)
                assert set(codes) == {"pong", "rate_limited"}, codes
                assert codes["pong"] >= BURST - 1  # the hello took one
                await asyncio.sleep(1)
                await client.send({"type": "ping"})
                assert await client.reply() == {"type": "pong"}

    asyncio.run(main())
