"""Shared pieces of the server fuzz tests: how much to send, hostile JSON and frames, a loop thread, the tally.

``make test`` runs a short pass; ``make fuzz`` sets ``ELFERRAUS_FUZZ=long``;
``ELFERRAUS_FUZZ_SCALE`` multiplies either size (0.1: a tenth). A fuzz test
never stops at its first finding: each is kept with its exact input, the run
goes on, and the test fails at the end showing them all next to the totals
sent (which ``tests/conftest.py`` adds up in the terminal summary).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import threading
from collections import Counter
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

from elferraus.errors import NotationError
from elferraus.moves import Move
from elferraus.server import WS_MAX_SIZE

T = TypeVar("T")

LONG = os.environ.get("ELFERRAUS_FUZZ", "short") == "long"
SCALE = float(os.environ.get("ELFERRAUS_FUZZ_SCALE", "1"))


@dataclass(frozen=True)
class Volume:
    """How much one pass sends."""

    http_cases: int
    """Requests Schemathesis generates from the OpenAPI document."""
    http_raw: int
    """Hand-made hostile requests (bodies no schema would produce)."""
    ws_frames: int
    """WebSocket frames sent into the fuzzed room."""
    ws_batch: int
    """Frames per Hypothesis example."""
    pool: int
    """Connections to the fuzzed room, each sending at most ``PACE`` frames a second."""
    addresses: int
    """Loopback source addresses the pool connects from (127.0.0.2, ...), to stay under a per-address cap."""
    timeout: float
    """Seconds one fuzz test may take."""

    def scaled(self, factor: float) -> Volume:
        def times(count: int) -> int:
            return max(1, math.ceil(count * factor))

        return replace(
            self, http_cases=times(self.http_cases), http_raw=times(self.http_raw), ws_frames=times(self.ws_frames)
        )


SHORT = Volume(http_cases=700, http_raw=500, ws_frames=1800, ws_batch=30, pool=12, addresses=2, timeout=240)
FULL = Volume(http_cases=20_000, http_raw=10_000, ws_frames=76_000, ws_batch=60, pool=96, addresses=4, timeout=3600)
VOLUME = (FULL if LONG else SHORT).scaled(SCALE)


THREADS_USE_RANDOM = pytest.mark.filterwarnings(
    "ignore:Do not use the `random` module inside strategies:hypothesis.errors.HypothesisDeprecationWarning"
)
"""For a test whose loop thread runs while Hypothesis generates: there ``websockets`` draws its keepalive pings
from the ``random`` module, which Hypothesis takes for a strategy using it (it only checks the module's state)."""


def fuzz_settings(examples: int) -> settings:
    """Hypothesis as a generator only: no example database in the shared tree, no deadline, no shrinking
    (the tests record each finding's exact input themselves and go on)."""
    return settings(
        max_examples=max(1, examples),
        deadline=None,
        database=None,
        phases=(Phase.explicit, Phase.generate),
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )


# -- counting and findings -------------------------------------------------------


@dataclass
class Tally:
    """What a fuzz test sent and what it found; safe to use from the loop thread and the test's thread."""

    counts: Counter[str] = field(default_factory=Counter)
    findings: dict[str, list[str]] = field(default_factory=dict)
    keep: int = 6
    """Exact inputs kept per kind of finding (all are counted)."""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, name: str, count: int = 1) -> None:
        with self._lock:
            self.counts[name] += count

    def find(self, kind: str, detail: str) -> None:
        """A finding: something the server must not do, with the input that made it."""
        with self._lock:
            self.counts["findings"] += 1
            self.counts[f"finding: {kind}"] += 1
            kept = self.findings.setdefault(kind, [])
            if len(kept) < self.keep:
                kept.append(detail)

    def publish(self, record_property: Any) -> None:
        """Hand the counts to the terminal summary (``fuzz_*`` user properties, summed by tests/conftest.py)."""
        for name in ("requests", "frames", "connections", "server_errors", "unexpected_closes", "findings"):
            record_property(f"fuzz_{name}", self.counts[name])

    def report(self) -> str:
        lines = [f"{name}: {count}" for name, count in sorted(self.counts.items())]
        for kind, details in self.findings.items():
            lines.append(f"\n== {kind} ({self.counts[f'finding: {kind}']} in all); first inputs:")
            lines.extend(f"  - {detail}" for detail in details)
        return "\n".join(lines)


class ErrorLog(logging.Handler):
    """Every log record with a traceback (an unhandled exception in the app) while it is installed."""

    LOGGERS = ("uvicorn.error", "uvicorn.asgi", "elferraus.server", "starlette", "fastapi")

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(self.format(record))

    @contextlib.contextmanager
    def installed(self) -> Iterator[ErrorLog]:
        loggers = [logging.getLogger(name) for name in self.LOGGERS]
        for logger in loggers:
            logger.addHandler(self)
        try:
            yield self
        finally:
            for logger in loggers:
                logger.removeHandler(self)

    def take(self) -> list[str]:
        """The records since the last take."""
        taken, self.records = self.records, []
        return taken


def log_problems(text: str) -> list[str]:
    """The tracebacks in a server's log, each cut to its last lines (where the exception is named)."""
    problems = []
    for chunk in text.split("Traceback (most recent call last):")[1:]:
        lines = [line.strip() for line in chunk.strip().splitlines() if line.strip()]
        while lines and lines[-1].split(":")[0] in ("ERROR", "WARNING", "INFO"):
            lines.pop()  # the log line of the next record
        problems.append(" | ".join(lines[-3:]))
    return problems


# -- an event loop of its own -----------------------------------------------------


class LoopThread:
    """An asyncio loop in a thread: sockets and games keep going while Hypothesis generates."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="fuzz loop", daemon=True)

    def __enter__(self) -> LoopThread:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        async def cancel_the_rest() -> None:
            tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        with contextlib.suppress(Exception):
            self.run(cancel_the_rest(), 30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(30)
        self.loop.close()

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run ``coroutine`` on the loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)


# -- hostile JSON ------------------------------------------------------------------


class Long(str):
    """A string whose ``repr`` stays short: a strategy's repr lists its choices, and Hypothesis warns when that
    grows huge."""

    def __repr__(self) -> str:
        if len(self) <= 40:
            return str.__repr__(self)
        return f"<{len(self)} characters: {str.__repr__(self[:16])}...>"


class Huge(int):
    """An integer whose ``repr`` stays short, for the same reason (JSON still gets every digit)."""

    def __repr__(self) -> str:
        return f"<a {len(str(abs(self)))}-digit integer>"


HUGE = [Huge(10**4000), Huge(-(10**4000))]
"""4,001 digits: Python refuses to print more (5,001 digits go in as raw literals)."""


NASTY_TEXT = [
    "",
    " ",
    "\x00",
    "\ud800",
    "\udfff",
    "a\ud800b",
    "\ud83d",
    "\ud83d\ude00",
    "\u202e",
    "\ufeff",
    "\u211d11",
    "R11",
    "r11",
    " R11 ",
    "draw",
    "DRAW",
    "pass",
    "R21",
    "R0",
    "Y011",
    "B-1",
    "draw draw",
    Long("R11" * 100),
    Long("x" * 3000),
    "null",
    "NaN",
    "1e400",
    "{}",
    "%00",
    "../../etc/passwd",
    "<script>alert(1)</script>",
    "€" * 40,
    "💩",
]
"""Strings that have broken servers before: NULs, lone surrogates, byte-order marks, near-misses of moves."""
surrogates = st.characters(categories=["Cs"])


def terse(strategy: st.SearchStrategy[T]) -> st.SearchStrategy[T]:
    """The same strategy with a short ``repr``: a strategy's repr holds those of all its parts, and Hypothesis
    warns (an error here) when one grows past 30 kB."""
    return st.deferred(lambda: strategy)


hostile_text = terse(
    st.one_of(
        st.sampled_from(NASTY_TEXT),
        st.text(max_size=12),
        st.text(st.one_of(surrogates, st.characters(categories=["Cc", "Cf", "Co", "Cn", "Zs", "Zl"])), max_size=6),
    )
)
big_ints = st.one_of(
    st.integers(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([-1, 2**31, 2**53 + 1, 2**63, -(2**63) - 1, 2**64, 10**100, *HUGE]),
)
"""Integers up to 4,001 digits (Python refuses to print more; 5,001 digits go in as raw literals)."""
odd_floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([-0.0, 1e308, 5e-324, math.inf, -math.inf, math.nan]),
)
scalars = st.one_of(st.none(), st.booleans(), big_ints, odd_floats, hostile_text)
json_values = terse(
    st.recursive(
        scalars,
        lambda children: st.lists(children, max_size=4) | st.dictionaries(hostile_text, children, max_size=4),
        max_leaves=10,
    )
)
"""Any JSON value (NaN and Infinity included: Python reads and writes them as literals)."""

RAW_LITERALS = [
    "1e400",
    "-1e400",
    "1e-400",
    "-0.0",
    "-0",
    "NaN",
    "-NaN",
    "Infinity",
    "-Infinity",
    Long("1" * 4001),
    Long("1" * 5001),
    Long("-" + "9" * 5001),
    Long("0." + "0" * 3000 + "1"),
    Long("1" + "0" * 400 + ".5e-400"),
    '"\\ud800"',
    '"\\udfff"',
    '"x\\ud800y"',
    '"\\ud800\\u0041"',
    '"\\ud800\\udc00"',
    '"\\u0000"',
    '"\\uDEAD"',
    '"\\ud8"',
    Long("[" * 10_000 + "]" * 10_000),
    Long("[" * 3_900 + "]" * 3_900),
    Long("[" * 1_500 + "]" * 1_500),
    Long('{"a":' * 700 + "1" + "}" * 700),
    "tru",
    "01",
    "1.",
    ".5",
    "+1",
    "0x10",
    "'draw'",
    "[1,]",
    '{"a" 1}',
]
"""JSON-ish text a serializer never writes: out-of-range and 5,001-digit numbers, NaN, escaped lone surrogates,
10,000 levels of nesting, near-JSON."""
MARK = "\x00literal\x00"
"""Stands where a raw literal goes into a rendered object."""


def with_literal(value: Any, literal: str) -> str:
    """``value`` as JSON text with the string ``MARK`` replaced by ``literal`` as it is."""
    return json.dumps(value).replace(json.dumps(MARK), literal, 1)


def describe(payload: str | bytes, limit: int = 300) -> str:
    """A frame or body, short enough for a report but exact where it is shown (``repr``)."""
    size = len(payload.encode("utf-8", "surrogatepass") if isinstance(payload, str) else payload)
    shown = payload if size <= limit else payload[: limit // 2]
    suffix = "" if size <= limit else f"... ({size} bytes in all)"
    return f"{shown!r}{suffix}"


def mix(*weighted: tuple[int, st.SearchStrategy[T]]) -> st.SearchStrategy[T]:
    """Draw from each strategy about ``weight`` times in so many (``st.one_of`` flattens nested choices and
    picks among all their branches alike, which would drown a small strategy next to a big one).

    The choice is drawn as a number and the whole is ``terse``, so that its ``repr`` stays short.
    """
    strategies = [strategy for _weight, strategy in weighted]
    indices = [index for index, (weight, _strategy) in enumerate(weighted) for _ in range(weight)]
    return terse(st.sampled_from(indices).flatmap(strategies.__getitem__))


# -- WebSocket frames ----------------------------------------------------------------

MAX_FRAME = 4096
"""The longest text frame the server reads (bytes)."""
BURST = 40
"""Frames a connection may send at once (docs: 20 a second, burst 40)."""


class Seq(Enum):
    """The fuzzed room's seq as it is when the frame goes out, in some form."""

    NOW = "now"
    TEXT = "as text"
    FLOAT = "as float"
    BEFORE = "one before"
    AFTER = "one after"
    LIST = "in a list"


class Token(Enum):
    """A token as it is known when the frame goes out."""

    MOVER = "the mover's"
    OTHER = "the other seat's"
    ELSEWHERE = "a seat's of another room"
    CUT = "the mover's without its last character"
    LOUD = "the mover's in capitals"
    SURROGATE = "the mover's and a lone surrogate"


class Legal(Enum):
    """A move the mover may make now (so that only the frame's other fields can be what refuses it)."""

    MOVE = "a legal move"
    LOWER = "a legal move in lower case"


@dataclass(frozen=True)
class Frame:
    """A frame to send: a JSON value with placeholders (``Seq``, ``Token``), maybe with a raw literal at
    ``MARK``; or raw text or bytes sent as they are."""

    value: Any = None
    literal: str | None = None
    raw: str | bytes | None = None
    ascii: bool = True


@dataclass(frozen=True)
class Send:
    """A frame for a pool connection of this role."""

    frame: Frame
    role: str


@dataclass(frozen=True)
class FirstFrame:
    """A frame sent first on a new connection, where the ``hello`` belongs."""

    frame: Frame


@dataclass(frozen=True)
class Burst:
    """``size`` pings at once on a new connection: those past the burst are refused, and must be answered."""

    size: int


# -- the frames -----------------------------------------------------------------------

SHAPES: dict[str, dict[str, Any]] = {
    "hello": {"type": "hello", "token": Token.MOVER, "lang": "en"},
    "move": {"type": "move", "move": Legal.MOVE, "seq": Seq.NOW},
    "start": {"type": "start"},
    "next": {"type": "next"},
    "rematch": {"type": "rematch"},
    "ping": {"type": "ping"},
}
"""Every message a client may send, as a page sends it."""
JSON_TYPES = {
    "null": st.none(),
    "boolean": st.booleans(),
    "integer": st.integers() | st.sampled_from([Seq.BEFORE, Seq.AFTER, *HUGE]),
    "number": st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([Seq.FLOAT, -0.0]),
    "string": hostile_text | st.sampled_from([Seq.TEXT, "hello", "move", "ping"]),
    "array": st.lists(json_values, max_size=3) | st.sampled_from([[Seq.NOW], [Legal.MOVE], [Token.MOVER], ["ping"]]),
    "object": st.dictionaries(hostile_text, json_values, max_size=3) | st.just({"seq": Seq.NOW}),
}
RIGHT_TYPES = {"type": {"string"}, "token": {"string", "null"}, "lang": {"string"}, "move": {"string"}}
RIGHT_TYPES["seq"] = {"integer"}
RIGHT_VALUES = {
    "type": st.sampled_from(["Move", "PING", " ping", "ping\x00", "hello", "start", "move", *SHAPES]) | hostile_text,
    "token": st.sampled_from(list(Token)) | st.none() | hostile_text,
    "lang": st.sampled_from(["de", "fr", "DE"]) | hostile_text,
    "move": st.sampled_from([*Legal, "R11", "draw", "pass", "R21"]) | hostile_text,
    "seq": st.sampled_from([Seq.NOW, Seq.BEFORE, Seq.AFTER, 0, -1, 2**63, *HUGE]) | st.integers(),
}
"""Values of the right type for each field (some right, most wrong)."""
PAIRS = [(shape, name) for shape, fields in SHAPES.items() for name in fields]


def _set(shape: str, name: str, value: Any) -> dict[str, Any]:
    return {**SHAPES[shape], name: value}


def _wrong_type(pair: tuple[str, str]) -> st.SearchStrategy[Frame]:
    shape, name = pair
    wrong = [strategy for kind, strategy in JSON_TYPES.items() if kind not in RIGHT_TYPES[name]]
    return st.builds(lambda value: Frame(_set(shape, name, value)), st.one_of(wrong))


TYPICAL = {
    "null": None,
    "boolean": True,
    "integer": 7,
    "number": 1.5,
    "string": "x",
    "array": [Legal.MOVE],
    "object": {"seq": Seq.NOW},
}
"""One value of each JSON type."""


def every_wrong_type() -> list[Frame]:
    """Each message with each of its fields in turn given each wrong JSON type, and left out."""
    found = []
    for shape, name in PAIRS:
        found += [Frame(_set(shape, name, value)) for kind, value in TYPICAL.items() if kind not in RIGHT_TYPES[name]]
        found.append(_missing((shape, name)))
    return found


def _other_value(pair: tuple[str, str]) -> st.SearchStrategy[Frame]:
    shape, name = pair
    return st.builds(
        lambda value, ascii: Frame(_set(shape, name, value), ascii=ascii), RIGHT_VALUES[name], st.booleans()
    )


def _missing(pair: tuple[str, str]) -> Frame:
    shape, name = pair
    return Frame({key: value for key, value in SHAPES[shape].items() if key != name})


def _extra(shape: str, key: str, value: Any) -> Frame:
    return Frame({**SHAPES[shape], key: value})


def _literal(pair: tuple[str, str], literal: str) -> Frame:
    shape, name = pair
    return Frame(_set(shape, name, MARK), literal=literal)


pairs = st.sampled_from(PAIRS)
shaped_frames = mix(
    (4, pairs.flatmap(_wrong_type)),
    (3, pairs.flatmap(_other_value)),
    (1, pairs.map(_missing)),
    (1, st.builds(_extra, st.sampled_from(list(SHAPES)), hostile_text, json_values)),
    (2, st.builds(_literal, pairs, st.sampled_from(RAW_LITERALS))),
)
"""Frames shaped like each real message, one field at a time made wrong."""


def _padded(size: int, pad: str) -> Frame:
    """A ``ping`` of exactly ``size`` bytes (of ``pad`` characters, maybe several bytes each)."""
    text = json.dumps({"type": "ping", "pad": ""})
    room = size - len(text.encode())
    width = len(pad.encode())
    return Frame(raw=text[:-2] + pad * (room // width) + "x" * (room % width) + '"}')


junk_frames = mix(
    (1, st.builds(lambda data: Frame(raw=data), st.binary(max_size=40))),
    (1, st.builds(lambda text: Frame(raw=text), st.text(max_size=40))),
    (1, st.sampled_from([Frame(raw=""), Frame(raw=b""), Frame(raw=b'{"type": "ping"}'), Frame(raw="\ufeff{}")])),
    (2, st.builds(lambda literal: Frame(raw=literal), st.sampled_from(RAW_LITERALS))),
    (
        1,
        st.builds(
            _padded,
            st.sampled_from([MAX_FRAME - 1, MAX_FRAME, MAX_FRAME + 1, 9000, WS_MAX_SIZE, WS_MAX_SIZE + 1]),
            st.sampled_from(["x", "€", "\U0001f600"]),
        ),
    ),
    (1, st.builds(lambda n: Frame(raw="x" * n), st.sampled_from([MAX_FRAME + 1, 100_000]))),
    (2, st.builds(Frame, json_values)),
)
"""Frames that are not a message at all: binary, empty, not JSON, not an object, too big, deep."""
frames = mix((3, shaped_frames), (1, junk_frames))
hello_pairs = st.sampled_from([pair for pair in PAIRS if pair[0] == "hello"])
first_frames = mix(
    (2, hello_pairs.flatmap(_wrong_type)),
    (2, hello_pairs.flatmap(_other_value)),
    (3, st.builds(lambda token: Frame(_set("hello", "token", token)), st.sampled_from(list(Token)) | hostile_text)),
    (1, st.builds(_literal, hello_pairs, st.sampled_from(RAW_LITERALS))),
    (2, frames),
)
"""First frames: mostly a ``hello`` with something wrong (its token above all), else anything."""


DEEPEST = 100
"""Nesting beyond which a generated frame is never parsed here (see ``read_json``)."""


def read_json(text: str | bytes) -> Any:
    """``json.loads`` of a generated frame, refusing (``ValueError``) one nested deeper than ``DEEPEST``.

    ``json.loads`` recurses once a level: at about 1,000 it raises ``RecursionError``, but a garbage
    collection that runs weakref callbacks right at that depth aborts the whole process ("Fatal Python
    error: Cannot recover from stack overflow"), now and then, as it did to the fuzz client's worker.
    """
    opening = text.count("[" if isinstance(text, str) else b"[") + text.count("{" if isinstance(text, str) else b"{")
    if opening > DEEPEST and _depth(text if isinstance(text, str) else text.decode("utf-8", "replace")) > DEEPEST:
        raise ValueError("nested too deep to parse here")
    return json.loads(text)


def _depth(text: str) -> int:
    depth = deepest = 0
    quoted = escaped = False
    for character in text:
        if quoted:
            if escaped:
                escaped = False
            elif character == "\\":
                escaped = True
            elif character == '"':
                quoted = False
        elif character == '"':
            quoted = True
        elif character in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif character in "]}":
            depth -= 1
    return deepest


def is_bad_frame(payload: str | bytes) -> bool:
    """Refused before its type is looked at (binary, too big, not a JSON object): such frames go to spectators."""
    if isinstance(payload, bytes) or len(payload.encode()) > MAX_FRAME:
        return True
    try:
        return not isinstance(read_json(payload), dict)
    except (ValueError, RecursionError):
        return True


def frame_size(payload: str | bytes) -> int:
    return len(payload.encode() if isinstance(payload, str) else payload)


@dataclass
class FuzzedRoom:
    """The fuzzed room as it must stay."""

    base: str
    code: str
    tokens: dict[Token, str]
    legal: set[Move]
    seq: int
    public: tuple[Any, Any]
    """``ROOM`` and ``GAME`` of the room."""
    since: int = 0
    """The seq from which ``public`` holds (a change found moves it on)."""

    def substitute(self, value: Any, seq: int) -> Any:
        if isinstance(value, Seq):
            return {
                Seq.NOW: seq,
                Seq.TEXT: str(seq),
                Seq.FLOAT: float(seq),
                Seq.BEFORE: seq - 1,
                Seq.AFTER: seq + 1,
                Seq.LIST: [seq],
            }[value]
        if isinstance(value, Token):
            return self.tokens[value]
        if isinstance(value, Legal):
            move = str(min(self.legal, key=str))
            return move.lower() if value is Legal.LOWER else move
        if isinstance(value, list):
            return [self.substitute(item, seq) for item in value]
        if isinstance(value, dict):
            return {key: self.substitute(item, seq) for key, item in value.items()}
        return value

    def render(self, frame: Frame, seq: int | None = None) -> str | bytes:
        """The frame as sent; a frame the server could accept (a legal move at this seq) goes with a stale one."""
        if frame.raw is not None:
            return frame.raw
        now = self.seq if seq is None else seq
        value = self.substitute(frame.value, now)
        text = json.dumps(value, ensure_ascii=frame.ascii)
        if not frame.ascii:
            try:
                text.encode()
            except UnicodeEncodeError:
                text = json.dumps(value)
        if frame.literal is not None:
            text = with_literal(value, frame.literal)
        if seq is None and self.acceptable(text):
            return self.render(frame, now - 2000)  # far enough that no placeholder (one after...) is current
        return text

    def acceptable(self, text: str) -> bool:
        try:
            message = read_json(text)
        except (ValueError, RecursionError):
            return False
        if not isinstance(message, dict) or message.get("type") != "move":
            return False
        seq, move = message.get("seq"), message.get("move")
        # a few seqs ahead too: a pool connection coming or going moves the seq on before the frame arrives; and
        # a few behind: in a site of several processes, the process that holds the connection may not have heard
        # yet of a presence change on another (it does not touch the game) and takes the move at its own seq
        if type(seq) is not int or not self.seq - 1000 <= seq <= self.seq + 1000 or not isinstance(move, str):
            return False
        try:
            return Move.parse(move) in self.legal
        except NotationError:
            return False

    def well_formed_hello(self, payload: str | bytes) -> bool:
        """A first frame the server may take as a hello (a spectator's or a real seat's)."""
        try:
            message = read_json(payload)
        except (ValueError, RecursionError, TypeError):
            return False
        if not isinstance(message, dict) or message.get("type") != "hello":
            return False
        token = message.get("token")
        return token is None or token in (self.tokens[Token.MOVER], self.tokens[Token.OTHER])
