"""The end of a round: the winner, everybody's cards and points, the match table."""

from __future__ import annotations

from typing import ClassVar, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, DataTable, Footer, Static

from elferraus.i18n import Lang, tr
from elferraus.session import Table
from elferraus.tui.keys import localize_bindings
from elferraus.words import hand_text

MAX_ROUND_COLUMNS = 5
"""The match table shows the points of this many most recent rounds, then the totals."""

ResultChoice = Literal["next", "again", "new", "quit"]


def winner_line(table: Table, lang: Lang) -> str:
    """Who won the round (and the match, once it is over)."""
    game = table.game
    winner = game.winner
    assert winner is not None
    alone = table.people == (winner,)
    lines = [tr("winner_you", lang) if alone else tr("winner_other", lang, name=table.names[winner])]
    match = table.match
    if match.is_over() and (table.setup.rounds > 1 or table.setup.target is not None):
        leaders = match.leaders()
        points = match.totals[leaders[0]]
        if len(leaders) > 1:
            names = ", ".join(table.names[seat] for seat in leaders)
            lines.append(tr("match_over_tie", lang, points=points, names=names))
        elif table.people == (leaders[0],):
            lines.append(tr("match_over_you", lang, points=points))
        else:
            lines.append(tr("match_over_other", lang, name=table.names[leaders[0]], points=points))
    return "\n".join(lines)


class ResultScreen(Screen[ResultChoice]):
    """Shown when a round ends."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "default", "continue", show=False),
        Binding("s", "save", "save"),
        Binding("n", "choose('new')", "new game"),
        Binding("q", "choose('quit')", "quit"),
    ]
    DEFAULT_CSS = """
    ResultScreen { align: center top; }
    ResultScreen #panel { width: auto; max-width: 100%; height: auto; padding: 0 1; }
    ResultScreen #title { text-style: bold; background: $primary-muted; padding: 0 1; }
    ResultScreen #winner { text-style: bold; color: $text-success; margin: 1 0; }
    ResultScreen DataTable { height: auto; max-height: 12; margin-bottom: 1; }
    ResultScreen #buttons { height: 1; width: auto; }
    ResultScreen #buttons Button { margin-right: 2; }
    """

    def __init__(self, table: Table, lang: Lang) -> None:
        super().__init__()
        self.table = table
        self.lang = lang

    def compose(self) -> ComposeResult:
        table, lang = self.table, self.lang
        number = len(table.match.scores)
        with Vertical(id="panel"):
            single = table.setup.rounds == 1 and table.setup.target is None
            title = tr("result_title_single", lang) if single else tr("result_title", lang, round=number)
            yield Static(f"{tr('app_title', lang)} · {title}", id="title")
            yield Static(winner_line(table, lang), id="winner", markup=False)
            yield DataTable(id="scores", cursor_type="none", zebra_stripes=True)
            with Horizontal(id="buttons"):
                if table.match.is_over():
                    yield Button(tr("button_play_again", lang), id="again", variant="primary", compact=True)
                else:
                    yield Button(tr("button_next_round", lang), id="next", variant="primary", compact=True)
                yield Button(tr("button_save", lang), id="save", compact=True)
                yield Button(tr("button_new_game", lang), id="new", compact=True)
                yield Button(tr("button_quit", lang), id="quit", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        table, lang = self.table, self.lang
        localize_bindings(self, lang, {"save": "key_save", "choose('new')": "key_new", "choose('quit')": "key_quit"})
        scores = self.query_one("#scores", DataTable)
        scores.can_focus = False  # a table to read, not to move in: Tab goes from button to button
        match = table.match
        several = len(match.scores) > 1 or table.setup.rounds > 1 or table.setup.target is not None
        shown_rounds = range(max(0, len(match.scores) - MAX_ROUND_COLUMNS), len(match.scores)) if several else range(0)
        columns = [tr("result_player", lang)]
        columns += [tr("round_short", lang, round=number + 1) for number in shown_rounds] or [tr("result_points", lang)]
        if several:
            columns.append(tr("result_total", lang))
        columns.append(tr("result_left", lang))
        scores.add_columns(*columns)
        last = match.scores[-1]
        for seat in sorted(range(table.players), key=lambda s: (match.totals[s], last[s])):
            row = [table.names[seat]]
            row += [str(match.scores[number][seat]) for number in shown_rounds] or [str(last[seat])]
            if several:
                row.append(str(match.totals[seat]))
            row.append(hand_text(table.game.hand(seat)))
            scores.add_row(*row)
        self.query_one("#buttons Button", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "save":
            self.action_save()
            return
        choice = event.button.id
        if choice in ("next", "again", "new", "quit"):
            self.dismiss(choice)  # type: ignore[arg-type]

    def action_default(self) -> None:
        """Enter: the next round, or a new match with the same table."""
        self.dismiss("again" if self.table.match.is_over() else "next")

    def action_choose(self, choice: ResultChoice) -> None:
        """Answer with a key."""
        self.dismiss(choice)

    def action_save(self) -> None:
        """Save the match so far."""
        from elferraus.tui.app import ElferRausApp

        assert isinstance(self.app, ElferRausApp)
        self.app.save_game()
