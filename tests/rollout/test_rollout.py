"""Determinized rollouts: ``elferraus.rollout`` (the reference) and ``_core``'s twin.

- The C functions give exactly the Python results: ``search`` from many
  root positions of seeded random games (every rules preset, 2-6 players,
  with and without weights, every policy), ``sample_deals``, ``playout``
  and ``random_playouts``.
- Playouts make only legal moves and conserve the cards: every playout is
  replayed move by move on :class:`PyState`, and ``search``'s counts are
  rebuilt from ``sample_deals`` and such checked playouts.
- Sampling: exact counts, no card of weight 0 to a seat that can be
  avoided, uniform without weights (a loose chi-square bound, fixed seeds).
- The medium policy scores lays as :mod:`elferraus.bots.medium` does with
  perfect information; the blocking policies make the moves of
  :mod:`elferraus.bots.blocking`'s players, move for move to the end of games
  from seeded random positions under every rules preset; the hoarder lays
  only to go out or when the rules make it lay, and then lays medium's card.
- Bad arguments raise ValueError with the same message in both.

Without a built ``_core`` the C side is skipped, unless the environment
variable CI is set (as in ``tests/engine/test_core_equivalence.py``).
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from typing import Any

import pytest

from elferraus import Game, Rules, core, rollout
from elferraus._pystate import PyState
from elferraus.bots import Bot, blocking, medium
from elferraus.bots.blocking import BlockerBot, HoarderBot, OneLayBot, TightBlockerBot
from elferraus.cards import ELEVEN, NUMBERS, fit_mask_of_rows
from elferraus.moves import DRAW, DRAW_CODE, LAYS, PASS, PASS_CODE, Move
from elferraus.rollout import simulation as rollout_simulation
from elferraus.rollout.simulation import (
    POLICIES,
    POLICY_BLOCKER,
    POLICY_HOARDER,
    POLICY_MEDIUM,
    POLICY_ONE_LAY,
    POLICY_TIGHT_BLOCKER,
)

try:
    from elferraus import _core
except ImportError as error:  # not built: see _need_core
    _core = None  # type: ignore[assignment]
    _CORE_ERROR: ImportError | None = error
else:
    _CORE_ERROR = None

RULE_SETS = {
    "classic": Rules.preset("classic"),
    "ravensburger": Rules.preset("ravensburger"),
    "beginners": Rules.preset("beginners"),
    "continue": Rules(after_draw="continue"),
    "max_draws-1": Rules(max_draws=1),
}
PLAYERS = (2, 3, 4, 5, 6)
WEIGHT_CHOICES = (0.0, 0.15, 0.5, 1.0, 3.0)


def _need_core() -> Any:
    """The compiled module, or skip (fail under CI) when it was not built."""
    if _core is None:
        if os.environ.get("CI"):
            pytest.fail(f"elferraus._core is not built ({_CORE_ERROR}); the CI machine has a C compiler")
        pytest.skip(f"elferraus._core is not built ({_CORE_ERROR}): no C compiler at install time?")
    return _core


IMPLEMENTATIONS = ["python", "c"]


def _impl(name: str) -> Any:
    return rollout if name == "python" else _need_core()


def _move(code: int) -> Move:
    return LAYS[code] if code >= 0 else DRAW if code == DRAW_CODE else PASS


def _rules_args(rules: Rules) -> dict[str, Any]:
    return {
        "colors": len(rules.colors),
        "max_draws": rules.max_draws,
        "must_play": rules.must_play,
        "ends_after_draw": rules.after_draw == "end",
    }


def _root(game: Game, seat: int | None = None) -> dict[str, Any]:
    """The search arguments of ``game``'s position for ``seat`` (the seat to move)."""
    seat = game.turn if seat is None else seat
    unknown = 0
    for other in range(game.players):
        if other != seat:
            unknown |= game._hand_mask(other)
    for card in game._pile_indices():
        unknown |= 1 << card
    laid, draws, last = game._phase()
    return {
        "seat": seat,
        "hand": game._hand_mask(seat),
        "counts": game.hand_sizes(),
        "pile_count": game.pile_size(),
        "unknown": unknown,
        "weights": (None,) * game.players,
        "fit": game._fit_mask(),
        "laid": laid,
        "draws": draws,
        "last_drawn": last,
        **_rules_args(game.rules),
    }


def _real_position(game: Game, policies: tuple[int, ...]) -> dict[str, Any]:
    """The playout arguments of ``game``'s position as it is (every hand and the pile), seat by seat ``policies``."""
    laid, draws, last = game._phase()
    return {
        "hands": tuple(game._hand_mask(seat) for seat in range(game.players)),
        "pile": tuple(game._pile_indices()),
        "turn": game.turn,
        "fit": game._fit_mask(),
        "laid": laid,
        "draws": draws,
        "last_drawn": last,
        **_rules_args(game.rules),
        "policies": policies,
        "seed": 0,
    }


def _random_game(rules: Rules, players: int, seed: int) -> Game | None:
    """A game of random moves stopped at a random point (None if it ended first)."""
    rng = random.Random(seed)
    game = Game.deal(players=players, seed=seed, rules=rules)
    for _ in range(rng.randrange(0, 160)):
        if game.is_over():
            return None
        game.push(rng.choice(game.legal_moves()))
    return None if game.is_over() else game


def _weights(rng: random.Random, players: int) -> tuple[tuple[float, ...] | None, ...]:
    return tuple(
        None if rng.random() < 0.4 else tuple(rng.choice(WEIGHT_CHOICES) for _ in range(80)) for _ in range(players)
    )


def _search_cases(rules_name: str, count: int) -> list[dict[str, Any]]:
    """Search arguments from random positions; weights and policies vary."""
    rules = RULE_SETS[rules_name]
    cases = []
    seed = 0
    while len(cases) < count:
        seed += 1
        players = PLAYERS[seed % len(PLAYERS)]
        game = _random_game(rules, players, seed * 7919 + len(rules_name))
        if game is None:
            continue
        rng = random.Random(seed)
        args = _root(game)
        kind = seed % (len(POLICIES) + 1)  # every seat the same policy, or each a random one
        policies = tuple(rng.choice(POLICIES) if kind == len(POLICIES) else kind for _ in range(players))
        args.update(
            weights=_weights(rng, players) if seed % 2 else (None,) * players,
            candidates=tuple(move.code for move in game.legal_moves()),
            policies=policies,
            samples=2,
            seed=rng.getrandbits(72) - (1 << 71),
        )
        cases.append(args)
    return cases


# ---------------------------------------------------------------------------
# C against Python


@pytest.mark.parametrize("rules_name", RULE_SETS)
def test_search_same_in_c_and_python(rules_name: str) -> None:
    core = _need_core()
    for args in _search_cases(rules_name, 100):
        expected = rollout.search(**args)
        assert core.search(**args) == expected, args
        assert expected[1] == args["samples"]
        assert [playouts for _, playouts, _ in expected[0]] == [args["samples"]] * len(args["candidates"])


def _schedule(args: dict[str, Any], rng: random.Random, count: int) -> list[tuple[tuple[int, ...], int]]:
    players = len(args["counts"])
    return [(tuple(rng.randrange(3) for _ in range(players)), rng.getrandbits(64)) for _ in range(count)]


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@pytest.mark.parametrize("rules_name", RULE_SETS)
def test_search_rounds_is_one_search_of_one_sample_per_entry(implementation: str, rules_name: str) -> None:
    impl = _impl(implementation)
    rng = random.Random(len(rules_name))
    for args in _search_cases(rules_name, 12 if implementation == "python" else 40):
        schedule = _schedule(args, rng, 5)
        shared = {key: value for key, value in args.items() if key not in ("policies", "samples", "seed")}
        expected = [
            tuple(wins for wins, _, _ in impl.search(**shared, policies=policies, samples=1, seed=seed)[0])
            for policies, seed in schedule
        ]
        assert impl.search_rounds(**shared, schedule=schedule) == expected


@pytest.mark.parametrize("rules_name", RULE_SETS)
def test_search_rounds_same_in_c_and_python(rules_name: str) -> None:
    core = _need_core()
    rng = random.Random(7)
    for args in _search_cases(rules_name, 40):
        shared = {key: value for key, value in args.items() if key not in ("policies", "samples", "seed")}
        schedule = _schedule(args, rng, 3)
        assert core.search_rounds(**shared, schedule=schedule) == rollout.search_rounds(**shared, schedule=schedule)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@pytest.mark.parametrize(
    ("schedule", "problem"),
    [
        ([(2, 2)], TypeError),
        ([((2, 2, 2),)], TypeError),
        ([((2, 9, 2, 2), 5)], ValueError),
        ([((2, 2), 5)], ValueError),
        (7, TypeError),
    ],
)
def test_search_rounds_refuses_a_bad_schedule(implementation: str, schedule: Any, problem: type[Exception]) -> None:
    impl = _impl(implementation)
    args = _search_cases("classic", 4)[-1]
    shared = {key: value for key, value in args.items() if key not in ("policies", "samples", "seed")}
    if len(args["counts"]) == 2 and schedule == [((2, 2), 5)]:
        schedule = [((2, 2, 2), 5)]
    with pytest.raises(problem):
        impl.search_rounds(**shared, schedule=schedule)


def test_search_same_from_the_opening() -> None:
    core = _need_core()
    for seed in range(20):
        game = Game.deal(players=2 + seed % 5, seed=seed)
        args = _root(game)
        args.update(candidates=(game.legal_moves()[0].code,), policies=(2,) * game.players, samples=4, seed=seed)
        assert core.search(**args) == rollout.search(**args)


@pytest.mark.parametrize("rules_name", RULE_SETS)
def test_sample_deals_same_in_c_and_python(rules_name: str) -> None:
    core = _need_core()
    for args in _search_cases(rules_name, 30):
        keys = ("seat", "hand", "counts", "pile_count", "unknown", "weights", "seed")
        deal_args = {key: args[key] for key in keys}
        assert core.sample_deals(samples=5, **deal_args) == rollout.sample_deals(samples=5, **deal_args)


@pytest.mark.parametrize("rules_name", RULE_SETS)
def test_playout_same_in_c_and_python(rules_name: str) -> None:
    core = _need_core()
    for args in _search_cases(rules_name, 40):
        full = _full_position(args)
        assert core.playout(**full) == rollout.playout(**full)


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("policy", POLICIES)
def test_random_playouts_same_in_c_and_python(players: int, policy: int) -> None:
    core = _need_core()
    for seed in (0, 1, -3, 1 << 70):
        assert core.random_playouts(20, players, seed, policy) == rollout.random_playouts(20, players, seed, policy)
    assert core.random_playouts(0, players, 5) == (0, 0)


# ---------------------------------------------------------------------------
# Playouts are legal games


def _full_position(args: dict[str, Any]) -> dict[str, Any]:
    """A playout position from search arguments: their first sampled deal."""
    keys = ("seat", "hand", "counts", "pile_count", "unknown", "weights", "seed")
    hands, pile, playout_seed = rollout.sample_deals(samples=1, **{key: args[key] for key in keys})[0]
    return {
        "hands": hands,
        "pile": pile,
        "turn": args["seat"],
        "fit": args["fit"],
        "laid": args["laid"],
        "draws": args["draws"],
        "last_drawn": args["last_drawn"],
        "colors": args["colors"],
        "max_draws": args["max_draws"],
        "must_play": args["must_play"],
        "ends_after_draw": args["ends_after_draw"],
        "policies": args["policies"],
        "seed": playout_seed,
    }


def _pystate(full: dict[str, Any]) -> PyState:
    state = PyState(
        full["hands"], full["pile"], full["colors"], full["max_draws"], full["must_play"], full["ends_after_draw"]
    )
    state._load_position(full["turn"], full["laid"], full["draws"], full["last_drawn"], full["fit"])
    return state


def _replay(full: dict[str, Any], moves: list[int]) -> PyState:
    """Push ``moves`` on PyState from ``full``, checking each is legal and the cards are conserved."""
    state = _pystate(full)
    held_before = sum(full["hands"]) | sum(1 << card for card in full["pile"])
    for number, code in enumerate(moves):
        assert not state.is_over(), f"move {number} after the end"
        move = _move(code)
        assert move in state.legal_moves(), f"move {number} ({move}) is not legal: {state.legal_moves()}"
        state.push(move)
    assert state.is_over(), "the playout stopped before the end"
    laid = [code for code in moves if code >= 0]
    assert len(set(laid)) == len(laid), "a card was laid twice"
    held_after = sum(state._hand_mask(seat) for seat in range(state.players))
    held_after |= sum(1 << card for card in state._pile_indices())
    laid_mask = sum(1 << code for code in laid)
    assert held_after & laid_mask == 0
    assert held_after | laid_mask == held_before
    assert all(state._hand_mask(s).bit_count() == state._hand_count(s) for s in range(state.players))
    return state


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@pytest.mark.parametrize("rules_name", RULE_SETS)
def test_playouts_are_legal_and_conserve_cards(implementation: str, rules_name: str) -> None:
    impl = _impl(implementation)
    for args in _search_cases(rules_name, 40):
        full = _full_position(args)
        moves = impl.playout(**full)
        assert moves, "a running game needs at least one more move"
        _replay(full, moves)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@pytest.mark.parametrize("rules_name", ["classic", "ravensburger", "continue"])
def test_search_counts_rebuilt_from_checked_playouts(implementation: str, rules_name: str) -> None:
    """search = sample_deals + (candidate, playout) per deal, every move checked on PyState."""
    impl = _impl(implementation)
    for args in _search_cases(rules_name, 12):
        keys = ("seat", "hand", "counts", "pile_count", "unknown", "weights", "seed")
        deals = impl.sample_deals(samples=args["samples"], **{key: args[key] for key in keys})
        expected = [[0, 0, 0] for _ in args["candidates"]]
        for hands, pile, playout_seed in deals:
            for k, code in enumerate(args["candidates"]):
                full = _full_position(args) | {"hands": hands, "pile": pile}
                state = _pystate(full)
                assert _move(code) in state.legal_moves()
                state.push(_move(code))
                seat = args["seat"]
                if not state.is_over():
                    laid, draws, last = state._phase()
                    after = full | {
                        "hands": tuple(state._hand_mask(s) for s in range(state.players)),
                        "pile": state._pile_indices(),
                        "turn": state.turn,
                        "fit": state._fit_mask(),
                        "laid": laid,
                        "draws": draws,
                        "last_drawn": last,
                        "seed": playout_seed,
                    }
                    state = _replay(after, impl.playout(**after))
                won = state._winner_seat() == seat
                penalty = sum(index % NUMBERS + 1 for index in range(80) if state._hand_mask(seat) >> index & 1)
                expected[k][0] += won
                expected[k][1] += 1
                expected[k][2] += 0 if won else penalty
        assert impl.search(**args) == ([tuple(e) for e in expected], len(deals))


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_random_playouts_counts_actions(implementation: str) -> None:
    impl = _impl(implementation)
    games, actions = impl.random_playouts(30, 4, 11)
    assert games == 30
    assert 30 * 20 < actions < 30 * 1000
    assert impl.random_playouts(30, 4, 11) == (games, actions)
    assert impl.random_playouts(30, 4, 11 + (1 << 64)) == (games, actions)


# ---------------------------------------------------------------------------
# search's contract


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_common_random_numbers_and_seeds(implementation: str) -> None:
    impl = _impl(implementation)
    args = _search_cases("classic", 8)[-1]
    code = args["candidates"][0]
    args.update(candidates=(code, code), policies=(0,) * len(args["counts"]), samples=6)
    results, done = impl.search(**args)
    assert done == 6
    assert results[0] == results[1], "the same move on the same samples and stream must score the same"
    again = impl.search(**{**args, "seed": args["seed"] + (1 << 64)})
    assert again == (results, done), "the seed is used modulo 2**64"
    assert impl.search(**{**args, "seed": args["seed"] % (1 << 64)}) == (results, done)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_time_limit_keeps_at_least_one_determinization(implementation: str) -> None:
    impl = _impl(implementation)
    args = _search_cases("classic", 3)[-1]
    args.update(samples=10_000 if implementation == "c" else 2_000, time_limit=1e-9)
    results, done = impl.search(**args)
    assert done == 1
    assert all(playouts == 1 for _, playouts, _ in results)
    args.update(samples=5, time_limit=60.0)
    assert impl.search(**args)[1] == 5


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_time_limit_stops_early(implementation: str) -> None:
    impl = _impl(implementation)
    args = _search_cases("classic", 3)[-1]
    args.update(samples=10**9, time_limit=0.05, policies=(2,) * len(args["counts"]))
    results, done = impl.search(**args)
    assert 1 <= done < 10**9
    assert all(playouts == done for _, playouts, _ in results)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_empty_candidates(implementation: str) -> None:
    impl = _impl(implementation)
    args = _search_cases("classic", 2)[-1] | {"candidates": ()}
    assert impl.search(**args) == ([], args["samples"])


def test_action_cap_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    args = _search_cases("classic", 2)[-1]
    monkeypatch.setattr(rollout_simulation, "MAX_ACTIONS", 2)
    with pytest.raises(RuntimeError, match="did not end within 2 actions"):
        rollout.search(**args)


# ---------------------------------------------------------------------------
# Sampling


def _deal_args(seat: int, counts: tuple[int, ...], pile_count: int, rng: random.Random) -> dict[str, Any]:
    """A hand for ``seat`` and the unknown cards, at random from the 80."""
    cards = list(range(80))
    rng.shuffle(cards)
    own = counts[seat]
    hidden = sum(counts) - own + pile_count
    return {
        "seat": seat,
        "hand": sum(1 << c for c in cards[:own]),
        "counts": counts,
        "pile_count": pile_count,
        "unknown": sum(1 << c for c in cards[own : own + hidden]),
        "weights": (None,) * len(counts),
    }


def _check_deal(args: dict[str, Any], hands: tuple[int, ...], pile: tuple[int, ...]) -> None:
    assert hands[args["seat"]] == args["hand"]
    for seat, count in enumerate(args["counts"]):
        assert hands[seat].bit_count() == count
    assert len(pile) == args["pile_count"] == len(set(pile))
    pile_mask = sum(1 << card for card in pile)
    others = sum(hands) - args["hand"]
    assert others & pile_mask == 0
    assert others | pile_mask == args["unknown"]


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_sampling_respects_counts(implementation: str) -> None:
    impl = _impl(implementation)
    rng = random.Random(5)
    for players in PLAYERS:
        for _ in range(10):
            seat = rng.randrange(players)
            counts = tuple(rng.randint(1, 12) for _ in range(players))
            args = _deal_args(seat, counts, rng.randint(0, 20), rng)
            args["weights"] = _weights(rng, players)
            for hands, pile, _seed in impl.sample_deals(samples=20, seed=rng.getrandbits(64), **args):
                _check_deal(args, hands, pile)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_sampling_avoids_weight_zero(implementation: str) -> None:
    impl = _impl(implementation)
    args = _deal_args(0, (10, 8, 8, 8), 20, random.Random(1))
    unknown = [card for card in range(80) if args["unknown"] >> card & 1]
    banned = {1: set(unknown[:12]), 2: set(unknown[12:20]), 3: set(unknown[:4])}
    weights: list[tuple[float, ...] | None] = [None]
    for seat in (1, 2, 3):
        weights.append(tuple(0.0 if card in banned[seat] else 1.0 for card in range(80)))
    args["weights"] = tuple(weights)
    deals = impl.sample_deals(samples=3000, seed=99, **args)
    for hands, pile, _seed in deals:
        _check_deal(args, hands, pile)
        for seat, cards in banned.items():
            assert not any(hands[seat] >> card & 1 for card in cards)
    # A positive weight still counts: seat 1 holds its allowed cards more often than 1 in 5.
    allowed = unknown[20:]
    held = sum(hands[1] >> card & 1 for hands, _, _ in deals for card in allowed)
    assert held > 0


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_weights_of_one_are_no_weights(implementation: str) -> None:
    impl = _impl(implementation)
    args = _deal_args(1, (7, 9, 11), 15, random.Random(6))
    plain = impl.sample_deals(samples=50, seed=8, **args)
    ones = impl.sample_deals(samples=50, seed=8, **(args | {"weights": ((1.0,) * 80,) * 3}))
    assert ones == plain


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_sampling_falls_back_when_only_weight_zero_is_left(implementation: str) -> None:
    impl = _impl(implementation)
    args = _deal_args(1, (6, 9), 0, random.Random(2))
    args["weights"] = (tuple(0.0 for _ in range(80)), None)
    for hands, pile, _seed in impl.sample_deals(samples=5, seed=3, **args):
        _check_deal(args, hands, pile)
        assert hands[0] == args["unknown"]


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_sampling_without_weights_is_uniform(implementation: str) -> None:
    impl = _impl(implementation)
    counts = (5, 6, 9, 3)
    pile_count = 12
    args = _deal_args(2, counts, pile_count, random.Random(4))
    samples = 4000 if implementation == "c" else 1500
    deals = impl.sample_deals(samples=samples, seed=123, **args)
    unknown = [card for card in range(80) if args["unknown"] >> card & 1]
    places = {0: counts[0], 1: counts[1], 3: counts[3], -1: pile_count}
    total = sum(places.values())
    tally = {(card, place): 0 for card in unknown for place in places}
    top = dict.fromkeys(unknown, 0)
    for hands, pile, _seed in deals:
        for card in unknown:
            place = next((seat for seat in (0, 1, 3) if hands[seat] >> card & 1), -1)
            tally[card, place] += 1
        top[pile[0]] += 1
    chi2 = 0.0
    for (_card, place), observed in tally.items():
        expected = samples * places[place] / total
        chi2 += (observed - expected) ** 2 / expected
    cells = len(unknown) * (len(places) - 1)  # degrees of freedom
    assert chi2 < cells + 6 * (2 * cells) ** 0.5, (chi2, cells)
    # Every unknown card is the top of the pile equally often.
    expected_top = samples * pile_count / total / pile_count
    chi2_top = sum((n - expected_top) ** 2 / expected_top for n in top.values())
    assert chi2_top < len(top) + 6 * (2 * len(top)) ** 0.5, chi2_top


# ---------------------------------------------------------------------------
# The medium policy is bots.medium's heuristic with perfect information


class _PerfectKnowledge:
    """What ``bots.medium``'s scoring reads from a Knowledge, with every card's place known."""

    def __init__(self, own: int, others: int, fit: int, colors: int) -> None:
        self.own = own
        self.others = others
        self.fit = fit
        self.rows = {c: (0, 0) for c in range(colors) if not fit >> (c * NUMBERS + ELEVEN - 1) & 1}

    def holds_own(self, index: int) -> bool:
        return bool(self.own >> index & 1)

    def opponent_chance(self, index: int) -> float:
        return 1.0 if self.others >> index & 1 else 0.0


def _lays_out_card_by_card(hand: set[tuple[int, int]], rows: dict[int, list[int]]) -> bool:
    """Whether ``hand`` ((colour, number) pairs) can be laid whole on ``rows`` (colour -> [low, high]), found
    the slow way: lay any card that fits, again and again."""
    rows = {color: list(row) for color, row in rows.items()}
    left = set(hand)
    progress = True
    while left and progress:
        progress = False
        for color, number in sorted(left):
            row = rows.get(color)
            if number == ELEVEN if row is None else number in (row[0] - 1, row[1] + 1):
                left.discard((color, number))
                rows[color] = [ELEVEN, ELEVEN] if row is None else [min(row[0], number), max(row[1], number)]
                progress = True
    return not left


def test_the_one_rule_of_going_out_agrees_with_laying_card_by_card() -> None:
    rng = random.Random(11)
    outs = 0
    for _ in range(3000):
        colors = rng.choice([2, 3, 4])
        rows: dict[int, list[int]] = {}
        for color in range(colors):
            if rng.random() < 0.7:
                low = rng.randint(1, ELEVEN)
                rows[color] = [low, rng.randint(ELEVEN, NUMBERS)]
        free = [
            (color, number)
            for color in range(colors)
            for number in range(1, NUMBERS + 1)
            if color not in rows or not rows[color][0] <= number <= rows[color][1]
        ]
        hand = set(rng.sample(free, rng.randint(1, min(4, len(free)))))
        own = sum(1 << (color * NUMBERS + number - 1) for color, number in hand)
        rows_seen = {color: (row[0], row[1]) for color, row in rows.items()}
        expected = _lays_out_card_by_card(hand, rows)
        assert core.can_go_out(own, fit_mask_of_rows(rows_seen, colors)) == expected, (hand, rows)
        outs += expected
    assert 100 < outs < 2900, outs  # both answers were met many times


def test_medium_scores_match_the_bot() -> None:
    checked = 0
    for rules_name in RULE_SETS:
        for args in _search_cases(rules_name, 40):
            full = _full_position(args)
            seat = full["turn"]
            own = full["hands"][seat]
            others = sum(full["hands"]) - own
            k = _PerfectKnowledge(own, others, full["fit"], full["colors"])
            for weight in (100, 160, 60, 96):
                for code in args["candidates"]:
                    if code < 0:
                        continue
                    expected = medium.lay_score(k, code, weight / 100)  # type: ignore[arg-type]
                    assert rollout_simulation._lay_score(own, others, code, weight) == round(expected * 100)
                    checked += 1
    assert checked > 500


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@pytest.mark.parametrize("rules_name", RULE_SETS)
def test_hoarder_lays_only_to_go_out_or_when_it_must(implementation: str, rules_name: str) -> None:
    """Every move of a hoarder in a playout: with a lay among several legal moves it lays exactly when it can
    lay its whole hand (outside the phase after a draw) or may neither draw nor pass; a forced lay that does not
    go out is medium's lay from the same position; otherwise it draws or ends its turn."""
    impl = _impl(implementation)
    counted = {"go out": 0, "forced": 0, "held back": 0}
    for case, args in enumerate(_search_cases(rules_name, 40)):
        players = len(args["counts"])
        hoarders = {args["seat"], (args["seat"] + 1 + case) % players}
        policies = tuple(POLICY_HOARDER if seat in hoarders else POLICY_BLOCKER for seat in range(players))
        full = _full_position(args) | {"policies": policies}
        moves = impl.playout(**full)
        _replay(full, moves)
        state = _pystate(full)
        for code in moves:
            seat = state.turn
            legal = state.legal_moves()
            if seat in hoarders and len(legal) > 1 and legal[0].card is not None:
                laid, draws, _last = state._phase()
                goes_out = not (draws and not laid) and core.can_go_out(state._hand_mask(seat), state._fit_mask())
                must_lay = DRAW not in legal and PASS not in legal
                assert (code >= 0) == (goes_out or must_lay), (rules_name, case, _move(code), legal)
                if must_lay and not goes_out:
                    laid_now, draws_now, last_now = state._phase()
                    position = {
                        "hands": tuple(state._hand_mask(s) for s in range(players)),
                        "pile": tuple(state._pile_indices()),
                        "turn": seat,
                        "fit": state._fit_mask(),
                        "laid": laid_now,
                        "draws": draws_now,
                        "last_drawn": last_now,
                        **{key: full[key] for key in ("colors", "max_draws", "must_play", "ends_after_draw")},
                        "policies": tuple(POLICY_MEDIUM for _ in range(players)),
                        "seed": 0,
                    }
                    assert impl.playout(**position)[0] == code
                counted["go out" if goes_out else "forced" if must_lay else "held back"] += 1
            state.push(_move(code))
    assert counted["held back"] > 100
    assert counted["go out"] > 10
    assert counted["forced"] > 100


# ---------------------------------------------------------------------------
# The blocking policies are bots.blocking's players, move for move

BLOCKING_BOTS: dict[int, type[Bot]] = {
    POLICY_BLOCKER: BlockerBot,
    POLICY_TIGHT_BLOCKER: TightBlockerBot,
    POLICY_ONE_LAY: OneLayBot,
}


def _blocking_table(rules_name: str, count: int) -> list[tuple[Game, tuple[int, ...]]]:
    """Seeded random positions, each seat given one of the blocking policies at random."""
    rules = RULE_SETS[rules_name]
    tables = []
    seed = 0
    while len(tables) < count:
        seed += 1
        game = _random_game(rules, PLAYERS[seed % len(PLAYERS)], seed * 104729 + len(rules_name))
        if game is None:
            continue
        rng = random.Random(seed)
        tables.append((game, tuple(rng.choice(tuple(BLOCKING_BOTS)) for _ in range(game.players))))
    return tables


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@pytest.mark.parametrize("rules_name", RULE_SETS)
def test_blocking_policies_play_as_the_bots(implementation: str, rules_name: str) -> None:
    """A playout from a real position (every hand and the pile as they are) makes exactly the moves that
    the bots of ``bots.blocking`` make from their own views, to the end of the game."""
    impl = _impl(implementation)
    assert rollout_simulation.LEAD_GAP == blocking.LEAD_GAP
    decisions = 0
    for game, policies in _blocking_table(rules_name, 40):
        full = _real_position(game, policies)
        bots = [BLOCKING_BOTS[policy](seat) for seat, policy in enumerate(policies)]
        expected = []
        while not game.is_over():
            view = game.view(game.turn)
            move = bots[game.turn].choose(view)
            decisions += len(view.legal) > 1
            expected.append(move.code)
            game.push(move)
        assert impl.playout(**full) == expected, policies
    assert decisions > 1000


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@pytest.mark.parametrize("rules_name", RULE_SETS)
def test_hoarder_policy_decides_as_the_hoarder(implementation: str, rules_name: str) -> None:
    """From real positions the hoarder policy's move is the ``hoarder`` bot's, but for the card of a lay the
    rules force on it (the policy scores it by medium with every card in view, the bot by what it may see)."""
    impl = _impl(implementation)
    decisions = forced = 0
    for game, blockers in _blocking_table(rules_name, 40):
        hoarder_seat = game.turn
        bots = [
            HoarderBot(seat) if seat == hoarder_seat else BLOCKING_BOTS[blockers[seat]](seat)
            for seat in range(game.players)
        ]
        policies = tuple(POLICY_HOARDER if seat == hoarder_seat else blockers[seat] for seat in range(game.players))
        while not game.is_over():
            view = game.view(game.turn)
            move = bots[game.turn].choose(view)
            if game.turn == hoarder_seat and len(view.legal) > 1:
                code = impl.playout(**_real_position(game, policies))[0]
                decisions += 1
                if DRAW in view.legal or PASS in view.legal:
                    assert code == move.code, (rules_name, str(view), move)
                else:  # the rules make it lay
                    forced += 1
                    assert code >= 0
                    assert move.card is not None
            game.push(move)
    assert decisions > 300
    assert forced > 20


# ---------------------------------------------------------------------------
# Bad arguments


def _valid_args() -> dict[str, Any]:
    game = Game.deal(players=3, seed=8)
    game.push(game.legal_moves()[0])
    args = _root(game)
    args.update(candidates=tuple(m.code for m in game.legal_moves()), policies=(2, 2, 2), samples=2, seed=1)
    return args


def _bad_cases() -> list[tuple[str, dict[str, Any], str]]:
    args = _valid_args()
    seat = args["seat"]
    hand = args["hand"]
    own = (hand & -hand).bit_length() - 1
    unknown_card = (args["unknown"] & -args["unknown"]).bit_length() - 1
    illegal = next(c for c in range(80) if hand >> c & 1 and not args["fit"] >> c & 1)
    counts = list(args["counts"])
    zero_counts = list(counts)
    other = (seat + 1) % 3
    zero_counts[other] = 0
    table = ((1 << 80) - 1) & ~hand & ~args["unknown"]
    on_table = (table & -table).bit_length() - 1

    def row(weights: tuple[float, ...]) -> tuple[tuple[float, ...] | None, ...]:
        return tuple(weights if s == other else None for s in range(3))

    return [
        ("unknown popcount", {"unknown": args["unknown"] ^ (1 << unknown_card)}, "unknown holds"),
        ("illegal candidate", {"candidates": (illegal,)}, "is not legal here"),
        ("pass not legal", {"candidates": (PASS_CODE,)}, "candidate pass"),
        ("seat out of range", {"seat": 3}, "is not a seat"),
        ("negative seat", {"seat": -1}, "is not a seat"),
        ("one seat", {"counts": (args["counts"][0],)}, "2-6 seats"),
        ("count of own hand", {"counts": (*counts[:seat], counts[seat] + 1, *counts[seat + 1 :])}, "counts\\["),
        ("hand in unknown", {"unknown": args["unknown"] | (1 << own)}, "share cards"),
        ("game over", {"counts": tuple(zero_counts)}, "unknown holds|the game is over"),
        ("weights length", {"weights": (None, None)}, "one entry per seat"),
        ("weights row", {"weights": row((1.0,) * 79)}, "80 entries"),
        ("negative weight", {"weights": row((-1.0,) * 80)}, "finite and >= 0"),
        ("nan weight", {"weights": row((float("nan"),) * 80)}, "finite and >= 0"),
        ("policy id", {"policies": (2, 2, len(POLICIES))}, "a policy must be"),
        ("policies length", {"policies": (2, 2)}, "one entry per seat"),
        ("samples", {"samples": 0}, "samples must be at least 1"),
        ("colors", {"colors": 5}, "colors must be 1-4"),
        ("last drawn", {"draws": 1, "last_drawn": -1}, "last_drawn must name"),
        ("laid", {"laid": -1}, "laid and draws"),
        ("fit on table", {"fit": args["fit"] | (1 << on_table)}, "on the table"),
        ("hand bits", {"hand": 1 << 80}, "at or above 80"),
        ("pile count", {"pile_count": -1}, "pile_count must be"),
    ]


BAD_CASES = _bad_cases()


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@pytest.mark.parametrize(("name", "change", "message"), BAD_CASES, ids=[case[0] for case in BAD_CASES])
def test_bad_arguments(implementation: str, name: str, change: dict[str, Any], message: str) -> None:
    impl = _impl(implementation)
    with pytest.raises(ValueError, match=message):
        impl.search(**(_valid_args() | change))


@pytest.mark.parametrize(("name", "change", "message"), BAD_CASES, ids=[case[0] for case in BAD_CASES])
def test_bad_arguments_same_message(name: str, change: dict[str, Any], message: str) -> None:
    core = _need_core()
    errors = []
    for search in (rollout.search, core.search):
        with pytest.raises(ValueError, match=message) as info:
            search(**(_valid_args() | change))
        errors.append(str(info.value))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_bad_argument_types(implementation: str) -> None:
    impl = _impl(implementation)
    with pytest.raises(TypeError):
        impl.search(**(_valid_args() | {"counts": 3}))
    with pytest.raises(TypeError):
        impl.search(**(_valid_args() | {"seed": "1"}))
    with pytest.raises(TypeError):
        impl.search(**{key: value for key, value in _valid_args().items() if key != "seed"})
    with pytest.raises(ValueError, match="players must be 2-6"):
        impl.random_playouts(1, 7, 0)
    with pytest.raises(ValueError, match="a policy must be"):
        impl.random_playouts(1, 4, 0, len(POLICIES))
    full = _full_position(_valid_args())
    with pytest.raises(ValueError, match="a card is in two places"):
        impl.playout(**(full | {"pile": (*full["pile"], full["pile"][0])}))


def test_search_keyword_only() -> None:
    core = _need_core()
    search: Callable[..., Any] = core.search
    with pytest.raises(TypeError, match="keyword arguments only"):
        search(0)
