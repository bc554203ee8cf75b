"""Sampling the hidden cards and searching: the reference of ``elferraus._core.search``.

See :mod:`elferraus.rollout` for the exact order in which random numbers are drawn.
"""

from __future__ import annotations

import math
import operator
import time
from collections.abc import Sequence
from typing import Any

from elferraus._pystate import elevens_mask, indices_of
from elferraus.cards import NUMBERS
from elferraus.moves import DRAW_CODE, PASS_CODE
from elferraus.rollout.simulation import (
    DECK,
    MAX_SEATS,
    MAX_TURN_COUNT,
    MIN_SEATS,
    POLICIES,
    POLICY_NAMES,
    POLICY_RANDOM,
    Simulation,
    SplitMix64,
    run_playout,
    shuffle,
)
from elferraus.rules import DEAL_TABLE

# ---------------------------------------------------------------------------
# Argument checks (the C functions give the same messages)


def _int(value: object, name: str) -> int:
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{name} must be an int, not {type(value).__name__}") from None


def _mask(value: object, name: str) -> int:
    mask = _int(value, name)
    if mask < 0:
        raise ValueError(f"{name} must not be negative, got {mask}")
    if mask >> DECK:
        raise ValueError(f"{name} has a bit at or above 80 (cards are 0-79): {mask}")
    return mask


def _int_tuple(value: object, name: str) -> tuple[int, ...]:
    if isinstance(value, (int, str, bytes)):
        raise TypeError(f"{name} must be a sequence of ints, not {type(value).__name__}")
    return tuple(_int(item, f"an item of {name}") for item in value)  # type: ignore[attr-defined]


def _rules(colors: object, max_draws: object) -> tuple[int, int]:
    colors_ = _int(colors, "colors")
    if not 1 <= colors_ <= 4:
        raise ValueError(f"colors must be 1-4, not {colors_}")
    max_draws_ = _int(max_draws, "max_draws")
    if max_draws_ < 0:
        raise ValueError(f"max_draws must not be negative, not {max_draws_}")
    return colors_, max_draws_


def _policies(policies: object, players: int) -> tuple[int, ...]:
    values = _int_tuple(policies, "policies")
    if len(values) != players:
        raise ValueError(f"policies must have one entry per seat ({players}), not {len(values)}")
    for value in values:
        if value not in POLICIES:
            raise ValueError(f"a policy must be {POLICY_NAMES}, not {value}")
    return values


def _weights(weights: object, players: int, seat: int) -> list[tuple[float, ...] | None]:
    if isinstance(weights, (int, str, bytes)) or weights is None:
        raise TypeError(f"weights must be a sequence with one entry per seat, not {type(weights).__name__}")
    entries = list(weights)  # type: ignore[call-overload]
    if len(entries) != players:
        raise ValueError(f"weights must have one entry per seat ({players}), not {len(entries)}")
    out: list[tuple[float, ...] | None] = []
    for other, entry in enumerate(entries):
        if entry is None or other == seat:
            out.append(None)
            continue
        if isinstance(entry, (int, float, str, bytes)):
            raise TypeError(f"weights[{other}] must be None or a sequence of 80 floats, not {type(entry).__name__}")
        values = tuple(float(w) for w in entry)
        if len(values) != DECK:
            raise ValueError(f"weights[{other}] must have 80 entries (one per card), not {len(values)}")
        for w in values:
            if not (math.isfinite(w) and w >= 0.0):
                raise ValueError(f"weights[{other}] must be finite and >= 0, found {w!r}")
        out.append(values)
    return out


class _Hidden:
    """The validated hidden-card part of a search: who holds how many unknown cards."""

    __slots__ = (
        "allowed",
        "capacity",
        "cards",
        "contains",
        "dests",
        "hand",
        "pile_count",
        "players",
        "restricted",
        "seat",
        "supersets",
        "weights",
    )

    def __init__(
        self, seat: object, hand: object, counts: object, pile_count: object, unknown: object, weights: object
    ) -> None:
        count_tuple = _int_tuple(counts, "counts")
        players = len(count_tuple)
        if not MIN_SEATS <= players <= MAX_SEATS:
            raise ValueError(f"counts must have one hand size per seat, 2-6 seats, not {players}")
        seat_ = _int(seat, "seat")
        if not 0 <= seat_ < players:
            raise ValueError(f"seat {seat_} is not a seat 0-{players - 1}")
        hand_ = _mask(hand, "hand")
        unknown_ = _mask(unknown, "unknown")
        pile = _int(pile_count, "pile_count")
        if not 0 <= pile <= DECK:
            raise ValueError(f"pile_count must be 0-80, not {pile}")
        for count in count_tuple:
            if not 0 <= count <= DECK:
                raise ValueError(f"hand sizes must be 0-80, found {count}")
        if hand_ & unknown_:
            raise ValueError("hand and unknown share cards")
        if count_tuple[seat_] != hand_.bit_count():
            raise ValueError(f"counts[{seat_}] is {count_tuple[seat_]} but the hand holds {hand_.bit_count()} cards")
        hidden = sum(count_tuple) - count_tuple[seat_] + pile
        if unknown_.bit_count() != hidden:
            raise ValueError(
                f"unknown holds {unknown_.bit_count()} cards but the other hands and the pile hold {hidden}"
            )
        self.weights = _weights(weights, players, seat_)
        self.seat = seat_
        self.players = players
        self.hand = hand_
        self.pile_count = pile
        self.capacity = count_tuple
        self.cards = indices_of(unknown_)
        # The places a card may go: slots 0..n-1 the other seats in seat order, slot n the pile.
        self.dests = [other for other in range(players) if other != seat_]
        slots = len(self.dests) + 1
        pile_bit = 1 << (slots - 1)
        self.allowed = [0] * DECK  # per card: the bit set of the slots of weight > 0
        for card in self.cards:
            allowed = pile_bit
            for k, other in enumerate(self.dests):
                row = self.weights[other]
                if row is None or row[card] > 0.0:
                    allowed |= 1 << k
            self.allowed[card] = allowed
        self.restricted = any(self.allowed[card] != (1 << slots) - 1 for card in self.cards)
        subsets = range(1 << slots)
        self.contains = [sum(1 << sub for sub in subsets if sub >> k & 1) for k in range(slots)]
        self.supersets = [sum(1 << sub for sub in subsets if sub & m == m) for m in subsets] if self.restricted else []

    def _slack(self, left: list[int]) -> list[int]:
        """Per set S of slots: places left in S minus the cards that may only go to S (Hall)."""
        slots = len(left)
        within = [0] * (1 << slots)
        for card in self.cards:
            within[self.allowed[card]] += 1
        for k in range(slots):
            for sub in range(1 << slots):
                if sub >> k & 1:
                    within[sub] += within[sub ^ (1 << k)]
        return [sum(left[k] for k in range(slots) if sub >> k & 1) - within[sub] for sub in range(1 << slots)]

    def deal(self, rng: SplitMix64) -> tuple[list[int], list[int]]:
        """One determinization: (hands, pile top first), steps 1-3 of the documented order."""
        cards = self.cards.copy()
        shuffle(cards, rng)
        dests = self.dests
        slots = len(dests) + 1
        left = [self.capacity[other] for other in dests] + [self.pile_count]
        hands = [0] * self.players
        hands[self.seat] = self.hand
        rows = [self.weights[other] for other in dests]
        pile: list[int] = []
        probs = [0.0] * slots
        slack = self._slack(left) if self.restricted else []
        for card in cards:
            for k in range(slots - 1):
                r = left[k]
                row = rows[k]
                probs[k] = (r * row[card] if row is not None else float(r)) if r else 0.0
            probs[-1] = float(left[-1])
            if slack and min(slack) >= 0:
                # The deal can still be completed within the weights: keep it so.
                tight = sum(1 << sub for sub, value in enumerate(slack) if value == 0)
                blocked = tight & ~self.supersets[self.allowed[card]]
                if blocked:
                    for k in range(slots):
                        if blocked & self.contains[k]:
                            probs[k] = 0.0
            total = 0.0
            for p in probs:
                total += p
            if total == 0.0:  # every place left has weight 0 for this card: by places left
                for k in range(slots - 1):
                    p = float(left[k])
                    probs[k] = p
                    total += p
            u = rng.random() * total
            acc = 0.0
            chosen = -1
            for k, p in enumerate(probs):
                acc += p
                if p > 0.0:
                    chosen = k
                    if u < acc:
                        break
            # (no break: u rounded up to total, and chosen is the last slot of weight > 0)
            left[chosen] -= 1
            if chosen == slots - 1:
                pile.append(card)
            else:
                hands[dests[chosen]] |= 1 << card
            if slack:
                allowed = self.allowed[card]
                for sub in range(1 << slots):
                    slack[sub] += (sub & allowed == allowed) - (sub >> chosen & 1)
        shuffle(pile, rng)
        return hands, pile


def _root(
    hidden: _Hidden,
    fit: object,
    laid: object,
    draws: object,
    last_drawn: object,
    colors: object,
    max_draws: object,
    must_play: object,
    ends_after_draw: object,
) -> Simulation:
    colors_, max_draws_ = _rules(colors, max_draws)
    fit_ = _mask(fit, "fit")
    laid_ = _int(laid, "laid")
    draws_ = _int(draws, "draws")
    last = _int(last_drawn, "last_drawn")
    if not (0 <= laid_ <= MAX_TURN_COUNT and 0 <= draws_ <= MAX_TURN_COUNT):
        raise ValueError(f"laid and draws must be 0-{MAX_TURN_COUNT}, not {laid_} and {draws_}")
    if not -1 <= last < DECK:
        raise ValueError(f"last_drawn must be a card index 0-79 or -1, not {last}")
    if draws_ and not laid_ and not (last >= 0 and hidden.hand >> last & 1):
        raise ValueError("cards were drawn this turn and none laid, so last_drawn must name the last one (in hand)")
    deck = (1 << (colors_ * NUMBERS)) - 1
    unknown = sum(1 << card for card in hidden.cards)
    if (hidden.hand | unknown | fit_) & ~deck:
        raise ValueError(f"hand, unknown and fit must hold cards of the {colors_}-colour deck only")
    if fit_ & deck & ~hidden.hand & ~unknown:
        raise ValueError("fit names a card that is on the table")
    for seat, count in enumerate(hidden.capacity):
        if not count:
            raise ValueError(f"the game is over: seat {seat} holds no cards")
    sim = Simulation.__new__(Simulation)
    sim.players = hidden.players
    sim.hands = [0] * hidden.players
    sim.hands[hidden.seat] = hidden.hand
    sim.counts = list(hidden.capacity)
    sim.pile = range(hidden.pile_count)  # placeholder of the right length until a deal
    sim.pile_pos = 0
    sim.elevens = elevens_mask(colors_)
    sim.fit = fit_
    sim.to_move = hidden.seat
    sim.laid = laid_
    sim.draws = draws_
    sim.last_drawn = last
    sim.winner = -1
    sim.max_draws = max_draws_
    sim.must_play = bool(must_play)
    sim.ends_after_draw = bool(ends_after_draw)
    return sim


def _starter(hands: Sequence[int], elevens: int) -> int:
    """The seat holding the lowest-index 11 of ``elevens`` (0 if none)."""
    for eleven in indices_of(elevens):
        for seat, hand in enumerate(hands):
            if hand >> eleven & 1:
                return seat
    return 0


def _move_name(code: int) -> str:
    if code == DRAW_CODE:
        return "draw (-1)"
    if code == PASS_CODE:
        return "pass (-2)"
    return f"card {code}"


# ---------------------------------------------------------------------------
# The public functions


def search(
    *,
    seat: int,
    hand: int,
    counts: Sequence[int],
    pile_count: int,
    unknown: int,
    weights: Sequence[Sequence[float] | None],
    fit: int,
    laid: int,
    draws: int,
    last_drawn: int,
    colors: int,
    max_draws: int,
    must_play: bool,
    ends_after_draw: bool,
    candidates: Sequence[int],
    policies: Sequence[int],
    samples: int,
    seed: int,
    time_limit: float = 0.0,
) -> tuple[list[tuple[int, int, int]], int]:
    """Evaluate ``candidates`` for ``seat`` over ``samples`` determinizations.

    ``seat`` is the seat to move, holding ``hand``; ``counts`` the hand
    sizes of all 2-6 seats; ``unknown`` the cards in the other hands and on
    the pile (``pile_count`` of them). ``weights[s]`` is None or 80 finite
    floats >= 0: how likely seat ``s`` holds each card, relatively (the
    searcher's entry is ignored). ``last_drawn`` must be a card in ``hand``
    when cards were drawn and none laid this turn (the only phase in which it
    matters); otherwise it may be -1 or any card. ``candidates`` are move
    codes, each legal now (duplicates are allowed: each gets its own
    results); ``policies[s]`` is seat ``s``'s playout policy (0 random,
    1 greedy, 2 medium, 3 blocker, 4 tight-blocker, 5 one-lay, 6 hoarder).

    Returns ``([(wins, playouts, penalty_sum) per candidate], determinizations)``:
    how often ``seat`` won after each candidate, in how many playouts, and
    the sum of its penalties (the numbers left in its hand; 0 when it won).
    With ``time_limit > 0`` (seconds) it stops early: the clock is read once
    after each determinization, and one that finished after the limit is not
    counted, except the first (at least one determinization always is). The
    compiled twin releases the GIL while it plays.

    Raises:
        ValueError: inconsistent arguments (``unknown`` holding a different
            number of cards than the other hands and the pile, a candidate
            that is not legal, a seat out of range, ...).
        RuntimeError: a playout ran over :data:`MAX_ACTIONS` actions.
    """
    start = time.perf_counter()
    hidden = _Hidden(seat, hand, counts, pile_count, unknown, weights)
    root = _root(hidden, fit, laid, draws, last_drawn, colors, max_draws, must_play, ends_after_draw)
    policy = _policies(policies, hidden.players)
    moves = _int_tuple(candidates, "candidates")
    legal = root.legal()
    for code in moves:
        if code not in legal:
            names = ", ".join(_move_name(move) for move in legal) or "none"
            raise ValueError(f"candidate {_move_name(code)} is not legal here (legal: {names})")
    sample_count = _int(samples, "samples")
    if sample_count < 1:
        raise ValueError(f"samples must be at least 1, not {sample_count}")
    limit = float(time_limit)
    rng = SplitMix64(_int(seed, "seed"))
    results = [[0, 0, 0] for _ in moves]
    done = 0
    step = [[0, 0] for _ in moves]
    while done < sample_count:
        hands, pile = hidden.deal(rng)
        playout_seed = rng.next()
        root.hands = hands
        root.pile = pile
        for k, code in enumerate(moves):
            sim = root.copy()
            sim.push(code)
            run_playout(sim, policy, SplitMix64(playout_seed))
            won = sim.winner == hidden.seat
            step[k][0] = int(won)
            step[k][1] = 0 if won else sim.penalty(hidden.seat)
        late = limit > 0.0 and time.perf_counter() - start > limit
        if late and done:
            break  # finished after the limit: not counted
        for total, (won_, penalty) in zip(results, step, strict=True):
            total[0] += won_
            total[1] += 1
            total[2] += penalty
        done += 1
        if late:
            break
    return [(w, n, p) for w, n, p in results], done


def search_rounds(*, schedule: Sequence[tuple[Sequence[int], int]], **arguments: Any) -> list[tuple[int, ...]]:
    """One determinization per ``(policies, seed)`` of ``schedule``: for each, whether every candidate won.

    Exactly ``search(policies=policies, samples=1, seed=seed, **arguments)`` for each entry, its wins (0 or
    1) per candidate: the search players draw a new opponent model for every sample, and so read their
    knowledge once per round of samples instead of once per sample. ``arguments`` are those of
    :func:`search` but ``policies``, ``samples``, ``seed`` and ``time_limit``.
    """
    outcomes = []
    for index, entry in enumerate(schedule):
        if not isinstance(entry, tuple) or len(entry) != 2:
            raise TypeError(f"schedule entry {index} must be a (policies, seed) pair")
        policies, seed = entry
        results, _done = search(policies=policies, samples=1, seed=seed, **arguments)
        outcomes.append(tuple(wins for wins, _playouts, _penalty in results))
    return outcomes


def sample_deals(
    *,
    seat: int,
    hand: int,
    counts: Sequence[int],
    pile_count: int,
    unknown: int,
    weights: Sequence[Sequence[float] | None],
    samples: int,
    seed: int,
) -> list[tuple[tuple[int, ...], tuple[int, ...], int]]:
    """The first ``samples`` determinizations :func:`search` plays with ``seed``.

    Each is ``(hands, pile, playout_seed)``: the hand mask of every seat
    (``hand`` for ``seat``), the pile's card indices, top first, and the
    seed of the playout streams (as :func:`playout`'s ``seed``).
    """
    hidden = _Hidden(seat, hand, counts, pile_count, unknown, weights)
    sample_count = _int(samples, "samples")
    if sample_count < 0:
        raise ValueError(f"samples must not be negative, not {sample_count}")
    rng = SplitMix64(_int(seed, "seed"))
    deals = []
    for _ in range(sample_count):
        hands, pile = hidden.deal(rng)
        deals.append((tuple(hands), tuple(pile), rng.next()))
    return deals


def playout(
    *,
    hands: Sequence[int],
    pile: Sequence[int],
    turn: int,
    fit: int,
    laid: int,
    draws: int,
    last_drawn: int,
    colors: int,
    max_draws: int,
    must_play: bool,
    ends_after_draw: bool,
    policies: Sequence[int],
    seed: int,
) -> list[int]:
    """The move codes of one playout from a fully known position to the end.

    The position is what PyState's ``_hand_mask``, ``_pile_indices``,
    ``turn``, ``_fit_mask`` and ``_phase`` report; the playout stream is a
    SplitMix64 seeded with ``seed`` (as each candidate's in :func:`search`).
    """
    colors_, max_draws_ = _rules(colors, max_draws)
    hand_masks = [_mask(h, "a hand") for h in _int_tuple(hands, "hands")]
    players = len(hand_masks)
    if not MIN_SEATS <= players <= MAX_SEATS:
        raise ValueError(f"hands must hold 2-6 hands, not {players}")
    pile_cards = _int_tuple(pile, "pile")
    seen = 0
    for card in pile_cards:
        if not 0 <= card < DECK:
            raise ValueError(f"pile card {card} is not a card index 0-79")
        seen |= 1 << card
    if seen.bit_count() != len(pile_cards) or any(seen & h for h in hand_masks):
        raise ValueError("a card is in two places")
    for a in range(players):
        for b in range(a):
            if hand_masks[a] & hand_masks[b]:
                raise ValueError("a card is in two places")
    turn_ = _int(turn, "turn")
    if not 0 <= turn_ < players:
        raise ValueError(f"turn {turn_} is not a seat 0-{players - 1}")
    hidden = _Hidden(
        turn_,
        hand_masks[turn_],
        [h.bit_count() for h in hand_masks],
        len(pile_cards),
        (seen | sum(hand_masks)) & ~hand_masks[turn_],
        [None] * players,
    )
    sim = _root(hidden, fit, laid, draws, last_drawn, colors_, max_draws_, must_play, ends_after_draw)
    sim.hands = hand_masks
    sim.pile = pile_cards
    moves: list[int] = []
    run_playout(sim, _policies(policies, players), SplitMix64(_int(seed, "seed")), moves)
    return moves


def random_playouts(games: int, players: int, seed: int, policy: int = POLICY_RANDOM) -> tuple[int, int]:
    """Deal ``games`` classic games of ``players`` and play them out with ``policy`` for every seat.

    Returns ``(games, actions)``, actions counting every lay, draw and pass
    (the opening 11 too). The deal and every random choice come from one
    SplitMix64 stream (see the module docstring).
    """
    games_ = _int(games, "games")
    players_ = _int(players, "players")
    if games_ < 0:
        raise ValueError(f"games must not be negative, not {games_}")
    if players_ not in DEAL_TABLE:
        raise ValueError(f"players must be 2-6, not {players_}")
    policy_ = _policies((policy,), 1)[0]
    size = DEAL_TABLE[players_]
    dealt = size * players_
    elevens = elevens_mask(4)
    policy_list = (policy_,) * players_
    rng = SplitMix64(_int(seed, "seed"))
    actions = 0
    for _ in range(games_):
        while True:
            deck = list(range(DECK))
            shuffle(deck, rng)
            hands = [sum(1 << card for card in deck[start : start + size]) for start in range(0, dealt, size)]
            if any(h & elevens for h in hands):
                break
        sim = Simulation.__new__(Simulation)
        sim.players = players_
        sim.hands = hands
        sim.counts = [size] * players_
        sim.pile = deck[dealt:]
        sim.pile_pos = 0
        sim.elevens = elevens
        sim.fit = elevens
        sim.to_move = _starter(hands, elevens)
        sim.laid = sim.draws = 0
        sim.last_drawn = -1
        sim.winner = -1
        sim.max_draws = 3
        sim.must_play = False
        sim.ends_after_draw = True
        actions += run_playout(sim, policy_list, rng)
    return games_, actions
