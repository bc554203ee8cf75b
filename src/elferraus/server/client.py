"""A small client of the web game: create or join a room, then play over its WebSocket.

For programs that play online (a bot at a friends' table), for the tests and
for the load benchmark. It speaks exactly what the page speaks
(``docs/web-protocol.md``).
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any

from websockets.asyncio.client import ClientConnection, connect


class ServerError(Exception):
    """The server refused an HTTP request: its status, error code and message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code


def _request(base: str, path: str, body: dict[str, Any] | None) -> dict[str, Any]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        base.rstrip("/") + path,
        data=data,
        headers={"Content-Type": "application/json"},
        method="POST" if body else "GET",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            answer: dict[str, Any] = json.loads(response.read())
            return answer
    except urllib.error.HTTPError as error:
        payload = json.loads(error.read() or b"{}")
        raise ServerError(error.code, payload.get("error", "?"), payload.get("message", "")) from None


async def create_room(base: str, **settings: Any) -> dict[str, Any]:
    """``POST /api/rooms``: a new room; returns its code and the host's token and links."""
    return await asyncio.to_thread(_request, base, "/api/rooms", settings)


async def join_room(base: str, code: str, seat: int, name: str) -> dict[str, Any]:
    """``POST /api/rooms/CODE/join``: take an open seat; returns the seat's token."""
    return await asyncio.to_thread(_request, base, f"/api/rooms/{code}/join", {"seat": seat, "name": name})


def whole_log(state: dict[str, Any], previous: dict[str, Any] | None) -> None:
    """Give ``state`` its whole ``moves`` and move log: a connection sends each move once, so a state's
    ``moves`` and ``log`` hold those from ``log_from`` on and the ones before are the previous state's
    (docs/web-protocol.md)."""
    for part in ("view", "game"):
        shown = state.get(part)
        if not isinstance(shown, dict) or not shown.get("log_from"):
            continue
        before = (previous or {}).get(part) or {}
        start = shown["log_from"]
        for history in ("moves", "log"):
            if history in shown:
                shown[history] = list(before.get(history, []))[:start] + shown[history]
        shown["log_from"] = 0


class RoomClient:
    """One WebSocket connection to a room, keeping the newest ``state``.

    Args:
        base: the server's address, ``http://host:port``.
        code: the room code.
        token: the seat's token, or None to watch.
    """

    def __init__(self, base: str, code: str, token: str | None, lang: str = "en") -> None:
        self.url = base.replace("http://", "ws://").replace("https://", "wss://").rstrip("/") + f"/ws/{code}"
        self.token = token
        self.lang = lang
        self.state: dict[str, Any] | None = None
        self.errors: list[dict[str, Any]] = []
        self.received: list[str] = []
        """Every frame received, as text (for checking what was said)."""
        self._socket: ClientConnection | None = None

    async def __aenter__(self) -> RoomClient:
        self._socket = await connect(self.url, max_size=2**20)
        await self.send({"type": "hello", "token": self.token, "lang": self.lang})
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Leave."""
        if self._socket is not None:
            await self._socket.close()

    async def send(self, message: dict[str, Any]) -> None:
        """Send one frame."""
        assert self._socket is not None, "not connected"
        await self._socket.send(json.dumps(message))

    async def send_raw(self, text: str | bytes) -> None:
        """Send a frame as it is (for testing what the server does with bad ones)."""
        assert self._socket is not None, "not connected"
        await self._socket.send(text)

    async def receive(self, timeout: float = 10.0) -> dict[str, Any]:
        """The next frame; a ``state`` also becomes :attr:`state`, an ``error`` joins :attr:`errors`."""
        assert self._socket is not None, "not connected"
        text = await asyncio.wait_for(self._socket.recv(), timeout)
        if isinstance(text, bytes):
            text = text.decode()
        self.received.append(text)
        message: dict[str, Any] = json.loads(text)
        if message.get("type") == "state":
            whole_log(message, self.state)
            self.state = message
        elif message.get("type") == "error":
            self.errors.append(message)
        return message

    async def until(self, check: Any, timeout: float = 30.0) -> dict[str, Any]:
        """Receive until ``check(state)`` holds for the newest state; returns that state."""
        deadline = asyncio.get_running_loop().time() + timeout
        while self.state is None or not check(self.state):
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise TimeoutError(f"no such state within {timeout} s; last: {self.state and self.state['seq']}")
            await self.receive(left)
        return self.state

    async def move(self, move: str) -> None:
        """Send a move made at the newest state's ``seq``."""
        assert self.state is not None, "no state yet"
        await self.send({"type": "move", "move": move, "seq": self.state["seq"]})

    @property
    def my_turn(self) -> bool:
        """True if the newest state says this seat chooses a move now (not while the table makes its only
        legal move for it: ``making``)."""
        state = self.state
        view = state["view"] if state else None
        return bool(
            state and view and view["legal"] and view["making"] is None and state["room"]["status"] == "playing"
        )
