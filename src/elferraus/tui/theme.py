"""The terminal game's own look: a Textual theme and the tones of the four colours.

The tones follow DESIGN (dark background) with one change: the blue is a
little deeper than DESIGN's #6CA8FF, which a 16-colour terminal would show
as grey. Every tone falls on its own colour of the 16-colour palette (bright
red, yellow, green, blue), the accent that marks focus on magenta, a colour
no card has; the letter and symbol of each colour are always shown as well.

The rows lie on green felt inside a rim; every tone reads on the felt at
4.5 : 1 or better, and on 16 colours the felt falls on black and its rim on
green. A card in a hand is a chip: dark ink on its tone when it fits, its
tone on a dark chip when it does not (black on 16 colours). Card backs (the other players' fans,
the pile) are a light slate, a colour no card has.
"""

from __future__ import annotations

from collections.abc import Mapping

from textual.theme import Theme

TONES: Mapping[str, str] = {"R": "#FF6B5E", "Y": "#FFD75E", "G": "#5FD38D", "B": "#6E9BFF"}
"""Each colour's tone on the dark table."""

FOCUS = "#D67AD2"
"""The accent: focus and the player to move; magenta, unlike every card."""

FELT = "#173526"
"""The table's surface under the rows."""
FELT_RIM = "#228B22"
"""The felt's rim, the border round the rows."""
INK = "#14181F"
"""The text on a card chip that fits (its tone is the chip's background)."""
CHIP = "#222831"
"""A chip that does not fit now: its tone on this dark ground."""
CARD_BACK = "#A8B3C4"
"""The back of a card: the other players' fans and the pile."""

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
        "felt": FELT,
        "felt-rim": FELT_RIM,
        "card-back": CARD_BACK,
        "footer-key-foreground": FOCUS,
        "block-cursor-background": FOCUS,
        "block-cursor-foreground": "#14181F",
        "input-selection-background": f"{FOCUS} 35%",
    },
)
"""The theme every screen of the game uses (registered and chosen by the app)."""
