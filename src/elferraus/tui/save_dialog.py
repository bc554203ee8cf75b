"""The save dialog: where to save the game, with the game's own file or a new one in the user's data folder first.

The dialog writes the file itself, so that a place that cannot be written is
said at once and can be changed on the spot; it never replaces a file other
than the game's own without a second press of Enter (or the button, which
then reads "Replace").
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from elferraus.i18n import Lang, tr
from elferraus.table.saving import save_destination, save_problem
from elferraus.tui.footer import KeyFooter
from elferraus.tui.keys import localize_bindings

WriteSave = Callable[[Path, bool], None]
"""Writes the save file at a path; the flag allows replacing a file that exists (see ``saving.save_game_file``)."""


class SaveDialog(ModalScreen[Path | None]):
    """Ask where to save; answers the path saved to, or None when cancelled.

    Args:
        lang: the language to speak.
        default: the path offered (and the name a folder gets a file by).
        write: writes the file (raises ``OSError`` when it cannot, ``FileExistsError`` for a file not to replace).
        own: the game's own save file, which is replaced without asking.
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "cancel")]
    DEFAULT_CSS = """
    SaveDialog { align: center middle; }
    SaveDialog #panel { width: 100%; max-width: 100; height: auto; border: thick $primary; background: $surface;
        padding: 1 2; }
    SaveDialog #title { text-style: bold; }
    SaveDialog #path { margin: 1 0 0 0; }
    SaveDialog #tip { color: $text-muted; }
    SaveDialog #problem { margin-top: 1; display: none; }
    SaveDialog #problem.error { display: block; color: $text-error; text-style: bold; }
    SaveDialog #problem.warning { display: block; color: $text-warning; text-style: bold; }
    SaveDialog #buttons { height: auto; width: auto; margin-top: 1; }
    SaveDialog Button { margin-right: 2; }
    """

    def __init__(self, lang: Lang, default: Path, write: WriteSave, *, own: Path | None = None) -> None:
        super().__init__()
        self.lang = lang
        self.default = default
        self.write = write
        self.own = own.absolute() if own is not None else None
        self.replacing: Path | None = None
        """The file the player was told exists: the next save replaces it."""

    def compose(self) -> ComposeResult:
        lang = self.lang
        with Vertical(id="panel"):
            yield Static(tr("save_title", lang), id="title", markup=False)
            yield Input(str(self.default), id="path", select_on_focus=False)
            yield Static(tr("save_tip", lang), id="tip", markup=False)
            yield Static("", id="problem", markup=False)
            with Horizontal(id="buttons"):
                yield Button(tr("button_save_file", lang), id="save", variant="primary", compact=True)
                yield Button(tr("button_cancel", lang), id="cancel", compact=True)
        yield KeyFooter()

    def on_mount(self) -> None:
        localize_bindings(self, self.lang, {"cancel": "key_cancel"})
        field = self.query_one("#path", Input)
        field.focus()
        field.cursor_position = len(field.value)

    @property
    def problem(self) -> str:
        """What the dialog says is in the way (empty when nothing is)."""
        return str(self.query_one("#problem", Static).content)

    def _tell(self, text: str, kind: str = "") -> None:
        problem = self.query_one("#problem", Static)
        problem.update(text)
        problem.set_classes(kind)

    @on(Input.Changed, "#path")
    def _changed(self) -> None:
        if self.replacing is not None or self.problem:
            self.replacing = None
            self.query_one("#save", Button).label = tr("button_save_file", self.lang)
            self._tell("")

    @on(Input.Submitted, "#path")
    @on(Button.Pressed, "#save")
    def action_save(self) -> None:
        """Save where the field says, unless a file is in the way (then say so, and replace it next time)."""
        lang = self.lang
        path = save_destination(self.query_one("#path", Input).value, self.default)
        try:
            self.write(path, path in (self.own, self.replacing))
        except FileExistsError:
            self.replacing = path
            self.query_one("#save", Button).label = tr("button_replace", lang)
            self._tell(tr("save_exists", lang, path=path), "warning")
            return
        except OSError as error:
            key, params = save_problem(path, error)
            self._tell(tr(key, lang, **params), "error")
            return
        self.dismiss(path)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        """Close without saving."""
        self.dismiss(None)
