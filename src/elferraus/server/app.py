"""The ASGI app: pages, the JSON API and the WebSocket of every room."""

from __future__ import annotations

import contextlib
import json
import math
import secrets
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket

from elferraus.i18n import COLOR_WORDS, MESSAGES, Lang
from elferraus.server.connection import Connection, TokenBucket
from elferraus.server.rooms import (
    CODE_LENGTH,
    Room,
    RoomError,
    RoomSettings,
    SeatState,
    hash_token,
    new_code,
    valid_level,
    valid_name,
)
from elferraus.server.store import Store

MAX_BODY = 8192
STATIC = Path(str(resources.files("elferraus.server").joinpath("static")))
ROOMS_PER_MINUTE = 10.0
"""New rooms a minute one address may create, on average (0: no limit)."""
ROOM_BURST = 20
"""New rooms one address may create at once before the average applies."""
MAX_TRACKED_ADDRESSES = 10_000


class RoomCreationLimit:
    """A token bucket per client address for creating rooms.

    Every room is stored for good, so an unlimited client could fill the disk
    and the server's memory; people creating games now and then never notice.
    """

    def __init__(self, per_minute: float, burst: int = ROOM_BURST) -> None:
        self.rate = per_minute / 60
        self.burst = burst
        self._buckets: dict[str, TokenBucket] = {}

    def wait(self, address: str) -> float:
        """0 if ``address`` may create a room now, else the seconds until it may."""
        if self.rate <= 0:
            return 0.0
        bucket = self._buckets.get(address)
        if bucket is None:
            return 0.0
        tokens = bucket.refill()
        return 0.0 if tokens >= 1 else (1 - tokens) / self.rate

    def count(self, address: str) -> None:
        """``address`` has created a room. (Refused requests are not counted: they store nothing.)"""
        if self.rate <= 0:
            return
        bucket = self._buckets.get(address)
        if bucket is None:
            if len(self._buckets) >= MAX_TRACKED_ADDRESSES:
                self._forget_idle()
            bucket = self._buckets[address] = TokenBucket(self.rate, self.burst)
        bucket.refill()
        bucket.tokens -= 1  # may go below 0 when requests raced past wait(): later ones wait longer

    def _forget_idle(self) -> None:
        """Drop the buckets that have refilled: their addresses are as good as new."""
        for address, bucket in list(self._buckets.items()):
            if bucket.refill() + 1 >= bucket.burst:
                del self._buckets[address]


class Lobby:
    """Every room of this server, kept in memory and in the store."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.rooms: dict[str, Room] = {}

    def restore(self) -> None:
        """Bring back every stored room, and set its computers playing again."""
        for row in self.store.rooms():
            room = Room.restore(row, self.store)
            self.rooms[room.code] = room
            if room.status == "playing":
                room.ensure_driver()

    def create(self, body: dict[str, Any]) -> tuple[Room, str]:
        """A new room from the host's choices; returns it and the host's token."""
        name = valid_name(body.get("name"))
        try:
            settings = RoomSettings(
                players=_integer(body.get("players", 4)),
                rules=str(body.get("rules", "classic")),
                rounds=_integer(body.get("rounds", 1)),
                fill=str(body.get("fill", "medium")),
                away=float(_number(body.get("away", 60))),
                pace=float(_number(body.get("pace", 0.8))),
            )
        except (TypeError, ValueError):
            raise RoomError("bad_request", "web_error_settings") from None
        seats_spec = body.get("seats", [])
        if not isinstance(seats_spec, list) or len(seats_spec) > settings.players - 1:
            raise RoomError("bad_request", "web_error_seats")
        token = secrets.token_urlsafe(32)
        seats = [SeatState(0, name, "person", None, hash_token(token))]
        for seat in range(1, settings.players):
            spec = seats_spec[seat - 1] if seat - 1 < len(seats_spec) else {"kind": "open"}
            if not isinstance(spec, dict) or spec.get("kind") not in ("open", "computer"):
                raise RoomError("bad_request", "web_error_seats")
            if spec["kind"] == "computer":
                level = valid_level(spec.get("level", settings.fill))
                seats.append(SeatState(seat, f"Computer {seat + 1}", "computer", level))
            else:
                seats.append(SeatState(seat, "", "open"))
        code = new_code(lambda candidate: candidate in self.rooms or self.store.code_exists(candidate))
        room = Room(code, settings, seats, self.store)
        self.store.add_room(code, settings.to_dict(), [state.row() for state in seats])
        self.rooms[code] = room
        return room, token

    def room(self, code: str) -> Room:
        """The room with this code.

        Raises:
            RoomError: there is none.
        """
        room = self.rooms.get(code.upper()) if len(code) == CODE_LENGTH else None
        if room is None:
            raise RoomError("no_room", "web_error_no_room")
        return room

    async def close(self) -> None:
        """Stop every room's task."""
        for room in self.rooms.values():
            await room.close()


def _integer(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("not an integer")
    return value


def _number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError("not a number")
    return float(value)


def _error(error: RoomError, status: int = 400, lang: Lang = "en") -> JSONResponse:
    return JSONResponse({"error": error.code, "message": error.message(lang)}, status_code=status)


STATUS_OF = {"no_room": 404, "no_game": 404, "seat_taken": 409, "wrong_status": 409, "too_big": 413}


async def _body(request: Request) -> dict[str, Any]:
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise RoomError("too_big")
    chunks = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise RoomError("too_big")
        chunks.append(chunk)
    try:
        data = json.loads(b"".join(chunks) or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise RoomError("bad_request", "web_error_json") from None
    if not isinstance(data, dict):
        raise RoomError("bad_request", "web_error_json")
    return data


def create_app(
    db_path: str = "elferraus.sqlite3",
    *,
    static_dir: Path | None = None,
    rooms_per_minute: float = ROOMS_PER_MINUTE,
) -> Starlette:
    """The server's ASGI app, with its rooms stored in ``db_path``.

    One client address may create ``rooms_per_minute`` rooms a minute on
    average, up to ``ROOM_BURST`` at once (0: no limit); more are refused with 429.
    """
    assets = static_dir or STATIC
    state: dict[str, Lobby] = {}
    creation_limit = RoomCreationLimit(rooms_per_minute)

    def lobby() -> Lobby:
        return state["lobby"]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store = Store(db_path)
        state["lobby"] = Lobby(store)
        state["lobby"].restore()
        try:
            yield
        finally:
            await state["lobby"].close()
            store.close()

    def lang_of(request: Request) -> Lang:
        return "de" if request.query_params.get("lang") == "de" else "en"

    async def create_room(request: Request) -> Response:
        address = request.client.host if request.client else ""
        wait = creation_limit.wait(address)
        if wait:
            response = _error(RoomError("too_many_rooms"), 429, lang_of(request))
            response.headers["Retry-After"] = str(math.ceil(wait))
            return response
        try:
            room, token = lobby().create(await _body(request))
        except RoomError as error:
            return _error(error, STATUS_OF.get(error.code, 400), lang_of(request))
        creation_limit.count(address)
        return JSONResponse(
            {
                "code": room.code,
                "seat": 0,
                "token": token,
                "invite": f"/r/{room.code}",
                "link": f"/r/{room.code}#t={token}",
            },
            status_code=201,
        )

    async def show_room(request: Request) -> Response:
        try:
            room = lobby().room(request.path_params["code"])
        except RoomError as error:
            return _error(error, 404, lang_of(request))
        return JSONResponse(room.room_payload())

    async def join_room(request: Request) -> Response:
        try:
            room = lobby().room(request.path_params["code"])
            body = await _body(request)
            seat = _integer(body.get("seat"))
            token = room.join(seat, valid_name(body.get("name")))
        except TypeError:
            return _error(RoomError("bad_request", "web_error_seats"), 400, lang_of(request))
        except RoomError as error:
            return _error(error, STATUS_OF.get(error.code, 400), lang_of(request))
        return JSONResponse({"seat": seat, "token": token, "link": f"/r/{room.code}#t={token}"})

    async def game_record(request: Request) -> Response:
        text = request.path_params["game"]
        record = lobby().store.record(int(text)) if text.isdigit() and len(text) < 12 else None
        if record is None:
            return _error(RoomError("no_game", "web_error_no_game"), 404, lang_of(request))
        headers = {"Content-Disposition": f'attachment; filename="elferraus-{text}.json"'}
        return JSONResponse(record, headers=headers)

    async def messages(request: Request) -> Response:
        index = 1 if lang_of(request) == "de" else 0
        return JSONResponse(
            {
                "lang": lang_of(request),
                "messages": {key: pair[index] for key, pair in MESSAGES.items()},
                "colors": {key: pair[index] for key, pair in COLOR_WORDS.items()},
            },
            headers={"Cache-Control": "max-age=3600"},
        )

    async def page(request: Request) -> Response:
        return FileResponse(assets / "index.html", headers={"Cache-Control": "no-cache"})

    async def health(request: Request) -> Response:
        return PlainTextResponse("ok")

    async def websocket_endpoint(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            room = lobby().room(websocket.path_params["code"])
        except RoomError as error:
            message = {"type": "error", "code": error.code, "message": error.message("en"), "seq": None}
            await websocket.send_text(json.dumps(message))
            await websocket.close(1008)
            return
        await Connection(websocket, room).run()

    routes = [
        Route("/", page),
        Route("/r/{code}", page),
        Route("/replay/{game}", page),
        Route("/rules", page),
        Route("/healthz", health),
        Route("/api/rooms", create_room, methods=["POST"]),
        Route("/api/rooms/{code}", show_room),
        Route("/api/rooms/{code}/join", join_room, methods=["POST"]),
        Route("/api/games/{game}/record", game_record),
        Route("/api/messages", messages),
        WebSocketRoute("/ws/{code}", websocket_endpoint),
        Mount("/static", StaticFiles(directory=assets, check_dir=False), name="static"),
    ]
    middleware = [Middleware(GZipMiddleware, minimum_size=512), Middleware(RevalidateStatic)]
    return Starlette(routes=routes, lifespan=lifespan, middleware=middleware)


class RevalidateStatic:
    """The page's files are checked again on every load (answered 304 by ETag when unchanged):
    a new version of the game is never mixed with an old cached module."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not str(scope.get("path", "")).startswith("/static/"):
            await self.app(scope, receive, send)
            return

        async def send_with_header(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["Cache-Control"] = "no-cache"
            await send(message)

        await self.app(scope, receive, send_with_header)
