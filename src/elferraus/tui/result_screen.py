"""The end of a round: the winner celebrated, the standings (everybody's place, cards and points), the match so far,
what comes next.

The celebration is a banner, "★ Anna wins! ★", that sparkles for a moment and then stands still (at once under
reduced motion: see ``motion``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Button, Static

from elferraus.cards import Card
from elferraus.i18n import Lang, card_words, tr
from elferraus.table.session import Table
from elferraus.tui.footer import KeyFooter
from elferraus.tui.keys import localize_bindings
from elferraus.tui.motion import SPARKLE_SECONDS, SPARKLE_STEP, Moment, sparkles
from elferraus.tui.requests import SaveWanted
from elferraus.tui.theme import TONES

MAX_ROUND_COLUMNS = 5
"""The match table shows the points of this many most recent rounds, then the totals."""
NAME_WIDTH = 16
PLACE_WIDTH = 6
CARDS_WIDTH = 46
"""Room for the cards left in the round's table; a longer hand ends in "…"."""
MATCH_CARDS_WIDTH = 38
"""The same in a match, whose standings have a column more: the match's totals."""
SPARKS = "✦✧⋆·"
"""The sparkle around the winner's banner: each spark turns through these, one step at a time."""

ResultChoice = Literal["next", "again", "new", "quit"]


def is_match(table: Table) -> bool:
    """More than one round is played (a number of rounds, or up to a target score)."""
    return table.setup.rounds > 1 or table.setup.target is not None


def winner_line(table: Table, lang: Lang) -> str:
    """Who went out and won the round (and who won the match, once it is over)."""
    game = table.game
    winner = game.winner
    assert winner is not None
    alone = table.people == (winner,)
    number = len(table.match.scores)
    what = tr("result_the_round", lang, round=number) if is_match(table) else tr("result_the_game", lang)
    if alone:
        lines = [tr("result_out_you", lang, what=what)]
    else:
        lines = [tr("result_out_other", lang, name=table.names[winner], what=what)]
    match = table.match
    if match.is_over() and is_match(table):
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


def banner_line(table: Table, lang: Lang) -> str:
    """The celebration's words: who wins (the match, once it is over and one player leads it; else the round)."""
    match = table.match
    winner = table.game.winner
    assert winner is not None
    if match.is_over() and is_match(table) and len(match.leaders()) == 1:
        winner = match.leaders()[0]
    if table.people == (winner,):
        return tr("result_you_win", lang)
    return tr("result_wins", lang, name=table.names[winner])


def sparkle_content(banner: str, step: int | None) -> Content:
    """The banner, with sparks either side at ``step`` of the sparkle (None: still, the sparks gone)."""
    if step is None:
        return Content.styled(banner, "bold $text-success")
    sparks = [SPARKS[(step + offset) % len(SPARKS)] for offset in range(3)]
    left, right = " ".join(sparks), " ".join(reversed(sparks))
    return Content.assemble((left, "bold $accent"), " ", (banner, "bold $text-success"), " ", (right, "bold $accent"))


def standings(table: Table) -> list[tuple[int, int]]:
    """The places of the round: (place, seat), the one who went out first, then by points (the fewest first);
    players with the same points share a place, in seat order."""
    game = table.game
    points = game.penalties()
    winner = game.winner
    order = sorted(range(table.players), key=lambda s: (s != winner, points[s], s))
    places: list[tuple[int, int]] = []
    for index, seat in enumerate(order):
        tied = index > 1 and points[order[index - 1]] == points[seat]
        places.append((places[-1][0] if tied else index + 1, seat))
    return places


def next_line(table: Table, lang: Lang) -> str:
    """What comes next, and the key for it."""
    match = table.match
    if not match.is_over():
        number = len(match.scores) + 1
        if table.setup.target is not None:
            return tr("result_next_to", lang, round=number, target=table.setup.target)
        return tr("result_next_of", lang, round=number, rounds=table.setup.rounds)
    return tr("result_next_again", lang)


def cards_content(cards: Sequence[Card], width: int = CARDS_WIDTH, lang: Lang = "en") -> Content:
    """A hand left at the end: each card in its colour's tone, the colours apart; cut with "…" past ``width``."""
    parts: list[tuple[str, str] | str] = []
    used = 0
    previous: Card | None = None
    for index, card in enumerate(sorted(cards, key=lambda c: c.index)):
        gap = "" if previous is None else "  " if previous.color != card.color else " "
        text = card_words(card, lang)
        if used + len(gap) + len(text) > width - (2 if index < len(cards) - 1 else 0):
            parts.append(" …")
            break
        parts += [gap, (text, f"bold {TONES[card.color.value]}")]
        used += len(gap) + len(text)
        previous = card
    return Content.assemble(*parts)


def _cell(text: str, width: int, *, right: bool = False) -> str:
    text = text if len(text) <= width else text[: width - 1] + "…"
    return text.rjust(width) if right else text.ljust(width)


def round_content(table: Table, lang: Lang) -> Content:
    """The standings of this round: each player's place, cards left and penalty points, the one who went out first
    on top (``★``); in a match also his total so far."""
    game = table.game
    points = game.penalties()
    totals = table.match.totals if is_match(table) else None
    width = CARDS_WIDTH if totals is None else MATCH_CARDS_WIDTH
    head: list[tuple[str, str] | str] = [
        (_cell(tr("result_place", lang), PLACE_WIDTH), "bold $text-muted"),
        (_cell(tr("result_player", lang), NAME_WIDTH), "bold $text-muted"),
        (_cell(tr("result_left", lang), width), "bold $text-muted"),
        (_cell(tr("result_points", lang), 8, right=True), "bold $text-muted"),
    ]
    if totals is not None:
        head.append((_cell(tr("result_total", lang), 8, right=True), "bold $text-muted"))
    lines = [Content.assemble(*head)]
    for place, seat in standings(table):
        hand = game.hand(seat)
        first = seat == game.winner
        star = ("★ ", "bold $text-success") if first else "  "
        name = (_cell(table.names[seat], NAME_WIDTH), "bold" if first else "")
        left = (
            cards_content(hand, width, lang=lang)
            if hand
            else Content.styled(tr("result_went_out", lang), "bold $text-success")
        )
        padding = " " * max(width - len(left.plain), 0)
        parts: list[Content | tuple[str, str] | str] = [
            star,
            (_cell(f"{place}.", PLACE_WIDTH - 2), "bold" if first else ""),
            name,
            left,
            padding,
            (_cell(str(points[seat]), 8, right=True), "bold"),
        ]
        if totals is not None:
            parts.append(_cell(str(totals[seat]), 8, right=True))
        lines.append(Content.assemble(*parts))
    return Content("\n").join(lines)


def match_content(table: Table, lang: Lang) -> Content:
    """The match so far: each player's points per round (the latest few) and his total, the lowest first."""
    match = table.match
    shown = range(max(0, len(match.scores) - MAX_ROUND_COLUMNS), len(match.scores))
    header_parts: list[tuple[str, str] | str] = [(_cell(tr("result_player", lang), NAME_WIDTH), "bold $text-muted")]
    header_parts += [
        (_cell(tr("result_round_column", lang, round=n + 1), 9, right=True), "bold $text-muted") for n in shown
    ]
    header_parts.append((_cell(tr("result_total", lang), 8, right=True), "bold $text-muted"))
    lines = [Content.assemble(*header_parts)]
    totals = match.totals
    best = min(totals)
    for seat in sorted(range(table.players), key=lambda s: (totals[s], s)):
        leads = totals[seat] == best
        parts: list[tuple[str, str] | str] = [(_cell(table.names[seat], NAME_WIDTH), "bold" if leads else "")]
        parts += [_cell(str(match.scores[n][seat]), 9, right=True) for n in shown]
        parts.append((_cell(str(totals[seat]), 8, right=True), "bold"))
        if leads:
            parts.append((f"  {tr('result_leads', lang)}", "$text-accent"))
        lines.append(Content.assemble(*parts))
    return Content("\n").join(lines)


def match_title(table: Table, lang: Lang) -> str:
    """The match table's title: after which round, of how many (or to how many points)."""
    number = len(table.match.scores)
    if table.setup.target is not None:
        return tr("result_match_to", lang, round=number, target=table.setup.target)
    return tr("result_match_of", lang, round=number, rounds=table.setup.rounds)


class ResultScreen(Screen[ResultChoice]):
    """Shown when a round ends."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "default", "continue", show=False),
        Binding("s", "save", "save"),
        Binding("n", "choose('new')", "new game"),
        Binding("q", "choose('quit')", "quit"),
        Binding("left", "app.focus_previous", show=False),
        Binding("right", "app.focus_next", show=False),
    ]
    DEFAULT_CSS = """
    ResultScreen { align: center middle; }
    ResultScreen #panel { width: 82; max-width: 100%; height: auto; max-height: 100%; }
    ResultScreen #title { text-style: bold; background: $primary-muted; padding: 0 1; }
    ResultScreen #banner { width: 100%; text-align: center; margin-top: 1; }
    ResultScreen #winner { text-style: bold; color: $text-success; padding: 0 1; margin: 0 0 1 0; }
    ResultScreen.crowded #banner { display: none; }  /* six lines of standings: the banner joins the title */
    ResultScreen.crowded #title { text-wrap: nowrap; text-overflow: ellipsis; }
    ResultScreen .box { height: auto; padding: 0 1; border: round $primary-muted; border-title-color: $text;
        border-title-style: bold; }
    ResultScreen.crowded #winner { margin: 0; }
    ResultScreen #match { margin-top: 1; }
    ResultScreen.crowded #match { margin-top: 0; }
    ResultScreen #then { padding: 0 1; margin-top: 1; color: $text-accent; }
    ResultScreen.crowded #then { margin-top: 0; }
    ResultScreen #buttons { height: 1; width: auto; padding: 0 1; }
    ResultScreen #buttons Button { margin-right: 2; }
    """

    def __init__(self, table: Table, lang: Lang) -> None:
        super().__init__()
        self.table = table
        self.lang = lang
        self.title_text = ""
        self.sparkle: int | None = None
        """The sparkle's step while the banner sparkles, None once it stands still."""
        self._sparkling = Moment(self)

    def compose(self) -> ComposeResult:
        table, lang = self.table, self.lang
        number = len(table.match.scores)
        with Vertical(id="panel"):
            title = tr("result_title", lang, round=number) if is_match(table) else tr("result_title_single", lang)
            self.title_text = f"{tr('app_title', lang)} · {title}"
            yield Static(self.title_text, id="title")
            yield Static(sparkle_content(banner_line(table, lang), None), id="banner")
            yield Static(winner_line(table, lang), id="winner", markup=False)
            scores = Static(round_content(table, lang), id="round", classes="box")
            scores.border_title = tr("result_this_round", lang) if is_match(table) else tr("result_this_game", lang)
            yield scores
            if is_match(table):
                totals = Static(match_content(table, lang), id="match", classes="box")
                totals.border_title = match_title(table, lang)
                yield totals
            yield Static(next_line(table, lang), id="then", markup=False)
            with Horizontal(id="buttons"):
                if table.match.is_over():
                    yield Button(tr("button_play_again", lang), id="again", variant="primary", compact=True)
                else:
                    yield Button(tr("button_next_round", lang), id="next", variant="primary", compact=True)
                yield Button(tr("button_save", lang), id="save", compact=True)
                yield Button(tr("button_new_game", lang), id="new", compact=True)
                yield Button(tr("button_quit", lang), id="quit", compact=True)
        yield KeyFooter()

    def on_mount(self) -> None:
        lang = self.lang
        localize_bindings(self, lang, {"save": "key_save", "choose('new')": "key_new", "choose('quit')": "key_quit"})
        self.set_class(is_match(self.table) and self.table.players > 4, "crowded")
        self.query_one("#buttons Button", Button).focus()
        self._draw_banner()
        if sparkles(self.app):
            self.sparkle = 0
            self._draw_banner()
            self._sparkling.every(SPARKLE_STEP, self._sparkle_on)

    def _sparkle_on(self) -> None:
        """One step of the sparkle; after the last, the banner stands still."""
        if self.sparkle is None:
            return
        self.sparkle += 1
        if self.sparkle >= round(SPARKLE_SECONDS / SPARKLE_STEP):
            self.sparkle = None
            self._sparkling.stop()
        self._draw_banner()

    def _draw_banner(self) -> None:
        banner = sparkle_content(banner_line(self.table, self.lang), self.sparkle)
        if self.has_class("crowded"):
            self.query_one("#title", Static).update(Content.assemble(self.title_text, "   ", banner))
        else:
            self.query_one("#banner", Static).update(banner)

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
        self.post_message(SaveWanted())
