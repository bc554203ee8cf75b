"""The page's scripts and styles as they go out: without their comments and indentation, line for line.

The files under ``static/`` are written to be read, with a comment wherever a choice needs its reason; a
browser needs none of that, and on a phone every kilobyte is waited for. ``compact`` takes away what no
browser reads and nothing else:

- a line that is only a comment (``// ...`` in a script, ``/* ... */`` in either) becomes an empty line;
- every other line loses its indentation and trailing spaces.

Every line is kept, so a line number in a browser's error is the source file's own. It works on whole
lines: a comment after code stays. Outside a string and a template literal, a line that starts with ``//``
or ``/*`` is a comment (no regular expression starts with ``/`` or ``*``); a string cannot span lines; and
a script with a template literal over several lines (whose spaces are its text) goes out as written.
"""

from __future__ import annotations

import hashlib
import os
from typing import Literal

from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.staticfiles import NotModifiedResponse, PathLike, StaticFiles
from starlette.types import Scope

Kind = Literal["script", "style"]
KINDS: dict[str, tuple[Kind, str]] = {
    ".js": ("script", "text/javascript; charset=utf-8"),
    ".css": ("style", "text/css; charset=utf-8"),
}
"""The files ``CompactStaticFiles`` compacts, by suffix: their kind and media type."""


def _backticks(line: str) -> int:
    """How many backticks ``line`` holds that no backslash escapes."""
    count = 0
    escaped = False
    for char in line:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "`":
            count += 1
    return count


def spans_lines(script: str) -> bool:
    """Whether a template literal of ``script`` may span lines: a line has an odd number of backticks."""
    return any(_backticks(line) % 2 for line in script.split("\n"))


def compact(text: str, kind: Kind) -> str:
    """``text`` (a script or a style sheet) without its comment lines and indentation, with as many lines."""
    if kind == "script" and spans_lines(text):
        return text
    out: list[str] = []
    in_comment = False
    for line in text.split("\n"):
        bare = line.strip()
        if in_comment:
            end = bare.find("*/")
            in_comment = end < 0
            # code after the comment's end stays as it was written
            out.append(line if not in_comment and bare[end + 2 :].strip() else "")
        elif kind == "script" and bare.startswith("//"):
            out.append("")
        elif bare.startswith("/*"):
            end = bare.find("*/", 2)
            in_comment = end < 0
            out.append(line if not in_comment and bare[end + 2 :].strip() else "")
        else:
            out.append(bare)
    return "\n".join(out)


class CompactStaticFiles(StaticFiles):
    """Starlette's static files, with every script and style sheet sent compacted (``compact``).

    Each is compacted once for each version of the file (its path, size and time of change) and sent with
    an ETag of what is sent, answered 304 when the browser has it; other files go out as Starlette sends them.
    """

    def __init__(self, *, directory: PathLike) -> None:
        super().__init__(directory=directory, check_dir=False)
        self._compacted: dict[tuple[str, int, int], tuple[bytes, str]] = {}

    def file_response(
        self, full_path: PathLike, stat_result: os.stat_result, scope: Scope, status_code: int = 200
    ) -> Response:
        """The file at ``full_path``, compacted if it is a script or a style sheet."""
        suffix = os.path.splitext(full_path)[1]
        if suffix not in KINDS:
            return super().file_response(full_path, stat_result, scope, status_code)
        kind, media_type = KINDS[suffix]
        key = (str(full_path), stat_result.st_size, stat_result.st_mtime_ns)
        if key not in self._compacted:
            with open(full_path, encoding="utf-8") as source:
                body = compact(source.read(), kind).encode()
            self._compacted = {k: v for k, v in self._compacted.items() if k[0] != key[0]}
            self._compacted[key] = (body, f'"{hashlib.sha256(body).hexdigest()[:32]}"')
        body, etag = self._compacted[key]
        response = Response(body, status_code=status_code, media_type=media_type, headers={"ETag": etag})
        if self.is_not_modified(response.headers, Headers(scope=scope)):
            return NotModifiedResponse(response.headers)
        return response


__all__ = ["KINDS", "CompactStaticFiles", "Kind", "compact", "spans_lines"]
