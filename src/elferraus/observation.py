"""The observation tensors: one seat's view of the game as numbers, the same in every framework.

Seats are counted from the observer: slot 0 is the observer, slot 1 the
seat after him (who plays next), and so on. Cards are indexed as the action
ids (``elferraus.actions``). Every number is made from the observer's
:class:`~elferraus.SeatView` and its public history, so no tensor can hold a
card he may not know.

The **observation** (what is on the table now; OpenSpiel's observation
tensor), in this order:

==============  ========  ====================================================
piece           size      meaning
==============  ========  ====================================================
``hand``        80        1 for each card in the observer's hand
``table``       80        1 for each card on the table
``fits``        80        1 for each card that fits now
``drawn``       80        1 for the card the observer drew this turn and may
                          still lay (only on his own turn)
``hand_counts`` players   cards in each seat's hand / 20
``pile``        1         cards on the pile / 80
``to_move``     players   1 for the seat to move (none once the game is over)
``phase``       2         the seat to move has laid this turn (0 or 1); cards
                          it has drawn this turn / ``max_draws``
==============  ========  ====================================================

The **information state** (OpenSpiel's information-state tensor, and the
observation of the PettingZoo and Gymnasium environments) adds what the
history told the observer, a block of 82 numbers per seat (``seats``,
players x 82, slot 0 the observer's):

==============  ========  ====================================================
in each block   size      meaning
==============  ========  ====================================================
``laid_by``     80        1 for each card that seat has laid
``drew``        1         cards it has drawn / 40
``kept``        1         turns it ended keeping a drawn card that fit (it
                          could have drawn again) / 10, at most 1
==============  ========  ====================================================

Every number lies between 0 and 1 but ``hand_counts`` (at most 4) and
``drew`` (at most 2): :meth:`Layout.high`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from elferraus.actions import CARD_COUNT
from elferraus.cards import Card, Color
from elferraus.game import Game
from elferraus.view import SeatView

_COLOR_ORDER = {Color(letter): order for order, letter in enumerate("RYGB")}
HAND_SCALE = 20.0
PILE_SCALE = float(CARD_COUNT)
DRAWS_SCALE = 40.0
KEPT_SCALE = 10.0
SEAT_SIZE = CARD_COUNT + 2
"""Numbers per seat of the history block: the cards it laid, then ``drew`` and ``kept``."""


@dataclass(frozen=True)
class Layout:
    """Where each piece of a tensor lies, for a number of players."""

    players: int
    history: bool
    """True for the information state (with the history pieces)."""

    @functools.cached_property
    def pieces(self) -> list[tuple[str, tuple[int, ...]]]:
        """Each piece's name and shape, in order."""
        n = self.players
        pieces: list[tuple[str, tuple[int, ...]]] = [
            ("hand", (CARD_COUNT,)),
            ("table", (CARD_COUNT,)),
            ("fits", (CARD_COUNT,)),
            ("drawn", (CARD_COUNT,)),
            ("hand_counts", (n,)),
            ("pile", (1,)),
            ("to_move", (n,)),
            ("phase", (2,)),
        ]
        if self.history:
            pieces.append(("seats", (n, SEAT_SIZE)))
        return pieces

    @functools.cached_property
    def _spans(self) -> list[tuple[str, int, int, tuple[int, ...]]]:
        spans = []
        start = 0
        for name, shape in self.pieces:
            size = math.prod(shape)
            spans.append((name, start, start + size, shape))
            start += size
        return spans

    @property
    def size(self) -> int:
        """The length of the flat tensor."""
        return self._spans[-1][2]

    def high(self) -> npt.NDArray[np.float32]:
        """The largest value of each number of the flat tensor (the least is 0)."""
        high = np.ones(self.size, np.float32)
        pieces = self.views(high)
        pieces["hand_counts"][:] = CARD_COUNT / HAND_SCALE
        if self.history:
            pieces["drew"][:] = CARD_COUNT / DRAWS_SCALE
        return high

    def views(self, tensor: npt.NDArray[np.float32]) -> dict[str, npt.NDArray[np.float32]]:
        """Each piece as a view into the flat ``tensor`` (writing a view writes the tensor); with the history,
        ``laid_by``, ``drew`` and ``kept`` are also given as views into ``seats``."""
        views = {name: tensor[start:end].reshape(shape) for name, start, end, shape in self._spans}
        if self.history:
            views["laid_by"], views["drew"], views["kept"] = _seat_views(views["seats"])
        return views

    def slices(self) -> dict[str, tuple[int, int]]:
        """Each piece's first index and length in the flat tensor (for the docs and for models)."""
        return {name: (start, end - start) for name, start, end, _ in self._spans}


def _seat_views(
    seats: npt.NDArray[np.float32],
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    return seats[:, :CARD_COUNT], seats[:, CARD_COUNT], seats[:, CARD_COUNT + 1]


class History:
    """The history pieces of every seat, kept up to date one move at a time (for environments that observe
    after every move; :func:`write_view` without one reads the whole history each time)."""

    def __init__(self, players: int, max_draws: int) -> None:
        self.players = players
        self.max_draws = max_draws
        self._orders = [np.array([(me + slot) % players for slot in range(players)]) for me in range(players)]
        self._moves: tuple[str, ...] = ()
        self._start()

    def _start(self) -> None:
        n = self.players
        self.seats = np.zeros((n, SEAT_SIZE), np.float32)
        self.laid_by, self.drew, self.kept = _seat_views(self.seats)
        # Counted, then divided once: the same number however many steps it took (and as vec.c writes it).
        self._draw_counts = [0] * n
        self._kept_counts = [0] * n
        self._laid_masks = [0] * n
        self._moves = ()
        self._turn_seat, self._turn_draws, self._turn_laid = -1, 0, False
        self._pile: int | None = None

    def update(self, moves: Sequence[str], pile: int) -> None:
        """Take in the history ``moves`` up to now, ``pile`` cards being left; a history that does not
        continue the last one starts over. Kept for one game over several observers, it must be the public
        one (``Game.public_moves(None)``), which reads the same for every seat."""
        seen = len(self._moves)
        if len(moves) < seen or (seen and (moves[seen - 1] != self._moves[-1] or moves[0] != self._moves[0])):
            self._start()
            seen = 0
        if self._pile is None:
            self._pile = pile + sum(1 for text in moves if " draw" in text)
        for text in moves[seen:]:
            self._apply(text)
        self._moves = tuple(moves)

    def _apply(self, text: str) -> None:
        seat_text, action, *_ = text.split()
        seat = int(seat_text)
        if seat != self._turn_seat:
            self._turn_seat, self._turn_draws, self._turn_laid = seat, 0, False
        if action == "draw":
            self._draw_counts[seat] += 1
            self.drew[seat] = self._draw_counts[seat] / DRAWS_SCALE
            self._turn_draws += 1
            assert self._pile is not None
            self._pile -= 1
        elif action == "pass":
            draws = self._turn_draws
            if draws and not self._turn_laid and draws < self.max_draws and self._pile:
                self._kept_counts[seat] += 1
                self.kept[seat] = min(1.0, self._kept_counts[seat] / KEPT_SCALE)
        else:
            index = Card.parse(action).index
            self.laid_by[seat, index] = 1.0
            self._laid_masks[seat] |= 1 << index
            self._turn_laid = True

    def counts(self) -> tuple[list[int], list[int], list[int]]:
        """Per seat: the cards it laid (a mask), the cards it drew, the turns it ended keeping a drawn card
        that fit (``SelfPlay.load_position`` takes these)."""
        return list(self._laid_masks), list(self._draw_counts), list(self._kept_counts)

    def write(self, pieces: dict[str, npt.NDArray[np.float32]], me: int) -> None:
        """Write the history pieces as ``me`` sees them (slot 0 his own)."""
        order = self._orders[me]
        np.take(self.seats, order, axis=0, out=pieces["seats"])


def _write_table(
    rows: Mapping[Color, tuple[int, int]], colors: int, pieces: dict[str, npt.NDArray[np.float32]]
) -> None:
    """``table`` and ``fits`` from the open rows."""
    table, fits = pieces["table"], pieces["fits"]
    opened = 0
    for color, (low, high) in rows.items():
        order = _COLOR_ORDER[color]
        base = order * 20
        opened |= 1 << order
        table[base + low - 1 : base + high] = 1.0
        if low > 1:
            fits[base + low - 2] = 1.0
        if high < 20:
            fits[base + high] = 1.0
    for order in range(colors):
        if not opened >> order & 1:
            fits[order * 20 + 10] = 1.0  # its 11


def write_view(
    view: SeatView, pieces: dict[str, npt.NDArray[np.float32]], *, history: bool, tracked: History | None = None
) -> None:
    """Write ``view`` into the piece views of a zeroed tensor (``Layout.views``); the history pieces from
    ``tracked`` when given (which must be up to date: :meth:`History.update`), else read from the view's
    whole history."""
    n = view.players
    me = view.seat
    hand = pieces["hand"]
    for card in view.hand:
        hand[card.index] = 1.0
    _write_table(view.rows, len(view.rules.colors), pieces)
    if view.drawn is not None and view.turn == me:
        pieces["drawn"][view.drawn.index] = 1.0
    counts = view.hand_counts
    pieces["hand_counts"][:] = [counts[(me + slot) % n] / HAND_SCALE for slot in range(n)]
    pieces["pile"][0] = view.pile / PILE_SCALE
    if view.winner is None:
        pieces["to_move"][(view.turn - me) % n] = 1.0
        pieces["phase"][0] = 1.0 if view.laid else 0.0
        pieces["phase"][1] = view.draws / view.rules.max_draws
    if history and tracked is not None:
        tracked.write(pieces, me)
    elif history:
        _write_history(view, pieces)


def _write_history(view: SeatView, pieces: dict[str, npt.NDArray[np.float32]]) -> None:
    history = History(view.players, view.rules.max_draws)
    history.update(view.moves, view.pile)  # only the actions are read: the view's own draws may name cards
    history.write(pieces, view.seat)


def dealt_hand(view: SeatView) -> list[Card]:
    """The hand the observer was dealt: his hand now, with the cards he laid and without those he drew."""
    held = set(view.hand)
    drawn = set()
    me = str(view.seat)
    for text in view.moves:
        seat, action, *card = text.split()
        if seat != me:
            continue
        if action == "draw":
            drawn.add(Card.parse(card[0]))
        elif action != "pass":
            held.add(Card.parse(action))
    return sorted(held - drawn, key=lambda card: card.index)


def information_text(view: SeatView) -> str:
    """Everything the observer knows, as one string: his seat, his dealt hand, and the history as he saw it
    (his own draws with their card). Two histories he cannot tell apart give the same string."""
    dealt = " ".join(map(str, dealt_hand(view)))
    return f"seat {view.seat} | dealt {dealt} | {', '.join(view.moves)}"


def observation_text(view: SeatView) -> str:
    """What the observer sees now, as one line."""
    rows = " ".join(f"{color.value}{low}-{high}" for color, (low, high) in view.rows.items()) or "-"
    hand = " ".join(map(str, view.hand)) or "-"
    counts = " ".join(map(str, view.hand_counts))
    text = f"seat {view.seat} | hand {hand} | rows {rows} | hands {counts} | pile {view.pile}"
    if view.winner is not None:
        return f"{text} | winner {view.winner}"
    laid = " ".join(map(str, view.laid)) or "-"
    text = f"{text} | to move {view.turn} | laid {laid} | draws {view.draws}"
    if view.drawn is not None and view.turn == view.seat:
        text += f" | drawn {view.drawn}"
    return text


class SeatObserver:
    """The information-state tensor of any seat of one game after every move, fast: one buffer, the
    history pieces kept up to date (:class:`History`), and the last view built kept for the same moment.

    For the environments that observe after every move (PettingZoo, Gymnasium). A game changed in place
    other than by new moves (``pop``) must be observed through a new observer.
    """

    def __init__(self, players: int, max_draws: int) -> None:
        self.layout = Layout(players, history=True)
        self._buffer = np.zeros(self.layout.size, np.float32)
        self._pieces = self.layout.views(self._buffer)
        self._history = History(players, max_draws)
        self._last: tuple[int, int, int, SeatView] | None = None

    def view(self, game: Game, seat: int) -> SeatView:
        """``game.view(seat)``, built once per move."""
        last = self._last
        if last is not None and last[0] == id(game) and last[1] == game.move_count and last[2] == seat:
            return last[3]
        view = game.view(seat)
        self._last = (id(game), game.move_count, seat, view)
        return view

    def observe(self, game: Game, seat: int) -> npt.NDArray[np.float32]:
        """A new array: ``seat``'s information state now, the same as :func:`write_view` of its view.

        It is written from the game without building the view, and reads only
        what the seat may know: its own hand, and the table, counts and history
        everybody sees.
        """
        self._buffer.fill(0.0)
        self._history.update(game.public_moves(None), game.pile_size())
        pieces = self._pieces
        hand = pieces["hand"]
        for card in game.hand(seat):
            hand[card.index] = 1.0
        _write_table(game.rows(), len(game.rules.colors), pieces)
        n = game.players
        over = game.is_over()
        turn = game.turn
        if turn == seat and not over:
            drawn = game.drawn_playable()
            if drawn is not None:
                pieces["drawn"][drawn.index] = 1.0
        counts = game.hand_sizes()
        pieces["hand_counts"][:] = [counts[(seat + slot) % n] / HAND_SCALE for slot in range(n)]
        pieces["pile"][0] = game.pile_size() / PILE_SCALE
        if not over:
            pieces["to_move"][(turn - seat) % n] = 1.0
            pieces["phase"][0] = 1.0 if game.laid_this_turn() else 0.0
            pieces["phase"][1] = game.draws_this_turn / game.rules.max_draws
        self._history.write(pieces, seat)
        return self._buffer.copy()
