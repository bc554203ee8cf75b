"""Rooms: who sits where, the match they play, and everything that changes it.

Every change is stored first and applied after: a move becomes part of the
game only once the store has it, and a change the store refuses leaves the
room exactly as it was (the mover is told ``store_unavailable`` and may send
it again; a computer tries again with backoff). Changes hold the room's lock,
so they never interleave; each raises the room's ``seq``, then every connected
client gets a ``state`` built from its own seat. The room's
:class:`~elferraus.table.session.Table` makes every move, a person's and a
computer's (computers, and those standing in for absent people, think in a
worker thread); the room only stores them first and keeps the pace.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from elferraus.bots import Bot
from elferraus.errors import IllegalMoveError, NotationError
from elferraus.game import Game
from elferraus.i18n import Lang, explain, tr
from elferraus.match import Match
from elferraus.moves import Move
from elferraus.record import read_record
from elferraus.rules import PRESETS, Rules
from elferraus.server.expiry import Clock
from elferraus.server.names import clashing_name, looks_like_a_computer
from elferraus.server.payloads import game_payload, game_text, hidden_moves, view_text
from elferraus.server.reactions import reaction_text
from elferraus.server.store import (
    ConflictError,
    ExpiredRoom,
    Finish,
    RoomRow,
    SeatRow,
    Store,
    StoreError,
    UnreadableRoom,
)
from elferraus.table.session import Seat, Table, TableSetup, TurnError

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
LEVELS = ("easy", "medium", "hard", "expert")
Status = Literal["waiting", "playing", "round_over", "match_over"]
RETRY_FIRST = 0.5
RETRY_LONGEST = 8.0
"""Seconds a computer waits before it tries again to store a move the database refused (doubling each time)."""
LOG = logging.getLogger("elferraus.server")
T = TypeVar("T")
R = TypeVar("R")


def _retrieve(task: asyncio.Task[Any]) -> None:
    """Take a finished change's outcome, so that one whose caller went away is not reported as lost."""
    if not task.cancelled():
        task.exception()


class RoomError(Exception):
    """A refused request: ``code`` (stable, see docs/web-protocol.md) and a message key with details."""

    def __init__(self, code: str, key: str | None = None, **details: object) -> None:
        super().__init__(code)
        self.code = code
        self.key = key or f"web_error_{code}"
        self.details = details

    def message(self, lang: Lang) -> str:
        """The refusal in words."""
        if self.code == "illegal":
            reason, details = self.details["reason"], self.details["details"]
            assert isinstance(reason, str)
            assert isinstance(details, dict)
            return explain(reason, details, lang)
        try:
            return tr(self.key, lang, **self.details)
        except KeyError:
            return self.code


def check_name(name: str, others: list[str]) -> None:
    """Refuse ``name`` for a person at a table whose other seats are called ``others``.

    Raises:
        RoomError: it reads as a computer's label (``bad_request``), or looks like one of ``others``
            (``name_taken``).
    """
    if looks_like_a_computer(name):
        raise RoomError("bad_request", "web_error_name_computer", field="name")
    if (other := clashing_name(name, others)) is not None:
        raise RoomError("name_taken", "web_error_name_taken", field="name", name=other)


def hash_token(token: str) -> str:
    """What the store keeps of a seat's token."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class RoomSettings:
    """What the host chose."""

    players: int
    rules: str = "classic"
    rounds: int = 1
    fill: str = "medium"
    away: float = 60.0
    pace: float = 0.8

    def __post_init__(self) -> None:
        if not 2 <= self.players <= 6:
            raise RoomError("bad_request", "web_error_players")
        if self.rules not in PRESETS:
            raise RoomError("bad_request", "web_error_rules")
        if not 1 <= self.rounds <= 20:
            raise RoomError("bad_request", "web_error_rounds")
        if self.fill not in LEVELS:
            raise RoomError("bad_request", "web_error_level")
        if not 5 <= self.away <= 3600 or not 0 <= self.pace <= 5:
            raise RoomError("bad_request", "web_error_timing")

    def to_dict(self) -> dict[str, Any]:
        """As stored and shown."""
        return {
            "players": self.players,
            "rules": self.rules,
            "rounds": self.rounds,
            "fill": self.fill,
            "away": self.away,
            "pace": self.pace,
        }


@dataclass
class SeatState:
    """One seat of a room."""

    seat: int
    name: str
    kind: Literal["person", "computer", "open"]
    level: str | None = None
    token_hash: str | None = None
    online: int = 0
    """Open connections holding this seat's token."""
    offline_since: float = field(default_factory=time.monotonic)

    def row(self) -> SeatRow:
        """As stored."""
        return SeatRow(self.seat, self.name, self.kind, self.level, self.token_hash)

    def public(self, *, auto: bool) -> dict[str, Any]:
        """As every client sees it; ``auto``: a computer plays for this absent person now."""
        return {
            "seat": self.seat,
            "name": self.name,
            "kind": self.kind,
            "level": self.level,
            "online": self.online > 0 if self.kind == "person" else self.kind == "computer",
            "auto": auto,
        }


Listener = Callable[["Room"], None]
Event = dict[str, Any]
"""A committed change as the other processes of the site hear of it (``bus.py``): ``{"k": kind, ...}``."""


class Room:
    """A table of people and computers playing a match, and the clients watching it."""

    def __init__(self, code: str, settings: RoomSettings, seats: list[SeatState], store: Store) -> None:
        self.code = code
        self.settings = settings
        self.seats = seats
        self.store = store
        self.status: Status = "waiting"
        self.seq = time.time_ns() // 1000
        """Raised by every change; it starts from the clock (in microseconds) so that it keeps growing
        across restarts, and a move meant for a moment before a restart is always stale."""
        self.table: Table | None = None
        self.game_id: int | None = None
        self.listeners: set[Listener] = set()
        """Called after every change (the connections, which then send their ``state``)."""
        self.audience: set[Callable[[str], None]] = set()
        """Called with every reaction's frame (the connections, which pass it on as it is)."""
        self._wake = asyncio.Event()
        self._driver: asyncio.Task[None] | None = None
        self._cache: dict[tuple[int, int | None, int], str] = {}
        self._shared: tuple[int, str, dict[str, Any] | None, dict[tuple[bool, int], str]] = (-1, "", None, {})
        self._lock = asyncio.Lock()
        """Held by every change: a change awaits the store, and no other may start from the state it began with."""
        self.leading = True
        """This process drives the computers and the away timer (it holds the room's lease; alone, always)."""
        self.tell: Callable[[Event], None] = lambda event: None
        """Tells the site's other processes about a committed change (set by the lobby)."""
        self.shared = False
        """Other processes serve this room too (a bus): what this copy knows may be a moment behind."""
        self.tell_presence: Callable[[int, int], None] = lambda seat, count: None
        """Tells them how many connections of a seat this process holds (set by the lobby)."""
        self.here = [0] * len(seats)
        """Connections of each seat on this process."""
        self.elsewhere: dict[int, int] = {}
        """Connections of each seat on the site's other processes."""
        self._reloading: asyncio.Task[None] | None = None
        self._reload_wanted = False
        self.presence_reading = 0
        """The number of the newest reading of the presence elsewhere applied (``Lobby._apply_counts``)."""
        self.clock: Clock = time.time
        """The server's time (``expiry.Clock``, set by the lobby), of ``seen``."""
        self.seen: float | None = None
        """When a client (a player's or a spectator's) last came or went on this process: the room was in use."""
        self.stamped = float("-inf")
        """When this process last stored the room as in use (by ``clock``; the lobby's business)."""
        self.used: Callable[[], None] = lambda: None
        """Called when a client comes or goes (set by the lobby, which stores the room as in use)."""
        self.gone: Callable[[], None] = lambda: None
        """Called when reading the room again finds it expired (set by the lobby, which drops it)."""
        self.expired = False
        """The room expired (``expire``): nothing changes it any more, and its clients are sent away."""

    def new_seed(self) -> int:
        """The seed a new match is dealt from: random, and never told to anybody (a test may replace it)."""
        return secrets.randbits(62)

    # -- who is who -----------------------------------------------------------

    def seat_of(self, token: str | None) -> int | None:
        """The seat this token holds, or None."""
        if not token:
            return None
        digest = hash_token(token)
        for state in self.seats:
            if state.token_hash is not None and secrets.compare_digest(state.token_hash, digest):
                return state.seat
        return None

    def connect(self, seat: int | None) -> None:
        """A client holding ``seat`` (None: a spectator) came."""
        self.seen = self.clock()
        self.used()
        if seat is None:
            return
        self.here[seat] += 1
        self._count_online()
        self._changed()
        self.tell_presence(seat, self.here[seat])

    def disconnect(self, seat: int | None) -> None:
        """A client holding ``seat`` went."""
        self.seen = self.clock()
        self.used()
        if seat is None:
            return
        self.here[seat] = max(0, self.here[seat] - 1)
        self._count_online()
        self._changed()
        self.tell_presence(seat, self.here[seat])

    def set_elsewhere(self, counts: dict[int, int], seq: int | None = None) -> None:
        """The connections the site's other processes hold, per seat, as they are now (``seq``: the sender's)."""
        if counts != self.elsewhere:
            LOG.debug("room %s: connections elsewhere %s -> %s", self.code, self.elsewhere, counts)
            self.elsewhere = counts
            self._count_online()
            self._changed(seq)

    def _count_online(self) -> None:
        """Each seat's connections on the whole site; a person who is back plays for himself again."""
        now = time.monotonic()
        for state in self.seats:
            online = self.here[state.seat] + self.elsewhere.get(state.seat, 0)
            if online == 0 and state.online > 0:
                state.offline_since = now
            state.online = online
            if online and self.table is not None and state.seat in self.table.away and self.leading:
                self.table.come_back(state.seat)
                self.tell({"k": "away", "s": sorted(self.table.away)})

    # -- what clients are told ------------------------------------------------

    def room_payload(self) -> dict[str, Any]:
        """``ROOM``: what everybody may know about the room."""
        match = self.table.match if self.table is not None else None
        away = self.table.away if self.table is not None else set()
        scores = [list(row) for row in match.scores] if match is not None else []
        return {
            "code": self.code,
            "status": self.status,
            **self.settings.to_dict(),
            "round": len(scores) + (1 if self.status == "playing" else 0),
            "seats": [state.public(auto=state.seat in away) for state in self.seats],
            "scores": scores,
            "totals": match.totals if match is not None else [0] * self.settings.players,
            "host": 0,
        }

    def state_text(self, seat: int | None, log_from: int = 0) -> str:
        """The ``state`` message for a client of ``seat`` (None: a spectator), as JSON text, its moves and
        move log from move ``log_from`` on (a connection sends each move once: :meth:`log_mark`).

        ``ROOM`` and ``GAME`` are the same for every player, so they are encoded once per change and
        spliced into each seat's message; only ``VIEW`` is encoded per seat.
        """
        key = (self.seq, seat, log_from)
        text = self._cache.get(key)
        if text is None:
            room, game = self._shared_texts(seat is None, log_from)
            view = "null"
            if seat is not None and self.table is not None:
                table = self.table
                making = table.made_for_person() if table.game.turn == seat else None
                made_for = table.made_for_note(seat)
                view = view_text(table.game.view(seat), made_for=made_for, making=making, log_from=log_from)
            seat_text = "null" if seat is None else str(seat)
            text = f'{{"type":"state","seq":{self.seq},"seat":{seat_text},"room":{room},"view":{view},"game":{game}}}'
            if len(self._cache) > 64:
                self._cache.clear()
            self._cache[key] = text
        return text

    def log_mark(self) -> tuple[int | None, int]:
        """The game shown now and how many lines its move log has: a connection that has sent the log of
        this mark sends the next state's from there (``log_from``)."""
        return (self.game_id, self.table.game.move_count) if self.table is not None else (None, 0)

    def _shared_texts(self, spectator: bool, log_from: int) -> tuple[str, str]:
        """``ROOM`` and ``GAME`` of the current ``seq`` as JSON text, built once per change.

        ``GAME``'s moves start at ``log_from``; a spectator's also carries the move log as a spectator
        reads it (from there too), a player reads his own in ``VIEW``.
        """
        if self._shared[0] != self.seq:
            game = None
            if self.table is not None:
                current = self.table.game
                game = game_payload(current, self.game_id, hidden_moves(current), stand_ins=self.table.away)
            self._shared = (self.seq, json.dumps(self.room_payload(), separators=(",", ":")), game, {})
        _, room, game, texts = self._shared
        key = (spectator, log_from)
        text = texts.get(key)
        if text is None:
            text = texts[key] = "null" if game is None else game_text(game, spectator=spectator, log_from=log_from)
        return room, text

    def _changed(self, seq: int | None = None) -> None:
        """Raise ``seq`` and tell every listener; ``seq``: the change is another process's, which numbered it so.

        Every process numbers a room's changes from its own clock, and takes over a larger number another
        process gave a change it applies: the processes' numbers for a room meet at each change.
        """
        if seq is not None and seq - 1 > self.seq:
            self.seq = seq - 1
        self.seq += 1
        self._wake.set()
        for listener in list(self.listeners):
            listener(self)

    # -- the host's and players' actions --------------------------------------

    async def _change(self, change: Callable[[], Awaitable[T]]) -> T:
        """Run one change of the room under its lock, to its end even if the caller goes away meanwhile.

        A change stores first and applies after; a caller cancelled between the two (a client gone, the
        server stopping) must not leave a stored change unapplied.
        """

        async def locked() -> T:
            async with self._lock:
                if self.expired:  # nothing changes a room that expired, nor is it read again
                    raise RoomError("room_expired")
                return await change()

        task = asyncio.ensure_future(locked())
        task.add_done_callback(_retrieve)
        return await asyncio.shield(task)

    async def _store(self, write: Awaitable[R]) -> R:
        """Await a store call; a failure becomes the retryable refusal ``store_unavailable``."""
        try:
            return await write
        except ConflictError as error:
            # Another server on the same database changed the room first: this one's copy is behind.
            LOG.info(f"room {self.code}: another server changed it first ({error.reason}); reading it again")
            self.reload_soon()
            raise RoomError("stale", "web_error_stale_elsewhere") from error
        except StoreError as error:
            LOG.warning(f"room {self.code}: the database refused a change: {error.reason}")
            raise RoomError("store_unavailable") from error

    async def join(self, seat: int, name: str) -> str:
        """Give the open ``seat`` to a person called ``name``; returns his token."""

        async def change() -> str:
            if self.status != "waiting":
                raise RoomError("wrong_status", "web_error_started")
            if not 0 <= seat < len(self.seats):
                raise RoomError("bad_request", "web_error_no_seat", seat=seat)
            if self.seats[seat].kind != "open":
                raise RoomError("seat_taken", "web_error_seat_taken", seat=seat)
            check_name(name, [other.name for other in self.seats if other.seat != seat])
            token = secrets.token_urlsafe(32)
            state = self.seats[seat]
            taken = SeatState(seat, name, "person", None, hash_token(token))
            await self._store(self.store.update_seat(self.code, taken.row(), was="open"))
            state.name, state.kind, state.token_hash = taken.name, taken.kind, taken.token_hash
            self._changed()
            self.tell({"k": "room"})
            return token

        return await self._change(change)

    async def start(self, seat: int | None) -> None:
        """The host starts the match: open seats go to computers."""

        async def change() -> None:
            self._require_host(seat)
            if self.shared:  # another process may have seated somebody a moment ago: start from the stored room
                await self._reload()
                if self.expired:
                    raise RoomError("room_expired")
            if self.status != "waiting":
                raise RoomError("wrong_status", "web_error_started")
            filled = [
                SeatState(state.seat, tr("name_computer", "en", n=state.seat + 1), "computer", self.settings.fill)
                for state in self.seats
                if state.kind == "open"
            ]
            seats = [next((new for new in filled if new.seat == state.seat), state) for state in self.seats]
            await self._new_match(seats, "waiting")

        await self._change(change)

    async def next_round(self, seat: int | None) -> None:
        """The host deals the match's next round."""

        async def change() -> None:
            self._require_host(seat)
            if self.status != "round_over" or self.table is None:
                raise RoomError("wrong_status", "web_error_not_round_over")
            finished = self.table.game
            self.table.next_round()
            try:
                self.game_id = await self._store_game(self.table, [], "round_over")
            except RoomError:
                self.table.game = finished  # the round over is what everybody still sees
                raise
            self._set_status("playing")

        await self._change(change)

    async def rematch(self, seat: int | None) -> None:
        """The host starts a new match at the same table."""

        async def change() -> None:
            self._require_host(seat)
            if self.status != "match_over":
                raise RoomError("wrong_status", "web_error_not_match_over")
            await self._new_match(self.seats, "match_over")

        await self._change(change)

    async def move(self, seat: int | None, text: str, seq: int) -> None:
        """A person's move (``"R12"``, ``"draw"``, ``"pass"``) made at ``seq``."""

        async def change() -> None:
            if seat is None:
                raise RoomError("not_a_player")
            if self.status != "playing" or self.table is None:
                raise RoomError("wrong_status", "web_error_not_playing")
            if seq != self.seq:
                raise RoomError("stale", seq=seq, current=self.seq)
            try:
                move = Move.parse(text)
            except NotationError:
                raise RoomError("bad_move") from None
            await self._push(move, seat)

        await self._change(change)

    async def _push(self, move: Move, seat: int | None = None) -> None:
        """Store the move of the seat to move, then have the table make it and tell everybody (the caller holds
        the lock). ``seat``, if given, must be the seat to move."""
        assert self.table is not None
        assert self.game_id is not None
        try:
            preview = self.table.preview(move, seat)
        except IllegalMoveError as error:
            raise RoomError("illegal", reason=error.reason, details=error.details) from None
        except TurnError:
            raise RoomError("not_your_turn") from None
        finish = None
        if preview.result is not None:
            status = "match_over" if preview.match_over else "round_over"
            finish = Finish(self.code, preview.result, status)
        await self._store(self.store.add_move(self.game_id, preview.number, preview.text, finish))
        self.table.play(move)  # a move that ends the game scores the round at the table
        if finish is not None:
            self.status = "match_over" if self.table.match.is_over() else "round_over"
        self._changed()
        self.tell({"k": "move", "g": self.game_id, "n": preview.number, "t": preview.text})

    def _require_host(self, seat: int | None) -> None:
        if seat != 0:
            raise RoomError("not_host")

    # -- reactions ------------------------------------------------------------

    def check_reaction(self, seat: int | None) -> None:
        """Raise the refusal of a reaction from ``seat`` (None: a spectator), if it is refused.

        Only a player at a table with a game (running or just over) reacts; nothing else is checked here.
        """
        if seat is None:
            raise RoomError("not_a_player", "web_error_react_watching")
        if self.table is None:
            raise RoomError("wrong_status", "web_error_react_waiting")

    def react(self, seat: int | None, reaction: str) -> None:
        """Tell everybody in the room that ``seat`` sent ``reaction``: not a change of the room (no ``seq``),
        and not stored."""
        self.check_reaction(seat)
        assert seat is not None
        text = reaction_text(seat, reaction)
        self.hear_reaction(text)
        self.tell({"k": "react", "t": text})

    def hear_reaction(self, text: str) -> None:
        """Pass a reaction's frame to every client of the room on this process."""
        for listener in list(self.audience):
            listener(text)

    # -- rounds ---------------------------------------------------------------

    def _setup(self, seed: int, seats: list[SeatState] | None = None) -> TableSetup:
        chairs = tuple(
            Seat(state.name, state.level if state.kind == "computer" else None) for state in seats or self.seats
        )
        return TableSetup(chairs, self.settings.rules, self.settings.rounds, seed=seed)

    async def _new_match(self, seats: list[SeatState], status: Status) -> None:
        """Deal a new match for ``seats`` (the room's, or what they become with it) in a room that is ``status``:
        stored first, then shown."""
        table = Table(self._setup(self.new_seed(), seats))
        changed = [new.row() for new, old in zip(seats, self.seats, strict=True) if new is not old]
        self.game_id = await self._store_game(table, changed, status)
        for new, old in zip(seats, self.seats, strict=True):
            if new is not old:
                old.name, old.kind, old.level = new.name, new.kind, new.level
        self.table = table
        self._set_status("playing")

    async def _store_game(self, table: Table, seats: list[SeatRow], status: Status) -> int:
        record = table.record()
        deal = {key: value for key, value in record.items() if key not in ("moves", "result")}
        # The match seed would deal every later round: it stays in the server (games.match_seed),
        # never in a record that others may download.
        deal["match"] = {key: value for key, value in deal.get("match", {}).items() if key != "seed"}
        round_number = len(table.match.scores) + 1
        write = self.store.start_game(self.code, seats, table.setup.seed, round_number, deal, expected=status)
        return await self._store(write)

    def _set_status(self, status: Status) -> None:
        self.status = status
        self._changed()
        self.tell({"k": "room"})
        self.ensure_driver()

    # -- computers ------------------------------------------------------------

    def ensure_driver(self) -> None:
        """Run the task that plays the computers' turns (once per room, on the process that leads it)."""
        if not self.leading or self.status != "playing" or self.expired:
            return
        if self._driver is None or self._driver.done():
            self._driver = asyncio.get_running_loop().create_task(self._drive(), name=f"room {self.code}")
            self._driver.add_done_callback(self._driver_ended)

    def _driver_ended(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            LOG.error("room %s: the computers stopped playing", self.code, exc_info=task.exception())

    def expire(self) -> None:
        """The room expired: stop playing it, refuse every change from now on, and tell its clients (who are sent
        away, ``Connection.state_changed``)."""
        self.expired = True
        if self._driver is not None:
            self._driver.cancel()
        self._changed()

    async def close(self) -> None:
        """Stop the room's tasks."""
        for task in (self._driver, self._reloading):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    def lead(self) -> None:
        """This process took the room's lease: it drives the computers and the away timer from now on."""
        self.leading = True
        self.ensure_driver()

    def follow(self) -> None:
        """Another process leads the room: stop driving it."""
        self.leading = False
        if self._driver is not None:
            self._driver.cancel()

    async def _drive(self) -> None:
        """Let the table make every move that waits for nobody, at the room's pace; wait while a person chooses.

        The moves that wait for nobody: a computer's, and a person's only legal move
        (:meth:`Table.made_for_person`, the rule of every front end), made at the same pace so that
        the person sees his turn go on.
        """
        while self.status == "playing" and self.table is not None:
            table = self.table
            game = table.game
            step = table.next_step()
            if step.kind in ("round_over", "match_over") or step.seat is None:
                return
            seat = step.seat
            if step.kind == "ask":
                await self._wait_for_person(seat)
                continue
            at = game.move_count
            player = table.bots.get(seat)
            await asyncio.sleep(self.settings.pace)
            if self.table is not table or table.game is not game or game.move_count != at:
                continue
            if table.bots.get(seat) is not player:  # a stand-in came or went meanwhile
                continue
            # A computer may think a while (in a worker thread); a person's only move is known at once.
            move = step.move if step.move is not None else await asyncio.to_thread(table.think)
            await self._automatic_moves(game, at, seat, player, move)

    async def _automatic_moves(self, game: Game, at: int, seat: int, player: Bot | None, move: Move) -> None:
        """Make a move the table made without a person's choice (``player``: the computer that chose it, or None
        for a person's only move), retrying with backoff while the store refuses it."""
        delay = RETRY_FIRST
        failures = 0
        while True:

            async def change() -> None:
                assert self.table is not None
                unchanged = self.status == "playing" and self.table.game is game and game.move_count == at
                # A person back in time plays himself; a person's only move is the same whoever makes it.
                if unchanged and self.table.bots.get(seat) is player:
                    await self._push(move)

            try:
                await self._change(change)
            except RoomError as error:
                if error.code == "stale":  # another process played this turn first; the room is read again
                    return
                if error.code == "room_expired":  # nobody will play on here
                    return
                if error.code != "store_unavailable":
                    raise
                failures += 1
                if failures == 1:
                    LOG.warning("room %s: a computer's move is not stored yet; retrying", self.code)
                await asyncio.sleep(delay)
                delay = min(RETRY_LONGEST, delay * 2)
                continue
            if failures:
                LOG.warning("room %s: the computer's move was stored after %d failed tries", self.code, failures)
            return

    async def _wait_for_person(self, seat: int) -> None:
        """Until something changes, or until the person to move has been away too long."""
        state = self.seats[seat]
        self._wake.clear()
        timeout = None
        if state.online == 0:
            timeout = max(0.0, state.offline_since + self.settings.away - time.monotonic())
        try:
            await asyncio.wait_for(self._wake.wait(), timeout)
        except TimeoutError:
            if state.online == 0 and self.table is not None and seat not in self.table.away:
                self.table.stand_in(seat)
                self._changed()
                self.tell({"k": "away", "s": sorted(self.table.away)})

    # -- news from the site's other processes -----------------------------------

    async def hear(self, event: Event) -> None:
        """Apply a change another process committed (``Event``), in the order they come.

        A move that follows the last one known is played here too; anything else, or a move that does not
        follow (news was missed), makes the room be read again from the database.
        """
        kind = event.get("k")
        seq = event.get("q") if isinstance(event.get("q"), int) else None
        if self.expired:
            return
        if kind == "react":
            if isinstance(event.get("t"), str):
                self.hear_reaction(event["t"])
            return
        if kind == "presence":
            return  # the lobby reads the counts and calls set_elsewhere
        if kind == "away":
            seats = event.get("s")
            if isinstance(seats, list) and self.table is not None and not self.leading:
                self._mirror_away({seat for seat in seats if isinstance(seat, int)}, seq)
            return

        async def change() -> None:
            if kind == "move" and self._follows(event):
                assert self.table is not None
                text = str(event["t"])  # as the record writes it: the seat, the move, a drawn card ("0 draw Y5")
                seat, _, rest = text.partition(" ")
                move, _, drawn = rest.partition(" ")
                self.table.play(Move.parse(move), int(seat))
                if drawn and self.table.game.record_moves()[-1] != text:
                    raise RoomError("stale")  # another card drawn: this copy is not the stored game
                if (step := self.table.next_step()).kind in ("round_over", "match_over"):
                    self.status = step.kind
                self._changed(seq)
            elif kind == "move" and self._known(event):
                if seq is not None and seq - 1 > self.seq:  # this copy got there by reading: take the number
                    self._changed(seq)
            else:
                await self._reload(seq)

        try:
            await self._change(change)
        except (RoomError, StoreError, NotationError, IllegalMoveError, TurnError, ValueError) as error:
            LOG.warning("room %s: news from another server not applied (%s); reading it again", self.code, error)
            self.reload_soon()

    def _follows(self, event: Event) -> bool:
        """Whether ``event`` is the move right after the last one this copy knows."""
        if self.table is None or self.status != "playing" or event.get("g") != self.game_id:
            return False
        return event.get("n") == self.table.game.move_count and isinstance(event.get("t"), str)

    def _known(self, event: Event) -> bool:
        """Whether this copy has the move ``event`` already (it made it, or read it since)."""
        number = event.get("n")
        if self.table is None or event.get("g") != self.game_id or not isinstance(number, int):
            return False
        return number < self.table.game.move_count

    def _mirror_away(self, away: set[int], seq: int | None) -> None:
        assert self.table is not None
        for seat in away - self.table.away:
            self.table.stand_in(seat)
        for seat in self.table.away - away:
            self.table.come_back(seat)
        self._changed(seq)

    def reload_soon(self) -> None:
        """Read the room again from the database once the change under way is done.

        Asked again while a reading is under way, it reads once more after it: that reading may have
        begun before the change that asks.
        """
        self._reload_wanted = True
        if self._reloading is None or self._reloading.done():
            self._reloading = asyncio.get_running_loop().create_task(self._reload_locked(), name=f"reload {self.code}")

    async def _reload_locked(self) -> None:
        while self._reload_wanted and not self.expired:
            self._reload_wanted = False
            try:
                await self._change(self._reload)
            except (StoreError, RoomError) as error:
                LOG.warning("room %s: not read again (%s)", self.code, error)
                return

    async def reload(self) -> None:
        """Read the room again from the database, now (the caller does not hold the lock)."""
        await self._change(self._reload)

    async def _reload(self, seq: int | None = None) -> None:
        """Replace this copy by the room as stored (the caller holds the lock); its clients are told (at ``seq``,
        the number another process gave the change that made it read the room again)."""
        row = await self.store.room(self.code)
        if row is None or isinstance(row, ExpiredRoom):  # another process expired it (None: and forgot it since)
            LOG.info("room %s: it expired", self.code)
            self.gone()
            return
        if isinstance(row, UnreadableRoom):
            LOG.warning("room %s: cannot be read again: %s", self.code, row.reason)
            return
        if self._same_as(row):  # nothing new: the clients are not sent the same state again
            if seq is not None and seq - 1 > self.seq:
                self._changed(seq)
            return
        fresh = await asyncio.to_thread(Room.restore, row, self.store)
        away = self.table.away if self.table is not None else set()
        self.settings, self.status, self.game_id = fresh.settings, fresh.status, fresh.game_id
        for state, stored in zip(self.seats, fresh.seats, strict=True):
            state.name, state.kind, state.level, state.token_hash = (
                stored.name,
                stored.kind,
                stored.level,
                stored.token_hash,
            )
        self.table = fresh.table
        if self.table is not None:
            for seat in away:
                if self.table.is_person(seat):
                    self.table.stand_in(seat)
        self._changed(seq)
        self.ensure_driver()

    def _same_as(self, row: RoomRow) -> bool:
        """Whether this copy already is the room as ``row`` stores it (status, seats, game and its moves)."""
        if row.status != self.status or row.seats != [state.row() for state in self.seats]:
            return False
        if not row.games:
            return self.table is None
        last = row.games[-1]
        return self.table is not None and last.id == self.game_id and len(last.moves) == self.table.game.move_count

    # -- restoring ------------------------------------------------------------

    @classmethod
    def restore(cls, row: RoomRow, store: Store) -> Room:
        """A room as it was stored (its match and game replayed move by move).

        Raises:
            RecordError, ValueError, TypeError, KeyError, RoomError: the stored rows do not make a room.
        """
        settings = RoomSettings(**row.settings)
        if [s.seat for s in row.seats] != list(range(settings.players)):
            raise ValueError(
                f"the seats stored are {[s.seat for s in row.seats]}, not one for each of {settings.players}"
            )
        if any(s.kind not in ("person", "computer", "open") for s in row.seats):
            raise ValueError("a seat's kind is none of person, computer, open")
        if row.status not in ("waiting", "playing", "round_over", "match_over"):
            raise ValueError(f"unknown status {row.status!r}")
        seats = [SeatState(s.seat, s.name, s.kind, s.level, s.token_hash) for s in row.seats]  # type: ignore[arg-type]
        room = cls(row.code, settings, seats, store)
        room.status = row.status  # type: ignore[assignment]
        if row.games:
            for earlier in row.games[:-1]:  # the finished rounds of the match must replay too: they are shown
                read_record({**earlier.deal, "moves": earlier.moves, "result": earlier.result})
            last = row.games[-1]
            record = {**last.deal, "moves": last.moves, "result": last.result}
            game = read_record(record)
            scores = [list(g.result["penalties"]) for g in row.games[:-1] if g.result is not None]
            setup = room._setup(last.match_seed)
            rules = Rules.preset(settings.rules)
            match = Match(settings.players, rules, rounds=settings.rounds, seed=last.match_seed, scores=scores)
            room.table = Table.resume(setup, match, game)
            room.game_id = last.id
            if (step := room.table.next_step()).kind in ("round_over", "match_over"):
                room.status = step.kind
            elif room.status != "playing":
                raise ValueError(f"the room is stored as {row.status} while its game {last.id} is not over")
        elif room.status != "waiting":
            raise ValueError(f"the room is stored as {row.status} but has no game")
        return room


async def new_code(taken: Callable[[str], Awaitable[bool]]) -> str:
    """A fresh room code."""
    while True:
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        if not await taken(code):
            return code


__all__ = ["Game", "Room", "RoomError", "RoomSettings", "SeatState", "new_code"]
