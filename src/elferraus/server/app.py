"""The ASGI app: pages, the JSON API (published at ``/openapi.json``) and the WebSocket of every room."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import time
from collections.abc import AsyncIterator, Collection
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI
from fastapi import Path as PathParameter
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from elferraus.errors import RecordError
from elferraus.i18n import COLOR_WORDS, MESSAGES, Lang
from elferraus.server.bus import BusError, open_bus
from elferraus.server.headers import BodyLimit, RelativeRedirects, RevalidateStatic, SecurityHeaders
from elferraus.server.limits import address_key
from elferraus.server.origins import origin_allowed
from elferraus.server.rooms import names
from elferraus.server.rooms.connection import Connection
from elferraus.server.rooms.lobby import Lobby
from elferraus.server.rooms.payloads import presets_payload, replay_payload
from elferraus.server.rooms.schemas import (
    GameId,
    Join,
    JoinAnswer,
    Language,
    NewRoom,
    NewRoomAnswer,
    Refusal,
    RoomCode,
    field_of,
    message_of,
    refusal,
    too_deep,
)
from elferraus.server.rooms.settings import RoomError
from elferraus.server.storage.expiry import Clock, Expiry
from elferraus.server.storage.store import open_store
from elferraus.server.storage.types import StoreError
from elferraus.server.worker import ServiceWorker

LOG = logging.getLogger("elferraus.server")
MAX_BODY = 8192
STATIC = Path(str(resources.files("elferraus.server").joinpath("static")))
ROOMS_PER_MINUTE = 10.0
"""New rooms a minute one address (an IPv6 client: its /64) may create, on average (0: no limit)."""
ROOM_BURST = 20
"""New rooms one address may create at once before the average applies."""
STATUS_OF = {
    "no_room": 404,
    "no_game": 404,
    "not_found": 404,
    "method_not_allowed": 405,
    "seat_taken": 409,
    "name_taken": 409,
    "wrong_status": 409,
    "set_aside": 409,
    "room_expired": 410,
    "too_big": 413,
    "too_many_rooms": 429,
    "store_unavailable": 503,
}
RETRY_AFTER_STORE = 1
"""Seconds after which a request the database refused may be sent again."""


def _lang(request: Request) -> Lang:
    return "de" if request.query_params.get("lang") == "de" else "en"


def refuse(error: RoomError, lang: Lang) -> JSONResponse:
    """The JSON answer refusing a request: its code, the reason in words, the field at fault if any."""
    body: dict[str, Any] = {"error": error.code, "message": message_of(error, lang)}
    if "field" in error.details:
        body["field"] = error.details["field"]
    response = JSONResponse(body, status_code=STATUS_OF.get(error.code, 400))
    if error.code == "store_unavailable":
        response.headers["Retry-After"] = str(RETRY_AFTER_STORE)
    return response


EXPIRED = {"model": Refusal, "description": "`room_expired`: nobody used the room for long enough (docs/deploy.md)"}
REFUSALS: dict[int | str, dict[str, Any]] = {
    status: {"model": Refusal, "description": description}
    for status, description in [
        (400, "a field is missing or wrong (named in `field`)"),
        (413, "the body is over 8 KB"),
        (503, "the database could not store it just now; nothing changed; try again after `Retry-After`"),
    ]
}


def create_app(
    db_path: str = "elferraus.sqlite3",
    *,
    bus_url: str | None = None,
    static_dir: Path | None = None,
    rooms_per_minute: float = ROOMS_PER_MINUTE,
    allowed_origins: Collection[str] = (),
    expiry: Expiry | None = None,
    clock: Clock = time.time,
) -> FastAPI:
    """The server's ASGI app, with its rooms stored in ``db_path`` (a SQLite file or a ``postgresql://`` URL).

    One client address (an IPv6 client: its /64) may create ``rooms_per_minute``
    rooms a minute on average, up to ``ROOM_BURST`` at once (0: no limit), on
    this process or on the whole site of its bus; more are refused with 429.
    ``allowed_origins`` (normal origins, ``origins.normal_origin``): if any, a
    WebSocket from a browser on another site is refused at the handshake.
    Rooms nobody uses expire as ``expiry`` says (default ``Expiry()``), by the
    time of ``clock``. While it runs, ``app.state.lobby`` is its ``Lobby``.
    """
    assets = static_dir or STATIC
    state: dict[str, Lobby] = {}
    creation_rate = rooms_per_minute / 60

    def lobby() -> Lobby:
        return state["lobby"]

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = await open_store(db_path, clock)
        try:
            bus = await open_bus(bus_url)
        except BusError:
            await store.close()
            raise
        await asyncio.to_thread(names.skeleton, "")  # Unicode's look-alikes are read before the first name comes
        state["lobby"] = Lobby(store, bus, clock=clock, expiry=expiry)
        app.state.bus = bus
        app.state.lobby = state["lobby"]
        try:
            await state["lobby"].restore()
            yield
        finally:
            await state["lobby"].close()
            await store.close()

    app = FastAPI(
        title="Elfer raus! web game",
        version="1",
        summary="Rooms, seats and finished games of the web game; play itself goes over the WebSocket /ws/{code}.",
        openapi_url="/openapi.json",
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
        strict_content_type=False,
        middleware=[
            Middleware(SecurityHeaders),
            Middleware(RelativeRedirects),
            Middleware(
                BodyLimit,
                limit=MAX_BODY,
                refuse=lambda lang: refuse(RoomError("too_big"), lang),
                too_deep=too_deep,
                refuse_deep=lambda lang: refuse(RoomError("bad_request", "web_error_json"), lang),
            ),
            Middleware(GZipMiddleware, minimum_size=512),
            Middleware(RevalidateStatic),
        ],
    )

    @app.exception_handler(RoomError)
    async def room_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, RoomError)
        return refuse(error, _lang(request))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: Exception) -> Response:
        assert isinstance(error, RequestValidationError)
        errors = error.errors()
        if errors and tuple(errors[0].get("loc", ()))[:1] == ("path",):
            # An address that cannot name a room or game names none: 404, as for one that does not exist.
            if field_of(errors[0]["loc"]) == "code":
                return refuse(RoomError("no_room", "web_error_no_room"), _lang(request))
            return refuse(RoomError("no_game", "web_error_no_game"), _lang(request))
        return refuse(refusal(errors), _lang(request))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        code = {404: "not_found", 405: "method_not_allowed"}.get(error.status_code, "bad_request")
        key = "web_error_json" if code == "bad_request" else f"web_error_{code}"
        response = refuse(RoomError(code, key), _lang(request))
        response.status_code = error.status_code if error.status_code < 500 else 400
        response.headers.update(error.headers or {})
        return response

    @app.post(
        "/api/rooms", status_code=201, responses={**REFUSALS, 429: {"model": Refusal}}, response_model=NewRoomAnswer
    )
    async def create_room(request: Request, choice: NewRoom, lang: Language = "en") -> Response:
        """A new room; the host's secret link takes seat 0."""
        bus = lobby().bus
        # The room is paid for before it is made, in one step of the bucket: requests arriving together cannot
        # all pass one look at it. A refusal takes nothing, so the wait is never longer than one room's time.
        bucket = f"rooms:{address_key(request.client.host if request.client else '')}"
        if creation_rate > 0:
            wait = await bus.take(bucket, creation_rate, ROOM_BURST)
            if wait:
                response = refuse(RoomError("too_many_rooms"), _lang(request))
                response.headers["Retry-After"] = str(math.ceil(wait))
                return response
        try:
            room, token = await lobby().create(choice)
        except Exception:  # the store refused, or a choice that does not fit: no room made, so none paid for
            if creation_rate > 0:
                await bus.give_back(bucket, creation_rate, ROOM_BURST)
            raise
        answer = NewRoomAnswer(
            code=room.code, seat=0, token=token, invite=f"/r/{room.code}", link=f"/r/{room.code}#t={token}"
        )
        return JSONResponse(answer.model_dump(), status_code=201)

    @app.get(
        "/api/rooms/{code}",
        responses={400: REFUSALS[400], 404: {"model": Refusal}, 409: {"model": Refusal}, 410: EXPIRED},
        response_model=dict[str, Any],
    )
    async def show_room(code: Annotated[RoomCode, PathParameter()], lang: Language = "en") -> dict[str, Any]:
        """The room as anybody may see it."""
        return (await lobby().room(code)).room_payload()

    @app.post(
        "/api/rooms/{code}/join",
        responses={**REFUSALS, 404: {"model": Refusal}, 409: {"model": Refusal}, 410: EXPIRED},
        response_model=JoinAnswer,
    )
    async def join_room(code: Annotated[RoomCode, PathParameter()], choice: Join, lang: Language = "en") -> JoinAnswer:
        """Take an open seat before the host starts."""
        room = await lobby().room(code)
        token = await room.join(choice.seat, choice.name)
        return JoinAnswer(seat=choice.seat, token=token, link=f"/r/{room.code}#t={token}")

    async def finished_record(game: int) -> dict[str, Any]:
        """A finished game's record from the store; a refused read or a game still running is a RoomError."""
        try:
            record = await lobby().store.record(game)
        except StoreError as error:  # a read the database refused
            raise RoomError("store_unavailable") from error
        if record is None:
            raise RoomError("no_game", "web_error_no_game")
        return record

    @app.get(
        "/api/games/{game}/record",
        responses={400: REFUSALS[400], 404: {"model": Refusal}, 503: REFUSALS[503]},
        response_model=dict[str, Any],
    )
    async def game_record(game: Annotated[GameId, PathParameter()], lang: Language = "en") -> Response:
        """A finished game's ``elferraus/1`` record (404 while it runs)."""
        record = await finished_record(game)
        headers = {"Content-Disposition": f'attachment; filename="elferraus-{game}.json"'}
        return JSONResponse(record, headers=headers)

    @app.get(
        "/api/games/{game}/replay",
        responses={400: REFUSALS[400], 404: {"model": Refusal}, 503: REFUSALS[503]},
        response_model=dict[str, Any],
    )
    async def game_replay(game: Annotated[GameId, PathParameter()], lang: Language = "en") -> Response:
        """Every position of a finished game, ready to draw: the replay viewer's ``REPLAY`` (404 while it runs)."""
        record = await finished_record(game)
        try:
            replay = await asyncio.to_thread(replay_payload, record, game)
        except RecordError as error:  # a stored record that does not replay: nothing to show
            LOG.error("game %s does not replay from the database: %s", game, error)
            raise RoomError("no_game", "web_error_no_game") from error
        return JSONResponse(replay)

    @app.get("/api/rules", response_model=dict[str, Any], responses={400: REFUSALS[400]})
    async def rules(lang: Language = "en") -> Response:
        """The rules presets a room may be played with: each one's fields and its catalogue key."""
        return JSONResponse(presets_payload(), headers={"Cache-Control": "max-age=3600"})

    @app.get("/api/messages", response_model=dict[str, Any], responses={400: REFUSALS[400]})
    async def messages(lang: Language = "en") -> Response:
        """The words the page shows, in one language."""
        index = 1 if lang == "de" else 0
        return JSONResponse(
            {
                "lang": "de" if index else "en",
                "messages": {key: pair[index] for key, pair in MESSAGES.items()},
                "colors": {key: pair[index] for key, pair in COLOR_WORDS.items()},
            },
            headers={"Cache-Control": "max-age=3600"},
        )

    @app.get("/healthz", response_class=PlainTextResponse, responses={200: {"content": {"text/plain": {}}}})
    async def health() -> PlainTextResponse:
        """``ok`` while the server serves."""
        return PlainTextResponse("ok")

    async def page(request: Request) -> Response:
        index = assets / "index.html"
        document = FileResponse(index, stat_result=index.stat(), headers={"Cache-Control": "no-cache"})
        etag = document.headers["etag"]
        if etag in (tag.strip() for tag in request.headers.get("if-none-match", "").split(",")):
            return Response(status_code=304, headers={"ETag": etag, "Cache-Control": "no-cache"})
        return document

    for path in ("/", "/r/{code}", "/replay/{game}", "/rules"):
        app.add_route(path, page, include_in_schema=False)

    worker = ServiceWorker(assets)

    async def service_worker(request: Request) -> Response:
        # At the root, so that the whole site is its scope; revalidated on every check for an update.
        etag = f'"{worker.version}"'
        headers = {"ETag": etag, "Cache-Control": "no-cache"}
        if etag in (tag.strip() for tag in request.headers.get("if-none-match", "").split(",")):
            return Response(status_code=304, headers=headers)
        return Response(worker.script(), media_type="text/javascript", headers=headers)

    app.add_route("/sw.js", service_worker, include_in_schema=False)

    @app.websocket("/ws/{code}")
    async def websocket_endpoint(websocket: WebSocket) -> None:
        if not origin_allowed(websocket.headers.get("origin"), allowed_origins):
            await websocket.close(1008)  # before the handshake is accepted: the browser is answered 403
            return
        await websocket.accept()
        try:
            room = await lobby().room(str(websocket.path_params["code"]))
        except RoomError as error:
            message = {"type": "error", "code": error.code, "message": error.message("en"), "seq": None}
            await websocket.send_text(json.dumps(message))
            await websocket.close(1008)
            return
        await Connection(websocket, room, lobby().bus).run()

    app.router.routes.append(Mount("/static", StaticFiles(directory=assets, check_dir=False), name="static"))
    app.openapi = lambda: _published(app)  # type: ignore[method-assign]
    return app


def _published(app: FastAPI) -> dict[str, Any]:
    """The OpenAPI document as FastAPI makes it, told the truth about refusals: a failed check is a 400
    (never FastAPI's 422), and 429 and 503 come with ``Retry-After``."""
    if app.openapi_schema is not None:
        return app.openapi_schema
    document = get_openapi(title=app.title, version=app.version, summary=app.summary, routes=app.routes)
    retry_after = {"Retry-After": {"description": "seconds to wait before asking again", "schema": {"type": "integer"}}}
    for operations in document["paths"].values():
        for operation in operations.values():
            responses = operation.get("responses", {})
            responses.pop("422", None)
            for status in ("429", "503"):
                if status in responses:
                    responses[status]["headers"] = retry_after
    schemas = document.get("components", {}).get("schemas", {})
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    app.openapi_schema = document
    return document
