"""Rooms: who sits where, the match they play, and everything that changes it.

Every change is stored first and applied after: a move becomes part of the
game only once the store has it, and a change the store refuses leaves the
room exactly as it was (the mover is told ``store_unavailable`` and may send
it again; a computer tries again with backoff). Changes hold the room's lock,
so they never interleave; each raises the room's ``seq``, then every connected
client gets a ``state`` built from its own seat. The room's
:class:`~elferraus.table.session.Table` makes every move, a person's and a
computer's (computers, and those standing in for absent people, choose where
the lobby's ``Thinkers`` say: a search in a thinker process); the room only
stores them first and keeps the pace.

What a room is made of is in ``settings.py``; the turns that wait for nobody
are driven by ``driver.py`` (``Driving``), and the copy of a room on a site of
several processes is kept in step by ``replica.py`` (``Replica``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from elferraus.bots.search import Advice
from elferraus.errors import IllegalMoveError, NotationError
from elferraus.i18n import Lang, tr
from elferraus.match import Match
from elferraus.moves import Move
from elferraus.record import read_record
from elferraus.rules import Rules
from elferraus.server.rooms.driver import Driving
from elferraus.server.rooms.payloads import game_payload, game_text, hidden_moves, view_text
from elferraus.server.rooms.reactions import reaction_text
from elferraus.server.rooms.replica import Replica
from elferraus.server.rooms.settings import Event, RoomError, RoomSettings, SeatState, Status, check_name, hash_token
from elferraus.server.storage.expiry import Clock
from elferraus.server.storage.store import Store
from elferraus.server.storage.types import (
    ConflictError,
    Finish,
    RoomRow,
    SeatRow,
    StoreError,
)
from elferraus.server.thinking.pool import IN_THREADS, ThinkerError
from elferraus.table.hints import hint_line
from elferraus.table.session import Seat, Table, TableSetup, TurnError

LOG = logging.getLogger("elferraus.server")
T = TypeVar("T")
R = TypeVar("R")


def _retrieve(task: asyncio.Task[Any]) -> None:
    """Take a finished change's outcome, so that one whose caller went away is not reported as lost."""
    if not task.cancelled():
        task.exception()


Listener = Callable[["Room"], None]


class Room(Driving, Replica):
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
        self.thinkers = IN_THREADS
        """Where its computers choose (set by the lobby: the process's thinkers)."""
        self._hint: tuple[int, asyncio.Future[Advice]] | None = None
        """The hint of the position at a ``seq``, being thought or thought (one per position, whoever asks)."""

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
            self._require_playing(seat, seq)
            try:
                move = Move.parse(text)
            except NotationError:
                raise RoomError("bad_move") from None
            await self._push(move, seat)

        await self._change(change)

    async def hint(self, seat: int | None, seq: int, lang: Lang) -> tuple[Advice, str]:
        """What ``master`` would do in ``seat``'s place at ``seq``, and why in ``lang``'s words: the hint of
        the terminal game (:meth:`Table.hint`, the same seed, :func:`hint_line`), thought once per position
        by the process's thinkers. Only for a person alone with computers: at a table of people it would be
        help the others do not get.

        Raises:
            RoomError: a spectator (``not_a_player``), no game under way (``wrong_status``), an older ``seq``
                (``stale``), another seat's turn (``not_your_turn``), other people at the table
                (``no_hints``), or no thinker could give it (``no_hint_now``).
        """
        table = self._require_playing(seat, seq)
        if table.game.is_over() or table.game.turn != seat:
            raise RoomError("not_your_turn")
        if table.people != (seat,):
            raise RoomError("no_hints")
        view = table.game.view(seat)
        if self._hint is None or self._hint[0] != seq:
            where = f"room {self.code} seat {seat} hint"
            thought = asyncio.ensure_future(self.thinkers.advise("master", table.hint_seed(), view, where))
            thought.add_done_callback(_retrieve)
            self._hint = (seq, thought)
        try:
            advice = await asyncio.shield(self._hint[1])
        except ThinkerError:
            raise RoomError("no_hint_now") from None
        return advice, hint_line(view, advice, table.names, lang)

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

    def _require_playing(self, seat: int | None, seq: int) -> Table:
        """The table, if ``seat`` is a player's and a game is under way at ``seq``.

        Raises:
            RoomError: ``not_a_player``, ``wrong_status`` or ``stale``.
        """
        if seat is None:
            raise RoomError("not_a_player")
        if self.status != "playing" or self.table is None:
            raise RoomError("wrong_status", "web_error_not_playing")
        if seq != self.seq:
            raise RoomError("stale", seq=seq, current=self.seq)
        return self.table

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

    # -- the room's life ------------------------------------------------------

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


__all__ = ["Room"]
