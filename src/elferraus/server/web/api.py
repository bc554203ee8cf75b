"""The JSON API: rooms (create, show, join), finished games (record, replay), the presets, the words, health.

Play itself goes over the WebSocket (``play.py``). Each route reads the app's ``Lobby`` from
``app.state.lobby``, which the lifespan sets (``lifespan.py``).
"""

from __future__ import annotations

import asyncio
import logging
import math
from typing import Annotated, Any

from fastapi import APIRouter
from fastapi import Path as PathParameter
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from elferraus.errors import RecordError
from elferraus.i18n import COLOR_WORDS, MESSAGES
from elferraus.server.rooms.lobby import Lobby
from elferraus.server.rooms.payloads import presets_payload, replay_payload
from elferraus.server.rooms.schemas import GameId, Join, JoinAnswer, Language, NewRoom, NewRoomAnswer, Refusal, RoomCode
from elferraus.server.rooms.settings import RoomError
from elferraus.server.storage.types import StoreError
from elferraus.server.web.limits import address_key
from elferraus.server.web.refusals import EXPIRED, REFUSALS, lang_of, refuse

LOG = logging.getLogger("elferraus.server")
ROOMS_PER_MINUTE = 10.0
"""New rooms a minute one address (an IPv6 client: its /64) may create, on average (0: no limit)."""
ROOM_BURST = 20
"""New rooms one address may create at once before the average applies."""

router = APIRouter()


def lobby_of(request: Request) -> Lobby:
    """The lobby of the app serving ``request``."""
    lobby: Lobby = request.app.state.lobby
    return lobby


@router.post(
    "/api/rooms", status_code=201, responses={**REFUSALS, 429: {"model": Refusal}}, response_model=NewRoomAnswer
)
async def create_room(request: Request, choice: NewRoom, lang: Language = "en") -> Response:
    """A new room; the host's secret link takes seat 0."""
    bus = lobby_of(request).bus
    creation_rate: float = request.app.state.creation_rate
    # The room is paid for before it is made, in one step of the bucket: requests arriving together cannot
    # all pass one look at it. A refusal takes nothing, so the wait is never longer than one room's time.
    bucket = f"rooms:{address_key(request.client.host if request.client else '')}"
    if creation_rate > 0:
        wait = await bus.take(bucket, creation_rate, ROOM_BURST)
        if wait:
            response = refuse(RoomError("too_many_rooms"), lang_of(request))
            response.headers["Retry-After"] = str(math.ceil(wait))
            return response
    try:
        room, token = await lobby_of(request).create(choice)
    except Exception:  # the store refused, or a choice that does not fit: no room made, so none paid for
        if creation_rate > 0:
            await bus.give_back(bucket, creation_rate, ROOM_BURST)
        raise
    if choice.start:  # "play now": the host's first page is the table, not the waiting room
        await room.start(0)
    answer = NewRoomAnswer(
        code=room.code, seat=0, token=token, invite=f"/r/{room.code}", link=f"/r/{room.code}#t={token}"
    )
    return JSONResponse(answer.model_dump(), status_code=201)


@router.get(
    "/api/rooms/{code}",
    responses={400: REFUSALS[400], 404: {"model": Refusal}, 409: {"model": Refusal}, 410: EXPIRED},
    response_model=dict[str, Any],
)
async def show_room(
    request: Request, code: Annotated[RoomCode, PathParameter()], lang: Language = "en"
) -> dict[str, Any]:
    """The room as anybody may see it."""
    return (await lobby_of(request).room(code)).room_payload()


@router.post(
    "/api/rooms/{code}/join",
    responses={**REFUSALS, 404: {"model": Refusal}, 409: {"model": Refusal}, 410: EXPIRED},
    response_model=JoinAnswer,
)
async def join_room(
    request: Request, code: Annotated[RoomCode, PathParameter()], choice: Join, lang: Language = "en"
) -> JoinAnswer:
    """Take an open seat before the host starts."""
    room = await lobby_of(request).room(code)
    token = await room.join(choice.seat, choice.name)
    return JoinAnswer(seat=choice.seat, token=token, link=f"/r/{room.code}#t={token}")


async def finished_record(lobby: Lobby, game: int) -> dict[str, Any]:
    """A finished game's record from the store; a refused read or a game still running is a RoomError."""
    try:
        record = await lobby.store.record(game)
    except StoreError as error:  # a read the database refused
        raise RoomError("store_unavailable") from error
    if record is None:
        raise RoomError("no_game", "web_error_no_game")
    return record


@router.get(
    "/api/games/{game}/record",
    responses={400: REFUSALS[400], 404: {"model": Refusal}, 503: REFUSALS[503]},
    response_model=dict[str, Any],
)
async def game_record(request: Request, game: Annotated[GameId, PathParameter()], lang: Language = "en") -> Response:
    """A finished game's ``elferraus/1`` record (404 while it runs)."""
    record = await finished_record(lobby_of(request), game)
    headers = {"Content-Disposition": f'attachment; filename="elferraus-{game}.json"'}
    return JSONResponse(record, headers=headers)


@router.get(
    "/api/games/{game}/replay",
    responses={400: REFUSALS[400], 404: {"model": Refusal}, 503: REFUSALS[503]},
    response_model=dict[str, Any],
)
async def game_replay(request: Request, game: Annotated[GameId, PathParameter()], lang: Language = "en") -> Response:
    """Every position of a finished game, ready to draw: the replay viewer's ``REPLAY`` (404 while it runs)."""
    record = await finished_record(lobby_of(request), game)
    try:
        replay = await asyncio.to_thread(replay_payload, record, game)
    except RecordError as error:  # a stored record that does not replay: nothing to show
        LOG.error("game %s does not replay from the database: %s", game, error)
        raise RoomError("no_game", "web_error_no_game") from error
    return JSONResponse(replay)


@router.get("/api/rules", response_model=dict[str, Any], responses={400: REFUSALS[400]})
async def rules(lang: Language = "en") -> Response:
    """The rules presets a room may be played with: each one's fields and its catalogue key."""
    return JSONResponse(presets_payload(), headers={"Cache-Control": "max-age=3600"})


@router.get("/api/messages", response_model=dict[str, Any], responses={400: REFUSALS[400]})
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


@router.get("/healthz", response_class=PlainTextResponse, responses={200: {"content": {"text/plain": {}}}})
async def health() -> PlainTextResponse:
    """``ok`` while the server serves."""
    return PlainTextResponse("ok")


__all__ = ["ROOMS_PER_MINUTE", "ROOM_BURST", "finished_record", "lobby_of", "router"]
