"""The JSON API under fuzzing: Schemathesis from ``GET /openapi.json``, then bodies and paths no schema makes.

The server is the real app on uvicorn (lifespan on, so the store exists), in a
thread of this process, with room creation unlimited (``rooms_per_minute=0``).
Every request is checked: never a 5xx nor an exception in the app's log; with
Schemathesis, the document's own promises (status codes, content types,
response schemas and headers) and that data the document calls invalid is
refused; for the hand-made requests, that each refusal is a 4xx JSON
``{"error", "message"}`` and that a refused join changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.core.failures import FailureGroup

from elferraus.server.client import RoomClient, create_room
from tests.support.fuzz_helpers import (
    MARK,
    RAW_LITERALS,
    THREADS_USE_RANDOM,
    VOLUME,
    ErrorLog,
    Long,
    LoopThread,
    Tally,
    describe,
    fuzz_settings,
    hostile_text,
    json_values,
    mix,
    with_literal,
)
from tests.support.server_helpers import play_round, start
from tests.support.web_helpers import serving

pytestmark = THREADS_USE_RANDOM
MAX_BODY = 8192
CHECKS = [
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_schema_conformance",
    "response_headers_conformance",
    "negative_data_rejection",
]
"""What every answer must satisfy; ``positive_data_acceptance`` runs apart (see its test)."""


@dataclass
class Served:
    base: str
    log: ErrorLog
    codes: list[str]
    """Rooms that exist: one waiting with open seats, one whose match is over."""
    game: int
    """A finished game (it has a record)."""


async def _rooms_and_a_game(base: str) -> tuple[list[str], int]:
    waiting = await create_room(base, name="Wanda", players=6, pace=0)
    done = await create_room(base, name="Otto", players=2, pace=0, seats=[{"kind": "computer", "level": "easy"}])
    async with RoomClient(base, done["code"], done["token"]) as host:
        await start(host)
        end = await play_round(host)
    return [waiting["code"], done["code"]], end["game"]["id"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    db = tmp_path_factory.mktemp("fuzz-http") / "rooms.db"
    with LoopThread() as loop:
        serve = serving(str(db), rooms_per_minute=0)
        base = loop.run(serve.__aenter__(), 30)
        try:
            codes, game = loop.run(_rooms_and_a_game(base), 60)
            # installed once uvicorn has set up its logging (which drops the handlers it finds)
            with ErrorLog().installed() as log:
                yield Served(base, log, codes, game)
        finally:
            loop.run(serve.__aexit__(None, None, None), 30)


def _tracebacks(served: Served, tally: Tally, request: str) -> None:
    for record in served.log.take():
        tally.find("an exception in the app", f"{request}: {record.splitlines()[-1][:300]}")


# -- Schemathesis ------------------------------------------------------------------------


def test_the_openapi_document_declares_every_api_route(server: Served) -> None:
    document = httpx.get(f"{server.base}/openapi.json", timeout=10).json()
    assert document["openapi"].startswith("3.")
    routes = {(method.upper(), path) for path, item in document["paths"].items() for method in item}
    assert {
        ("POST", "/api/rooms"),
        ("GET", "/api/rooms/{code}"),
        ("POST", "/api/rooms/{code}/join"),
        ("GET", "/api/games/{game}/record"),
        ("GET", "/api/messages"),
    } <= routes


def _schema(served: Served) -> Any:
    return schemathesis.openapi.from_url(f"{served.base}/openapi.json", timeout=10)


def _checks(names: list[str]) -> list[Any]:
    return [getattr(schemathesis.checks, name) for name in names]


NAMES = ["Anna", "Zoë", " Ben  Bo ", "x" * 20, "名前", "O'Brien-Smith"]
"""Names the protocol takes (1 to 20 printable characters): the document's schema allows any string up to 200,
so Schemathesis alone rarely makes a name the server takes, and rarely gets past it."""


def _strategy(operation: Any, mode: GenerationMode, served: Served) -> st.SearchStrategy[Any]:
    """Cases for ``operation``: half of them name a room or game that exists; in positive mode half of those
    with a name get one the protocol takes."""
    known = []
    if "{code}" in operation.path:
        known = [{"code": code} for code in served.codes]
    elif "{game}" in operation.path:
        known = [{"game": served.game}]
    free = operation.as_strategy(generation_mode=mode)
    cases = [operation.as_strategy(generation_mode=mode, path_parameters=fixed) for fixed in known]
    strategy = mix(*((1, case) for case in cases), (len(cases) or 1, free))
    if mode is GenerationMode.POSITIVE:
        strategy = st.builds(_named, strategy, st.sampled_from([None, *NAMES]))
    return strategy


def _named(case: Any, name: str | None) -> Any:
    if name is not None and isinstance(case.body, dict) and "name" in case.body:
        case.body["name"] = name
    return case


def _fuzz_operations(
    served: Served, tally: Tally, checks: list[str], modes: list[GenerationMode], requests_in_all: int
) -> None:
    """Each operation of the document, in each mode, an equal share of ``requests_in_all``."""
    operations = [result.ok() for result in _schema(served).get_all_operations()]
    share = requests_in_all // (len(operations) * len(modes))
    session = requests.Session()
    functions = _checks(checks)
    for operation in operations:
        for mode in modes:

            @fuzz_settings(share)
            @given(case=_strategy(operation, mode, served))
            def exercise(case: Any) -> None:
                _exercise(case, session, functions, served, tally)

            try:
                exercise()
            except Unsatisfiable:  # nothing to make invalid (GET /healthz has no parameters)
                assert mode is GenerationMode.NEGATIVE, operation.label
    session.close()


def _exercise(case: Any, session: requests.Session, checks: list[Any], served: Served, tally: Tally) -> None:
    try:
        response = case.call(session=session, timeout=30)
    except requests.RequestException as error:
        tally.find("a request the server did not answer", f"{case.as_curl_command()}: {error!r}")
        return
    tally.add("requests")
    tally.add(f"status {response.status_code} of {case.operation.label}")
    curl = case.as_curl_command()
    if response.status_code >= 500:
        tally.add("server_errors")
    _tracebacks(served, tally, curl)
    try:
        case.validate_response(response, checks=checks)
    except FailureGroup as group:
        for failure in group.exceptions:
            detail = (
                f"{curl} -> {response.status_code} {response.text[:200]!r}: {(failure.message.splitlines() or [''])[0]}"
            )
            tally.find(f"{failure.title} ({case.operation.label})", detail)


@pytest.fixture(scope="module")
def api(server: Served) -> Any:
    return _schema(server)


@schemathesis.pytest.from_fixture("api").parametrize()
@settings(
    max_examples=max(5, VOLUME.http_cases // 50),
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_schemathesis_phases(case: Any, server: Served, record_property: Any) -> None:
    """Schemathesis's own run of each operation: the document's examples, its coverage cases (each bound,
    each missing or mistyped field) and fuzzing, with the same checks; it stops at an operation's first
    failure and shrinks it."""
    record_property("fuzz_requests", 1)
    response = case.call(timeout=30)
    assert not server.log.take(), case.as_curl_command()
    case.validate_response(response, checks=_checks(CHECKS))


@pytest.mark.timeout(VOLUME.timeout)
def test_schemathesis_finds_no_server_error_and_the_document_holds(server: Served, record_property: Any) -> None:
    tally = Tally()
    modes = [GenerationMode.POSITIVE, GenerationMode.NEGATIVE]
    _fuzz_operations(server, tally, CHECKS, modes, VOLUME.http_cases)
    tally.publish(record_property)
    assert not tally.findings, tally.report()


@pytest.mark.timeout(VOLUME.timeout)
def test_data_the_document_calls_valid_is_accepted(server: Served, record_property: Any) -> None:
    """What the document does not say: a request valid by its schemas that the server refuses shows a rule
    (a name's printable characters, seats for the players chosen) the document could declare."""
    tally = Tally()
    _fuzz_operations(server, tally, ["positive_data_acceptance"], [GenerationMode.POSITIVE], VOLUME.http_cases // 4)
    tally.publish(record_property)
    assert not tally.findings, tally.report()


# -- hand-made hostile requests --------------------------------------------------------

ROOM_FIELDS: dict[str, Any] = {
    "name": "Anna",
    "players": 3,
    "rules": "classic",
    "rounds": 2,
    "fill": "easy",
    "seats": [{"kind": "open"}],
    "away": 60,
    "pace": 0.5,
}
JOIN_FIELDS: dict[str, Any] = {"name": "Ben", "seat": 1}
valid_rooms = st.fixed_dictionaries(
    {"name": st.sampled_from(["Anna", " Ben  Bo ", "Zoë", "x" * 20])},
    optional={
        "players": st.integers(2, 6),
        "rules": st.sampled_from(["classic", "ravensburger", "beginners"]),
        "rounds": st.integers(1, 20),
        "fill": st.sampled_from(["easy", "medium", "hard", "expert", "master"]),
        "away": st.integers(5, 3600) | st.floats(5, 3600),
        "pace": st.integers(0, 5) | st.floats(0, 5),
    },
)
"""Bodies the protocol says create a room (no seats list: its length depends on ``players``)."""


def _body_with(fields: dict[str, Any], name: str, value: Any) -> bytes:
    return json.dumps({**fields, name: value}).encode()


def _body_without(fields: dict[str, Any], name: str) -> bytes:
    return json.dumps({key: value for key, value in fields.items() if key != name}).encode()


def _body_literal(fields: dict[str, Any], name: str, literal: str) -> bytes:
    return with_literal({**fields, name: MARK}, literal).encode()


def hostile_bodies(fields: dict[str, Any]) -> st.SearchStrategy[bytes]:
    names = st.sampled_from(list(fields))
    return mix(
        (4, st.builds(_body_with, st.just(fields), names, json_values)),
        (2, st.builds(_body_literal, st.just(fields), names, st.sampled_from(RAW_LITERALS))),
        (1, st.builds(_body_without, st.just(fields), names)),
        (1, st.builds(lambda key, value: _body_with(fields, key, value), hostile_text, json_values)),
        (1, st.builds(lambda seats: _body_with(ROOM_FIELDS, "seats", seats), st.lists(json_values, max_size=7))),
        (1, st.builds(lambda value: json.dumps(value).encode(), json_values)),
        (1, st.builds(lambda text: text.encode(), st.sampled_from(RAW_LITERALS))),
        (1, st.binary(max_size=64)),
        (1, st.sampled_from([b"", b"{", b"null", b"[]", b"\xef\xbb\xbf{}"])),
        (1, st.builds(lambda size: b"x" * size, st.sampled_from([MAX_BODY, MAX_BODY + 1, 100_000]))),
        (1, st.builds(lambda size: b'{"name": "' + b"x" * size + b'"}', st.sampled_from([8178, 8179, 20_000]))),
    )


CONTENT_TYPES = ["application/json", "text/plain", "application/json; charset=latin-1", "", "multipart/form-data"]
path_parts = mix(
    (3, hostile_text),
    (1, st.sampled_from(["%ED%A0%80", "%00", "%FF", "..%2F..", "%2e%2e", "a%20b", "K7MPQ2", "k7mpq2", "0", "-1"])),
    (1, st.sampled_from(["9" * 30, Long("9" * 5001), "1e400", "NaN", "Infinity", "9007199254740992", "1.0", "0x10"])),
)


@dataclass(frozen=True)
class Request:
    """One request: method, path (quoted as given) and body."""

    method: str
    path: str
    body: bytes | None = None
    content_type: str = "application/json"
    valid: bool = False
    """The protocol says it must succeed."""
    chunked: bool = False
    """Sent in chunks, without a Content-Length."""


def _quoted(part: str) -> str:
    """``part`` as a path segment: ASCII letters, digits and ``%`` stay (so ``%ED%A0%80`` goes as it is),
    everything else is percent-encoded from its UTF-8 (lone surrogates too)."""
    return "".join(ch if (ch.isalnum() and ch.isascii()) or ch == "%" else _escape(ch) for ch in part)


def _escape(ch: str) -> str:
    return "".join(f"%{byte:02X}" for byte in ch.encode("utf-8", "surrogatepass"))


def requests_for(code: str) -> st.SearchStrategy[Request]:
    """Hostile requests to every API route, ``code`` being a room with open seats."""
    codes = mix((1, st.just(code)), (1, st.just(code.lower())), (2, path_parts))
    langs = st.sampled_from(["", "?lang=de", "?lang=", "?lang=%ED%A0%80", "?lang=" + "d" * 100, "?lang=de&lang=en"])
    return mix(
        (
            4,
            st.builds(
                lambda body, ct: Request("POST", "/api/rooms", body, ct),
                hostile_bodies(ROOM_FIELDS),
                st.sampled_from(CONTENT_TYPES),
            ),
        ),
        (1, st.builds(lambda body: Request("POST", "/api/rooms", json.dumps(body).encode(), valid=True), valid_rooms)),
        (1, st.builds(lambda body: Request("POST", "/api/rooms", body, chunked=True), hostile_bodies(ROOM_FIELDS))),
        (
            3,
            st.builds(
                lambda c, body, lang: Request("POST", f"/api/rooms/{_quoted(c)}/join{lang}", body),
                codes,
                hostile_bodies(JOIN_FIELDS),
                langs,
            ),
        ),
        (1, st.builds(lambda c, lang: Request("GET", f"/api/rooms/{_quoted(c)}{lang}"), codes, langs)),
        (1, st.builds(lambda g, lang: Request("GET", f"/api/games/{_quoted(g)}/record{lang}"), path_parts, langs)),
        (1, st.builds(lambda lang: Request("GET", f"/api/messages{lang}"), langs)),
        (1, st.builds(lambda c: Request("GET", f"/r/{_quoted(c)}"), codes)),
        (1, st.builds(lambda p: Request("GET", f"/static/{_quoted(p)}"), path_parts)),
        (
            1,
            st.builds(
                lambda m, p: Request(m, p, b"{}"),
                st.sampled_from(["PUT", "DELETE", "PATCH", "OPTIONS"]),
                st.sampled_from(["/api/rooms", f"/api/rooms/{code}", "/healthz", "/"]),
            ),
        ),
    )


def _judge(request: Request, answer: httpx.Response, tally: Tally) -> None:
    shown = f"{request.method} {request.path} {describe(request.body or b'')} ({request.content_type or 'no type'})"
    if answer.status_code >= 500:
        tally.add("server_errors")
        tally.find("a 5xx", f"{shown} -> {answer.status_code} {answer.text[:200]!r}")
        return
    if request.valid and answer.status_code != 201:
        tally.find("a valid request refused", f"{shown} -> {answer.status_code} {answer.text[:200]!r}")
    if not request.path.startswith("/api/") or answer.status_code < 400:
        return
    try:
        body = answer.json()
    except ValueError:
        tally.find("a refusal that is not JSON", f"{shown} -> {answer.status_code} {answer.text[:200]!r}")
        return
    if not (isinstance(body, dict) and isinstance(body.get("error"), str) and isinstance(body.get("message"), str)):
        tally.find("a refusal without error and message", f"{shown} -> {answer.status_code} {body!r:.200}")


def _send(http: httpx.Client, request: Request, tally: Tally) -> httpx.Response | None:
    """Send it (a chunked body if asked); once more on a new connection if the first went down
    (after a 5xx uvicorn closes the connection, which is not a second finding)."""
    headers = {"content-type": request.content_type} if request.content_type else {}
    for attempt in range(2):
        body: Any = request.body
        if request.chunked and body is not None:
            body = iter([body[at : at + 1000] for at in range(0, len(body), 1000)])
        try:
            answer = http.request(request.method, request.path, content=body, headers=headers)
        except httpx.TransportError as error:
            if attempt:
                tally.find("a request the server did not answer", f"{request}: {error!r}")
            continue
        tally.add("requests")
        return answer
    return None


@pytest.mark.timeout(VOLUME.timeout)
def test_hostile_bodies_and_paths_are_refused_with_4xx(server: Served, record_property: Any) -> None:
    tally = Tally()
    with httpx.Client(base_url=server.base, timeout=30) as http:
        created = http.post("/api/rooms", json={**ROOM_FIELDS, "players": 6, "seats": []})
        assert created.status_code == 201, created.text
        code = created.json()["code"]
        before = http.get(f"/api/rooms/{code}").json()

        joins = f"/api/rooms/{code.lower()}/join"

        @fuzz_settings(VOLUME.http_raw)
        @given(request=requests_for(code))
        def send(request: Request) -> None:
            nonlocal before
            answer = _send(http, request, tally)
            if answer is None:
                return
            _judge(request, answer, tally)
            _tracebacks(server, tally, f"{request.method} {request.path} {describe(request.body or b'')}")
            if request.path.lower().startswith(joins):
                after = http.get(f"/api/rooms/{code}").json()
                if answer.status_code >= 400 and after != before:
                    tally.find("a refused join changed the room", f"{request} -> {answer.text[:200]}")
                before = after

        send()
    tally.publish(record_property)
    assert not tally.findings, tally.report()


@pytest.mark.parametrize(
    "body",
    [
        b'{"name": "Anna", "players": ' + b"1" * 5001 + b"}",
        b'{"name": "Anna", "away": ' + b"9" * 5001 + b".5}",
        b'{"name": "Anna", "players": 3, "pace": 1e400}',
        b'{"name": "Anna", "pace": NaN}',
        b'{"name": "Anna", "pace": -Infinity}',
        b'{"name": "A\\ud800"}',
        b'{"name": "Anna", "rules": "\\udfff"}',
        b'{"name": ' + b"[" * 4000 + b"]" * 4000 + b"}",
        b'{"name": "Anna", "seats": ' + b"[" * 3000 + b"]" * 3000 + b"}",
        b"[" * 10_000 + b"]" * 10_000,
    ],
    ids=lambda body: describe(body, 40),
)
def test_bodies_that_broke_json_parsers_are_refused(server: Served, body: bytes) -> None:
    """5,001-digit numbers, out-of-range floats, NaN, lone surrogates and deep nesting: each a 4xx."""
    answer = httpx.post(f"{server.base}/api/rooms", content=body, headers={"content-type": "application/json"})
    assert 400 <= answer.status_code < 500, (answer.status_code, answer.text[:300])
    assert set(answer.json()) >= {"error", "message"}
    assert not server.log.take()
