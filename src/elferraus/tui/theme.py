"""The terminal game's own look: a Textual theme and the tones of the four colours.

The tones follow DESIGN (dark background) with one change: the blue is a
little deeper than DESIGN's #6CA8FF, which a 16-colour terminal would show
as grey. Every tone falls on its own colour of the 16-colour palette (bright
red, yellow, green, blue), the accent that marks focus on magenta, a colour
no card has; the letter and symbol of each colour are always shown as well.
"""

from __future__ import annotations

from collections.abc import Mapping

from textual.theme import Theme

TONES: Mapping[str, str] = {"R": "#FF6B5E", "Y": "#FFD75E", "G": "#5FD38D", "B": "#6E9BFF"}
"""Each colour's tone on the dark table."""

FOCUS = "#D67AD2"
"""The accent: focus and the player to move; magenta, unlike every card."""

THEME = Theme(
    name="elferraus",
    primary="#4F6D8F",
    secondary="#3E5A4F",
    accent=FOCUS,
    foreground="#E6E1D6",
    background="#14181F",
    surface="#1C222B",
    panel="#262E3A",
    success="#8FD18A",
    warning="#E9A23B",
    error="#F0716A",
    dark=True,
    variables={
        "card-red": TONES["R"],
        "card-yellow": TONES["Y"],
        "card-green": TONES["G"],
        "card-blue": TONES["B"],
        "footer-key-foreground": FOCUS,
        "block-cursor-background": FOCUS,
        "block-cursor-foreground": "#14181F",
        "input-selection-background": f"{FOCUS} 35%",
    },
)
"""The theme every screen of the game uses (registered and chosen by the app)."""
