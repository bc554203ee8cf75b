"""The observation tensors: one seat's view of the game as numbers, the same in every framework.

Seats are counted from the observer: slot 0 is the observer, slot 1 the
seat after him (who plays next), and so on. Cards are indexed as the action
ids (``elferraus.envs.actions``). Every number is made from the observer's
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
history told the observer:

==============  ============  ================================================
piece           size          meaning
==============  ============  ================================================
``laid_by``     players x 80  1 for each card each seat has laid
``drew``        players       cards each seat has drawn / 40
``kept``        players       turns each seat ended keeping a drawn card that
                              fit (it could have drawn again) / 10, at most 1
==============  ============  ================================================

Every number lies between 0 and 1 but ``hand_counts`` (at most 4) and
``drew`` (at most 2): :meth:`Layout.high`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from elferraus.cards import Card, fit_mask_of_rows
from elferraus.envs.actions import CARD_COUNT
from elferraus.view import SeatView

HAND_SCALE = 20.0
PILE_SCALE = float(CARD_COUNT)
DRAWS_SCALE = 40.0
KEPT_SCALE = 10.0


@dataclass(frozen=True)
class Layout:
    """Where each piece of a tensor lies, for a number of players."""

    players: int
    history: bool
    """True for the information state (with the history pieces)."""

    @property
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
            pieces += [("laid_by", (n, CARD_COUNT)), ("drew", (n,)), ("kept", (n,))]
        return pieces

    @property
    def size(self) -> int:
        """The length of the flat tensor."""
        return sum(int(np.prod(shape)) for _, shape in self.pieces)

    def high(self) -> npt.NDArray[np.float32]:
        """The largest value of each number of the flat tensor (the least is 0)."""
        high = np.ones(self.size, np.float32)
        pieces = self.views(high)
        pieces["hand_counts"][:] = CARD_COUNT / HAND_SCALE
        if self.history:
            pieces["drew"][:] = CARD_COUNT / DRAWS_SCALE
        return high

    def views(self, tensor: npt.NDArray[np.float32]) -> dict[str, npt.NDArray[np.float32]]:
        """Each piece as a view into the flat ``tensor`` (writing a view writes the tensor)."""
        views = {}
        start = 0
        for name, shape in self.pieces:
            size = int(np.prod(shape))
            views[name] = tensor[start : start + size].reshape(shape)
            start += size
        return views

    def slices(self) -> dict[str, tuple[int, int]]:
        """Each piece's first index and length in the flat tensor (for the docs and for models)."""
        out = {}
        start = 0
        for name, shape in self.pieces:
            size = int(np.prod(shape))
            out[name] = (start, size)
            start += size
        return out


def _mask_bits(mask: int, out: npt.NDArray[np.float32]) -> None:
    while mask:
        low = mask & -mask
        out[low.bit_length() - 1] = 1.0
        mask ^= low


def write_view(view: SeatView, pieces: dict[str, npt.NDArray[np.float32]], *, history: bool) -> None:
    """Write ``view`` into the piece views of a zeroed tensor (``Layout.views``)."""
    n = view.players
    me = view.seat
    for card in view.hand:
        pieces["hand"][card.index] = 1.0
    rows = {"RYGB".index(color.value): row for color, row in view.rows.items()}
    for order, (low, high) in rows.items():
        pieces["table"][order * 20 + low - 1 : order * 20 + high] = 1.0
    _mask_bits(fit_mask_of_rows(rows, len(view.rules.colors)), pieces["fits"])
    if view.drawn is not None and view.turn == me:
        pieces["drawn"][view.drawn.index] = 1.0
    for seat, count in enumerate(view.hand_counts):
        pieces["hand_counts"][(seat - me) % n] = count / HAND_SCALE
    pieces["pile"][0] = view.pile / PILE_SCALE
    if view.winner is None:
        pieces["to_move"][(view.turn - me) % n] = 1.0
        pieces["phase"][0] = 1.0 if view.laid else 0.0
        pieces["phase"][1] = view.draws / view.rules.max_draws
    if history:
        _write_history(view, pieces)


def _write_history(view: SeatView, pieces: dict[str, npt.NDArray[np.float32]]) -> None:
    n = view.players
    me = view.seat
    laid_by, drew, kept = pieces["laid_by"], pieces["drew"], pieces["kept"]
    pile = view.pile + sum(1 for text in view.moves if " draw" in text)
    max_draws = view.rules.max_draws
    turn_seat, turn_draws, turn_laid = -1, 0, False
    for text in view.moves:
        seat_text, action, *_ = text.split()
        seat = int(seat_text)
        if seat != turn_seat:
            turn_seat, turn_draws, turn_laid = seat, 0, False
        slot = (seat - me) % n
        if action == "draw":
            drew[slot] += 1.0 / DRAWS_SCALE
            turn_draws += 1
            pile -= 1
        elif action == "pass":
            if turn_draws and not turn_laid and turn_draws < max_draws and pile > 0:
                kept[slot] = min(1.0, kept[slot] + 1.0 / KEPT_SCALE)
        else:
            laid_by[slot, Card.parse(action).index] = 1.0
            turn_laid = True


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
