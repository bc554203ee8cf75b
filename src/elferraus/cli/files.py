"""Opening record files for the commands, with errors a person understands."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO


class FileOpenError(Exception):
    """A file could not be opened; the message says which and why."""


@contextmanager
def open_text(path: str, mode: str = "r") -> Iterator[TextIO]:
    """Open ``path`` as UTF-8 text, ``-`` meaning stdin/stdout."""
    if path == "-":
        yield sys.stdin if "r" in mode else sys.stdout
        return
    try:
        handle = open(path, mode, encoding="utf-8")  # noqa: SIM115 - closed below
    except OSError as error:
        raise FileOpenError(f"cannot open {path}: {error.strerror}") from None
    with handle:
        yield handle  # type: ignore[misc]
