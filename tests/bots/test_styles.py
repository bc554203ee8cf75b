"""Reading the others' styles (``bots.styles``) from their public turns.

- The tracker tells the kinds of turns apart on hand-written histories.
- The posterior is the prior before any turn, a distribution always, and
  refuses a wrong number of kinds.
- Whole games of each style, under classic and must-play rules: the true
  style gets clearly more than its prior; a player who lays whatever he can
  is read as one.
- Only what the seat may see: the reading from a seat's view equals the
  reading from the public history with every draw hidden.
- ``expert`` samples each opponent's playout policy from his posterior.
"""

from __future__ import annotations

import random

import pytest

from elferraus import Game, Rules
from elferraus.bots import HoarderBot, make_bot
from elferraus.bots.base import Bot
from elferraus.bots.knowledge import TURN_KINDS, Tracker, turn_kind
from elferraus.bots.master import MasterBot
from elferraus.bots.search import ExpertBot, HardBot, ReadingExpertBot
from elferraus.bots.styles import (
    FIVE_STYLES,
    PRIOR,
    STYLE_POLICIES,
    STYLES,
    TURN_KIND_SHARES,
    WITH_HOARDER,
    Reading,
    measure_turn_kinds,
)
from elferraus.rollout import POLICY_HOARDER, POLICY_MEDIUM

DRAW_KEEP = turn_kind(drew_first=True, kept=True, lays=0, opened=False, held_back=False)
DRAW_OTHER = turn_kind(drew_first=True, kept=False, lays=0, opened=False, held_back=False)
DRAW_LAY_OPEN = turn_kind(drew_first=True, kept=False, lays=1, opened=True, held_back=False)
ONE_LAY = turn_kind(drew_first=False, kept=False, lays=1, opened=False, held_back=False)
ONE_LAY_HELD = turn_kind(drew_first=False, kept=False, lays=1, opened=False, held_back=True)
MORE_LAYS = turn_kind(drew_first=False, kept=False, lays=3, opened=False, held_back=False)
MORE_LAYS_OPEN = turn_kind(drew_first=False, kept=False, lays=2, opened=True, held_back=False)


def _kinds(seat: int, moves: list[str], players: int = 3, pile: int = 20) -> list[int]:
    tracker = Tracker(seat=0, players=players, colors=4)
    tracker.follow(moves, pile)
    return tracker.turn_kinds[seat]


@pytest.mark.parametrize(
    ("moves", "expected"),
    [
        # the forced opening is not counted; a turn counts once the next seat moves
        (["0 R11", "1 R10", "1 R9", "1 pass", "2 draw"], {MORE_LAYS: 1}),
        (["0 R11", "1 R10", "1 pass", "2 draw"], {ONE_LAY: 1}),
        (["0 R11", "1 draw", "1 pass", "2 draw"], {DRAW_KEEP: 1}),  # pass after one draw of three: kept it
        (["0 R11", "1 draw", "1 draw", "1 draw", "1 pass", "2 draw"], {DRAW_OTHER: 1}),
        (["0 R11", "1 draw", "1 Y11", "2 draw"], {DRAW_LAY_OPEN: 1}),
        (["0 R11", "1 R12", "1 Y11", "1 pass", "2 draw"], {MORE_LAYS_OPEN: 1}),
        # R10 fitted when seat 1 ended its first turn: laying it later shows he held it back
        (
            ["0 R11", "1 R12", "1 pass", "2 draw", "2 draw", "2 draw", "2 pass", "0 pass", "1 R10", "1 pass", "2 Y11"],
            {ONE_LAY: 1, ONE_LAY_HELD: 1},
        ),
        (["0 R11"], {}),
    ],
)
def test_turn_kinds_of_a_history(moves: list[str], expected: dict[int, int]) -> None:
    kinds = _kinds(1, moves)
    assert {kind: count for kind, count in enumerate(kinds) if count} == expected


def test_no_turns_give_the_prior() -> None:
    for must_play in (False, True):
        assert FIVE_STYLES.posterior([0] * TURN_KINDS, must_play) == pytest.approx(PRIOR)


def test_posterior_is_a_distribution() -> None:
    rng = random.Random(3)
    for _ in range(200):
        kinds = [rng.choice((0, 0, 1, 5, 40)) for _ in range(TURN_KINDS)]
        chances = FIVE_STYLES.posterior(kinds, rng.random() < 0.5)
        assert len(chances) == len(STYLES)
        assert all(0.0 <= chance <= 1.0 for chance in chances)
        assert sum(chances) == pytest.approx(1.0)


def test_the_tables_are_shares_per_style() -> None:
    for table in TURN_KIND_SHARES.values():
        assert len(table) == len(STYLES)
        for row in table:
            assert len(row) == TURN_KINDS
            assert all(share > 0 for share in row)
            assert sum(row) == pytest.approx(1.0)


def test_a_held_back_card_rules_out_greedy() -> None:
    """A player who lays whatever he can never lays a card he held back."""
    kinds = [0] * TURN_KINDS
    kinds[ONE_LAY_HELD] = 2
    kinds[ONE_LAY] = 3
    for must_play in (False, True):
        assert FIVE_STYLES.posterior(kinds, must_play)[STYLES.index("greedy")] < 0.01


@pytest.mark.parametrize("count", [-1, TURN_KINDS - 1, TURN_KINDS + 1])
def test_wrong_number_of_kinds(count: int) -> None:
    with pytest.raises(ValueError, match=f"kinds must count {TURN_KINDS} kinds of turns"):
        FIVE_STYLES.posterior([0] * max(count, 0), False)


def test_draw_policy_follows_the_chances() -> None:
    rng = random.Random(5)
    chances = (0.1, 0.2, 0.3, 0.4, 0.0)
    drawn = [FIVE_STYLES.draw(chances, rng) for _ in range(20_000)]
    for policy, chance in zip(STYLE_POLICIES, chances, strict=True):
        assert drawn.count(policy) / len(drawn) == pytest.approx(chance, abs=0.015)
    assert {FIVE_STYLES.draw((0, 0, 1, 0, 0), rng) for _ in range(50)} == {STYLE_POLICIES[2]}


def _read_games(style: str, rules: Rules, games: int) -> list[tuple[float, ...]]:
    """Seat 0 (greedy) reads seats 1-3 (all of ``style``) after each whole game, as ``expert-reads`` reads."""
    return _read_games_with(FIVE_STYLES, style, rules, games)


@pytest.mark.parametrize("rules_name", ["classic", "ravensburger"])
@pytest.mark.parametrize("style", STYLES)
def test_whole_games_are_read_towards_the_true_style(rules_name: str, style: str) -> None:
    readings = _read_games(style, Rules.preset(rules_name), 20)
    index = STYLES.index(style)
    mean = sum(chances[index] for chances in readings) / len(readings)
    if style == "greedy":
        assert mean > 0.85
    else:
        assert mean > 2 * PRIOR[index]
        assert sum(chances[0] for chances in readings) / len(readings) < 0.2  # not taken for greedy


def test_the_reading_uses_only_public_moves() -> None:
    """A seat's reading of the others is the one of an onlooker who sees no card drawn."""
    rules = Rules.preset("classic")
    game = Game.deal(players=4, seed=77, rules=rules)
    bots = [make_bot(name, seat) for seat, name in enumerate(("blocker", "medium", "tight-blocker", "one-lay"))]
    for seat, bot in enumerate(bots):
        bot.start_game(seat, 4, rules)
    checked = 0
    while not game.is_over():
        for seat in range(4):
            mine = Tracker(seat=seat, players=4, colors=4)
            mine.update(game.view(seat))
            onlooker = Tracker(seat=seat, players=4, colors=4)
            onlooker.follow(game.public_moves(None), game.pile_size())
            assert FIVE_STYLES.read(mine, False) == FIVE_STYLES.read(onlooker, False)
            checked += 1
        game.push(bots[game.turn].choose(game.view(game.turn)))
    assert checked > 100


def test_measured_turns_of_a_greedy_player_show_no_holding_back() -> None:
    counts = measure_turn_kinds(games=30, seed=4, must_play=False)
    greedy = counts[STYLES.index("greedy")]
    assert sum(greedy) > 100
    assert greedy[DRAW_KEEP] == 0
    assert all(count == 0 for kind, count in enumerate(greedy) if kind % 2)  # held back: odd kinds
    assert sum(map(sum, counts)) > 500


def _reading_expert_at_table(
    game_seed: int, expert_seed: int, opponent: str
) -> tuple[Game, ReadingExpertBot, list[Bot]]:
    """A classic game of four: a reading expert in seat 0 and three ``opponent`` players, each told its seat."""
    rules = Rules.preset("classic")
    game = Game.deal(players=4, seed=game_seed, rules=rules)
    expert = ReadingExpertBot(expert_seed)
    bots: list[Bot] = [expert, *(make_bot(opponent, seat) for seat in (1, 2, 3))]
    for seat, bot in enumerate(bots):
        bot.start_game(seat, 4, rules)
    return game, expert, bots


def test_the_reading_expert_draws_opponent_models_from_the_reading() -> None:
    """Against blockers the reading expert's samples model the opponents as blocking styles, not as greedy, and
    itself as a hoarder."""
    game, expert, bots = _reading_expert_at_table(31, 1, "blocker")
    models: list[tuple[int, ...]] = []
    while not game.is_over():
        view = game.view(game.turn)
        if game.turn:
            game.push(bots[game.turn].choose(view))
            continue
        advice = expert.advise(view)
        if advice.reason == "search" and len(view.moves) > 60:
            models.extend(expert._opponent_models(view) for _ in range(200))
        game.push(advice.move)
    assert models, "the expert had no real decision late in the game"
    opponents = [policy for sample in models for seat, policy in enumerate(sample) if seat != 0]
    assert all(sample[0] == POLICY_HOARDER for sample in models)
    greedy_share = opponents.count(STYLE_POLICIES[0]) / len(opponents)
    assert greedy_share < 0.3


def test_hard_and_expert_keep_the_greedy_or_medium_models_until_the_reading_is_measured() -> None:
    assert not HardBot.reads_styles
    assert not ExpertBot.reads_styles
    assert ReadingExpertBot.reads_styles
    assert (HardBot.own_policy, ExpertBot.own_policy, ReadingExpertBot.own_policy) == (
        POLICY_MEDIUM,
        POLICY_MEDIUM,
        POLICY_HOARDER,
    )
    assert make_bot("expert-reads").name == "expert-reads"


def test_the_reading_expert_keeps_the_hoarders_move_unless_the_search_finds_a_clearly_better_one() -> None:
    """Every searched decision in games against blockers: the hoarder's move, unless the best searched move
    won more often by more than the margin (a share of the samples) for that kind of default move."""
    rules = Rules.preset("classic")
    kept = overruled = searched_alone = 0
    for deal in range(5, 11):
        game, expert, bots = _reading_expert_at_table(deal, deal, "blocker")
        hoarder = HoarderBot(deal)
        hoarder.start_game(0, 4, rules)
        while not game.is_over():
            view = game.view(game.turn)
            if game.turn:
                game.push(bots[game.turn].choose(view))
                continue
            default = hoarder.choose(view)
            advice = expert.advise(view)
            if advice.reason == "search":
                rates = dict(advice.rates)
                best_move, best_rate = advice.rates[0]
                margin = expert.hold_margin if default.card is None else expert.lay_margin
                if expert._default_move(view) is None:  # a table read as greedy: the search alone decides
                    searched_alone += 1
                    assert advice.move == best_move
                elif advice.move == default:
                    kept += 1
                    assert best_rate - rates[default] <= margin + 1e-9
                else:
                    overruled += 1
                    assert advice.move == best_move
                    assert best_rate - rates[default] > margin
            game.push(advice.move)
    assert kept > 50
    assert overruled > 0
    assert searched_alone < kept


def test_the_reading_expert_searches_alone_at_a_table_read_as_greedy() -> None:
    """Against three greedy players the reading soon says so, and then the hoarder's move is no default."""
    game, expert, bots = _reading_expert_at_table(12, 3, "greedy")
    defaults = []
    while not game.is_over():
        view = game.view(game.turn)
        move = bots[game.turn].choose(view)
        if game.turn == 0 and expert.advise(view).reason == "search":
            defaults.append(expert._default_move(view))
        game.push(move)
    assert defaults
    assert defaults[-1] is None


def _read_games_with(reading: Reading, style: str, rules: Rules, games: int) -> list[tuple[float, ...]]:
    """Seat 0 (greedy) reads seats 1-3 (all of ``style``) after each whole game, with ``reading``."""
    readings = []
    for seed in range(games):
        game = Game.deal(players=4, seed=900 + seed, rules=rules)
        bots = [make_bot("greedy", 0), *(make_bot(style, seat) for seat in (1, 2, 3))]
        for seat, bot in enumerate(bots):
            bot.start_game(seat, 4, rules)
        while not game.is_over():
            game.push(bots[game.turn].choose(game.view(game.turn)))
        tracker = Tracker(seat=0, players=4, colors=4)
        tracker.follow(game.public_moves(0), game.pile_size())
        readings.extend(chances for chances in reading.read(tracker, rules.must_play) if chances is not None)
    return readings


@pytest.mark.parametrize("rules_name", ["classic", "ravensburger"])
def test_masters_reading_tells_the_hoarder_apart(rules_name: str) -> None:
    """``master`` reads six styles, the hoarder among them; ``expert-reads`` keeps its five."""
    assert WITH_HOARDER.styles == (*STYLES, "hoarder")
    assert WITH_HOARDER.policies[-1] == POLICY_HOARDER
    assert sum(WITH_HOARDER.prior) == pytest.approx(1.0)
    assert MasterBot.reading is WITH_HOARDER
    assert ReadingExpertBot.reading is FIVE_STYLES
    readings = _read_games_with(WITH_HOARDER, "hoarder", Rules.preset(rules_name), 20)
    mean = sum(chances[-1] for chances in readings) / len(readings)
    assert mean > 2 * WITH_HOARDER.prior[-1]
    assert sum(chances[0] for chances in readings) / len(readings) < 0.2  # not taken for greedy


def test_the_six_styles_turns_are_measured_as_the_five() -> None:
    """The hoarder's measured turns (the finished ones: going out ends the game): never two cards in a turn."""
    counts = measure_turn_kinds(games=30, seed=4, must_play=False, styles=WITH_HOARDER.styles)
    assert len(counts) == 6
    hoarder = counts[-1]
    assert sum(hoarder) > 100
    assert all(count == 0 for kind, count in enumerate(hoarder) if kind >= MORE_LAYS - MORE_LAYS % 4)
