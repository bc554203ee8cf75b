"""The page's service worker as it is served at ``/sw.js``: ``static/sw.js`` with its ``BUILD`` filled in,
compacted as the other scripts are (``compact``).

``BUILD`` is the list of the page's files the worker keeps and a version made
from their contents, so that any change of a file is a new worker with a new
cache, and nobody is left with an old file. Both are worked out again whenever
a file changes on disk (checked by size and time, not read on every request).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from elferraus.server.web.compact import compact

TEMPLATE = "sw.js"
PLACEHOLDER = "const BUILD = null;"
NOT_KEPT = {TEMPLATE, "index.html"}
"""Files of ``static/`` the worker does not keep under ``/static/``: itself, and the page (kept as ``/``).

Every other file of ``static/`` and its folders (``js/``, ``css/``, ``icons/``) is kept, under its path there."""

_Stamp = tuple[tuple[str, int, int], ...]


class ServiceWorker:
    """The worker's script for the files in ``static``, made anew when one of them changes."""

    def __init__(self, static: Path) -> None:
        self.static = static
        self._stamp: _Stamp = ()
        self._script = ""
        self._version = ""

    def _files(self) -> list[tuple[str, Path]]:
        """Every file of the page with its path in ``static`` (``js/app.js``), hidden files and folders left out."""
        found = []
        for path in self.static.rglob("*"):
            name = path.relative_to(self.static).as_posix()
            if path.is_file() and not any(part.startswith(".") for part in name.split("/")):
                found.append((name, path))
        return sorted(found)

    def _look(self) -> None:
        files = self._files()
        stamp = tuple((name, path.stat().st_size, path.stat().st_mtime_ns) for name, path in files)
        if stamp == self._stamp:
            return
        digest = hashlib.sha256()
        for name, path in files:
            digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
        version = digest.hexdigest()[:16]
        kept = [f"/static/{name}" for name, _path in files if name not in NOT_KEPT]
        template = (self.static / TEMPLATE).read_text(encoding="utf-8")
        if template.count(PLACEHOLDER) != 1:
            raise ValueError(f"{self.static / TEMPLATE} must hold the line {PLACEHOLDER!r} once")
        build = json.dumps({"version": version, "files": kept}, separators=(",", ":"))
        self._script = compact(template.replace(PLACEHOLDER, f"const BUILD = {build};"), "script")
        self._version = version
        self._stamp = stamp

    @property
    def version(self) -> str:
        """The version of the page's files now: 16 hex digits of a SHA-256 of every name and content."""
        self._look()
        return self._version

    def script(self) -> str:
        """The worker's JavaScript, for the files as they are now."""
        self._look()
        return self._script


__all__ = ["ServiceWorker"]
