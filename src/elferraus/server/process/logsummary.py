"""Log output that cannot flood: a repeated record is shown once, then only counted.

A server under attack, or short of file descriptors, fails the same way
thousands of times a second; a traceback each time fills the disk and hides
everything else. :class:`RepeatSummary` lets the first record of each kind
through whole, counts the repeats, and once per interval lets one line say
how many there were::

    socket.accept() out of system resource … repeated 2047 times in the last 10 s

Attach it to a logger with :func:`summarise_repeats` (or ``addFilter`` on a
handler, which also sees the records of child loggers).
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

INTERVAL = 10.0
"""Seconds between two summary lines of one kind of record."""
MAX_KINDS = 256
"""Kinds of record tracked at once; any further kinds are counted together as one."""
SERVER_LOGGERS = ("uvicorn.error", "asyncio", "elferraus.server")

_SUMMARY = "_elferraus_summary"
"""Attribute marking a summary line, which the filter lets through."""
_NUMBERS = re.compile(r"0x[0-9a-fA-F]+|\d+")
_OTHERS = ("", 0, "", "", "", -1)

Kind = tuple[str, int, str, str, str, int]


@dataclass
class _Window:
    start: float
    sample: logging.LogRecord
    repeats: int = 0


def kind_of(record: logging.LogRecord) -> Kind:
    """What makes two records "the same": logger, level, the message's first line with its numbers
    blanked out (file descriptors, task numbers and addresses differ between repeats), and with an
    exception its type and the line that raised it.

    >>> kind_of(logging.makeLogRecord({"name": "asyncio", "levelno": 40, "msg": "Task-17 failed\\nmore"}))
    ('asyncio', 40, 'Task-# failed', '', '', 0)
    """
    first_line = str(record.msg).partition("\n")[0][:200]
    error_type, filename, line = "", "", 0
    if record.exc_info and record.exc_info[1] is not None:
        error = record.exc_info[1]
        error_type = type(error).__qualname__
        trace = error.__traceback__
        while trace is not None and trace.tb_next is not None:
            trace = trace.tb_next
        if trace is not None:
            filename, line = trace.tb_frame.f_code.co_filename, trace.tb_lineno
    return (record.name, record.levelno, _NUMBERS.sub("#", first_line), error_type, filename, line)


def make_summary(record: logging.LogRecord, repeats: int, seconds: float, others: bool = False) -> None:
    """Turn ``record`` into one line (no traceback) saying its kind (``others``: the kinds beyond
    :data:`MAX_KINDS`) came ``repeats`` times in ``seconds``."""
    try:
        text = "(log records of other kinds)" if others else record.getMessage()
    except (TypeError, ValueError):  # arguments that do not fit the message: say the message as it is
        text = str(record.msg)
    first_line = text.partition("\n")[0]
    record.msg = "%s … repeated %d times in the last %d s"
    record.args = (first_line, repeats, max(1, round(seconds)))
    record.exc_info = None
    record.exc_text = None
    record.stack_info = None
    setattr(record, _SUMMARY, True)


def _sample(record: logging.LogRecord) -> logging.LogRecord:
    """A copy to summarise from later, holding on to no exception (nor the frames of its traceback)."""
    sample = logging.makeLogRecord(record.__dict__)
    sample.exc_info = None
    return sample


class RepeatSummary(logging.Filter):
    """Shows the first record of each kind whole, then at most one summary line per ``interval``.

    Within ``interval`` seconds of a kind's last shown record its repeats are
    only counted. The first repeat after that is shown as the summary of the
    count instead of itself; a kind quiet for a whole interval is news again
    and is shown whole. :meth:`flush` writes the counts that no later record
    has reported (call it now and then, and at exit). Thread-safe.

    Args:
        interval: seconds between two lines of one kind.
        clock: the time in seconds (a fake one in tests).
        max_kinds: kinds tracked at once; records of further kinds count as one kind.
    """

    def __init__(
        self, interval: float = INTERVAL, clock: Callable[[], float] = time.monotonic, max_kinds: int = MAX_KINDS
    ) -> None:
        super().__init__()
        self.interval = interval
        self.clock = clock
        self.max_kinds = max_kinds
        self._windows: dict[Kind, _Window] = {}
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, _SUMMARY, False):
            return True
        kind = kind_of(record)
        now = self.clock()
        with self._lock:
            window = self._windows.get(kind)
            if window is None and len(self._windows) >= self.max_kinds:
                self._forget_quiet(now)
                if len(self._windows) >= self.max_kinds:
                    kind = _OTHERS
                    window = self._windows.get(kind)
            if window is None:
                self._windows[kind] = _Window(now, _sample(record))
                return True
            if now - window.start < self.interval:
                window.repeats += 1
                return False
            repeats, start = window.repeats, window.start
            window.start, window.sample, window.repeats = now, _sample(record), 0
        if repeats:
            make_summary(record, repeats + 1, now - start, kind == _OTHERS)
        return True

    def flush(self, everything: bool = False) -> None:
        """Log the counts whose interval is over (``everything``: all counts) and forget quiet kinds."""
        now = self.clock()
        due = []
        with self._lock:
            for kind, window in self._windows.items():
                if window.repeats and (everything or now - window.start >= self.interval):
                    summary = logging.makeLogRecord(window.sample.__dict__)
                    make_summary(summary, window.repeats, now - window.start, kind == _OTHERS)
                    due.append(summary)
                    window.start, window.repeats = now, 0
            self._forget_quiet(now)
        for summary in due:
            logging.getLogger(summary.name).handle(summary)

    def _forget_quiet(self, now: float) -> None:
        for kind, window in list(self._windows.items()):
            if not window.repeats and now - window.start >= self.interval:
                del self._windows[kind]


_SHARED = RepeatSummary()


def summarise_repeats(*names: str) -> RepeatSummary:
    """Attach the server's one shared :class:`RepeatSummary` to the loggers ``names``
    (default :data:`SERVER_LOGGERS`) and return it; attaching twice changes nothing.

    A logger's filter sees the records logged on that logger itself, not those
    of its children: give each logger that logs, or attach the filter to a handler.
    """
    for name in names or SERVER_LOGGERS:
        logging.getLogger(name).addFilter(_SHARED)
    return _SHARED
