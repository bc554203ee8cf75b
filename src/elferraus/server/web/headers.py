"""ASGI middleware around every answer: security headers, relative redirects, the body limit, revalidated assets."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

from starlette.datastructures import MutableHeaders
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from elferraus.i18n import Lang

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
"""The page loads only its own files: no inline script, nothing from elsewhere, never inside another site's frame.
(Styles, fonts and connections fall back to ``default-src 'self'``; ``script-src`` is spelled out all the same.)"""
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
DOCUMENT_HEADERS = {
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
}
"""Headers that only a document a browser shows reads (framing, the browsing context); not sent with the scripts,
styles and data the page loads, which are many small answers."""
SUBRESOURCE_TYPES = (b"text/javascript", b"application/javascript", b"text/css", b"application/json")


class SecurityHeaders:
    """Adds ``SECURITY_HEADERS`` to every HTTP answer, and ``DOCUMENT_HEADERS`` to all but scripts, styles and
    JSON."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                subresource = headers.get("content-type", "").encode().startswith(SUBRESOURCE_TYPES)
                for name, value in (SECURITY_HEADERS if subresource else SECURITY_HEADERS | DOCUMENT_HEADERS).items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)


def relative_location(location: str) -> str:
    """``location`` as a path on this site: what a client sent as ``Host`` never comes back in a redirect.

    >>> relative_location("http://evil.example/static/?lang=de"), relative_location("//evil.example/rules")
    ('/static/?lang=de', '/rules')
    >>> relative_location("/r/ABC234"), relative_location("http://evil.example//evil.example/")
    ('/r/ABC234', '/evil.example/')
    """
    parts = urlsplit(location)
    # A path starting with two slashes would name another site again ("//host/..."): one slash is the same path.
    path = "/" + parts.path.lstrip("/")
    return path + (f"?{parts.query}" if parts.query else "")


class RelativeRedirects:
    """Every redirect of the site (Starlette's added or removed trailing slash, for ``/static`` and ``/rules/``)
    points to a path on the same site, never to the host the request named: the server only ever redirects to
    itself, and a forged ``Host`` must not come back in ``Location``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_relative(message: Message) -> None:
            if message["type"] == "http.response.start" and 300 <= message["status"] < 400:
                headers = MutableHeaders(scope=message)
                if "location" in headers:
                    headers["location"] = relative_location(headers["location"])
            await send(message)

        await self.app(scope, receive, send_relative)


class BodyLimit:
    """Reads a request's whole body before the app sees it, and refuses one over ``limit`` bytes.

    Both a declared ``Content-Length`` and the bytes actually sent (chunked
    bodies declare none) count; the refusal comes from ``refuse(lang)``. An
    empty body reaches the app as ``{}``.
    """

    def __init__(
        self,
        app: ASGIApp,
        limit: int,
        refuse: Callable[[Lang], Response],
        too_deep: Callable[[bytes], bool] | None = None,
        refuse_deep: Callable[[Lang], Response] | None = None,
    ) -> None:
        self.app = app
        self.limit = limit
        self.refuse = refuse
        self.too_deep = too_deep
        self.refuse_deep = refuse_deep

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        lang: Lang = "de" if b"lang=de" in scope.get("query_string", b"") else "en"
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await self.refuse(lang)(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self.refuse(lang)(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks) or b"{}"  # no body at all is an empty object: then its required fields are missing
        if self.too_deep is not None and self.refuse_deep is not None and self.too_deep(body):
            await self.refuse_deep(lang)(scope, receive, send)  # before any recursive parser sees it
            return
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


class RevalidateStatic:
    """The page's files (its documents and ``/static/``) are checked again on every load (answered
    304 by ETag when unchanged): a new version of the game is never mixed with an old cached module.

    The ETag alone decides, so ``Last-Modified`` is not sent; nor is ``Accept-Ranges``: the files are
    small and go out compressed, and a range of the file is not a range of what is sent.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = str(scope.get("path", "")).startswith("/static/")

        async def send_with_header(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if static:
                    headers["Cache-Control"] = "no-cache"
                if "etag" in headers:
                    del headers["last-modified"]
                    del headers["accept-ranges"]
            await send(message)

        await self.app(scope, receive, send_with_header)
