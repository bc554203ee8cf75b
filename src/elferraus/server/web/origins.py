"""Which pages may open the rooms' WebSocket: the ``Origin`` a browser sends, against the operator's list.

Nobody logs in with a cookie: a seat is the token the page sends in its first
frame (``hello``), which another site's page cannot know. So a WebSocket from
any origin is harmless and accepted unless the operator names the origins of
the site (``elferraus serve --allowed-origins``); then a browser on any other
site is refused at the handshake (HTTP 403). A client that sends no ``Origin``
at all is no browser (a bot, a script): it is let in, as it could send any
``Origin`` it liked.
"""

from __future__ import annotations

from collections.abc import Collection
from urllib.parse import urlsplit

DEFAULT_PORTS = {"http": 80, "https": 443}


def normal_origin(text: str) -> str:
    """An origin as browsers send it: ``scheme://host[:port]``, lower case, the scheme's own port left out.

    >>> normal_origin("HTTPS://Elfer.Example:443/"), normal_origin("http://127.0.0.1:8000")
    ('https://elfer.example', 'http://127.0.0.1:8000')

    Raises:
        ValueError: ``text`` is no http or https origin (it has a path, a query, a user, or no host).
    """
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError as error:
        raise ValueError(f"{text!r} is no origin: {error}") from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        raise ValueError(f"{text!r} is no origin: it must be http://HOST[:PORT] or https://HOST[:PORT]")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username is not None:
        raise ValueError(f"{text!r} is no origin: only the scheme, the host and the port belong to one")
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}" + ("" if port in (None, DEFAULT_PORTS[scheme]) else f":{port}")


def parse_origins(text: str) -> frozenset[str]:
    """A comma-separated list of origins, each made normal (empty: none).

    >>> sorted(parse_origins("https://elfer.example, https://www.elfer.example:443"))
    ['https://elfer.example', 'https://www.elfer.example']

    Raises:
        ValueError: one of them is no origin (the message names it).
    """
    return frozenset(normal_origin(item) for item in text.split(",") if item.strip())


def origin_allowed(origin: str | None, allowed: Collection[str]) -> bool:
    """Whether a WebSocket handshake that sent ``Origin: origin`` (None: no such header) may go on.

    >>> origin_allowed("https://evil.example", {"https://elfer.example"}), origin_allowed("https://evil.example", ())
    (False, True)
    >>> origin_allowed(None, {"https://elfer.example"}), origin_allowed("null", {"https://elfer.example"})
    (True, False)
    """
    if not allowed or origin is None:
        return True
    try:
        return normal_origin(origin) in allowed
    except ValueError:  # "null" (a sandboxed frame, a file), or anything else no browser site sends
        return False
