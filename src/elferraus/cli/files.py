"""Opening record files for the commands, with errors a person understands."""

from __future__ import annotations

import gzip
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO, cast


class FileOpenError(Exception):
    """A file could not be opened; the message says which and why."""


@contextmanager
def open_text(path: str, mode: str = "r") -> Iterator[TextIO]:
    """Open ``path`` as UTF-8 text, ``-`` meaning stdin/stdout; a name ending ``.gz`` is read or written
    through gzip (the study keeps its records so)."""
    if path == "-":
        yield sys.stdin if "r" in mode else sys.stdout
        return
    try:
        if path.endswith(".gz"):
            if "r" in mode and not _is_gzip(path):
                raise FileOpenError(f"cannot open {path}: its name ends .gz but it is not gzip-compressed")
            handle = cast(TextIO, gzip.open(path, mode + "t", encoding="utf-8"))  # noqa: SIM115 - closed below
        else:
            handle = cast(TextIO, open(path, mode, encoding="utf-8"))  # noqa: SIM115 - closed below
    except OSError as error:
        raise FileOpenError(f"cannot open {path}: {error.strerror}") from None
    with handle:
        yield handle


def _is_gzip(path: str) -> bool:
    with open(path, "rb") as raw:
        return raw.read(2) == b"\x1f\x8b"
