"""Computer players: legal moves only, under every preset, and blind to hidden cards."""

from __future__ import annotations

import gc
import random
import types

import pytest

from elferraus import Game, Rules, format_position, read_position
from elferraus.bots import BOTS, OPPONENTS, Bot, MasterBot, make_bot
from elferraus.bots.search import ExpertBot, HardBot, SearchBot
from elferraus.bots.simulate import play_out
from elferraus.game import Game as GameClass
from elferraus.view import SeatView
from tests.data import DATA
from tests.data.make_golden_search import golden_search_lines

RULE_SETS = {
    "classic": Rules(),
    "ravensburger": Rules.preset("ravensburger"),
    "beginners": Rules.preset("beginners"),
    "continue": Rules(after_draw="continue"),
    "one-draw": Rules(max_draws=1),
}


class QuickHard(HardBot):
    """The hard player with a tiny budget: fast for tests."""

    max_samples = 16
    round_samples = 8


class QuickExpert(ExpertBot):
    max_samples = 24
    round_samples = 8


class QuickMaster(MasterBot):
    """master with a tiny budget of samples, as the quick experts."""

    max_samples = 24
    round_samples = 8


PLAYERS = [*sorted(BOTS), *(name if name != "sampler" else "sampler:8" for name in OPPONENTS)]
"""Every level and every opponent to measure against (the sampler with a small budget of deals)."""


def quick_bot(level: str, seed: int) -> Bot:
    if level == "hard":
        return QuickHard(seed)
    if level == "expert":
        return QuickExpert(seed)
    if level == "master":
        return QuickMaster(seed)
    return make_bot(level, seed)


@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
@pytest.mark.parametrize("level", ["random", "greedy", "easy", "medium"])
def test_fast_levels_play_legal_games(level: str, rules_name: str) -> None:
    rules = RULE_SETS[rules_name]
    for seed in range(60):
        players = 2 + seed % 5
        game = Game.deal(players, seed, rules)
        others = ["random", "greedy", "easy", "medium"]
        bots = [
            quick_bot(level if seat == seed % players else others[seat % 4], seed + seat) for seat in range(players)
        ]
        play_out(game, bots)  # push raises on any illegal move
        assert game.is_over()


@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
@pytest.mark.parametrize("level", ["hard", "expert", "master"])
def test_search_levels_play_legal_games(level: str, rules_name: str) -> None:
    rules = RULE_SETS[rules_name]
    for seed in range(3):
        players = (2, 4, 6)[seed]
        game = Game.deal(players, 100 + seed, rules)
        bots = [quick_bot(level if seat == 0 else "greedy", seed + seat) for seat in range(players)]
        play_out(game, bots)
        assert game.is_over()


def _hidden_shuffled(game: Game, seat: int, rng: random.Random) -> Game:
    """The same position with the cards ``seat`` cannot see dealt differently."""
    hidden = [card for other in range(game.players) if other != seat for card in game.hand(other)] + game.pile()
    rng.shuffle(hidden)
    fields = format_position(game).split(" ")
    hands = []
    for other in range(game.players):
        if other == seat:
            hands.append("".join(map(str, game.hand(seat))) or "-")
        else:
            count = len(game.hand(other))
            hands.append("".join(map(str, hidden[:count])) or "-")
            hidden = hidden[count:]
    fields[1] = "/".join(hands)
    fields[2] = "".join(map(str, hidden)) or "-"
    return read_position(" ".join(fields))


def _positions(count: int, rules: Rules) -> list[Game]:
    positions = []
    for seed in range(count):
        game = Game.deal(3 + seed % 3, 500 + seed, rules)
        bots = [make_bot("greedy", s) for s in range(game.players)]
        steps = random.Random(seed).randrange(5, 40)
        for _ in range(steps):
            if game.is_over():
                break
            game.push(bots[game.turn].choose(game.view(game.turn)))
        if not game.is_over() and len(game.legal_moves()) > 1:
            positions.append(read_position(format_position(game)))
    return positions


@pytest.mark.parametrize("level", PLAYERS)
@pytest.mark.parametrize("rules_name", ["classic", "ravensburger"])
def test_choice_depends_only_on_what_the_seat_may_see(level: str, rules_name: str) -> None:
    """Shuffling the other hands and the pile leaves the view, and so the choice, unchanged."""
    rng = random.Random(7)
    for game in _positions(12, RULE_SETS[rules_name]):
        seat = game.turn
        twin = _hidden_shuffled(game, seat, rng)
        assert twin.view(seat) == game.view(seat)
        first = quick_bot(level, 42)
        second = quick_bot(level, 42)
        first.start_game(seat, game.players, game.rules)
        second.start_game(seat, game.players, game.rules)
        assert first.choose(game.view(seat)) == second.choose(twin.view(seat))


def _reachable(root: object, limit: int = 20000) -> list[object]:
    """Objects reachable from ``root``, not through modules, classes or functions (shared code)."""
    seen: set[int] = set()
    found: list[object] = []
    stack = [root]
    skip = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType, types.MethodType)
    while stack and len(found) < limit:
        item = stack.pop()
        if id(item) in seen or isinstance(item, skip):
            continue
        seen.add(id(item))
        found.append(item)
        stack.extend(gc.get_referents(item))
    return found


@pytest.mark.parametrize("level", PLAYERS)
def test_a_bot_holds_no_reference_to_the_game(level: str) -> None:
    game = Game.deal(4, 11)
    bots = [quick_bot(level, seat) for seat in range(4)]
    for seat, bot in enumerate(bots):
        bot.start_game(seat, 4, game.rules)
    for _ in range(40):
        if game.is_over():
            break
        seat = game.turn
        game.push(bots[seat].choose(game.view(seat)))
    for bot in bots:
        reachable = _reachable(bot)
        assert not any(isinstance(item, GameClass) for item in reachable)
        views = [item for item in reachable if isinstance(item, SeatView)]
        assert all(view.seat == bots.index(bot) for view in views)


def test_bots_are_reproducible_under_a_seed() -> None:
    for level in ("random", "easy", "medium", "hard", "expert"):  # master: tests/table, a seeded game twice
        runs = []
        for _ in range(2):
            game = Game.deal(4, 3)
            play_out(game, [quick_bot(level, 5 + seat) for seat in range(4)])
            runs.append(game.record_moves())
        assert runs[0] == runs[1]


def test_search_players_at_full_budget_are_reproducible() -> None:
    """Their budget counts samples, not seconds: the same seed plays the same game, busy machine or not."""
    runs = []
    for _ in range(2):
        game = Game.deal(4, 8)
        play_out(
            game, [make_bot(level, 40 + seat) for seat, level in enumerate(("expert", "hard", "greedy", "medium"))]
        )
        runs.append(game.record_moves())
    assert runs[0] == runs[1]


def test_search_bot_reads_its_own_last_draw() -> None:
    """After a draw that does not fit, the search must know which card was drawn (it is in the hand)."""
    game = Game.deal(3, 21)
    bots = [make_bot("greedy", s) for s in range(3)]
    while not game.is_over():
        view = game.view(game.turn)
        if view.draws and not view.laid and view.drawn is None:
            from elferraus.bots.knowledge import Knowledge

            arguments = SearchBot._arguments(view, Knowledge.of(view))
            assert arguments["last_drawn"] == game.last_drawn.index  # type: ignore[union-attr]
            return
        game.push(bots[game.turn].choose(view))
    pytest.fail("no draw that did not fit in this game")


def _tracked(level: str, deals: int) -> list[tuple[int, int]]:
    """(keeps, holdbacks) that seat 0 saw of seat 1, one per game of ``level`` players."""
    from elferraus.bots.knowledge import Tracker

    seen = []
    for deal in range(deals):
        game = Game.deal(4, 300 + deal)
        play_out(game, [make_bot(level, seat) for seat in range(4)])
        tracker = Tracker(seat=0, players=4, colors=4)
        tracker.reset(game.rules.deck_size - 4 * 15)
        for text in game.public_moves(0):
            tracker._apply(text)
        seen.append((tracker.keeps[1], tracker.holdbacks[1]))
    return seen


def test_a_player_who_lays_whatever_he_can_is_never_seen_holding_back() -> None:
    assert all(sighting == (0, 0) for sighting in _tracked("greedy", 40))


def test_a_blocker_is_seen_holding_back() -> None:
    seen = _tracked("medium", 40)
    assert sum(1 for keeps, holdbacks in seen if keeps or holdbacks) >= 30


def test_the_search_players_play_their_golden_games_move_for_move() -> None:
    """``tests/data/golden-search.jsonl`` was made before the search players read their knowledge once per
    round of samples instead of once per sample: the same games, byte for byte."""
    golden = (DATA / "golden-search.jsonl").read_text(encoding="utf-8").splitlines()
    assert golden_search_lines() == golden
