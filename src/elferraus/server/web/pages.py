"""The page's routes: ``index.html`` at every address the page shows, the service worker at ``/sw.js``, the
files under ``/static``, and the WebSocket ``/ws/{code}`` a room is played over.

They read what the app was made with from ``app.state``: ``assets`` (the folder of the page's files),
``worker`` (its ``ServiceWorker``), ``allowed_origins`` and ``lobby``.
"""

from __future__ import annotations

import json
from pathlib import Path

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount
from starlette.websockets import WebSocket

from elferraus.server.rooms.connection import Connection
from elferraus.server.rooms.lobby import Lobby
from elferraus.server.rooms.settings import RoomError
from elferraus.server.web.compact import CompactStaticFiles
from elferraus.server.web.origins import origin_allowed
from elferraus.server.web.worker import ServiceWorker

PAGES = ("/", "/r/{code}", "/replay/{game}", "/rules")
"""The addresses the page shows (its router, ``static/js/router.js``, reads which screen)."""


def _matches(request: Request, etag: str) -> bool:
    return etag in (tag.strip() for tag in request.headers.get("if-none-match", "").split(","))


async def page(request: Request) -> Response:
    """``index.html``, revalidated on every load."""
    assets: Path = request.app.state.assets
    index = assets / "index.html"
    document = FileResponse(index, stat_result=index.stat(), headers={"Cache-Control": "no-cache"})
    etag = document.headers["etag"]
    if _matches(request, etag):
        return Response(status_code=304, headers={"ETag": etag, "Cache-Control": "no-cache"})
    return document


async def service_worker(request: Request) -> Response:
    """The service worker, at the root so that the whole site is its scope; revalidated on every check."""
    worker: ServiceWorker = request.app.state.worker
    etag = f'"{worker.version}"'
    headers = {"ETag": etag, "Cache-Control": "no-cache"}
    if _matches(request, etag):
        return Response(status_code=304, headers=headers)
    return Response(worker.script(), media_type="text/javascript", headers=headers)


async def websocket_endpoint(websocket: WebSocket) -> None:
    """One client of a room: refused before the handshake if from another site, else a ``Connection``."""
    if not origin_allowed(websocket.headers.get("origin"), websocket.app.state.allowed_origins):
        await websocket.close(1008)  # before the handshake is accepted: the browser is answered 403
        return
    await websocket.accept()
    lobby: Lobby = websocket.app.state.lobby
    try:
        room = await lobby.room(str(websocket.path_params["code"]))
    except RoomError as error:
        message = {"type": "error", "code": error.code, "message": error.message("en"), "seq": None}
        await websocket.send_text(json.dumps(message))
        await websocket.close(1008)
        return
    await Connection(websocket, room, lobby.bus).run()


def add_pages(app: FastAPI, assets: Path) -> None:
    """Serve the page from ``assets`` on ``app``, after its API routes."""
    app.state.assets = assets
    app.state.worker = ServiceWorker(assets)
    for path in PAGES:
        app.add_route(path, page, include_in_schema=False)
    app.add_route("/sw.js", service_worker, include_in_schema=False)
    app.add_api_websocket_route("/ws/{code}", websocket_endpoint)
    app.router.routes.append(Mount("/static", CompactStaticFiles(directory=assets), name="static"))


__all__ = ["PAGES", "add_pages", "page", "service_worker", "websocket_endpoint"]
