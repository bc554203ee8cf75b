"""What a server process may print of a URL it was given (a database's, the bus's): never its password."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def shown(url: str) -> str:
    """``url`` as it may be printed and logged: its password, if any, replaced by ``***``.

    >>> shown("postgresql://game:secret@db:5432/elferraus")
    'postgresql://game:***@db:5432/elferraus'
    >>> shown("redis://localhost:6379/0")
    'redis://localhost:6379/0'
    """
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


__all__ = ["shown"]
