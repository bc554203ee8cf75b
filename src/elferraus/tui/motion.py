"""How much the table moves: Textual's animation level decides, so "reduced motion" is one setting.

``TEXTUAL_ANIMATIONS=none`` (or ``App.animation_level = "none"``) stills
everything: the hand is there at once, nothing flashes, the result sparkles
not. ``basic`` keeps the motion that tells something (the deal, a laid card
and the pile flashing, a drawn card marked new for a moment) and drops the
sparkle, which only decorates; ``full`` (Textual's default) shows it all.
Motion never holds the game up: it only draws what the table already is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.message_pump import MessagePump
from textual.timer import Timer

DEAL_SECONDS = 0.5
"""The whole deal of a hand, card by card, takes at most this long."""
DEAL_STEP = 0.04
"""The pause between two cards of the deal (shorter for a big hand, within ``DEAL_SECONDS``)."""
FLASH_SECONDS = 0.6
"""A laid card stands out in its slot, and the pile after a draw, for this long."""
NEW_SECONDS = 1.5
"""A drawn card is marked new in the hand for this long (without motion: until the next move)."""
SPARKLE_SECONDS = 1.6
"""The winner's sparkle on the result screen, then it stops."""
SPARKLE_STEP = 0.2


def moves(app: App[Any]) -> bool:
    """The table may move: deal, flash and mark for a moment (any level but ``none``)."""
    return app.animation_level != "none"


def sparkles(app: App[Any]) -> bool:
    """The result may sparkle (``full`` only: it tells nothing the banner does not)."""
    return app.animation_level == "full"


def deal_step(cards: int) -> float:
    """The pause between two cards when ``cards`` are dealt, so that the deal ends within ``DEAL_SECONDS``."""
    return min(DEAL_STEP, DEAL_SECONDS / max(cards, 1))


class Moment:
    """One timed thing a widget shows for a moment (a flash, a tag, a deal): starting it again ends the one
    under way, so two never overlap and a stopped one never fires."""

    def __init__(self, owner: MessagePump) -> None:
        self._owner = owner
        self._timer: Timer | None = None

    def after(self, seconds: float, then: Callable[[], None]) -> None:
        """Call ``then`` once, ``seconds`` from now (the moment under way, if any, ends first)."""
        self.stop()

        def end() -> None:
            self._timer = None
            then()

        self._timer = self._owner.set_timer(seconds, end)

    def every(self, seconds: float, step: Callable[[], None]) -> None:
        """Call ``step`` every ``seconds`` until ``stop`` (the moment under way, if any, ends first)."""
        self.stop()
        self._timer = self._owner.set_interval(seconds, step)

    def stop(self) -> None:
        """End the moment under way, if any: its callback does not come."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
