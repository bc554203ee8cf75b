"""How the web game refuses a request: the status of each refusal, its JSON body, and the handlers that turn
every error (a room's, a failed check, Starlette's own 404 and 405) into one."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from elferraus.i18n import Lang
from elferraus.server.rooms.schemas import Refusal, field_of, message_of, refusal
from elferraus.server.rooms.settings import RoomError

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


def lang_of(request: Request) -> Lang:
    """The language a request asks its refusals in (``?lang=de``; English otherwise)."""
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
"""The refusals the OpenAPI document lists for the routes that may give them."""


async def room_error(request: Request, error: Exception) -> Response:
    """A room's refusal."""
    assert isinstance(error, RoomError)
    return refuse(error, lang_of(request))


async def invalid(request: Request, error: Exception) -> Response:
    """A request that failed its checks: 400 naming the field (never FastAPI's 422)."""
    assert isinstance(error, RequestValidationError)
    errors = error.errors()
    if errors and tuple(errors[0].get("loc", ()))[:1] == ("path",):
        # An address that cannot name a room or game names none: 404, as for one that does not exist.
        if field_of(errors[0]["loc"]) == "code":
            return refuse(RoomError("no_room", "web_error_no_room"), lang_of(request))
        return refuse(RoomError("no_game", "web_error_no_game"), lang_of(request))
    return refuse(refusal(errors), lang_of(request))


async def http_error(request: Request, error: Exception) -> Response:
    """Starlette's own refusals (an unknown address, a method not allowed) in the same JSON."""
    assert isinstance(error, HTTPException)
    code = {404: "not_found", 405: "method_not_allowed"}.get(error.status_code, "bad_request")
    key = "web_error_json" if code == "bad_request" else f"web_error_{code}"
    response = refuse(RoomError(code, key), lang_of(request))
    response.status_code = error.status_code if error.status_code < 500 else 400
    response.headers.update(error.headers or {})
    return response


def add_refusals(app: FastAPI) -> None:
    """Answer every error of ``app`` as a refusal."""
    app.add_exception_handler(RoomError, room_error)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(HTTPException, http_error)


__all__ = ["EXPIRED", "REFUSALS", "RETRY_AFTER_STORE", "STATUS_OF", "add_refusals", "lang_of", "refuse"]
