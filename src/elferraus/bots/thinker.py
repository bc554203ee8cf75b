"""A thinker: a process that plays computers for another process, whose own work their thinking then never holds.

The web server (``elferraus.server.thinking``) starts a few and asks each
computer's move of one of them: a :class:`Request` names the computer (a key
the asker chose, its level and seed) and carries its seat's
:class:`~elferraus.SeatView`; the thinker answers the move. It keeps each
computer from one move to the next, made as :func:`~elferraus.bots.make_bot`
makes it and told its seat by ``start_game``, so a computer plays here
exactly as it would in the asking process while every move of it is asked of
the same thinker, in order. A computer it does not know (a new thinker after
one died) is made afresh and plays on from its view. The asker names the
computers it has let go in ``forget``; past :data:`KEEP` the thinker lets go
of the longest unused itself.

A request may ask for advice instead of a move (``advise``): a searching
level's move and its grounds (:class:`~elferraus.bots.search.Advice`), as the
hints give them. Its computer is made for that request alone and not kept.

Messages are pickled, each behind its length (4 bytes, big-endian): both ends
are this package, and a thinker is its asker's own child. It answers
:class:`Ready` first, then one :class:`Answer` per request, in order, and
exits at the end of its input (its asker closed it, or died).

    python -m elferraus.bots.thinker [NICENESS]

NICENESS (default 0) is added to the thinker's own, so that a busy machine
gives its asker's work the CPU first.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import time
import traceback
from collections import OrderedDict
from dataclasses import dataclass
from typing import IO, Any

from elferraus.bots import Bot, make_bot
from elferraus.bots.search import Advice, SearchBot
from elferraus.moves import Move
from elferraus.view import SeatView

KEEP = 4096
"""Computers a thinker keeps at most; past it, the longest unused is let go (made afresh if asked again)."""
LARGEST = 1 << 24
"""The longest message either end accepts (16 MiB; a request is about 1 KB)."""
_LENGTH = 4


@dataclass(frozen=True, slots=True)
class Request:
    """Choose the move of the computer ``key`` (``name`` seeded with ``seed``) from ``view``; first let go of
    the computers in ``forget``. With ``advise``: answer a new ``name``'s advice (a searching level's), and
    keep no computer for it."""

    key: int
    name: str
    seed: int
    view: SeatView
    forget: tuple[int, ...] = ()
    advise: bool = False


@dataclass(frozen=True, slots=True)
class Answer:
    """The move chosen (or why none was: ``error``, the computer's exception as text) and the seconds it took;
    for a request to ``advise``, the advice too."""

    move: Move | None
    seconds: float
    error: str | None = None
    advice: Advice | None = None


@dataclass(frozen=True, slots=True)
class Ready:
    """The thinker has started: its process id."""

    pid: int


def encode(message: Any) -> bytes:
    """A message as it goes over a pipe: its length, then its pickle."""
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return len(data).to_bytes(_LENGTH, "big") + data


def length(header: bytes) -> int:
    """The length of the message behind ``header`` (its first 4 bytes).

    Raises:
        ValueError: a length over :data:`LARGEST`.
    """
    size = int.from_bytes(header, "big")
    if size > LARGEST:
        raise ValueError(f"a message of {size} bytes; the limit is {LARGEST}")
    return size


def decode(data: bytes) -> Any:
    """A message from its pickle (behind the length)."""
    # Written by this module, in the process that started the reader or was started by it: trusted.
    return pickle.loads(data)


class Computers:
    """The computers a thinker plays, by key: each kept from one move to the next."""

    def __init__(self, keep: int = KEEP) -> None:
        self.keep = keep
        self._bots: OrderedDict[int, Bot] = OrderedDict()

    def __len__(self) -> int:
        return len(self._bots)

    def answer(self, request: Request) -> Answer:
        """The move of the computer ``request`` names, made first if it is new (or was let go)."""
        for key in request.forget:
            self._bots.pop(key, None)
        started = time.perf_counter()
        if request.advise:
            return _advice(request, started)
        try:
            bot = self._bots.get(request.key)
            if bot is None:
                view = request.view
                bot = make_bot(request.name, request.seed)
                bot.start_game(view.seat, view.players, view.rules)
                self._bots[request.key] = bot
                while len(self._bots) > self.keep:
                    self._bots.popitem(last=False)
            else:
                self._bots.move_to_end(request.key)
            move = bot.choose(request.view)
        except Exception:  # any fault of a computer is its asker's to report, with the thinker's traceback
            return Answer(None, time.perf_counter() - started, traceback.format_exc())
        return Answer(move, time.perf_counter() - started)


def advise(name: str, seed: int, view: SeatView) -> Advice:
    """The advice of a new searching computer ``name`` (seeded with ``seed``) in the place of ``view``'s seat.

    Raises:
        ValueError: ``name`` is not a searching level (it gives no advice).
    """
    bot = make_bot(name, seed)
    if not isinstance(bot, SearchBot):
        raise ValueError(f"{name} gives no advice: it is not a searching level")
    bot.start_game(view.seat, view.players, view.rules)
    return bot.advise(view)


def _advice(request: Request, started: float) -> Answer:
    try:
        advice = advise(request.name, request.seed, request.view)
    except Exception:  # as a move's: the asker reports it
        return Answer(None, time.perf_counter() - started, traceback.format_exc())
    return Answer(advice.move, time.perf_counter() - started, advice=advice)


def serve(requests: IO[bytes], answers: IO[bytes]) -> None:
    """Answer every request of ``requests`` on ``answers`` (after :class:`Ready`) until ``requests`` ends."""
    computers = Computers()
    try:
        answers.write(encode(Ready(os.getpid())))
        answers.flush()
        while len(header := requests.read(_LENGTH)) == _LENGTH:
            data = requests.read(length(header))
            message = decode(data)
            if not isinstance(message, Request):
                raise TypeError(f"a thinker is asked by Request, not {type(message).__name__}")
            answers.write(encode(computers.answer(message)))
            answers.flush()
    except BrokenPipeError:  # the asker went away while a move was on its way to it
        pass


def main(argv: list[str] | None = None) -> int:
    """Run a thinker on this process's standard input and output (see the module's docstring)."""
    args = sys.argv[1:] if argv is None else argv
    niceness = int(args[0]) if args else 0
    # Ctrl+C in a terminal reaches the whole process group: the asker stops its thinkers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if niceness and hasattr(os, "nice"):
        os.nice(niceness)
    # The answers go over the original standard output alone: anything printed goes to standard error.
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        serve(sys.stdin.buffer, answers)
    finally:
        with contextlib.suppress(BrokenPipeError):  # an answer its asker, gone, never reads
            answers.close()
    return 0


if __name__ == "__main__":
    # The module's own classes, not this script's copies: an answer must unpickle as elferraus.bots.thinker.Answer.
    from elferraus.bots.thinker import main as _main

    sys.exit(_main())


__all__ = [
    "KEEP",
    "LARGEST",
    "Answer",
    "Computers",
    "Ready",
    "Request",
    "advise",
    "decode",
    "encode",
    "length",
    "main",
    "serve",
]
