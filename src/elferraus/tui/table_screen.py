"""The table: rows, hands, the other players, and the turns being played.

One driver runs the game forward: computer players think in a worker thread
(so the screen never freezes) and act one step at a time at the chosen pace;
it stops whenever a person must act. Every change to the game happens in the
driver or in a key handler while the driver waits, never both at once.

What moves on the table (``motion``) follows the moves made: a new hand is
dealt card by card, a laid card stands out in its slot, the pile after a
draw, and a card the person drew is tagged new. It only draws; the driver
never waits for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, RichLog, Static
from textual.worker import Worker, get_current_worker

from elferraus.bots import Advice
from elferraus.cards import Card
from elferraus.errors import IllegalMoveError
from elferraus.i18n import Lang, cards_in_words, explain, format_number, sentence, tr
from elferraus.moves import DRAW, PASS, Move
from elferraus.table.coach import moment, tip_of
from elferraus.table.hints import hint_line
from elferraus.table.session import Table
from elferraus.table.words import (
    last_lay,
    log_line,
    made_for_coming_line,
    made_for_done_line,
    pile_words,
    status_line,
    title_line,
)
from elferraus.tui.dialogs import HandoffScreen
from elferraus.tui.footer import KeyFooter
from elferraus.tui.keys import localize_bindings
from elferraus.tui.motion import FLASH_SECONDS, NEW_SECONDS, Moment, deal_step, moves
from elferraus.tui.requests import CoachWanted, RoundOver, SaveWanted
from elferraus.tui.widgets import (
    ActionButton,
    CoachPanel,
    HandView,
    MoveLog,
    OpponentsView,
    RowsView,
    pile_at_deal,
    seat_lines,
)

WIDE = 112
"""From this many columns on, the move log sits beside the table instead of below it."""
MIN_SIZE = (80, 24)
"""The smallest terminal the table fits in; below it the screen says so instead of cutting the table off."""
PACES = (0.0, 0.2, 0.4, 0.6, 1.0, 1.5, 2.5)
_TABLE_ACTIONS = frozenset(
    {
        "cursor",
        "cursor_fitting",
        "go",
        "draw",
        "end_turn",
        "hint",
        "undo",
        "undo_refused",
        "refused",
        "coach",
        "coach_ok",
        "coach_quiet",
    }
)
_MOVES = {"draw": DRAW, "end_turn": PASS}
"""The footer's moves other than laying a card."""


class TableScreen(Screen[None]):
    """The game being played."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "cursor(-1)", "←", show=False),
        Binding("right", "cursor(1)", "→", show=False),
        Binding("up", "cursor_fitting(-1)", show=False),
        Binding("down", "cursor_fitting(1)", show=False),
        Binding("enter", "go", "lay", key_display="⏎"),
        Binding("space", "skip", "skip", key_display="Space"),
        Binding("d,z", "draw", "draw"),
        Binding("e,b,p", "end_turn", "end turn"),
        Binding("h", "hint", "hint"),
        Binding("u", "undo", "undo"),
        # a key whose action is shown disabled still answers, saying why not
        Binding("d,z", "refused('draw')", show=False),
        Binding("e,b,p", "refused('end_turn')", show=False),
        Binding("h", "refused('hint')", show=False),
        Binding("u", "undo_refused", show=False),
        Binding("x", "coach_ok", "got it"),
        Binding("c", "coach", "coach"),
        Binding("c", "coach_quiet", show=False),  # c on a narrow screen while the coach's note names it
        Binding("s", "save", "save", show=False),
        Binding("plus,equals_sign", "pace(1)", "slower", show=False),
        Binding("minus", "pace(-1)", "faster", show=False),
        Binding("question_mark,f1", "app.help", "rules & keys", key_display="?"),
        Binding("q", "app.quit_game", "quit"),
    ]

    DEFAULT_CSS = """
    TableScreen { align: center middle; }
    TableScreen #body { layout: horizontal; width: 100%; max-width: 140; height: 100%; max-height: 26;
        background: $surface; }
    TableScreen.narrow #body { layout: vertical; max-width: 82; max-height: 26; }
    TableScreen #main { width: 82; height: auto; }
    TableScreen.narrow #main { width: 100%; }
    TableScreen #title { height: 1; padding: 0 1; background: $primary-muted; color: $text; text-style: bold; }
    TableScreen #status { height: auto; padding: 0 1; text-style: bold; }
    TableScreen #status.error { color: $text-error; }
    TableScreen #status.auto { color: $text-warning; }
    TableScreen #note { height: auto; padding: 0 1; color: $text-accent; }
    TableScreen #actions { height: 1; padding: 0 1; }
    TableScreen #actions Button { margin-right: 1; }
    TableScreen #log { width: 1fr; height: 1fr; min-height: 3; overflow-y: auto;
        border-left: vkey $primary-muted; padding: 0 1; }
    TableScreen.narrow #log { width: 100%; border-left: none; border-top: hkey $primary-muted; }
    TableScreen.narrow #coach { margin-top: 0; }  /* its tint sets it apart; the line is the move log's */
    TableScreen #too-small { display: none; width: auto; max-width: 90%; height: auto; padding: 1 2;
        border: thick $warning; background: $surface; }
    TableScreen.too-small #body { display: none; }
    TableScreen.too-small #too-small { display: block; }
    """

    def __init__(self, table: Table, lang: Lang, pace: float, *, coach: bool = False) -> None:
        super().__init__()
        self.table = table
        """The table being played (the app deals its next round; "play again" gets a new screen)."""
        self.lang: Lang = lang
        self.pace = pace
        """Seconds each move made without the person's choice stays on screen (+ and - change it)."""
        self.viewer = 0
        """The seat whose cards are shown (the person to move, or the last one who did)."""
        self.hidden = False
        """Pass-and-play: the shown hand is covered until the next person takes over."""
        self._awaiting = False
        self._skip = asyncio.Event()
        self._uncovered = asyncio.Event()
        """Set while no dialog covers the table (the driver makes no move behind one)."""
        self._uncovered.set()
        self.waiting_for_dialog = False
        """The driver waits for a dialog over the table to close before its next move."""
        self._undo_requested = False
        self._logged = 0
        self.coach_on = coach
        """The coach tells each rule once a game, the first time it matters (c turns it on and off)."""
        self.coach_tip: str | None = None
        """The rule the coach's note shows (a catalogue key after ``coach_``), until x or a new rule."""
        self.coach_told: dict[int, list[str]] = {}
        """The rules told to each person this game, in order (pass-and-play: the coach speaks to each)."""
        self._tip_seat = 0
        self._coach_at: tuple[int, int, str | None] | None = None
        """The seat, move and moment the coach last looked at: a moment is told once, however often it is drawn."""
        self._seen = 0
        """The moves the table has shown (a lay flashes, a draw marks its card new, once each)."""
        self.new_card: Card | None = None
        """The card the person shown drew last, tagged new."""
        self._new_tag = Moment(self)
        self._pile_full = 0
        """The pile as the deal left it (the stack on the felt is drawn as high as the pile is full)."""
        self._fans_deal = Moment(self)

    @property
    def awaiting(self) -> bool:
        """A person is to move and the driver waits for a key."""
        return self._awaiting

    @awaiting.setter
    def awaiting(self, value: bool) -> None:
        if value != self._awaiting:
            self._awaiting = value
            self.refresh_bindings()  # the footer offers "lay" on the person's turn, "skip" while others play

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer shows what the person can do now, as the buttons do.

        Laying, drawing and ending the turn are for the person's own turn only; drawing and ending
        it are shown disabled while the rules forbid them, and so is the hint while others play
        (their keys then say why not). Skipping works only while the table plays on. While the
        terminal is too small to show the table, only help, pace and quitting work: nobody plays a
        card he cannot see.
        """
        if self.too_small and action in _TABLE_ACTIONS:
            return False
        choosing = self.awaiting and not self.hidden
        if action == "go":  # Enter lays the selected card only from the hand: on a button it presses the button
            return choosing and (self.focused is None or isinstance(self.focused, HandView))
        if action in _MOVES:
            return (True if self._allowed(action) else None) if choosing else False
        if action == "hint":
            return True if choosing else None
        if action == "refused":
            what = str(parameters[0])
            return not choosing if what == "hint" else choosing and not self._allowed(what)
        if action == "skip":
            return not self.awaiting and not self.table.game.is_over()
        if action == "undo":  # not offered with two people; disabled with nothing to take back ("u" says why)
            return False if len(self.table.people) != 1 else True if self._can_undo() else None
        if action == "undo_refused":
            return not self._can_undo()
        if action == "coach_ok":
            return self.coach_showing
        if action in ("coach", "coach_quiet"):  # on a narrow screen the note names c, and the footer has no room
            crowded = self.coach_showing and self.has_class("narrow")
            return crowded if action == "coach_quiet" else not crowded
        return True

    def _can_undo(self) -> bool:
        """The person alone with computers has a turn to take back (as the Undo button shows)."""
        table = self.table
        return len(table.people) == 1 and table.undo_target(self.viewer) is not None

    def _allowed(self, action: str) -> bool:
        """Whether the rules allow the footer's move ``action`` (drawing, ending the turn) now."""
        return _MOVES[action] in self.table.game.legal_moves()

    def compose(self) -> ComposeResult:
        lang = self.lang
        with Horizontal(id="body"):
            with Vertical(id="main"):
                yield Static(id="title")
                yield OpponentsView(id="opponents")
                yield RowsView(id="rows")
                yield Static(id="status")
                yield Static(id="note")
                yield HandView(id="hand", lang=lang)
                with Horizontal(id="actions"):
                    yield ActionButton(f"{tr('button_draw', lang)} ({self._key('d')})", "key_draw", lang, id="draw")
                    yield ActionButton(f"{tr('button_end', lang)} ({self._key('e')})", "key_end", lang, id="end")
                    yield ActionButton(f"{tr('button_hint', lang)} (h)", "key_hint", lang, id="hint")
                    yield ActionButton(f"{tr('button_undo', lang)} (u)", "key_undo", lang, id="undo")
                yield CoachPanel(id="coach")
            yield MoveLog(id="log", wrap=True, markup=False, auto_scroll=True)
        yield Static(id="too-small", markup=False)
        yield KeyFooter()

    def _key(self, english: str) -> str:
        german = {"d": "z", "e": "b"}
        return german[english] if self.lang == "de" else english

    def on_mount(self) -> None:
        self._relabel_bindings()
        self._fit(self.app.size.width, self.app.size.height)
        self.new_round()

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        """Lay the table out for a terminal of this size, or say that it is too small for it."""
        self.set_class(width < WIDE, "narrow")
        self.query_one(KeyFooter).compact = width < WIDE  # room for the coach's keys in 80 columns, also in German
        small = width < MIN_SIZE[0] or height < MIN_SIZE[1]
        if small:
            notice = tr("too_small", self.lang, need=f"{MIN_SIZE[0]}x{MIN_SIZE[1]}", size=f"{width}x{height}")
            self.query_one("#too-small", Static).update(notice)
        if small != self.too_small:
            self.set_class(small, "too-small")
            self.refresh_bindings()

    @property
    def too_small(self) -> bool:
        """The terminal is smaller than the table: a notice shows instead, and the game's keys wait."""
        return self.has_class("too-small")

    def _relabel_bindings(self) -> None:
        """Footer words in the player's language, showing the German keys (z, b) to German players."""
        lang = self.lang
        words = {
            "go": "key_lay",
            "skip": "key_skip",
            "draw": "key_draw",
            "end_turn": "key_end",
            "hint": "key_hint",
            "undo": "key_undo",
            "app.help": "key_help",
            "app.quit_game": "key_quit",
            "save": "key_save",
            "pace(1)": "key_slower",
            "pace(-1)": "key_faster",
            "coach": "key_coach",
            "coach_ok": "key_coach_ok",
        }
        shown = {"d": lang == "en", "z": lang == "de", "e": lang == "en", "b": lang == "de", "p": False}
        localize_bindings(self, lang, words, shown)

    # -- the round ------------------------------------------------------------

    def new_round(self) -> None:
        """Start showing the table's current game from its beginning."""
        table = self.table
        people = table.people
        self.viewer = people[0] if people else 0
        self.hidden = len(people) > 1
        self._logged = 0
        self.coach_told, self.coach_tip, self._coach_at = {}, None, None  # each rule once a game
        history = table.game.history()
        self._seen, self.new_card = len(history), None  # a resumed game flashes nothing it had before
        self._pile_full = pile_at_deal(table)
        self.query_one("#log", RichLog).clear()
        self._log_new_moves()  # a resumed game shows its history so far
        self.query_one("#note", Static).update("")
        self.refresh_table()
        if not history and moves(self.app):
            self._deal()
        self.query_one("#hand", HandView).focus()
        self.drive()

    def _deal(self) -> None:
        """Deal the new round's hands card by card: the person's hand grows, and the others' fans with it."""
        game = self.table.game
        counts = [len(game.hand(seat)) for seat in range(game.players)]
        step = deal_step(max(counts))
        if not self.hidden:
            self.query_one("#hand", HandView).deal(step)
        others = self.query_one("#opponents", OpponentsView)
        others.deal(0)

        def one_more() -> None:
            dealt = (others.dealt or 0) + 1
            others.deal(None if dealt >= max(counts) else dealt)
            if others.dealt is None:
                self._fans_deal.stop()

        self._fans_deal.every(step, one_more)

    @work(exclusive=True, group="drive")
    async def drive(self) -> None:
        """Do what the table says comes next until a person must choose or the round is over, at the chosen pace."""
        table = self.table
        worker = get_current_worker()
        making = False  # the last move was one made for the person
        while not self._stopped(worker):
            if self._undo_requested:
                self._undo_requested = False
                self._take_back()
            self.refresh_table()
            step = table.next_step()
            if step.kind in ("round_over", "match_over"):
                self.awaiting = False
                self.post_message(RoundOver())
                return
            assert step.seat is not None
            seat = step.seat
            if step.kind == "made_for_person" and (self.hidden or self.viewer != seat):
                assert step.move is not None
                await self._make_covered(seat, step.move)  # pass-and-play: no hand-over for a move nobody chooses
                making = False
                continue
            if step.kind == "ask" and (self.hidden or self.viewer != seat):
                self._skip.clear()
                self.hidden = True
                self.refresh_table()
                await self.app.push_screen_wait(HandoffScreen(table.names[seat], self.lang))
                self.viewer, self.hidden = seat, False
                continue
            if step.kind == "made_for_person":
                assert step.move is not None
                await self._make_for_person(seat, step.move, first=not making)
                making = True
                continue
            if step.kind == "ask":
                self._skip.clear()  # Space skips ahead to here, the person's next choice, and no further
                self.awaiting = True
                self.refresh_table()
                self.query_one("#hand", HandView).select_first_fitting()
                return
            making = False
            self.awaiting = False
            self._set_status(tr("status_thinking", self.lang, name=table.names[seat]) + " …")
            self.query_one("#note", Static).update("")  # a note of the person's turn never stays into another's
            started = time.perf_counter()
            move = await asyncio.to_thread(table.think)
            if self._stopped(worker):
                return
            await self._pause(self.pace - (time.perf_counter() - started))
            if not await self._ready_to_move():
                if self._stopped(worker):
                    return
                continue  # an undo
            self.query_one("#note", Static).update("")
            self._play(move)

    def _stopped(self, worker: Worker[None]) -> bool:
        """The driver is to stop: cancelled, or the app is closing (its screens may have lost their widgets)."""
        return worker.is_cancelled or not self.app.is_running

    async def _make_for_person(self, seat: int, move: Move, *, first: bool) -> None:
        """Make the person's only legal move, shown on its own at the computers' pace.

        The status line says what the move was once it is made; the pause before it shows the
        move before it: the one made for him just before, or (``first``) his own last move, or
        why his turn has no choice. A move that ends his turn is said (why it ends) while it is
        still his turn, for a pause of its own, and then made: once another seat is to move, the
        status line speaks of that seat, never of his turn gone by. Keys pressed meanwhile do
        nothing, now or later: the driver takes no key, and the person's own keys work only on
        his choice.
        """
        game = self.table.game
        before = game.view(seat)
        if first:
            self._set_status(made_for_coming_line(before, move, self.lang), made=True)
        await self._pause(self.pace)
        if not await self._ready_to_move():
            return
        trial = game.copy()
        trial.push(move)
        if trial.is_over() or trial.turn != seat:
            self._set_status(made_for_done_line(before, move, trial.view(seat), self.lang), made=True)
            await self._pause(self.pace)  # the turn ends with this move: let it be read before the others play
            if not await self._ready_to_move():
                return
            self._play(move)
            if not game.is_over() and len(self.table.people) > 1:
                self.hidden = True  # pass-and-play: his cards are covered as soon as his turn ends
            self.refresh_table()
            return
        self._play(move)
        self.refresh_table()
        self._set_status(made_for_done_line(before, move, game.view(seat), self.lang), made=True)

    async def _make_covered(self, seat: int, move: Move) -> None:
        """Pass-and-play: make a person's only legal move with the cards covered, as the others see it.

        Nobody is handed the device for a move he does not choose (the opening 11, a draw when nothing fits);
        the status line says whose turn it is, and the log shows the move as the others see it (no drawn card).
        """
        self.hidden = True
        self.refresh_table()
        self._set_status(tr("status_other", self.lang, name=self.table.names[seat]))
        await self._pause(self.pace)
        if await self._ready_to_move():
            self._play(move)

    async def _ready_to_move(self) -> bool:
        """After a pause, before the driver makes a move: wait while a dialog covers the table (nobody moves
        behind help, save or quit); False if the move is off (the driver stops, or an undo came first)."""
        worker = get_current_worker()
        if not self._uncovered.is_set():
            self.waiting_for_dialog = True
            try:
                await self._uncovered.wait()
            finally:
                self.waiting_for_dialog = False
        return not (self._undo_requested or self._stopped(worker))

    def on_screen_suspend(self) -> None:
        self._uncovered.clear()

    def on_screen_resume(self) -> None:
        self._uncovered.set()

    async def _pause(self, seconds: float) -> None:
        """Wait ``seconds`` unless the player skips."""
        if seconds <= 0 or self._skip.is_set():
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._skip.wait(), seconds)

    def _play(self, move: Move) -> None:
        """Make the move of the seat to move at the table (which checks it), and log it."""
        self.table.play(move)
        self._log_new_moves()

    def _log_new_moves(self) -> None:
        table = self.table
        single = len(table.people) == 1
        moves = table.game.public_moves(self.viewer)
        log = self.query_one("#log", RichLog)
        for text in moves[self._logged :]:
            line = log_line(text, table.names, self.lang, you=self.viewer if single else None, show_draws=single)
            log.write(cards_in_words(line, self.lang))
        self._logged = len(moves)

    # -- what the screen shows ------------------------------------------------

    def refresh_table(self) -> None:
        """Redraw everything from the game."""
        table, lang = self.table, self.lang
        game = table.game
        view = game.view(self.viewer)
        self.query_one("#title", Static).update(self._title())
        self.query_one("#opponents", OpponentsView).show(seat_lines(table, self.viewer, lang), lang)
        rows = self.query_one("#rows", RowsView)
        rows.show(view.rows, game.rules.colors, lang, last_lay(view.moves))
        rows.show_pile(pile_words(view.pile, lang), view.pile, self._pile_full)
        self._follow_moves()
        hand = self.query_one("#hand", HandView)
        count = len(view.hand)
        label = tr("hand_label_one" if count == 1 else "hand_label", lang, name=table.names[self.viewer], n=count)
        if self.hidden:
            hand.hide(tr("hand_hidden", lang), label)
        else:
            fitting = [move.card for move in view.legal if move.card is not None] if self.awaiting else []
            hand.show(view.hand, fitting, label)
            hand.mark_new(self.new_card if self.new_card in view.hand else None)
        if self.awaiting and not self.hidden:
            self._set_status(status_line(view, lang))
        elif not game.is_over() and not table.is_person(game.turn):
            self._set_status(tr("status_other", lang, name=table.names[game.turn]))
        legal = view.legal if self.awaiting and not self.hidden else ()
        self.query_one("#draw", Button).disabled = DRAW not in legal
        self.query_one("#end", Button).disabled = PASS not in legal
        self.query_one("#hint", Button).disabled = not legal
        undo = self.query_one("#undo", Button)
        undo.display = len(table.people) == 1  # taking back is for a person alone with computers: never offered else
        undo.disabled = table.undo_target(self.viewer) is None
        self._coach()
        self.refresh_bindings()  # the footer follows the buttons

    def _follow_moves(self) -> None:
        """Show what the moves made since the last look did: a lay flashes in its slot, a draw flashes the pile,
        and a card the person shown drew is tagged new (for a moment; without motion, until the next move)."""
        game = self.table.game
        count = game.move_count
        if count < self._seen:  # taken back
            self._seen, self.new_card = count, None
        if count == self._seen:
            return
        made = game.history()[self._seen :]
        self._seen = count
        self.new_card = None
        motion = moves(self.app)
        rows = self.query_one("#rows", RowsView)
        laid: Card | None = None
        for seat, move, drawn in made:
            laid = move.card or laid
            if move == DRAW:
                if motion:
                    rows.flash_pile(FLASH_SECONDS)
                if seat == self.viewer and drawn is not None and not self.hidden:
                    self.new_card = drawn
        if motion and laid is not None:
            rows.flash(laid, FLASH_SECONDS)
        self._new_tag.stop()
        if motion and self.new_card is not None:
            self._new_tag.after(NEW_SECONDS, self._new_seen)

    def _new_seen(self) -> None:
        """The drawn card's tag has been shown long enough."""
        self.new_card = None
        self.query_one("#hand", HandView).mark_new(None)

    # -- the coach ------------------------------------------------------------

    @property
    def coach_showing(self) -> bool:
        """The coach's note is on screen."""
        return self.query_one("#coach", CoachPanel).display

    def _coach(self) -> None:
        """Tell the rule that matters now to the person whose cards are shown, if it is not told yet this game.

        The note stays until x, a new rule, or the next person takes over (pass-and-play); nothing is told
        while the cards are covered. The hint key is named where hints are given: to a person alone with
        computers, on his turn with a choice.
        """
        table, lang = self.table, self.lang
        seat = self.viewer
        if seat != self._tip_seat:
            self.coach_tip, self._tip_seat = None, seat
        speaking = self.coach_on and not self.hidden and table.is_person(seat)
        now = moment(table.game.view(seat)) if speaking else None
        at = (seat, table.game.move_count, now)
        if speaking and at != self._coach_at:
            self._coach_at = at
            told = self.coach_told.setdefault(seat, [])
            if now is not None and not told and not any(mover == seat for mover, _, _ in table.game.history()):
                now = "start"  # pass-and-play: a person first hears how the game starts, at his first turn
            tip = tip_of(now, frozenset(told))
            if tip is not None:
                told.append(tip)
                self.coach_tip = tip
        panel = self.query_one("#coach", CoachPanel)
        if not speaking or self.coach_tip is None:
            panel.show(None, (), lang)
            return
        key = "coach_fits_terminal" if self.coach_tip == "fits" else f"coach_{self.coach_tip}"
        keys = [("x", tr("coach_ok", lang)), ("c", tr("coach_turn_off", lang))]
        choices = table.game.view(seat).legal if self.awaiting else ()
        if len(table.people) == 1 and len(choices) > 1:
            keys.insert(0, ("h", tr("coach_ask", lang)))
        panel.show(tr(key, lang, draws=table.game.rules.max_draws), keys, lang)

    def action_coach_ok(self) -> None:
        """Close the coach's note (the next rule comes when it matters)."""
        self.coach_tip = None
        self._coach()
        self.refresh_bindings()

    def action_coach(self) -> None:
        """Turn the coach off, or on again (remembered for the next games)."""
        self.coach_on = not self.coach_on
        if not self.coach_on:
            self.coach_tip = None
        self.post_message(CoachWanted(self.coach_on))
        self.notify(tr("coach_now_on" if self.coach_on else "coach_now_off", self.lang), timeout=3)
        self._coach()
        self.refresh_bindings()

    def action_coach_quiet(self) -> None:
        """``c`` while the footer has no room to name it."""
        self.action_coach()

    def _title(self) -> str:
        return title_line(self.table, self.lang)

    def _set_status(self, text: str, *, error: bool = False, made: bool = False) -> None:
        """Show ``text`` in the status line; ``error`` for a move refused, ``made`` for a move made for the person."""
        status = self.query_one("#status", Static)
        status.update(sentence(cards_in_words(text, self.lang)))  # every card as the player reads it (Ge12)
        status.set_class(error, "error")
        status.set_class(made, "auto")

    # -- the player's actions -------------------------------------------------

    def play(self, move: Move) -> None:
        """Make the person's move if it is legal now; else say why not."""
        game = self.table.game
        if not self.awaiting or self.hidden or self.too_small:
            self.app.bell()
            return
        try:
            self.table.play(move, seat=self.viewer)
        except IllegalMoveError as error:
            self.app.bell()
            self.refresh_table()
            self._set_status(explain(error.reason, error.details, self.lang), error=True)
            return
        self._log_new_moves()
        self.query_one("#note", Static).update("")
        self.awaiting = False
        if game.turn != self.viewer and len(self.table.people) > 1:
            self.hidden = True
        self.drive()

    @on(HandView.Picked)
    def _picked(self, event: HandView.Picked) -> None:
        self.play(Move.lay(event.card))

    @on(Button.Pressed, "#draw")
    def _draw_pressed(self) -> None:
        self.play(DRAW)

    @on(Button.Pressed, "#end")
    def _end_pressed(self) -> None:
        self.play(PASS)

    @on(Button.Pressed, "#hint")
    def _hint_pressed(self) -> None:
        self.action_hint()

    @on(Button.Pressed, "#undo")
    def _undo_pressed(self) -> None:
        self.action_undo()

    def action_cursor(self, step: int) -> None:
        """Select the card ``step`` places along."""
        self.query_one("#hand", HandView).move_cursor(step)

    def action_cursor_fitting(self, step: int) -> None:
        """Select the next card that fits."""
        self.query_one("#hand", HandView).move_cursor(step, fitting_only=True)

    def action_go(self) -> None:
        """Lay the selected card (on the person's own turn only: a key pressed before it never lays)."""
        if not self.awaiting or self.hidden:
            return
        card = self.query_one("#hand", HandView).selected
        if card is not None:
            self.play(Move.lay(card))

    def action_skip(self) -> None:
        """While the computers play (or moves are made for the person), skip ahead to the next person's turn.

        Never lays or draws: on the person's own turn it does nothing.
        """
        if not self.awaiting:
            self._skip.set()

    def action_draw(self) -> None:
        """Draw a card."""
        self.play(DRAW)

    def action_end_turn(self) -> None:
        """End the turn."""
        self.play(PASS)

    def action_refused(self, action: str) -> None:
        """A key of an action shown disabled: say why it cannot be done now."""
        if action == "hint":
            self.notify(tr("hint_not_now", self.lang), severity="warning")
        else:
            self.play(_MOVES[action])  # refused by the table, which says why

    def action_pace(self, step: int) -> None:
        """Computers a step slower (+1) or faster (-1)."""
        index = min(range(len(PACES)), key=lambda i: abs(PACES[i] - self.pace))
        self.pace = PACES[max(0, min(len(PACES) - 1, index + step))]
        self.notify(tr("pace_now", self.lang, seconds=format_number(self.pace, self.lang)), timeout=2)

    def action_save(self) -> None:
        """Save the game to its file."""
        self.post_message(SaveWanted())

    # -- take back ------------------------------------------------------------

    def action_undo_refused(self) -> None:
        """Say why there is nothing to take back: two people at the table, or no turn of the person's yet."""
        self.notify(tr(self.table.undo_refusal(self.viewer) or "undo_none", self.lang), severity="warning")

    def action_undo(self) -> None:
        """Take back the person's last turn (against computers only)."""
        table, lang = self.table, self.lang
        if len(table.people) != 1:
            self.action_undo_refused()
            return
        if table.undo_target(self.viewer) is None:
            self.notify(tr(table.undo_refusal(self.viewer) or "undo_none", lang), severity="warning")
            return
        if self.awaiting:
            self._take_back()
            self.drive()
        else:
            self._undo_requested = True  # the driver takes it back between two computer moves
            self._skip.set()

    def _take_back(self) -> None:
        table = self.table
        if table.undo_target(self.viewer) is None:
            return
        target = table.undo_target(self.viewer)
        assert target is not None
        movers = [mover for mover, _move, _drawn in table.game.history()[target:]]
        starts = [mover for index, mover in enumerate(movers) if index == 0 or movers[index - 1] != mover]
        others = sum(1 for mover in starts if mover != self.viewer)  # the computers' turns after the person's
        table.undo(self.viewer)
        self._logged = 0
        self.query_one("#log", RichLog).clear()
        self._log_new_moves()
        key = "undo_done" if others == 0 else "undo_done_one" if others == 1 else "undo_done_many"
        self.query_one("#note", Static).update(tr(key, self.lang, n=others))

    # -- hint -----------------------------------------------------------------

    def action_hint(self) -> None:
        """Ask ``master`` what to do, and say why in one line."""
        if not self.awaiting or self.hidden:
            self.notify(tr("hint_not_now", self.lang), severity="warning")
            return
        self.query_one("#note", Static).update(tr("hint_thinking", self.lang))
        self._hint(self.table.game.move_count)

    @work(exclusive=True, group="hint")
    async def _hint(self, at_move: int) -> None:
        advice = await asyncio.to_thread(self.table.hint)
        if self.table.game.move_count != at_move or not self.awaiting:
            return
        if advice.move.card is not None:
            self.query_one("#hand", HandView).select(advice.move.card)
        self.query_one("#note", Static).update(cards_in_words(self.hint_text(advice), self.lang))

    def hint_text(self, advice: Advice) -> str:
        """The advice in one line: the move and why, in words, from the person's own view."""
        table = self.table
        return hint_line(table.game.view(self.viewer), advice, table.names, self.lang)
