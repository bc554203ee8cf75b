"""Playouts in pure Python: the random numbers, the rules engine and the playout policies.

See :mod:`elferraus.rollout` for what they do and in which order they draw.
"""

from __future__ import annotations

from collections.abc import Sequence

from elferraus._pystate import MaskRules, can_go_out, indices_of
from elferraus.cards import ELEVEN, NUMBERS
from elferraus.moves import DRAW_CODE, PASS_CODE

POLICY_RANDOM = 0
POLICY_GREEDY = 1
POLICY_MEDIUM = 2
POLICY_BLOCKER = 3
POLICY_TIGHT_BLOCKER = 4
POLICY_ONE_LAY = 5
POLICY_HOARDER = 6
POLICIES = (
    POLICY_RANDOM,
    POLICY_GREEDY,
    POLICY_MEDIUM,
    POLICY_BLOCKER,
    POLICY_TIGHT_BLOCKER,
    POLICY_ONE_LAY,
    POLICY_HOARDER,
)
POLICY_NAMES = "0 (random), 1 (greedy), 2 (medium), 3 (blocker), 4 (tight-blocker), 5 (one-lay) or 6 (hoarder)"

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

LEAD_GAP = 2  # bots.blocking.LEAD_GAP: the longest gap a blocker's lay towards its own cards may open


class SplitMix64:
    """The SplitMix64 generator (Steele, Lea, Flood 2014), as in ``_core/core.h``."""

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


def shuffle(items: list[int], rng: SplitMix64) -> None:
    for i in range(len(items) - 1, 0, -1):
        j = rng.below(i + 1)
        items[i], items[j] = items[j], items[i]


# ---------------------------------------------------------------------------
# The rules engine of a playout (PyState's semantics, no undo, no caching)


class Simulation(MaskRules):
    """A playout's game: the one Python reference of the rules (``MaskRules``) on a pile known in full, with
    no undo and no caching."""

    __slots__ = ()

    def copy(self) -> Simulation:
        other = Simulation.__new__(Simulation)
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
        """The legal move codes, in PyState's order (``MaskRules.legal_codes``)."""
        return self.legal_codes()

    def push(self, code: int) -> None:
        """Make the legal move ``code`` (not checked; ``MaskRules.apply``)."""
        self.apply(code)

    def penalty(self, seat: int) -> int:
        return sum(_NUMBER[index] for index in indices_of(self.hands[seat]))


# ---------------------------------------------------------------------------
# Policies


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


def _medium(sim: Simulation, legal: list[int], hoards: bool = False) -> int:
    """medium's move; a hoarder lays only to go out or when the rules leave it no other move."""
    if len(legal) == 1:
        return legal[0]
    seat = sim.to_move
    own = sim.hands[seat]
    after_draw = bool(sim.draws) and not sim.laid
    last = legal[-1]
    has_lay = legal[0] >= 0
    if not has_lay:
        return DRAW_CODE if DRAW_CODE in legal else PASS_CODE
    if not after_draw and can_go_out(own, sim.fit):
        return legal[0]
    if hoards and last < 0:
        return last  # draw, or end the turn keeping every card
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


def _door(own: int, color: int, start: int, step: int) -> tuple[int, int]:
    """(gap, unlocks) of a door of ``bots.blocking``: cards not in ``own`` from ``start`` outward, then own ones."""
    base = color * NUMBERS - 1
    gap = 0
    number = start
    while 1 <= number <= NUMBERS and not own >> (base + number) & 1:
        gap += 1
        number += step
    unlocks = 0
    while 1 <= number <= NUMBERS and own >> (base + number) & 1:
        unlocks += 1
        number += step
    return gap, unlocks


def _lay_reading(own: int, code: int) -> tuple[int, int, int]:
    """A lay read as ``bots.blocking`` reads it: (order key packed as frees, unlocks; accepts-blocker; accepts-tight).

    Returns ``(frees * 64 - unlocks, blocker_accepts, tight_accepts)``; the sort key is that and the code.
    """
    color, rest = divmod(code, NUMBERS)
    number = rest + 1
    doors: tuple[tuple[int, int], ...]
    if number == ELEVEN:  # a legal 11 always opens its row
        doors = (_door(own, color, ELEVEN - 1, -1), _door(own, color, ELEVEN + 1, 1))
    else:
        step = -1 if number < ELEVEN else 1
        doors = (_door(own, color, number + step, step),)
    frees = sum(gap for gap, _ in doors)
    unlocks = sum(run for _, run in doors)
    leads = all(gap == 0 or (run > 0 and gap <= LEAD_GAP) for gap, run in doors)
    return frees * 64 - unlocks, int(leads), int(frees == 0)


def _blocking(sim: Simulation, legal: list[int], policy: int) -> int:
    """``bots.blocking``'s BlockerBot, TightBlockerBot and OneLayBot (they read only their own hand and the table)."""
    if len(legal) == 1:
        return legal[0]
    last = legal[-1]  # draw or pass when the rules let the mover lay nothing, else a lay
    if policy == POLICY_ONE_LAY and sim.laid and last == PASS_CODE:
        return PASS_CODE
    if legal[0] < 0:
        return last
    own = sim.hands[sim.to_move]
    best = -1
    best_key = 0
    accepted = -1
    accepted_key = 0
    for code in legal:
        if code < 0:
            break
        key, leads, free = _lay_reading(own, code)
        if best < 0 or key < best_key:
            best, best_key = code, key
        if (free if policy == POLICY_TIGHT_BLOCKER else leads) and (accepted < 0 or key < accepted_key):
            accepted, accepted_key = code, key
    if policy == POLICY_ONE_LAY:
        return best
    if sim.draws and not sim.laid and sim.ends_after_draw:
        goes_out = sim.counts[sim.to_move] == 1
    else:
        goes_out = can_go_out(own, sim.fit)
    if goes_out:
        return best
    if accepted >= 0:
        return accepted
    return last if last < 0 else best


def run_playout(sim: Simulation, policies: Sequence[int], rng: SplitMix64, moves: list[int] | None = None) -> int:
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
        elif policy in (POLICY_MEDIUM, POLICY_HOARDER):
            code = _medium(sim, legal, policy == POLICY_HOARDER)
        else:
            code = _blocking(sim, legal, policy)
        sim.push(code)
        if moves is not None:
            moves.append(code)
        actions += 1
        if actions >= MAX_ACTIONS and sim.winner < 0:
            raise RuntimeError(f"a playout did not end within {MAX_ACTIONS} actions")
    return actions
