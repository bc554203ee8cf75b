"""Small screens over the table: rules and keys, quitting, handing the device over."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Static

from elferraus.i18n import Lang, tr
from elferraus.rules import Rules
from elferraus.tui.footer import KeyFooter
from elferraus.tui.keys import localize_bindings

QuitChoice = Literal["quit", "save", "cancel"]


def help_text(rules: Rules, lang: Lang) -> str:
    """The rules in short, for these rules, and the keys."""
    must_play = tr("help_must_play", lang) if rules.must_play else ""
    return tr("help_rules", lang, max_draws=rules.max_draws, must_play=must_play)


class HelpScreen(ModalScreen[None]):
    """The rules in short and every key."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,question_mark,enter", "dismiss", "close")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen #panel { width: 90%; max-width: 100; height: auto; max-height: 95%;
        border: thick $primary; background: $surface; padding: 0 1; }
    HelpScreen #panel Static { margin-bottom: 1; }
    HelpScreen .heading { text-style: bold; color: $text-accent; margin-bottom: 0; }
    """

    def __init__(self, rules: Rules, lang: Lang) -> None:
        super().__init__()
        self.rules = rules
        self.lang = lang

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="panel"):
            yield Static(tr("help_title", self.lang), classes="heading")
            yield Static(tr("help_keys", self.lang), markup=False)
            yield Static(help_text(self.rules, self.lang), markup=False)
            yield Button(tr("button_close", self.lang), id="close", compact=True)
        yield KeyFooter()

    def on_mount(self) -> None:
        localize_bindings(
            self, self.lang, {"dismiss": "key_close"}, {"q": False, "question_mark": False, "enter": False}
        )

    @on(Button.Pressed, "#close")
    def _close(self) -> None:
        self.dismiss(None)


class QuitScreen(ModalScreen[QuitChoice]):
    """Quit, save and quit, or carry on; says how a saved game continues.

    Args:
        lang: the language to speak.
        can_save: offer "save and quit".
        own: the game's own save file, if it has one (named in the command that continues it).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,n", "choose('cancel')", "cancel"),
        Binding("y,j", "choose('quit')", "quit"),
        Binding("s", "choose('save')", "save and quit"),
        Binding("left", "app.focus_previous", show=False),
        Binding("right", "app.focus_next", show=False),
    ]
    DEFAULT_CSS = """
    QuitScreen { align: center middle; }
    QuitScreen #panel { width: auto; max-width: 90%; height: auto; border: thick $warning; background: $surface;
        padding: 1 2; }
    QuitScreen #title { text-style: bold; }
    QuitScreen #command { color: $text-accent; padding-left: 2; }
    QuitScreen #buttons { height: auto; width: auto; margin-top: 1; }
    QuitScreen Button { margin-right: 2; }
    """

    def __init__(self, lang: Lang, *, can_save: bool, own: Path | None = None) -> None:
        super().__init__()
        self.lang = lang
        self.can_save = can_save
        self.own = own

    def compose(self) -> ComposeResult:
        lang = self.lang
        with Vertical(id="panel"):
            yield Static(tr("quit_title", lang), id="title", markup=False)
            if self.can_save:
                yield Static(tr("quit_body" if self.own is None else "quit_body_own", lang), markup=False)
                path = tr("save_file_word", lang) if self.own is None else str(self.own)
                yield Static(tr("resume_command", lang, path=path), id="command", markup=False)
            with Horizontal(id="buttons"):
                yield Button(tr("button_quit", lang), id="quit", variant="error", compact=True)
                if self.can_save:
                    yield Button(tr("button_save_quit", lang), id="save", variant="primary", compact=True)
                yield Button(tr("button_cancel", lang), id="cancel", compact=True)
        yield KeyFooter()

    def on_mount(self) -> None:
        words = {"choose('cancel')": "key_cancel", "choose('quit')": "key_quit", "choose('save')": "key_save_quit"}
        # the footer shows the key of the player's "yes" (y, or j for ja) and Esc for cancelling
        shown = {"y": self.lang == "en", "j": self.lang == "de", "n": False, "s": self.can_save}
        localize_bindings(self, self.lang, words, shown)
        self.query_one("#cancel", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        choice: QuitChoice = "quit" if event.button.id == "quit" else "save" if event.button.id == "save" else "cancel"
        self.dismiss(choice)

    def action_choose(self, choice: QuitChoice) -> None:
        """Answer with a key."""
        self.dismiss(choice)


class HandoffScreen(Screen[None]):
    """Pass-and-play: covers the whole table until the next person says it is him."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space", "dismiss", "show my cards", key_display="⏎"),
        Binding("question_mark,f1", "app.help", "rules & keys", key_display="?"),
        Binding("q,escape", "app.quit_game", "quit"),
    ]
    DEFAULT_CSS = """
    HandoffScreen { align: center middle; background: $background; }
    HandoffScreen #panel { width: auto; max-width: 90%; height: auto; border: thick $primary; background: $surface;
        padding: 1 2; }
    HandoffScreen #title { text-style: bold; margin-bottom: 1; }
    HandoffScreen Button { margin-top: 1; }
    """

    def __init__(self, name: str, lang: Lang) -> None:
        super().__init__()
        self.person = name
        self.lang = lang

    def compose(self) -> ComposeResult:
        with Vertical(id="panel"):
            yield Static(tr("handoff_title", self.lang, name=self.person), id="title", markup=False)
            yield Static(tr("handoff_body", self.lang, name=self.person), markup=False)
            yield Button(tr("handoff_button", self.lang, name=self.person), id="ready", variant="primary", compact=True)
        yield KeyFooter()

    def on_mount(self) -> None:
        localize_bindings(self, self.lang, {"dismiss": "key_show", "app.help": "key_help", "app.quit_game": "key_quit"})

    @on(Button.Pressed, "#ready")
    def _ready(self) -> None:
        self.dismiss(None)
