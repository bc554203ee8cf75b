"""The terminal game: new-game screen, table, end of round, saving and resuming."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from elferraus.i18n import Lang, tr
from elferraus.table.saving import default_save_path, save_game_file, write_save_file
from elferraus.table.session import Seat, Table, TableSetup
from elferraus.tui.choices import SetupChoices
from elferraus.tui.dialogs import HelpScreen, QuitChoice, QuitScreen
from elferraus.tui.requests import CoachWanted, LanguageChosen, RoundOver, SaveWanted, StartTable
from elferraus.tui.result_screen import ResultChoice, ResultScreen
from elferraus.tui.save_dialog import SaveDialog
from elferraus.tui.settings import Settings, default_settings_path, read_settings, write_settings
from elferraus.tui.setup_screen import SetupScreen
from elferraus.tui.table_screen import TableScreen
from elferraus.tui.theme import THEME

HANGUP_CHECK_SECONDS = 1.0
"""How often the game looks whether its terminal is still there."""
HANGUP_EXIT_CODE = 129
"""The exit code once the terminal is gone (128 + SIGHUP, as if the hang-up had ended the game)."""


def _on_a_terminal() -> bool:
    """True while the game's standard input is a terminal (False if it never was, or once it hung up)."""
    stdin = sys.__stdin__
    try:
        return stdin is not None and stdin.isatty()
    except ValueError:  # closed
        return False


class ElferRausApp(App[None]):
    """Elfer raus! in the terminal.

    Args:
        choices: what the new-game screen starts with.
        lang: the language to speak.
        table: a table to resume (skips the new-game screen).
        save_path: the game's own save file (replaced without asking); without one, "save" offers a new file
            in the user's data folder.
        seed: the first deal's seed (default: a new one each time).
        start: go straight to the table with ``choices`` instead of showing the new-game screen.
        settings_path: the file the game's settings are kept in between runs (default: ``settings.toml`` in
            the user's config folder).
    """

    TITLE = "Elfer raus!"
    ENABLE_COMMAND_PALETTE = False
    CSS = """
    /* Focus is plain to see on every screen: the accent colour, never a shade of the background. */
    Button:focus { background: $accent; color: $text; text-style: bold; }
    Input:focus, Select:focus > SelectCurrent { background: $accent-muted; color: $text; text-style: bold; }
    HandView:focus { outline-left: wide $accent; }
    VerticalScroll:focus { border: thick $accent; }
    RichLog:focus { border-left: vkey $accent; }
    .narrow RichLog:focus { border-left: none; border-top: hkey $accent; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+c,ctrl+q", "quit_game", "quit", show=False, priority=True)]

    def __init__(
        self,
        choices: SetupChoices | None = None,
        *,
        lang: Lang = "en",
        table: Table | None = None,
        save_path: str | None = None,
        seed: int | None = None,
        start: bool = False,
        settings_path: Path | None = None,
    ) -> None:
        super().__init__()
        self.register_theme(THEME)
        self.theme = THEME.name
        self.choices = choices or SetupChoices()
        self.lang: Lang = lang
        self._table = table
        self.save_path = save_path
        self._seed = seed
        self._start = start
        self.settings_path = settings_path if settings_path is not None else default_settings_path()
        self.settings: Settings = read_settings(self.settings_path)
        """What the game remembers between runs (the coach); a broken file gives the defaults."""

    @property
    def table(self) -> Table:
        """The table being played."""
        assert self._table is not None, "no table yet"
        return self._table

    def on_mount(self) -> None:
        if not self.is_headless and _on_a_terminal():
            self.set_interval(HANGUP_CHECK_SECONDS, self._leave_if_hung_up)
        if self._table is not None:
            self.push_screen(self._table_screen_for(self._table))
        elif self._start:
            self.start_table(self.choices)
        else:
            self.push_screen(self._setup_screen())

    def _leave_if_hung_up(self) -> None:
        # A closed terminal window sends SIGHUP only to its session's leader: under `make play` that is make,
        # which waits for the game, and the game's input thread then reads end-of-file without end (a core at
        # full load). So the game leaves by itself once its terminal is gone.
        if not _on_a_terminal():
            self.exit(return_code=HANGUP_EXIT_CODE)

    # -- starting -------------------------------------------------------------

    def start_table(self, choices: SetupChoices) -> None:
        """Seat a new table from the new-game choices and show it."""
        self.choices = choices
        seed = self._seed if self._seed is not None else random.SystemRandom().randrange(2**62)
        self._seed = None  # a given seed is for the first deal only; "play again" deals anew
        seats = tuple(
            Seat(choices.name(seat, self.lang), None if choices.levels[seat] == "human" else choices.levels[seat])
            for seat in range(choices.players)
        )
        self._table = Table(TableSetup(seats, choices.rules, choices.rounds, seed=seed))
        self.switch_or_push(self._table_screen_for(self._table))

    def _table_screen_for(self, table: Table) -> TableScreen:
        """The table's screen, with the coach on until the person's first finished game, or as he chose."""
        return TableScreen(table, self.lang, self.choices.pace, coach=self.settings.coach_wanted)

    def _setup_screen(self) -> SetupScreen:
        return SetupScreen(self.choices, self.lang, coach=self.settings.coach_wanted)

    def switch_or_push(self, screen: TableScreen) -> None:
        """Show ``screen`` in place of the current one (or on top of the default screen)."""
        if len(self.screen_stack) > 1:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def on_start_table(self, request: StartTable) -> None:
        self.start_table(request.choices)

    def on_language_chosen(self, request: LanguageChosen) -> None:
        self.lang = request.lang
        self.switch_screen(self._setup_screen())

    def on_coach_wanted(self, request: CoachWanted) -> None:
        self._remember(replace(self.settings, coach=request.on))

    def _remember(self, settings: Settings) -> None:
        """Keep ``settings`` for the next runs (a file that cannot be written changes nothing but this run)."""
        self.settings = settings
        write_settings(self.settings_path, settings)

    # -- the end of a round ---------------------------------------------------

    def on_round_over(self, request: RoundOver) -> None:
        self.round_over()

    def round_over(self) -> None:
        """The round is over (the table has scored it): save it if a file was given, and show the result."""
        table = self.table
        if table.people and not self.settings.played:
            self._remember(replace(self.settings, played=True))  # the coach waits to be asked from now on
        if self.save_path is not None:
            self.save_game(quiet=True)
        self.push_screen(ResultScreen(table, self.lang), self._after_result)

    def _after_result(self, choice: ResultChoice | None) -> None:
        if choice == "next":
            self.table.next_round()
            self._table_screen().new_round()
        elif choice == "again":
            self.start_table(self.choices)
        elif choice == "new":
            self.switch_screen(self._setup_screen())
        elif choice == "quit":
            self.exit()

    def _table_screen(self) -> TableScreen:
        for screen in reversed(self.screen_stack):
            if isinstance(screen, TableScreen):
                return screen
        raise LookupError("no table on screen")

    # -- saving ---------------------------------------------------------------

    def on_save_wanted(self, request: SaveWanted) -> None:
        self.save_game()

    def save_game(self, *, quiet: bool = False, then: Callable[[], None] | None = None) -> None:
        """Save the match so far (the file is replaced whole).

        ``quiet``: the end of a round, written to the game's own file (``--save``,
        ``--resume`` or the last save), if it has one, without asking. Otherwise the
        save dialog asks where, offering the game's own file or a new one in the
        user's data folder; ``then`` runs once the game is saved.
        """
        own = Path(self.save_path) if self.save_path is not None else None
        if quiet:
            if own is not None:
                try:
                    write_save_file(own, self.table.records())
                except OSError as error:
                    self.notify(tr("save_failed", self.lang, path=own, error=error.strerror or error), severity="error")
            return

        def write(path: Path, replace: bool) -> None:
            save_game_file(path, self.table.records(), replace=replace)

        def saved(path: Path | None) -> None:
            if path is None:
                self.notify(tr("save_cancelled", self.lang), timeout=3)
                return
            self.save_path = str(path)
            self.notify(tr("save_hint", self.lang, path=path), timeout=4)
            if then is not None:
                then()

        self.push_screen(SaveDialog(self.lang, own or default_save_path(), write, own=own), saved)

    # -- app-wide keys --------------------------------------------------------

    def action_help(self) -> None:
        """Show the rules and the keys."""
        if isinstance(self.screen, HelpScreen):
            return
        rules = self.table.game.rules if self._table is not None else None
        from elferraus.rules import Rules

        self.push_screen(HelpScreen(rules or Rules.preset(self.choices.rules), self.lang))

    def action_quit_game(self) -> None:
        """Ask before quitting a game under way."""
        if isinstance(self.screen, QuitScreen):
            return
        in_game = self._table is not None and not self.table.game.is_over()
        if not in_game:
            self.exit()
            return
        own = Path(self.save_path).absolute() if self.save_path is not None else None
        self.push_screen(QuitScreen(self.lang, can_save=True, own=own), self._after_quit)

    def _after_quit(self, choice: QuitChoice | None) -> None:
        if choice == "quit":
            self.exit()
        elif choice == "save":
            self.save_game(then=self._exit_saved)

    def _exit_saved(self) -> None:
        """Leave, saying where the game is and how it continues."""
        path = self.save_path
        self.exit(message=f"{tr('save_hint', self.lang, path=path)}\n{tr('resume_later', self.lang, path=path)}")
