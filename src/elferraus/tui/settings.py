"""What the terminal game remembers between runs: whether the coach speaks, and whether a game was finished.

A small TOML file in the user's config folder (``$XDG_CONFIG_HOME/elferraus/settings.toml``, by default
``~/.config/elferraus/settings.toml`` on Linux). Reading and writing it never stops the game: a file that is
missing, unreadable, broken or of the wrong shape gives the defaults, and one that cannot be written is left
as it was.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

import platformdirs

SETTINGS_NAME = "settings.toml"


def default_settings_path() -> Path:
    """The settings file: ``settings.toml`` in the user's config folder for elferraus (not created here)."""
    return platformdirs.user_config_path("elferraus", appauthor=False) / SETTINGS_NAME


@dataclass(frozen=True)
class Settings:
    """What the terminal game remembers.

    Args:
        coach: the coach as the person last chose it (on or off), or None if he never chose.
        played: the person has finished a game.
    """

    coach: bool | None = None
    played: bool = False

    @property
    def coach_wanted(self) -> bool:
        """Whether the coach speaks at a new table: as last chosen, else until the first finished game.

        >>> Settings().coach_wanted, Settings(played=True).coach_wanted, Settings(False).coach_wanted
        (True, False, False)
        """
        return self.coach if self.coach is not None else not self.played


def read_settings(path: Path) -> Settings:
    """The settings in ``path``; the defaults for what is missing or not understood (never raises)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return Settings()
    coach = data.get("coach")
    played = data.get("played")
    return Settings(
        coach=coach if isinstance(coach, bool) else None,
        played=played if isinstance(played, bool) else False,
    )


def format_settings(settings: Settings) -> str:
    """The file's text for ``settings``.

    >>> print(format_settings(Settings(coach=False, played=True)), end="")
    # elferraus: the terminal game's settings
    coach = false
    played = true
    """
    lines = ["# elferraus: the terminal game's settings"]
    if settings.coach is not None:
        lines.append(f"coach = {'true' if settings.coach else 'false'}")
    lines.append(f"played = {'true' if settings.played else 'false'}")
    return "\n".join(lines) + "\n"


def write_settings(path: Path, settings: Settings) -> bool:
    """Write ``settings`` to ``path`` whole (a new file renamed over the old one); False if it cannot be written."""
    temporary: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".settings-", suffix=".toml", dir=path.parent)
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(format_settings(settings))
        os.replace(temporary, path)
    except OSError:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        return False
    return True


__all__ = ["Settings", "default_settings_path", "format_settings", "read_settings", "write_settings"]
