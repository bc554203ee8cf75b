"""What a screen of the terminal game asks of the app, as Textual messages: the screens never import the app.

A screen gets what it shows by its constructor and posts one of these; the
app (``app.py``) answers each in a handler of its own (``on_start_table``,
``on_round_over``, …), as Textual's messages bubble from a screen to its app.
"""

from __future__ import annotations

from textual.message import Message

from elferraus.i18n import Lang
from elferraus.tui.choices import SetupChoices


class StartTable(Message):
    """Seat a new table from the new-game screen's choices and show it."""

    def __init__(self, choices: SetupChoices) -> None:
        super().__init__()
        self.choices = choices


class LanguageChosen(Message):
    """Speak ``lang`` from now on (the new-game screen is drawn again in it)."""

    def __init__(self, lang: Lang) -> None:
        super().__init__()
        self.lang = lang


class CoachWanted(Message):
    """The person turned the coach on or off (remembered for the next games)."""

    def __init__(self, on: bool) -> None:
        super().__init__()
        self.on = on


class RoundOver(Message):
    """The table's round is over, scored by the table: save it if the game has a file, and show the result."""


class SaveWanted(Message):
    """The person asks to save the game (the save dialog asks where)."""


__all__ = ["CoachWanted", "LanguageChosen", "RoundOver", "SaveWanted", "StartTable"]
