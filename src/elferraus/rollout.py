"""Determinized rollouts: the search primitive of the ``hard``/``expert`` players.

:func:`search` evaluates candidate moves for the seat to move (the
*searcher*) by sampling the cards it cannot see many times (the other hands
and the pile order: a *determinization*) and playing every candidate out to
the end of the game on each sample with fast policies. This module is the
pure-Python reference; ``elferraus._core`` has the same functions in C with
bit-identical results (``tests/test_rollout.py`` checks that), and the
callers use the compiled one when it was built::

    from elferraus._core import search      # or: from elferraus.rollout import search

Functions (all arguments keyword-only except in :func:`random_playouts`):

- :func:`search`: win counts, playout counts and penalty sums per candidate;
- :func:`sample_deals`: the determinizations :func:`search` plays (hands,
  pile, playout seed), for tests and diagnostics;
- :func:`playout`: the moves of one playout from a fully known position;
- :func:`random_playouts`: whole games from fresh deals (a benchmark).

Cards are indices ``colour * 20 + number - 1``; hands, ``unknown`` and
``fit`` are int bitmasks over them, and ``fit``, ``laid``, ``draws`` and
``last_drawn`` mean what they mean in :class:`elferraus._pystate.PyState`
(``_fit_mask()`` and ``_phase()``). Move codes: a card index lays that card,
``-1`` draws, ``-2`` passes. The rules engine inside a playout is PyState's,
move for move: the same legal moves in the same order (lays by increasing
index, then draw or pass), the opening 11 and "a drawn card laid ends the
turn" (``ends_after_draw``) ending the turn by themselves. One difference,
at the opening only (before any 11 is on the table): the legal move is the
lowest-index 11 *in the mover's hand*, where PyState takes the holder of the
lowest 11 over all hands. The two agree in every real position (the mover
at the opening holds the lowest dealt 11); a sampled deal may put a lower 11
in another hand, and the search does not let that change whose turn it is.

Random numbers
--------------
Everything random comes from SplitMix64 streams (:class:`SplitMix64`):
``next()`` adds ``0x9E3779B97F4A7C15`` to the state and mixes it; a random
integer in ``[0, n)`` is ``(next() * n) >> 64`` and a random float in
``[0, 1)`` is ``(next() >> 11) * 2**-53``. A Fisher-Yates shuffle of a list
``a`` of ``n`` items is: for ``i`` from ``n - 1`` down to ``1``, ``j =``
random integer in ``[0, i + 1)``, swap ``a[i]`` and ``a[j]``.

:func:`search` and :func:`sample_deals` draw from one stream seeded with
``seed mod 2**64``, in this order, for each determinization in turn:

1. the unknown cards, as a list in increasing index order, are shuffled
   (Fisher-Yates; ``n - 1`` numbers for ``n`` cards);
2. the cards are dealt in that shuffled order, one random float per card:
   the destinations are the other seats in increasing seat order, then the
   pile; destination ``d`` with ``r_d`` places left has the weight
   ``p_d = r_d * w_d(card)`` (``0.0`` when ``r_d == 0``; ``w = 1.0`` where
   the seat's weights are None, and ``w = 1.0`` for the pile). Weights of
   exactly 0 are kept whenever the deal allows it: while the cards not dealt
   yet can still all be placed where their weight is positive (Hall's
   condition over the sets of destinations), a destination after which they
   could not gets ``p_d = 0.0``. (Without weights of 0 this never happens:
   the look-ahead changes nothing.) If all ``p_d`` are ``0.0``, ``p_d =
   r_d`` (as a float) for the seats instead. With ``total`` the sum of the
   ``p_d`` (in that order) and ``u = float * total``, the card goes to the
   first destination ``d`` with ``p_d > 0`` and ``u < acc``, where ``acc``
   is the running sum of the ``p_d`` up to and including ``d``; if rounding
   leaves no such ``d``, to the last destination with ``p_d > 0``;
3. the cards dealt to the pile, in the order they were dealt, are shuffled
   (Fisher-Yates) and that is the pile, top (drawn first) first;
4. one 64-bit number from the stream is the *playout seed*.

Then, for each candidate in the given order, a fresh SplitMix64 stream seeded
with the playout seed drives that candidate's playout (common random
numbers: every candidate of a determinization sees the same stream). A
playout draws from its stream only when a seat with the random policy has
more than one legal move (one random integer per such decision); the greedy
and medium policies draw nothing.

:func:`random_playouts` uses one stream seeded with ``seed mod 2**64`` for
everything, game after game: the deal (the 80 cards ``0..79`` in order,
shuffled with Fisher-Yates; seat ``s`` gets the cards at positions
``s * h`` to ``(s + 1) * h - 1``, the rest is the pile, top first; the whole
deal is repeated from a fresh ``0..79`` while no 11 is in a hand), then the
game's random-policy decisions.

Policies
--------
Inside a playout every policy sees where every card is (perfect
information); ties go to the lowest card index.

- ``0`` random: uniform over the legal moves;
- ``1`` greedy: the lowest-index legal lay, else draw if legal, else pass
  (the first legal move);
- ``2`` medium: :mod:`elferraus.bots.medium` with perfect information.
  Laying card ``x`` is scored by a walk from the next card beyond ``x`` in its
  row's direction (from both 10 and 12 for an opening 11, summed): that card
  is *free* if it is the mover's own or beyond 1..20; otherwise *released*
  is the number of consecutive cards from there that are in other hands, and
  if that run ends at a card of the mover's, *unlocked* is the length of the
  mover's consecutive run from there (else 0). ``score = 1 + 0.5 * free -
  w * released + 20 * unlocked``, ``w = 1.6`` if some other seat holds at most
  3 cards else ``1.0``, times ``0.6`` if the mover holds at most 2 cards.
  Decision: a single legal move is taken; a mover who can lay its whole hand
  this turn from the current table (not in the phase after a draw) lays its
  lowest legal card; else the best-scoring lay is laid if its score is above
  the threshold (``-0.4`` when pass is legal after drawing, ``0`` when pass
  is legal otherwise or when draw is legal; no threshold when neither is),
  else it passes or draws. Scores are computed exactly, in hundredths
  (``100 + 50 * free - W * released + 2000 * unlocked`` with ``W`` in
  {100, 160, 60, 96}): this makes the same decisions as the floating-point
  formula (no two different scores are closer than 0.04 and none equals a
  threshold) and the same in C and Python by construction.
"""

from __future__ import annotations

import math
import operator
import time
from collections.abc import Sequence

from elferraus._pystate import NEWLY_FITTING
from elferraus.cards import ELEVEN, NUMBERS
from elferraus.moves import DRAW_CODE, PASS_CODE
from elferraus.rules import DEAL_TABLE

__all__ = [
    "MAX_ACTIONS",
    "POLICY_GREEDY",
    "POLICY_MEDIUM",
    "POLICY_RANDOM",
    "SplitMix64",
    "playout",
    "random_playouts",
    "sample_deals",
    "search",
]

POLICY_RANDOM = 0
POLICY_GREEDY = 1
POLICY_MEDIUM = 2
POLICIES = (POLICY_RANDOM, POLICY_GREEDY, POLICY_MEDIUM)

MAX_ACTIONS = 10_000
"""Actions after which a playout is abandoned with RuntimeError (a game always ends long before)."""

DECK = 80
MIN_SEATS = 2
MAX_SEATS = 6
MAX_TURN_COUNT = 80  # bound on laid and draws, as in PyState._load_position
MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB
_TO_UNIT = 2.0**-53

# Medium's constants, in hundredths (see the module docstring).
_BASE = 100
_FREE_BONUS = 50
_UNLOCK = 2000
_KEEP_DRAWN = -40
_WEIGHT_NORMAL = 100
_WEIGHT_CLOSE = 160  # some other seat holds <= 3 cards
_CLOSE_COUNT = 3
_SHORT_HAND = 2  # the mover holds <= 2 cards: weight * 0.6

_NUMBER = tuple(index % NUMBERS + 1 for index in range(DECK))


def _elevens(colors: int) -> int:
    return sum(1 << (c * NUMBERS + ELEVEN - 1) for c in range(colors))


def _indices(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class SplitMix64:
    """The SplitMix64 generator (Steele, Lea, Flood 2014), as in ``_core.c``."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK64

    def next(self) -> int:
        """The next 64-bit output."""
        z = self.state = (self.state + _GOLDEN) & MASK64
        z = ((z ^ (z >> 30)) * _MIX1) & MASK64
        z = ((z ^ (z >> 27)) * _MIX2) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A random integer in ``[0, n)``: ``(next() * n) >> 64``."""
        return (self.next() * n) >> 64

    def random(self) -> float:
        """A random float in ``[0, 1)``: ``(next() >> 11) * 2**-53``."""
        return (self.next() >> 11) * _TO_UNIT


def _shuffle(items: list[int], rng: SplitMix64) -> None:
    for i in range(len(items) - 1, 0, -1):
        j = rng.below(i + 1)
        items[i], items[j] = items[j], items[i]


# ---------------------------------------------------------------------------
# The rules engine of a playout (PyState's semantics, no undo, no caching)


class _Sim:
    __slots__ = (
        "counts",
        "draws",
        "elevens",
        "ends_after_draw",
        "fit",
        "hands",
        "laid",
        "last_drawn",
        "max_draws",
        "must_play",
        "pile",
        "pile_pos",
        "players",
        "to_move",
        "winner",
    )

    hands: list[int]
    counts: list[int]
    pile: Sequence[int]
    players: int
    fit: int
    elevens: int
    pile_pos: int
    to_move: int
    laid: int
    draws: int
    last_drawn: int
    winner: int
    max_draws: int
    must_play: bool
    ends_after_draw: bool

    def copy(self) -> _Sim:
        other = _Sim.__new__(_Sim)
        other.hands = self.hands.copy()
        other.counts = self.counts.copy()
        other.pile = self.pile
        other.players = self.players
        other.fit = self.fit
        other.elevens = self.elevens
        other.pile_pos = self.pile_pos
        other.to_move = self.to_move
        other.laid = self.laid
        other.draws = self.draws
        other.last_drawn = self.last_drawn
        other.winner = self.winner
        other.max_draws = self.max_draws
        other.must_play = self.must_play
        other.ends_after_draw = self.ends_after_draw
        return other

    def legal(self) -> list[int]:
        """The legal move codes, in PyState's order (see the module docstring for the opening)."""
        if self.winner >= 0:
            return []
        hand = self.hands[self.to_move]
        if self.laid:
            return [*_indices(hand & self.fit), PASS_CODE]
        if self.draws:
            last = self.last_drawn
            if self.fit >> last & 1:
                return [last] if self.must_play else [last, PASS_CODE]
            if self.draws < self.max_draws and self.pile_pos < len(self.pile):
                return [DRAW_CODE]
            return [PASS_CODE]
        if self.fit == self.elevens:
            own = hand & self.elevens
            return [(own & -own).bit_length() - 1] if own else []
        fitting = hand & self.fit
        if self.pile_pos == len(self.pile) or (fitting and self.must_play):
            return _indices(fitting) or [PASS_CODE]
        if not fitting:
            return [DRAW_CODE]
        return [*_indices(fitting), DRAW_CODE]

    def push(self, code: int) -> None:
        """Make the legal move ``code`` (not checked)."""
        seat = self.to_move
        if code >= 0:
            bit = 1 << code
            fit = self.fit
            self.hands[seat] ^= bit
            self.fit = (fit ^ bit) | NEWLY_FITTING[code]
            left = self.counts[seat] - 1
            self.counts[seat] = left
            if not left:
                self.winner = seat
                self.laid += 1
            elif fit == self.elevens or (self.draws and not self.laid and self.ends_after_draw):
                self.to_move = (seat + 1) % self.players
                self.draws = 0
                self.last_drawn = -1
            else:
                self.laid += 1
        elif code == DRAW_CODE:
            card = self.pile[self.pile_pos]
            self.pile_pos += 1
            self.hands[seat] |= 1 << card
            self.counts[seat] += 1
            self.draws += 1
            self.last_drawn = card
        else:
            self.to_move = (seat + 1) % self.players
            self.laid = self.draws = 0
            self.last_drawn = -1

    def penalty(self, seat: int) -> int:
        return sum(_NUMBER[index] for index in _indices(self.hands[seat]))


# ---------------------------------------------------------------------------
# Policies


def _can_go_out(own: int, fit: int) -> bool:
    """True if every card of ``own`` can be laid one after another from ``fit``."""
    playable = own & fit
    while playable:
        low = playable & -playable
        own ^= low
        fit = (fit ^ low) | NEWLY_FITTING[low.bit_length() - 1]
        playable = own & fit
    return own == 0


def _walk(own: int, others: int, color: int, start: int, step: int) -> tuple[int, int, bool]:
    """(released, unlocked, free) of the row of ``color`` from number ``start`` outward."""
    base = color * NUMBERS - 1
    if not 1 <= start <= NUMBERS or own >> (base + start) & 1:
        return 0, 0, True
    released = 0
    number = start
    while 1 <= number <= NUMBERS:
        index = base + number
        if own >> index & 1:
            run = 0
            while 1 <= number <= NUMBERS and own >> (base + number) & 1:
                run += 1
                number += step
            return released, run, False
        if not others >> index & 1:
            break
        released += 1
        number += step
    return released, 0, False


def _lay_score(own: int, others: int, code: int, weight: int) -> int:
    """Medium's score of laying ``code``, in hundredths."""
    color, rest = divmod(code, NUMBERS)
    number = rest + 1
    if number == ELEVEN:
        down = _walk(own, others, color, ELEVEN - 1, -1)
        up = _walk(own, others, color, ELEVEN + 1, 1)
        released = down[0] + up[0]
        unlocked = down[1] + up[1]
        free = down[2] and up[2]
    else:
        step = -1 if number < ELEVEN else 1
        released, unlocked, free = _walk(own, others, color, number + step, step)
    return _BASE + (_FREE_BONUS if free else 0) - weight * released + _UNLOCK * unlocked


def _medium(sim: _Sim, legal: list[int]) -> int:
    if len(legal) == 1:
        return legal[0]
    seat = sim.to_move
    own = sim.hands[seat]
    after_draw = bool(sim.draws) and not sim.laid
    last = legal[-1]
    has_lay = legal[0] >= 0
    if not has_lay:
        return DRAW_CODE if DRAW_CODE in legal else PASS_CODE
    if not after_draw and _can_go_out(own, sim.fit):
        return legal[0]
    others = 0
    fewest = DECK + 1
    for other in range(sim.players):
        if other != seat:
            others |= sim.hands[other]
            fewest = min(fewest, sim.counts[other])
    weight = _WEIGHT_CLOSE if fewest <= _CLOSE_COUNT else _WEIGHT_NORMAL
    if sim.counts[seat] <= _SHORT_HAND:
        weight = weight * 60 // 100
    best = -1
    best_score = 0
    for code in legal:
        if code < 0:
            break
        score = _lay_score(own, others, code, weight)
        if best < 0 or score > best_score:
            best, best_score = code, score
    if last == PASS_CODE:
        threshold = _KEEP_DRAWN if after_draw else 0
        return best if best_score > threshold else PASS_CODE
    if last == DRAW_CODE:
        return best if best_score > 0 else DRAW_CODE
    return best


def _run(sim: _Sim, policies: Sequence[int], rng: SplitMix64, moves: list[int] | None = None) -> int:
    """Play ``sim`` to the end; returns the number of actions (appends them to ``moves``)."""
    actions = 0
    while sim.winner < 0:
        legal = sim.legal()
        if not legal:  # only at an opening without an 11 in the mover's hand
            raise RuntimeError("the player to move has no legal move (an opening without an 11 in his hand)")
        policy = policies[sim.to_move]
        if len(legal) == 1:
            code = legal[0]
        elif policy == POLICY_RANDOM:
            code = legal[rng.below(len(legal))]
        elif policy == POLICY_GREEDY:
            code = legal[0]
        else:
            code = _medium(sim, legal)
        sim.push(code)
        if moves is not None:
            moves.append(code)
        actions += 1
        if actions >= MAX_ACTIONS and sim.winner < 0:
            raise RuntimeError(f"a playout did not end within {MAX_ACTIONS} actions")
    return actions


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
            raise ValueError(f"a policy must be 0 (random), 1 (greedy) or 2 (medium), not {value}")
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
        self.cards = _indices(unknown_)
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
        _shuffle(cards, rng)
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
        _shuffle(pile, rng)
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
) -> _Sim:
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
    sim = _Sim.__new__(_Sim)
    sim.players = hidden.players
    sim.hands = [0] * hidden.players
    sim.hands[hidden.seat] = hidden.hand
    sim.counts = list(hidden.capacity)
    sim.pile = range(hidden.pile_count)  # placeholder of the right length until a deal
    sim.pile_pos = 0
    sim.elevens = _elevens(colors_)
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
    for eleven in _indices(elevens):
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
    1 greedy, 2 medium).

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
            _run(sim, policy, SplitMix64(playout_seed))
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
    _run(sim, _policies(policies, players), SplitMix64(_int(seed, "seed")), moves)
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
    elevens = _elevens(4)
    policy_list = (policy_,) * players_
    rng = SplitMix64(_int(seed, "seed"))
    actions = 0
    for _ in range(games_):
        while True:
            deck = list(range(DECK))
            _shuffle(deck, rng)
            hands = [sum(1 << card for card in deck[start : start + size]) for start in range(0, dealt, size)]
            if any(h & elevens for h in hands):
                break
        sim = _Sim.__new__(_Sim)
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
        actions += _run(sim, policy_list, rng)
    return games_, actions
