"""Whole worlds that one seat cannot tell from the real one: a deal and every draw's card.

:func:`sample_world` is what OpenSpiel's ``resample_from_infostate`` needs:
the seat's own cards and the public history stay as they are, and every card
the seat has not seen is dealt again so that the whole history is still
legal. It starts from the hidden hands of now, drawn by the search players'
sampler (weighted by what the history suggests, ``bots.knowledge``), and
walks the history back: a card laid goes back to its hand, and each draw the
seat did not see takes back one of the drawer's cards that agrees with what
he did next (a card he laid at once, a card that did not fit when he drew
again, one that fit when he kept it). Where the walk finds a seat short of a
card that such a draw must have brought (or holding one the rules say it
cannot have held), the hidden hands of now are mended by a swap with another
seat or the pile and the walk starts again. The engine then replays the
whole history on the world found; a world it refuses is thrown away and
another drawn.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from elferraus.bots.knowledge import Knowledge, Tracker
from elferraus.cards import CARDS, Card, fit_mask_of_rows, mask_of
from elferraus.core import sampling_function
from elferraus.errors import IllegalMoveError, NotationError
from elferraus.game import Game, cards_of
from elferraus.moves import DRAW, Move
from elferraus.view import SeatView

ATTEMPTS = 2000
"""Walks back tried before giving up (each world found is checked by replaying the history)."""

MENDS = 24
"""Swaps tried on one sample of the hidden hands before drawing another."""


class NoWorldError(RuntimeError):
    """No world agreeing with the view was found within :data:`ATTEMPTS` tries."""


@dataclass(frozen=True)
class World:
    """A deal and the cards drawn, in order: replaying the history on it gives the seat's view again."""

    hands: tuple[tuple[Card, ...], ...]
    """Each seat's dealt hand."""
    pile: tuple[Card, ...]
    """The pile as dealt, top first: the cards drawn so far, in the order drawn, then the rest."""

    def game(self, view: SeatView) -> Game:
        """The game of this world, the view's history played on it."""
        game = Game(self.hands, self.pile, view.rules)
        for text in view.moves:
            game.push(_move_of(text))
        return game


@dataclass(frozen=True)
class _Shortfall:
    """Why a walk back failed: a seat lacked a card it must have drawn, or held one it cannot have held."""

    seat: int
    wanted: int = 0
    """Cards that would have served the draw (a mask), of which the seat held none."""
    unwanted: int = 0
    """Cards the seat cannot have held at that moment (a mask), of which it held some."""
    keep_out: int = 0
    """Cards the seat cannot hold from that moment on (a mask): what a card brought to it must avoid."""


@dataclass(frozen=True)
class _Event:
    seat: int
    move: Move
    card: Card | None
    """A draw's card, when the seat saw it (its own draws)."""
    fit: int
    """The cards that fit when it was made."""
    next_move: Move | None
    """The same seat's next move in the same turn, if any."""
    could_draw_again: bool
    """For a draw: one more draw would have been allowed after it."""
    cannot_hold: int
    """Cards the seat cannot have held just before this move, as the rules show: none that fit, when it
    draws under ``must_play`` or ends its turn without laying while the pile is empty."""
    pending: bool = False
    """A draw chosen whose card is still to come (the last event only)."""


def _move_of(text: str) -> Move:
    _, action, *_ = text.split()
    return Move.parse(action)


def _events(view: SeatView, drawing: bool = False) -> list[_Event]:
    colors = len(view.rules.colors)
    max_draws = view.rules.max_draws
    pile = view.pile + sum(1 for text in view.moves if " draw" in text)
    rows: dict[int, tuple[int, int]] = {}
    must_play = view.rules.must_play
    parsed = []
    turn_seat, draws, laid = -1, 0, False
    texts = (*view.moves, f"{view.turn} draw") if drawing else view.moves
    for text in texts:
        seat_text, action, *seen = text.split()
        seat = int(seat_text)
        if seat != turn_seat:
            turn_seat, draws, laid = seat, 0, False
        move = Move.parse(action)
        fit = fit_mask_of_rows(rows, colors)
        again = False
        cannot_hold = 0
        if action == "draw":
            if must_play:
                cannot_hold = fit
            draws += 1
            pile -= 1
            again = draws < max_draws and pile > 0
        elif move.card is not None:
            order = "RYGB".index(move.card.color.value)
            low, high = rows.get(order, (move.card.number, move.card.number))
            rows[order] = (min(low, move.card.number), max(high, move.card.number))
            laid = True
        elif not laid and not draws and pile == 0:
            cannot_hold = fit
        parsed.append((seat, move, Card.parse(seen[0]) if seen else None, fit, again, cannot_hold))
    events = []
    for index, (seat, move, card, fit, again, cannot_hold) in enumerate(parsed):
        following = parsed[index + 1] if index + 1 < len(parsed) else None
        is_draw = move.kind.value == "draw"
        next_move = following[1] if is_draw and following is not None and following[0] == seat else None
        events.append(_Event(seat, move, card, fit, next_move, again, cannot_hold))
    if drawing:
        last = events[-1]
        events[-1] = _Event(last.seat, last.move, None, last.fit, None, False, last.cannot_hold, pending=True)
    return events


def _drawn_card_fits(event: _Event, must_play: bool) -> bool | None:
    """What the next move says of a hidden draw's card: it fit (True), it did not (False), or nothing."""
    after = event.next_move
    if after is None or after.card is not None:
        return None
    if after.kind.value == "draw":
        return False
    if must_play:
        return False  # a drawn card that fits must be laid: he passed, so it did not fit
    return True if event.could_draw_again else None


def sample_world(view: SeatView, rng: random.Random, tracker: Tracker | None = None, *, drawing: bool = False) -> World:
    """A world agreeing with everything ``view`` shows: same own cards, same history, other cards redealt.

    ``tracker``: the seat's tracker of the history, if one is kept (else one is made). ``drawing``: the seat
    to move has chosen to draw, and the card is still to come (so drawing must be legal in the world).

    Raises:
        NoWorldError: none found in :data:`ATTEMPTS` tries (not seen in practice).
    """
    events = _events(view, drawing)
    knowledge = Knowledge.of(view, tracker or Tracker.following(view, None))
    excluded = _excluded(view, events)
    weights: list[tuple[float, ...] | None] = []
    for seat in range(view.players):
        marks = knowledge.sightings[seat] if seat != view.seat else {}
        if seat == view.seat or not (marks or excluded[seat]):
            weights.append(None)
            continue
        weights.append(tuple(0.0 if excluded[seat] >> card & 1 else marks.get(card, 1.0) for card in range(len(CARDS))))
    undealt = _undealt(view)
    sample = sampling_function()
    must_play = view.rules.must_play
    walks = 0
    while walks < ATTEMPTS:
        ((hand_masks, pile_now, _),) = sample(
            seat=view.seat,
            hand=knowledge.own,
            counts=tuple(view.hand_counts),
            pile_count=view.pile,
            unknown=knowledge.unknown,
            weights=tuple(weights),
            samples=1,
            seed=rng.getrandbits(64),
        )
        hidden = [set(cards_of(mask)) for mask in hand_masks]
        pile = [CARDS[index] for index in pile_now]
        for _ in range(MENDS):
            walks += 1
            found = _walk_back(events, [set(hand) for hand in hidden], pile, rng, must_play, undealt)
            if isinstance(found, World):
                if _replays(found, view, drawing):
                    return found
                break
            if walks >= ATTEMPTS or not _mend(found, hidden, pile, excluded, view.seat, rng):
                break
    raise NoWorldError(f"no world agrees with seat {view.seat}'s view after {ATTEMPTS} tries")


def _excluded(view: SeatView, events: list[_Event]) -> list[int]:
    """Per seat, the cards it cannot hold now, for certain.

    Where the rules show a seat held none of the cards that fit (``cannot_hold``: it drew under
    ``must_play``, or ended a turn without laying while the pile was empty) and it has drawn in no later
    turn, it holds none of them still: its cards since are those it had, less those it laid, and the cards
    it drew in that same turn did not fit either. A seat that never drew holds none of the 11s that the
    opening shows were not dealt.
    """
    excluded = [0] * view.players
    turns = []
    turn, turn_seat = -1, -1
    for event in events:
        if event.seat != turn_seat:
            turn, turn_seat = turn + 1, event.seat
        turns.append(turn)
    last_draw_turn = [-1] * view.players
    for event, turn in zip(events, turns, strict=True):
        if event.move.kind.value == "draw":
            last_draw_turn[event.seat] = turn
    for event, turn in zip(events, turns, strict=True):
        if event.cannot_hold and last_draw_turn[event.seat] <= turn:
            excluded[event.seat] |= event.cannot_hold
    undealt = mask_of(_undealt(view))
    for seat in range(view.players):
        if last_draw_turn[seat] < 0:
            excluded[seat] |= undealt
    excluded[view.seat] = 0
    return excluded


def _undealt(view: SeatView) -> set[Card]:
    """The 11s the opening shows were not dealt: those of the colours before the one opened with (or to be
    opened with, when it is this seat's)."""
    if view.moves:
        opened = Move.parse(view.moves[0].split()[1]).card
    elif view.turn == view.seat and view.legal:
        opened = view.legal[0].card
    else:
        return set()
    if opened is None:
        return set()
    before = view.rules.colors[: view.rules.colors.index(opened.color.value)]
    return {Card.parse(f"{letter}11") for letter in before}


def _walk_back(
    events: list[_Event],
    hands: list[set[Card]],
    pile_now: list[Card],
    rng: random.Random,
    must_play: bool,
    undealt: set[Card],
) -> World | _Shortfall:
    checks: list[list[tuple[int, int]]] = [[] for _ in hands]
    slots: list[list[tuple[int, int]]] = [[] for _ in hands]
    for index, event in enumerate(events):
        if event.cannot_hold:
            checks[event.seat].append((index, event.cannot_hold))
        if event.move.kind.value == "draw" and event.card is None and not event.pending:
            slots[event.seat].append((index, _takes(event, must_play)))
    drawn: list[Card] = []
    for index in range(len(events) - 1, -1, -1):
        event = events[index]
        seat = event.seat
        hand = hands[seat]
        if event.move.card is not None:
            hand.add(event.move.card)
        elif event.move.kind.value == "draw" and not event.pending:
            card = (
                event.card
                if event.card is not None
                else _hidden_draw(event, index, hand, checks[seat], slots[seat], rng, must_play, undealt)
            )
            if card is None or card not in hand:
                later = [mask for at, mask in checks[seat] if at > index]
                return _Shortfall(seat, wanted=_takes(event, must_play), keep_out=_union(later))
            hand.remove(card)
            drawn.append(card)
        if event.cannot_hold and any(event.cannot_hold >> card.index & 1 for card in hand):
            unwanted = event.cannot_hold & mask_of(hand)
            return _Shortfall(seat, unwanted=unwanted, keep_out=_union(mask for _, mask in checks[seat]))
    drawn.reverse()
    rest = list(pile_now)
    rng.shuffle(rest)
    return World(tuple(tuple(sorted(hand, key=lambda c: c.index)) for hand in hands), (*drawn, *rest))


def _union(masks: Iterable[int]) -> int:
    union = 0
    for mask in masks:
        union |= mask
    return union


def _mend(
    shortfall: _Shortfall,
    hidden: list[set[Card]],
    pile: list[Card],
    excluded: list[int],
    observer: int,
    rng: random.Random,
) -> bool:
    """Swap one card of the short seat's hidden hand of now with another seat's or the pile's, so that the
    next walk back gets past the point where this one failed. False when no swap can help."""
    seat = shortfall.seat
    if seat == observer:
        return False
    hand = hidden[seat]
    barred = excluded[seat] | shortfall.keep_out
    if shortfall.wanted:
        incoming = shortfall.wanted & ~barred
        outgoing = [card for card in hand if not shortfall.wanted >> card.index & 1]
    else:
        incoming = ~(barred | shortfall.unwanted)
        outgoing = [card for card in hand if shortfall.unwanted >> card.index & 1]
    places: list[tuple[int | None, Card]] = [
        (other, card)
        for other, cards in enumerate(hidden)
        if other not in (seat, observer)
        for card in cards
        if incoming >> card.index & 1
    ]
    places.extend((None, card) for card in pile if incoming >> card.index & 1)
    rng.shuffle(places)
    rng.shuffle(outgoing)
    for other, card in places:
        fitting_out = [out for out in outgoing if other is None or not excluded[other] >> out.index & 1]
        if not fitting_out:
            continue
        out = fitting_out[0]
        hand.remove(out)
        hand.add(card)
        if other is None:
            pile[pile.index(card)] = out
        else:
            hidden[other].remove(card)
            hidden[other].add(out)
        return True
    return False


def _takes(event: _Event, must_play: bool) -> int:
    """The cards a hidden draw can have brought, as the drawer's next move shows (a mask)."""
    after = event.next_move
    if after is not None and after.card is not None:
        return 1 << after.card.index
    fits = _drawn_card_fits(event, must_play)
    everything = (1 << len(CARDS)) - 1
    if fits is None:
        return everything
    return event.fit if fits else everything & ~event.fit


def _hidden_draw(
    event: _Event,
    index: int,
    hand: set[Card],
    checks: list[tuple[int, int]],
    slots: list[tuple[int, int]],
    rng: random.Random,
    must_play: bool,
    undealt: set[Card],
) -> Card | None:
    """Which of the drawer's cards a draw the observer did not see brought.

    It must agree with the drawer's next move. Some cards must be gone from his hand before an earlier
    moment (going back): one the rules say he cannot have held then, or an 11 that was not dealt. One of
    those is taken now when his draws in between are too few for all of them (the one needed soonest);
    otherwise any card is, so that an earlier draw that must have brought a card that fit still finds it.
    """
    after = event.next_move
    if after is not None and after.card is not None:
        return after.card if after.card in hand else None
    candidates = sorted(hand, key=lambda c: c.index)
    fits = _drawn_card_fits(event, must_play)
    if fits is not None:
        candidates = [c for c in candidates if bool(event.fit >> c.index & 1) == fits]
    if not candidates:
        return None
    deadline: dict[Card, int] = {}
    for at, mask in reversed(checks):
        if at >= index:
            continue
        for card in candidates:
            if card not in deadline and mask >> card.index & 1:
                deadline[card] = at
    for card in candidates:
        if card in undealt and card not in deadline:
            deadline[card] = -1
    for at in sorted(set(deadline.values()), reverse=True):
        due = sum(1 for due_at in deadline.values() if due_at >= at)
        urgent = [card for card, due_at in deadline.items() if due_at == at]
        room = min(sum(1 for slot, takes in slots if at < slot < index and takes >> card.index & 1) for card in urgent)
        if due > room:
            return rng.choice(urgent)
    return rng.choice(candidates)


def _replays(world: World, view: SeatView, drawing: bool) -> bool:
    try:
        game = Game(world.hands, world.pile, view.rules)
        for text in view.moves:
            seat = int(text.split(maxsplit=1)[0])
            if game.turn != seat:
                return False
            game.push(_move_of(text))
    except (IllegalMoveError, NotationError):
        return False
    return game.view(view.seat) == view and (not drawing or DRAW in game.legal_moves())


__all__ = ["ATTEMPTS", "NoWorldError", "World", "sample_world"]
