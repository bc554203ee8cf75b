"""Bounded connections: slow and silent clients are closed in time, one address cannot hold them
all, the open-files limit is never reached, X-Forwarded-For is believed only from a named proxy,
and repeated log records are summarised.

The servers run with a short ``--request-timeout`` (``LIMIT``); the assertions allow far more
than that (``SLACK``), so that a loaded machine does not fail them.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import logging
import resource
import selectors
import shutil
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from elferraus.cli.main import build_parser
from elferraus.server.process.logsummary import RepeatSummary, kind_of
from elferraus.server.web import limits
from elferraus.server.web.limits import ConnectionGuard, safe_max_connections
from tests.support.web_helpers import ServerProcess

LIMIT = 2.0
"""The servers' --request-timeout here."""
SLACK = 8.0
HERE = "127.0.0.1"
OTHER = "127.0.0.2"
"""Another loopback address: another client as far as the server can tell."""


@contextlib.contextmanager
def _server(tmp: Path, *args: str, prefix: tuple[str, ...] = ()) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp / "games.sqlite3", args=["--request-timeout", str(LIMIT), *args], prefix=prefix)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with _server(tmp_path_factory.mktemp("connections")) as running:
        yield running


def _socket(port: int, source: str = HERE) -> socket.socket:
    """A TCP connection to the server from ``source``."""
    sock = socket.socket()
    try:
        sock.bind((source, 0))
        sock.settimeout(10)
        sock.connect(("127.0.0.1", port))
    except BaseException:
        sock.close()  # a connection refused or timed out under load must not leak into a later test
        raise
    return sock


def _seconds_until_closed(sock: socket.socket, within: float) -> float | None:
    """Seconds until the server closes ``sock`` (reading what it says), or None if it stays open."""
    start = time.monotonic()
    while (left := start + within - time.monotonic()) > 0:
        sock.settimeout(left)
        try:
            if not sock.recv(4096):
                return time.monotonic() - start
        except TimeoutError:
            return None
        except ConnectionError:
            return time.monotonic() - start
    return None


def _trickle(sock: socket.socket, first: bytes, more: bytes, within: float) -> float | None:
    """Send ``first``, then ``more`` every 0.25 s; seconds until the server closes, or None."""
    start = time.monotonic()
    sock.sendall(first)
    while time.monotonic() - start < within:
        if _seconds_until_closed(sock, 0.25) is not None:
            return time.monotonic() - start
        try:
            sock.sendall(more)
        except ConnectionError:
            return time.monotonic() - start
    return None


def _request(
    port: int, method: str, path: str, body: Any = None, source: str = OTHER, headers: dict[str, str] | None = None
) -> tuple[int, Any]:
    """An HTTP request from ``source``; returns the status and the body (JSON if it is)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    try:
        data = json.dumps(body).encode() if body is not None else None
        connection.request(method, path, data, {"Content-Type": "application/json", **(headers or {})})
        answer = connection.getresponse()
        text = answer.read()
        with contextlib.suppress(ValueError):
            return answer.status, json.loads(text)
        return answer.status, text
    finally:
        connection.close()


def _new_room(port: int, source: str = OTHER, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    return _request(port, "POST", "/api/rooms", {"name": "Host", "players": 2}, source, headers)


async def _watch_room(base: str, code: str, source: str = OTHER, forwarded_for: str | None = None) -> Any:
    """A spectator's WebSocket from ``source``, open after its first ``state`` (close it when done)."""
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else None
    url = base.replace("http://", "ws://") + f"/ws/{code}"
    websocket = await connect(url, local_addr=(source, 0), open_timeout=10, additional_headers=headers)
    await websocket.send(json.dumps({"type": "hello", "token": None, "lang": "en"}))
    while json.loads(await asyncio.wait_for(websocket.recv(), 10))["type"] != "state":
        pass
    return websocket


async def _seconds_to_state(base: str, code: str, source: str = OTHER) -> float:
    start = time.monotonic()
    websocket = await _watch_room(base, code, source)
    await websocket.close()
    return time.monotonic() - start


# -- slow and silent clients ----------------------------------------------------


def test_a_silent_socket_is_closed(server: ServerProcess) -> None:
    with _socket(server.port) as silent:
        assert _seconds_until_closed(silent, LIMIT + SLACK) is not None


def test_a_slowloris_request_is_closed_though_it_keeps_sending(server: ServerProcess) -> None:
    with _socket(server.port) as slow:
        took = _trickle(slow, b"GET /healthz HTTP/1.1\r\nHost: x\r\n", b"X-Slow: 1\r\n", LIMIT + SLACK)
    assert took is not None
    assert took >= LIMIT * 0.9, "closed before the time limit"


def test_a_slow_websocket_handshake_is_closed(server: ServerProcess) -> None:
    code = _new_room(server.port)[1]["code"]
    first = f"GET /ws/{code} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n".encode()
    with _socket(server.port) as slow:
        assert _trickle(slow, first, b"X-Slow: 1\r\n", LIMIT + SLACK) is not None


def test_a_slow_request_body_is_closed(server: ServerProcess) -> None:
    head = b"POST /api/rooms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n"
    with _socket(server.port) as slow:
        assert _trickle(slow, head + b"{", b" ", LIMIT + SLACK) is not None


def test_a_request_in_time_is_answered_and_then_the_idle_connection_closed(server: ServerProcess) -> None:
    with _socket(server.port) as client:
        for part in (b"GET /healthz HTTP/1.1\r\n", b"Host: x\r\n", b"X-Part: 3\r\n", b"\r\n"):
            client.sendall(part)
            time.sleep(0.05)
        client.settimeout(10)
        assert client.recv(4096).startswith(b"HTTP/1.1 200")
        assert _seconds_until_closed(client, LIMIT + SLACK) is not None


# -- one address, and all of them ----------------------------------------------


def test_one_address_may_hold_only_so_many_connections(tmp_path: Path) -> None:
    cap = 8
    with _server(tmp_path, "--max-connections-per-address", str(cap), "--request-timeout", "60") as server:
        code = _new_room(server.port)[1]["code"]

        async def main() -> None:
            watching = [await _watch_room(server.base, code, HERE) for _ in range(cap // 2)]
            silent = [_socket(server.port) for _ in range(cap - len(watching))]
            with _socket(server.port) as one_too_many:
                took = _seconds_until_closed(one_too_many, 30)
            assert took is not None, "the connection over the cap was not closed"
            assert took < 10, "closed by the (60 s) time limit, not at once"
            assert _request(server.port, "GET", "/healthz", source=OTHER) == (200, b"ok")
            assert await _seconds_to_state(server.base, code, OTHER) < 10
            await watching.pop().close()
            for _ in range(100):  # the server frees the place once it has seen the close
                with contextlib.suppress(OSError):
                    assert _request(server.port, "GET", "/healthz", source=HERE) == (200, b"ok")
                    break
                await asyncio.sleep(0.1)
            else:
                pytest.fail("the place of a closed WebSocket was not given back")
            for websocket in watching:
                await websocket.close()
            for sock in silent:
                sock.close()

        asyncio.run(main())


def _raise_own_open_files_limit(wanted: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < wanted:
        hard = wanted  # root may raise the hard limit; anybody else gets a clear error here
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    except (ValueError, OSError) as error:
        raise AssertionError(f"this test needs {wanted} open files: {error}") from error


def _is_closed(sock: socket.socket) -> bool:
    """For a non-blocking socket found readable: has the server closed it (or refused it)?"""
    try:
        return not sock.recv(4096)
    except BlockingIOError:
        return False
    except ConnectionError:
        return True


@pytest.mark.timeout(180)
@pytest.mark.parametrize("per_address", ["128", "0"], ids=["default-cap", "no-per-address-cap"])
def test_2000_silent_sockets_under_a_1024_file_limit_lock_nobody_out(tmp_path: Path, per_address: str) -> None:
    """With no cap per address it is the cap on all connections that keeps accept() from failing."""
    assert shutil.which("prlimit"), "this test needs prlimit (util-linux)"
    flood = 2000
    _raise_own_open_files_limit(flood + 500)
    args = ("--max-connections-per-address", per_address, "--rooms-per-minute", "0")
    with _server(tmp_path, *args, prefix=("prlimit", "--nofile=1024")) as server:
        code = _new_room(server.port)[1]["code"]
        selector = selectors.DefaultSelector()
        silent = []
        start = time.monotonic()
        try:
            for _ in range(flood):
                sock = socket.socket()
                sock.setblocking(False)
                sock.connect_ex(("127.0.0.1", server.port))
                selector.register(sock, selectors.EVENT_READ)
                silent.append(sock)
            waits = []
            for _ in range(5):
                began = time.monotonic()
                assert _request(server.port, "GET", "/healthz", source=OTHER) == (200, b"ok")
                waits.append(time.monotonic() - began)
                waits.append(asyncio.run(_seconds_to_state(server.base, code, OTHER)))
            assert max(waits) < 3, f"the other address waited {max(waits):.2f} s"
            open_ones = set(silent)
            while open_ones and time.monotonic() - start < LIMIT + SLACK:
                for key, _events in selector.select(0.2):
                    sock = key.fileobj
                    assert isinstance(sock, socket.socket)
                    if _is_closed(sock):
                        selector.unregister(sock)
                        open_ones.discard(sock)
            assert not open_ones, f"{len(open_ones)} silent sockets still open after {LIMIT + SLACK} s"
        finally:
            for sock in silent:
                sock.close()
            selector.close()
        assert _request(server.port, "GET", "/healthz", source=HERE) == (200, b"ok")
    errors = server.log.read_text(errors="replace")
    assert "Traceback" not in errors
    assert len(errors) < 10_000, errors[:2000]


# -- trusted proxies ----------------------------------------------------------


def test_x_forwarded_for_is_ignored_by_default(tmp_path: Path) -> None:
    with _server(tmp_path, "--rooms-per-minute", "0.1") as server:
        statuses = [_new_room(server.port, HERE, {"X-Forwarded-For": f"198.51.100.{n}"})[0] for n in range(25)]
    assert 429 in statuses, "made-up X-Forwarded-For addresses escaped the room-creation limit"


def test_x_forwarded_for_is_believed_from_a_named_proxy(tmp_path: Path) -> None:
    with _server(tmp_path, "--rooms-per-minute", "0.1", "--forwarded-allow-ips", HERE) as server:
        many = [_new_room(server.port, HERE, {"X-Forwarded-For": f"198.51.100.{n}"})[0] for n in range(25)]
        one = [_new_room(server.port, HERE, {"X-Forwarded-For": "198.51.100.200"})[0] for _ in range(25)]
        untrusted = [_new_room(server.port, OTHER, {"X-Forwarded-For": f"198.51.100.{n}"})[0] for n in range(25)]
    assert set(many) == {201}, "each forwarded client has its own limit"
    assert 429 in one, "one forwarded client is limited"
    assert 429 in untrusted, "X-Forwarded-For from an address not named is not believed"


def test_a_proxy_is_not_capped_but_each_client_it_forwards_is(tmp_path: Path) -> None:
    cap = 4
    args = ("--forwarded-allow-ips", HERE, "--max-connections-per-address", str(cap), "--request-timeout", "60")
    with _server(tmp_path, *args) as server:
        code = _new_room(server.port)[1]["code"]

        async def main() -> None:
            proxied = [await _watch_room(server.base, code, HERE, "198.51.100.1") for _ in range(cap)]
            with pytest.raises(InvalidStatus) as refused:
                await _watch_room(server.base, code, HERE, "198.51.100.1")
            assert refused.value.response.status_code == 403
            proxied.append(await _watch_room(server.base, code, HERE, "198.51.100.2"))
            silent = [_socket(server.port, HERE) for _ in range(cap)]
            assert _request(server.port, "GET", "/healthz", source=HERE) == (200, b"ok")
            for sock in silent:
                sock.close()
            for websocket in proxied:
                await websocket.close()

        asyncio.run(main())


# -- the connection guard, on its own ------------------------------------------


class _Transport:
    def __init__(self) -> None:
        self.closed = False

    def close(self) -> None:
        self.closed = True


def test_the_guard_counts_per_address_and_makes_room_at_the_cap() -> None:
    guard = ConnectionGuard(per_address=2, total=3, is_proxy=lambda host: host == "10.0.0.9")
    a1, a2, a3, b1, c1, p1 = (cast(Any, _Transport()) for _ in range(6))
    assert guard.admit(a1, "10.0.0.1")
    assert guard.admit(a2, "10.0.0.1")
    assert not guard.admit(a3, "10.0.0.1")
    assert guard.admit(b1, "10.0.0.2")
    assert not guard.admit(c1, "10.0.0.3"), "at the cap, with nobody waiting"
    guard.set_waiting(a2, True)
    guard.set_waiting(a1, True)
    assert guard.admit(p1, "10.0.0.9"), "at the cap, the longest-waiting makes room (proxies too)"
    assert a2.closed
    assert not a1.closed
    guard.release(a2)  # its connection_lost, later: changes nothing
    assert len(guard) == 3
    assert guard.refused == {"10.0.0.1": 1, "10.0.0.3": 1}
    assert guard.evicted == 1


def test_the_safe_cap_leaves_room_below_the_open_files_limit() -> None:
    reserved = limits.FDS_FOR_THE_REST + limits.FDS_ACCEPTED_UNCOUNTED
    assert reserved == 320, "docs/web-protocol.md and serve --help say 320"
    assert safe_max_connections(1024) == 1024 - reserved
    assert safe_max_connections(1 << 20) > 1_000_000


def test_serve_writes_out_the_servers_defaults() -> None:
    options = build_parser().parse_args(["serve"])
    assert options.request_timeout == limits.REQUEST_TIMEOUT
    assert options.max_connections_per_address == limits.MAX_CONNECTIONS_PER_ADDRESS
    assert options.max_connections is None
    assert options.forwarded_allow_ips == ""


@pytest.mark.parametrize(
    "wrong",
    [
        ["--request-timeout", "0"],
        ["--request-timeout", "nan"],
        ["--max-connections-per-address", "-1"],
        ["--max-connections", "0"],
    ],
)
def test_serve_refuses_limits_that_make_no_sense(wrong: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", *wrong])
    assert "must be" in capsys.readouterr().err


# -- the log summary ------------------------------------------------------------


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def summarised() -> Iterator[tuple[logging.Logger, list[logging.LogRecord], _Clock, RepeatSummary]]:
    clock = _Clock()
    summary = RepeatSummary(interval=10, clock=clock, max_kinds=8)
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("elferraus.tests.summary")
    logger.propagate = False
    logger.addHandler(handler)
    logger.addFilter(summary)
    try:
        yield logger, records, clock, summary
    finally:
        logger.removeHandler(handler)
        logger.removeFilter(summary)


def _fail(logger: logging.Logger, fd: int) -> None:
    try:
        raise OSError(24, "Too many open files")
    except OSError:
        logger.exception("socket.accept() out of system resource\nsocket: fd=%d", fd)


def test_the_first_record_is_whole_then_one_line_per_interval(summarised: Any) -> None:
    logger, records, clock, _summary = summarised
    for n in range(1000):
        clock.now += 0.01
        _fail(logger, n)
    assert len(records) == 1
    assert records[0].exc_info is not None
    clock.now += 10
    _fail(logger, 5)
    assert len(records) == 2
    assert records[1].exc_info is None
    assert records[1].getMessage() == "socket.accept() out of system resource … repeated 1000 times in the last 20 s"


def test_a_kind_quiet_for_an_interval_is_news_again(summarised: Any) -> None:
    logger, records, clock, _summary = summarised
    _fail(logger, 1)
    clock.now += 11
    _fail(logger, 2)
    assert [record.exc_info is not None for record in records] == [True, True]


def test_flush_reports_the_repeats_no_later_record_did(summarised: Any) -> None:
    logger, records, clock, summary = summarised
    for n in range(3):
        _fail(logger, n)
    summary.flush()
    assert len(records) == 1, "the interval is not over yet"
    clock.now += 10
    summary.flush()
    assert records[-1].getMessage().endswith("… repeated 2 times in the last 10 s")
    summary.flush(everything=True)
    assert len(records) == 2


def _fail_elsewhere(logger: logging.Logger, fd: int) -> None:
    try:
        raise OSError(24, "Too many open files")
    except OSError:
        logger.exception("socket.accept() out of system resource\nsocket: fd=%d", fd)


def test_kinds_differ_by_message_level_and_raising_line_not_by_numbers(summarised: Any) -> None:
    logger, records, _clock, _summary = summarised
    logger.warning("connection %d lost", 1)
    logger.warning("connection %d lost", 2)  # the same message
    logger.error("connection %d lost", 3)  # another level
    logger.warning("task 4 at 0x7f4ab failed")
    logger.warning("task 55 at 0x7f55cd failed")  # the same but for its numbers
    _fail(logger, 1)
    _fail_elsewhere(logger, 1)  # raised on another line
    assert [record.getMessage().partition("\n")[0] for record in records] == [
        "connection 1 lost",
        "connection 3 lost",
        "task 4 at 0x7f4ab failed",
        "socket.accept() out of system resource",
        "socket.accept() out of system resource",
    ]
    assert kind_of(records[-1]) != kind_of(records[-2])


def test_kinds_beyond_the_table_count_as_one(summarised: Any) -> None:
    logger, records, _clock, summary = summarised
    for letter in "abcdefghij":
        logger.warning("kind %s", letter)  # one message: one kind
        logger.warning(f"kind {letter}")  # ten messages: the 2nd to 8th kinds, then "others"
    shown = [record.getMessage() for record in records]
    assert shown == ["kind a", "kind a", "kind b", "kind c", "kind d", "kind e", "kind f", "kind g", "kind h"]
    summary.flush(everything=True)
    assert records[-1].getMessage() == "(log records of other kinds) … repeated 2 times in the last 1 s"
