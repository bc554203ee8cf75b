"""The new-game screen: players, who is a person, computer levels, rules, match, language, pace, the coach."""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Input, Label, Select, Static

from elferraus.bots import BOTS
from elferraus.i18n import LANGUAGES, Lang, format_number, tr
from elferraus.rules import PRESETS
from elferraus.table.seating import PERSON
from elferraus.tui.choices import MAX_SEATS, SetupChoices
from elferraus.tui.footer import KeyFooter
from elferraus.tui.keys import localize_bindings
from elferraus.tui.requests import CoachWanted, LanguageChosen, StartTable

LEVELS = (PERSON, "easy", "medium", "hard", "expert", "master", "greedy", "random")
LENGTHS = (1, 3, 5, 10)
SETUP_PACES = (0.0, 0.3, 0.6, 1.0, 1.5)
assert set(LEVELS) - {PERSON} == set(BOTS)


def level_label(level: str, lang: Lang) -> str:
    """A level's name on the new-game screen; the two yardsticks say they are."""
    name = tr(f"level_{level}", lang)
    return tr("level_baseline", lang, level=name) if level in ("random", "greedy") else name


def length_label(rounds: int, lang: Lang) -> str:
    """ "a single game" or "a match of N rounds"."""
    return tr("length_single", lang) if rounds == 1 else tr("length_rounds", lang, n=rounds)


def pace_label(seconds: float, lang: Lang) -> str:
    """How long a computer move takes, in words."""
    return tr("pace_option", lang, seconds=format_number(seconds, lang)) if seconds else tr("pace_instant", lang)


class SetupScreen(Screen[None]):
    """Choose the table, then start."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "start", "start", priority=True),
        Binding("f1", "app.help", "rules & keys"),
        Binding("escape", "app.quit", "quit"),
    ]
    DEFAULT_CSS = """
    SetupScreen { align: center top; overflow-y: auto; }
    SetupScreen #form { width: 100%; max-width: 78; height: auto; padding: 0 1; }
    SetupScreen #heading { text-style: bold; background: $primary-muted; padding: 0 1; margin-bottom: 1; }
    SetupScreen .line { height: 1; margin-bottom: 1; }
    SetupScreen .seat { height: 1; }
    SetupScreen Label { width: 21; padding-right: 2; }
    SetupScreen .seat Label { width: 9; }
    SetupScreen Select { width: 1fr; margin-right: 2; }
    SetupScreen #players { width: 8; }
    SetupScreen #lang { width: 14; }
    SetupScreen #coach { width: 10; margin-right: 0; }
    SetupScreen #coach-label { width: auto; }
    SetupScreen .seat Input { width: 28; margin-right: 2; }
    SetupScreen .seat Select { width: 24; }
    SetupScreen #seats { height: auto; margin-bottom: 1; }
    SetupScreen #hint { color: $text-muted; height: auto; margin-bottom: 1; }
    SetupScreen #error { color: $text-error; height: auto; }
    SetupScreen #buttons { height: 1; }
    SetupScreen #buttons Button { margin-right: 2; }
    SetupScreen.short #heading, SetupScreen.short .line, SetupScreen.short #seats, SetupScreen.short #hint {
        margin-bottom: 0; }
    """
    SHORT = 24
    """Below this many rows the form closes up its blank lines, so that it fits with its buttons (down to 20 rows)."""

    def __init__(self, choices: SetupChoices, lang: Lang, *, coach: bool = False) -> None:
        super().__init__()
        self.choices = choices
        self.lang: Lang = lang
        self.coach = coach
        """The coach's switch as the screen opens (a change is remembered at once, for every next game)."""

    def compose(self) -> ComposeResult:
        lang, c = self.lang, self.choices
        with Vertical(id="form"):
            yield Static(f"{tr('app_title', lang)} · {tr('setup_heading', lang)}", id="heading")
            with Horizontal(classes="line"):
                yield Label(tr("setup_players", lang))
                yield Select(
                    [(str(n), n) for n in range(2, 7)], value=c.players, id="players", allow_blank=False, compact=True
                )
                yield Label(tr("setup_language", lang))
                yield Select(
                    [(tr(f"language_{code}", lang), code) for code in LANGUAGES],
                    value=lang,
                    id="lang",
                    allow_blank=False,
                    compact=True,
                )
            with Horizontal(classes="line"):
                yield Label(tr("setup_rules", lang))
                yield Select(
                    [(tr(f"rules_{name}", lang), name) for name in PRESETS],
                    value=c.rules,
                    id="rules",
                    allow_blank=False,
                    compact=True,
                )
            with Horizontal(classes="line"):
                yield Label(tr("setup_length", lang))
                yield Select(
                    [(length_label(n, lang), n) for n in sorted({*LENGTHS, c.rounds})],
                    value=c.rounds,
                    id="rounds",
                    allow_blank=False,
                    compact=True,
                )
            with Horizontal(classes="line"):
                yield Label(tr("setup_pace", lang))
                yield Select(
                    [(pace_label(p, lang), p) for p in sorted({*SETUP_PACES, c.pace})],
                    value=c.pace,
                    id="pace",
                    allow_blank=False,
                    compact=True,
                )
                yield Label(tr("coach_title", lang), id="coach-label")
                yield Select(
                    [(tr("setting_on", lang), True), (tr("setting_off", lang), False)],
                    value=self.coach,
                    id="coach",
                    allow_blank=False,
                    compact=True,
                )
            with Vertical(id="seats"):
                for seat in range(MAX_SEATS):
                    with Horizontal(classes="seat", id=f"seat-{seat}"):
                        yield Label(tr("setup_seat", lang, n=seat + 1))
                        yield Input(
                            value=c.names[seat] or "",
                            placeholder=c.name(seat, lang),
                            id=f"name-{seat}",
                            max_length=20,
                            compact=True,
                        )
                        yield Select(
                            [(level_label(level, lang), level) for level in LEVELS],
                            value=c.levels[seat],
                            id=f"level-{seat}",
                            allow_blank=False,
                            compact=True,
                        )
            yield Static(tr("setup_hint", lang), id="hint", markup=False)
            yield Static("", id="error")
            with Horizontal(id="buttons"):
                yield Button(tr("setup_start", lang), id="start", variant="primary", compact=True)
                yield Button(tr("help_title", lang), id="help", compact=True)
                yield Button(tr("button_quit", lang), id="quit", compact=True)
        yield KeyFooter()

    def on_mount(self) -> None:
        lang = self.lang
        localize_bindings(self, lang, {"start": "key_start", "app.help": "key_help", "app.quit": "key_quit"})
        for menu in self.query("SelectOverlay"):  # each select's open list: its Esc in the footer, in our words
            localize_bindings(menu, lang, {"dismiss": "key_close_list"})
        self._fit(self.app.size.height)
        self._show_seats()
        start = self.query_one("#start", Button)
        start.focus()
        self.call_after_refresh(start.scroll_visible, animate=False)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.height)

    def _fit(self, height: int) -> None:
        self.set_class(height < self.SHORT, "short")

    def _show_seats(self) -> None:
        for seat in range(MAX_SEATS):
            self.query_one(f"#seat-{seat}").display = seat < self.choices.players
        for seat in range(MAX_SEATS):
            self.query_one(f"#name-{seat}", Input).placeholder = self.choices.name(seat, self.lang)

    @on(Select.Changed)
    def _changed(self, event: Select.Changed) -> None:
        select_id, value = event.select.id or "", event.value
        c = self.choices
        if select_id == "players" and isinstance(value, int):
            c.players = value
        elif select_id == "rules" and isinstance(value, str):
            c.rules = value
        elif select_id == "rounds" and isinstance(value, int):
            c.rounds = value
        elif select_id == "pace" and isinstance(value, float | int):
            c.pace = float(value)
        elif select_id.startswith("level-") and isinstance(value, str):
            c.levels[int(select_id.removeprefix("level-"))] = value
        elif select_id == "coach" and isinstance(value, bool) and value != self.coach:
            self.coach = value
            self.post_message(CoachWanted(value))
        elif select_id == "lang" and value in LANGUAGES and value != self.lang:
            self.post_message(LanguageChosen("de" if value == "de" else "en"))
            return
        self._show_seats()

    @on(Input.Changed)
    def _named(self, event: Input.Changed) -> None:
        seat = int((event.input.id or "name-0").removeprefix("name-"))
        self.choices.names[seat] = event.value.strip() or None

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.action_start()

    @on(Button.Pressed, "#start")
    def action_start(self) -> None:
        """Start the game with these choices."""
        self.post_message(
            StartTable(replace(self.choices, levels=list(self.choices.levels), names=list(self.choices.names)))
        )

    @on(Button.Pressed, "#help")
    async def _help(self) -> None:
        await self.run_action("app.help")

    @on(Button.Pressed, "#quit")
    def _quit(self) -> None:
        self.app.exit()
