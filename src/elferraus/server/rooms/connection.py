"""One WebSocket client: its seat, its language, its frames in and out.

Frames in are checked (rate, size, then their schema in ``schemas.py``)
before they reach the room, and every refused frame is answered; a
reaction is also counted against its seat, across all of the seat's
connections on every process of the site (the bus). Frames out are one
writer's job. A client only ever needs the newest
``state``, so a slow client skips the ones it could not take in time
instead of piling them up.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import deque
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from elferraus.i18n import Lang
from elferraus.server.rooms.reactions import MAX_QUEUED_REACTIONS, REACTION_BURST, REACTION_INTERVAL
from elferraus.server.rooms.room import Room
from elferraus.server.rooms.schemas import (
    Act,
    Hello,
    HintFrame,
    MoveFrame,
    ReactFrame,
    message_of,
    read_frame,
    too_deep,
)
from elferraus.server.rooms.settings import RoomError
from elferraus.server.site.bus import Bus, TokenBucket

MAX_FRAME = 4096
"""The longest text frame a client may send (bytes)."""
RATE = 20.0
"""Frames a second a client may send, on average."""
BURST = 40.0
BAD_FRAMES_ALLOWED = 5
"""Malformed frames after which the connection is closed."""
FLOOD_LIMIT = 20
"""Frames refused for rate, in a burst, after which the connection is closed."""
FLOOD_RATE = 2.0
"""Refusals a second forgiven over time, so a page that bursts now and then is not closed in the long run."""
CLOSE_TIMEOUT = 5.0
"""Seconds the last words to a client sent away may take."""
HELLO_TIMEOUT = 10.0
POLICY_VIOLATION = 1008
ANSWERED = ("unknown_type", "bad_move", "stale", "wrong_status", "unknown_reaction")
"""Refusals of well-formed frames that ask for something impossible: answered, but not counted as bad frames."""


def _lang_of(text: str) -> Lang:
    """The language a frame asks for, read leniently (its other fields may be wrong)."""
    if too_deep(text):
        return "en"
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return "en"
    lang = data.get("lang") if isinstance(data, dict) else None
    return "de" if isinstance(lang, str) and lang.lower().startswith("de") else "en"


class Connection:
    """A client of one room, from its ``hello`` until it goes.

    Args:
        websocket: the client's WebSocket, accepted.
        room: the room it asked for.
        bus: the bus of the site (a process's own when alone): where each seat's reactions are counted.
    """

    def __init__(self, websocket: WebSocket, room: Room, bus: Bus) -> None:
        self.websocket = websocket
        self.room = room
        self.bus = bus
        self.seat: int | None = None
        self.lang: Lang = "en"
        self._outbox: deque[str] = deque()
        self._state_due = False
        self._log_sent: tuple[int | None, int] = (None, 0)
        """The game and the number of its log lines this connection has sent: the next state sends the rest."""
        self._wake = asyncio.Event()
        self._bucket = TokenBucket(RATE, BURST)
        self._flood = TokenBucket(FLOOD_RATE, FLOOD_LIMIT)
        """Refusals allowed: a client that keeps sending too fast runs out of these and is sent away."""
        self._reactions = TokenBucket(1 / REACTION_INTERVAL, REACTION_BURST)
        """This connection's own reactions. It refuses only what its seat's bucket would refuse too (it is never
        emptier: what the seat refuses is given back to it), but a single connection's flood is refused here,
        without a round trip to Redis for each frame."""
        self._queued_reactions: deque[str] = deque(maxlen=MAX_QUEUED_REACTIONS)
        self._bad = 0
        self._closed = False
        self._sending_away = False
        self._hinting: asyncio.Task[None] | None = None
        """The hint being waited for (thought apart, so that the client's other frames are read meanwhile)."""

    # -- out ------------------------------------------------------------------

    def state_changed(self, room: Room) -> None:
        """The room changed: send the newest state when the writer gets to it (or, if it expired, send the
        client away, as for a room there is not)."""
        if room.expired:
            if not self._sending_away:
                self._send_away("room_expired", RoomError("room_expired").message(self.lang))
            return
        self._state_due = True
        self._wake.set()

    def send(self, message: dict[str, Any]) -> None:
        """Queue a message (an error, a pong)."""
        self._outbox.append(json.dumps(message, separators=(",", ":")))
        self._wake.set()

    def reacted(self, text: str) -> None:
        """Queue a ``reaction`` frame of somebody in the room (the newest ones only, for a slow client)."""
        self._queued_reactions.append(text)
        self._wake.set()

    def error(self, code: str, message: str, field: object = None) -> None:
        """Queue an ``error`` (naming the ``field`` at fault, if there is one)."""
        frame: dict[str, Any] = {"type": "error", "code": code, "message": message, "seq": self.room.seq}
        if field is not None:
            frame["field"] = field
        self.send(frame)

    async def _write(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._outbox or self._queued_reactions:
                outbox = self._outbox if self._outbox else self._queued_reactions
                await self.websocket.send_text(outbox.popleft())
            if self._sending_away:
                await self.websocket.close(POLICY_VIOLATION)
                return
            if self._closed:
                return
            if self._state_due:
                self._state_due = False
                mark = self.room.log_mark()
                game, sent = self._log_sent
                start = sent if game == mark[0] and sent <= mark[1] else 0
                self._log_sent = mark
                await self.websocket.send_text(self.room.state_text(self.seat, start))

    # -- in -------------------------------------------------------------------

    async def run(self) -> None:
        """Serve this client until it goes or is sent away."""
        writer = asyncio.get_running_loop().create_task(self._write())
        try:
            if await self._hello():
                self.room.listeners.add(self.state_changed)
                self.room.audience.add(self.reacted)
                self.room.connect(self.seat)
                try:
                    while not self._closed:
                        frame = await self._receive()
                        if frame is not None:
                            await self._handle(frame)
                finally:
                    if self._hinting is not None:
                        self._hinting.cancel()
                    self.room.listeners.discard(self.state_changed)
                    self.room.audience.discard(self.reacted)
                    self.room.disconnect(self.seat)
        except WebSocketDisconnect:
            pass
        finally:
            self._closed = True
            self._wake.set()
            if not self._sending_away:
                writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(writer, CLOSE_TIMEOUT)

    async def _hello(self) -> bool:
        try:
            frame = await asyncio.wait_for(self._receive(greeting=True), HELLO_TIMEOUT)
        except TimeoutError:
            await self._close_with("bad_frame", RoomError("bad_frame", "web_error_no_hello").message(self.lang))
            return False
        except RoomError as error:  # the first frame was no hello, or a hello with a token that cannot be one
            if error.code != "bad_token":
                error = RoomError("bad_frame", "web_error_hello_first")
            await self._close_with(error.code, error.message(self.lang))
            return False
        if not isinstance(frame, Hello):
            await self._close_with("bad_frame", RoomError("bad_frame", "web_error_hello_first").message(self.lang))
            return False
        self.lang = "de" if frame.lang is not None and frame.lang.lower().startswith("de") else "en"
        if self.room.shared:
            # News from the other processes may be a few milliseconds away (a seat taken, a move made a moment
            # ago elsewhere): a client that comes, or comes back after its process died, starts from the room
            # as stored.
            with contextlib.suppress(RoomError):  # it expired meanwhile: the client is sent away below
                await self.room.reload()
        if frame.token is not None:
            seat = self.room.seat_of(frame.token)
            if seat is None:
                await self._close_with("bad_token", RoomError("bad_token").message(self.lang))
                return False
            self.seat = seat
        self.state_changed(self.room)
        return True

    async def _receive(self, *, greeting: bool = False) -> Hello | MoveFrame | HintFrame | Act | ReactFrame | None:
        """The next frame, checked against its schema, or None if it was refused (and answered).

        Raises:
            RoomError: with ``greeting``, the frame's refusal (the caller closes the connection).
        """
        message = await self.websocket.receive()
        if message["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(message.get("code", 1000))
        if not self._bucket.take():
            if not self._flood.take():
                await self._close_with("rate_limited", RoomError("rate_limited").message(self.lang))
            else:
                self.error("rate_limited", RoomError("rate_limited").message(self.lang))
            return None
        text = message.get("text")
        if text is None:
            await self._bad_frame(RoomError("bad_frame"))
        elif len(text) > MAX_FRAME or (4 * len(text) > MAX_FRAME and len(text.encode()) > MAX_FRAME):
            await self._bad_frame(RoomError("too_big"))
        else:
            try:
                return read_frame(text)
            except RoomError as error:
                if greeting:
                    self.lang = _lang_of(text)  # so that even a refused hello is answered in its language
                    raise
                if error.code == "bad_token":
                    error = RoomError("wrong_status", "web_error_hello_twice")
                if error.code in ANSWERED:
                    self.error(error.code, error.message(self.lang), error.details.get("field"))
                else:
                    await self._bad_frame(error)
        return None

    async def _bad_frame(self, error: RoomError) -> None:
        self._bad += 1
        message = message_of(error, self.lang)
        if self._bad >= BAD_FRAMES_ALLOWED:
            await self._close_with(error.code, message)
        else:
            self.error(error.code, message, error.details.get("field"))

    async def _close_with(self, code: str, message: str) -> None:
        """Send the client away: the errors queued so far, this one, then close (1008)."""
        self._send_away(code, message)

    def _send_away(self, code: str, message: str) -> None:
        self.error(code, message)
        self._sending_away = True
        self._closed = True
        self._wake.set()

    async def _handle(self, frame: Hello | MoveFrame | HintFrame | Act | ReactFrame) -> None:
        room = self.room
        try:
            if isinstance(frame, MoveFrame):
                await room.move(self.seat, frame.move, frame.seq)
            elif isinstance(frame, HintFrame):
                if self._hinting is not None:  # a newer question: the older answer would come too late
                    self._hinting.cancel()
                self._hinting = asyncio.get_running_loop().create_task(self._hint(frame.seq))
            elif isinstance(frame, ReactFrame):
                room.check_reaction(self.seat)
                await self._take_reaction()
                room.react(self.seat, frame.reaction)
            elif isinstance(frame, Hello):
                raise RoomError("wrong_status", "web_error_hello_twice")
            elif frame.type == "ping":
                self.send({"type": "pong"})
            elif frame.type == "start":
                await room.start(self.seat)
            elif frame.type == "next":
                await room.next_round(self.seat)
            else:
                await room.rematch(self.seat)
        except RoomError as error:
            self.error(error.code, message_of(error, self.lang))

    async def _hint(self, seq: int) -> None:
        """Answer a ``hint``: the move ``master`` would make in this seat's place, and why, in words."""
        try:
            advice, text = await self.room.hint(self.seat, seq, self.lang)
        except RoomError as error:
            self.error(error.code, message_of(error, self.lang))
            return
        self.send({"type": "hint", "seq": seq, "move": str(advice.move), "reason": advice.reason, "text": text})

    async def _take_reaction(self) -> None:
        """Pay for a reaction: from this connection's bucket, then from its seat's on the site.

        Raises:
            RoomError: ``too_many_reactions``, when either is empty (and nothing is taken from either).
        """
        if self._reactions.take():
            seat = f"reactions:{self.room.code}:{self.seat}"
            if not await self.bus.take(seat, 1 / REACTION_INTERVAL, REACTION_BURST):
                return
            self._reactions.give_back()  # the seat's other connections used its allowance: this one keeps its own
        raise RoomError("too_many_reactions", seconds=f"{REACTION_INTERVAL:g}", burst=REACTION_BURST)
