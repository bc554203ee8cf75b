"""Where the computers of a server process think: the searching levels in thinker processes, the others at once.

A search (``hard``, ``expert``, ``master``: :data:`POOLED`) takes milliseconds to a
tenth of a second a move, part of it in pure Python, which holds the
interpreter's lock: in a thread of the server it would hold the event loop,
and with it every person's move. So :class:`Thinkers` asks it of one of a few
thinker processes (:mod:`elferraus.bots.thinker`), started as they are first
needed and kept until the server stops, at a lower priority than the server
(:data:`NICENESS`), so that a busy machine serves the people first. Each
computer is asked of the same thinker every move (sticky: the thinker keeps
it from move to move), so it plays exactly as it would in the server's own
thread. The other levels take a tenth of a millisecond a move or less
(``medium``; ``greedy`` 5 us): they choose at once, on the event loop, as
handing the move to a thread (about 0.05 ms) or a thinker (about 0.15 ms, to
and fro) would cost more than their choice.

A thinker that dies is named in the log and replaced at once; the move it
was thinking is asked again of the new one, whose computers play on from
their views. A move whose thinkers died :data:`TRIES` times is played by
:data:`FALLBACK`, and the log says so: the room goes on.

A person's hint (:meth:`Thinkers.advise`) is thought the same way, by the
least busy thinker; advice no thinker lived to give is refused
(:class:`ThinkerError`), never made up.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import weakref
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from elferraus.bots import Bot, make_bot
from elferraus.bots.search import Advice
from elferraus.bots.thinker import Answer, Ready, Request, advise, decode, encode, length
from elferraus.moves import Move
from elferraus.view import SeatView

POOLED = frozenset({"hard", "expert", "master"})
"""The levels that think in a thinker process; every other one chooses on the event loop (its choice takes
less time than asking a thread or a process would)."""
NICENESS = 10
"""Added to a thinker's priority: on a busy machine the server's own process gets the CPU first."""
TRIES = 3
"""Times a move is asked of thinkers that die while thinking it, before :data:`FALLBACK` plays it."""
FALLBACK = "medium"
"""The level that plays a move no thinker lived to choose (the stand-in of a person away, too)."""
START_TIMEOUT = 60.0
"""Seconds a new thinker has to say it is ready."""
STOP_TIMEOUT = 5.0
"""Seconds a thinker has to finish its move and exit when the server stops, before it is killed."""
RESTART_FIRST = 0.5
RESTART_LONGEST = 10.0
"""Seconds before a thinker that died young is started again (doubling while they keep dying young)."""
YOUNG = 5.0
"""A thinker that dies within this many seconds of its start died young: the next waits (above)."""
LOG = logging.getLogger("elferraus.server")


def default_workers() -> int:
    """The thinker processes a server starts at most: one per core it may use but one, and at least one."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, cores - 1)


class ThinkerError(RuntimeError):
    """A computer raised an exception in its thinker; the text has the thinker's traceback."""


@dataclass(eq=False)
class _Ask:
    """A move (or advice) asked of a thinker, and who waits for it."""

    key: int
    name: str
    seed: int
    view: SeatView
    where: str
    future: asyncio.Future[Any]
    tries: int = 0
    advise: bool = False


@dataclass(eq=False)
class _Slot:
    """One thinker process (and those that replace it): its queue of moves, the move it is thinking."""

    number: int
    queue: deque[_Ask] = field(default_factory=deque)
    thinking: _Ask | None = None
    pid: int | None = None
    """The running thinker's process id, once it said it is ready."""
    computers: int = 0
    """Computers whose moves are asked here."""
    forget: list[int] = field(default_factory=list)
    """Computers the server let go of, for the thinker to forget with the next request."""
    ready: bool = False
    """The running thinker said it is ready."""
    failed_starts: int = 0
    """Thinkers in a row that did not start: from :data:`TRIES` on, :data:`FALLBACK` plays the slot's moves."""
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None


class Thinkers:
    """Where the computers of one server process think (see the module's docstring).

    Args:
        workers: the thinker processes at most (started as they are first needed); 0: none, and the
            searching levels think in a thread of this process instead (holding its event loop while in
            Python).
        niceness: added to each thinker's priority.
        command: what a thinker runs (default: this Python, ``-m elferraus.bots.thinker NICENESS``).
    """

    def __init__(self, workers: int, *, niceness: int = NICENESS, command: Sequence[str] | None = None) -> None:
        if workers < 0:
            raise ValueError(f"thinker processes must be 0 or more, not {workers}")
        self.command = (
            list(command) if command is not None else [sys.executable, "-m", "elferraus.bots.thinker", str(niceness)]
        )
        self._slots = [_Slot(number) for number in range(workers)]
        self._keys: weakref.WeakKeyDictionary[Bot, int] = weakref.WeakKeyDictionary()
        self._next_key = 0
        self._route: dict[int, _Slot] = {}
        self._dropped: deque[int] = deque()
        """Keys of computers that were let go (appended by their finalizers, from whichever thread collects)."""
        self.closing = False
        self.thought: Counter[int] = Counter()
        """Searching moves chosen, by the process id that chose them (this process's own without thinkers)."""

    @property
    def workers(self) -> int:
        """The thinker processes this server starts at most."""
        return len(self._slots)

    def pids(self) -> list[int]:
        """The process ids of the thinkers running now."""
        return [slot.pid for slot in self._slots if slot.pid is not None]

    async def choose(self, bot: Bot, view: SeatView, where: str) -> Move:
        """The move ``bot`` chooses from ``view``, as ``bot.choose(view)`` would; ``where`` names it in the log.

        A seat's only legal move is that move, at once: no level thinks over it, nor changes by it.

        Raises:
            ThinkerError: the computer raised an exception in its thinker.
        """
        if bot.name not in POOLED:
            return bot.choose(view)
        if len(view.legal) == 1:
            return view.legal[0]
        if not self._slots:
            move = await asyncio.to_thread(bot.choose, view)
            self.thought[os.getpid()] += 1
            return move
        if self.closing:
            raise RuntimeError("the thinkers are stopping")
        self._let_go()
        key = self._key(bot)
        slot = self._route.get(key)
        if slot is None:
            slot = self._route[key] = min(self._slots, key=lambda slot: (slot.computers, len(slot.queue)))
            slot.computers += 1
        future: asyncio.Future[Move] = asyncio.get_running_loop().create_future()
        self._ask(slot, _Ask(key, bot.name, bot.seed, view, where, future))
        return await future

    async def advise(self, name: str, seed: int, view: SeatView, where: str) -> Advice:
        """The advice of a new searching computer ``name`` seeded with ``seed`` in the place of ``view``'s seat
        (:func:`elferraus.bots.thinker.advise`), thought by the least busy thinker.

        Raises:
            ThinkerError: the computer raised an exception, or its thinkers died :data:`TRIES` times.
        """
        if not self._slots:
            return await asyncio.to_thread(advise, name, seed, view)
        if self.closing:
            raise RuntimeError("the thinkers are stopping")
        slot = min(self._slots, key=lambda slot: (len(slot.queue) + (slot.thinking is not None), slot.computers))
        future: asyncio.Future[Advice] = asyncio.get_running_loop().create_future()
        self._ask(slot, _Ask(-1, name, seed, view, where, future, advise=True))
        return await future

    def _ask(self, slot: _Slot, ask: _Ask) -> None:
        """Queue ``ask`` for the thinker of ``slot`` (started if it is not running), or answer it at once when
        thinkers keep failing to start there."""
        if slot.failed_starts >= TRIES:
            _fall_back(ask, f"{slot.failed_starts} thinkers in a row did not start")
        else:
            slot.queue.append(ask)
        slot.wake.set()
        if slot.task is None or slot.task.done():
            slot.task = asyncio.get_running_loop().create_task(self._live(slot), name=f"thinker {slot.number}")

    def _key(self, bot: Bot) -> int:
        key = self._keys.get(bot)
        if key is None:
            key = self._keys[bot] = self._next_key
            self._next_key += 1
            weakref.finalize(bot, self._dropped.append, key)
        return key

    def _let_go(self) -> None:
        """Tell each thinker, with its next request, of the computers the server let go of since."""
        while self._dropped:
            key = self._dropped.popleft()
            slot = self._route.pop(key, None)
            if slot is not None:
                slot.computers -= 1
                slot.forget.append(key)

    async def close(self) -> None:
        """Stop every thinker: each finishes the move it thinks and exits (killed after ``STOP_TIMEOUT``)."""
        self.closing = True
        tasks = [slot.task for slot in self._slots if slot.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for slot in self._slots:
            for ask in (*slot.queue, *([slot.thinking] if slot.thinking is not None else [])):
                ask.future.cancel()
            slot.queue.clear()
            slot.thinking = None

    # -- one thinker after another in a slot -------------------------------------------

    async def _live(self, slot: _Slot) -> None:
        """Keep a thinker running in ``slot``, starting another whenever one ends (until the server stops)."""
        loop = asyncio.get_running_loop()
        delay = RESTART_FIRST
        while not self.closing:
            started = loop.time()
            slot.ready = False
            try:
                ended = await self._run(slot)
            except Exception as error:  # whatever ended this thinker (it could not start, it spoke nonsense): the next
                ended = f"{type(error).__name__}: {error}"
            if self.closing:
                return
            self._died(slot, ended)
            if loop.time() - started < YOUNG:
                await asyncio.sleep(delay)
                delay = min(RESTART_LONGEST, 2 * delay)
            else:
                delay = RESTART_FIRST

    async def _run(self, slot: _Slot) -> str:
        """Start a thinker in ``slot`` and ask it the slot's moves until it ends; returns how it ended."""
        process = await asyncio.create_subprocess_exec(
            *self.command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
        )
        assert process.stdin is not None
        assert process.stdout is not None
        exited = asyncio.ensure_future(process.wait())
        getting: asyncio.Future[_Ask] | None = None
        try:
            ready = await asyncio.wait_for(_read(process.stdout), START_TIMEOUT)
            if ready is None:
                return await _ended(process, exited)
            if not isinstance(ready, Ready):
                return f"it began with {type(ready).__name__}, not Ready"
            slot.pid, slot.ready, slot.failed_starts = ready.pid, True, 0
            slot.forget.clear()  # a new thinker knows no computer yet
            LOG.info("thinking: thinker %d started (pid %d)", slot.number, ready.pid)
            while True:
                getting = asyncio.ensure_future(_next(slot))
                await asyncio.wait((getting, exited), return_when=asyncio.FIRST_COMPLETED)
                if not getting.done():
                    return await _ended(process, exited)
                ask = slot.thinking = getting.result()
                getting = None
                forget, slot.forget = tuple(slot.forget), []
                process.stdin.write(encode(Request(ask.key, ask.name, ask.seed, ask.view, forget, ask.advise)))
                await process.stdin.drain()
                answer = await _read(process.stdout)
                if answer is None:
                    return await _ended(process, exited)
                if not isinstance(answer, Answer):
                    return f"it answered {type(answer).__name__}"
                slot.thinking = None
                self._answered(slot, ask, answer)
        except (ConnectionError, asyncio.IncompleteReadError):
            return await _ended(process, exited)
        finally:
            slot.pid = None
            exited.cancel()
            if getting is not None:  # waiting for a move this thinker will never take, or took one at its end
                if getting.done() and not getting.cancelled():
                    slot.queue.appendleft(getting.result())
                getting.cancel()
            await _end(process)

    def _answered(self, slot: _Slot, ask: _Ask, answer: Answer) -> None:
        if slot.pid is not None:
            self.thought[slot.pid] += 1
        if ask.future.done():  # its room stopped waiting (the driver was cancelled)
            return
        if ask.advise and answer.advice is not None:
            ask.future.set_result(answer.advice)
        elif not ask.advise and answer.move is not None:
            ask.future.set_result(answer.move)
        else:
            ask.future.set_exception(ThinkerError(f"{ask.where}: {ask.name} failed in its thinker:\n{answer.error}"))

    def _died(self, slot: _Slot, how: str) -> None:
        """The thinker of ``slot`` ended unasked: say so, and ask its move again, or let :data:`FALLBACK` play it
        (and every move of the slot while thinkers fail to start)."""
        ask, slot.thinking = slot.thinking, None
        slot.forget.clear()
        if not slot.ready:
            slot.failed_starts += 1
        waiting = len(slot.queue) + (ask is not None)
        LOG.error(
            "thinking: thinker %d %s (%s; moves waiting: %d); another is started%s",
            slot.number,
            "ended" if slot.ready else "did not start",
            how,
            waiting,
            ", and its computers play on from their views" if slot.ready else "",
        )
        if ask is not None and not ask.future.done():
            ask.tries += 1
            if ask.tries < TRIES:
                slot.queue.appendleft(ask)
            else:
                _fall_back(ask, f"its thinkers died {ask.tries} times while thinking it")
        if slot.failed_starts >= TRIES:
            while slot.queue:
                _fall_back(slot.queue.popleft(), f"{slot.failed_starts} thinkers in a row did not start")


def _fall_back(ask: _Ask, why: str) -> None:
    """Let :data:`FALLBACK` play the move no thinker chose, and say so; refuse advice no thinker gave."""
    if ask.future.done():
        return
    if ask.advise:
        LOG.warning("%s: no advice from %s: %s", ask.where, ask.name, why)
        ask.future.set_exception(ThinkerError(f"{ask.where}: no advice from {ask.name}: {why}"))
        return
    try:
        move = make_bot(FALLBACK, ask.seed).choose(ask.view)
    except Exception as error:  # the fallback's own fault: the room's driver reports it
        ask.future.set_exception(error)
        return
    LOG.warning("%s: %s played %s for %s: %s", ask.where, FALLBACK, move, ask.name, why)
    ask.future.set_result(move)


async def _next(slot: _Slot) -> _Ask:
    """The next move of ``slot`` that somebody still waits for."""
    while True:
        while slot.queue:
            ask = slot.queue.popleft()
            if not ask.future.done():
                return ask
        slot.wake.clear()
        await slot.wake.wait()


async def _read(stream: asyncio.StreamReader) -> object | None:
    """The next message of a thinker, or None at the end of its output."""
    try:
        header = await stream.readexactly(4)
    except asyncio.IncompleteReadError:
        return None
    message: object = decode(await stream.readexactly(length(header)))
    return message


async def _ended(process: asyncio.subprocess.Process, exited: asyncio.Future[int]) -> str:
    """How a thinker whose output ended ended (once it exited, or a second later: as far as is known)."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(exited), 1.0)
    code = process.returncode
    if code is None:
        return "its output ended"
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
    return f"exit status {code}"


async def _end(process: asyncio.subprocess.Process) -> None:
    """Let a thinker finish and exit (its input closed), or kill it after ``STOP_TIMEOUT``; reap it either way."""
    if process.returncode is None and process.stdin is not None:
        process.stdin.close()
    try:
        await asyncio.wait_for(process.wait(), STOP_TIMEOUT)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()


IN_THREADS = Thinkers(0)
"""No thinker process: the searching levels think in a thread of this process (a room without a lobby's)."""

__all__ = ["FALLBACK", "IN_THREADS", "NICENESS", "POOLED", "TRIES", "ThinkerError", "Thinkers", "default_workers"]
