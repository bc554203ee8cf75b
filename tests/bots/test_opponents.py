"""The opponents to measure against: each style's defining move, legal games under every preset, the arena."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from elferraus import Game, Move, Rules, read_position
from elferraus.arena.runner import ArenaConfig, run_arena, summarize
from elferraus.bots import OPPONENTS, SamplerBot, is_player_name, make_bot
from elferraus.bots.blocking import read_lays
from elferraus.bots.simulate import play_out
from elferraus.cli.main import main
from elferraus.rules import PRESETS
from elferraus.table.seating import seat_specs
from tests.support.engine_helpers import expand_position

CLASSIC = "RYGB:3:free:end"
MUST = "RYGB:3:must:end"
CONTINUE = "RYGB:3:free:continue"

STYLES = ("blocker", "tight-blocker", "one-lay", "no-open", "hoarder")
QUICK_SAMPLER = "sampler:8"
"""A sampler of few deals: reproducible and fast, for the tests that play many games."""


@dataclass(frozen=True)
class Scenario:
    id: str
    position: str
    """Compact position (see :func:`engine_helpers.expand_position`); seat 0 is to move."""
    expected: dict[str, str]
    """Player -> the move it must make."""


SCENARIOS = [
    # -- a 10 with nothing below it in the hand frees the whole lower row for the others
    Scenario(
        "ten-that-frees-the-others",
        f"R11-11 R10Y5/G3 * 0 -:0:- {CLASSIC}",
        {"blocker": "draw", "tight-blocker": "draw", "one-lay": "R10", "no-open": "R10", "greedy": "R10"},
    ),
    Scenario(
        "ten-before-its-own-nine-frees-nothing",
        f"R11-11 R10R9Y5/G3 * 0 -:0:- {CLASSIC}",
        {"blocker": "R10", "tight-blocker": "R10", "one-lay": "R10", "no-open": "R10", "hoarder": "draw"},
    ),
    Scenario(
        "ten-leading-over-one-card-to-its-own-eight",
        f"R11-11 R10R8Y5/G3 * 0 -:0:- {CLASSIC}",
        {"blocker": "R10", "tight-blocker": "draw", "one-lay": "R10", "no-open": "R10"},
    ),
    Scenario(
        "ten-leading-over-a-long-gap",
        f"R11-11 R10R5Y5/G3 * 0 -:0:- {CLASSIC}",
        {"blocker": "draw", "tight-blocker": "draw", "one-lay": "R10"},
    ),
    Scenario(
        "the-card-that-frees-least-of-two",
        f"R11-11 R10R12R13Y5/G3 * 0 -:0:- {CLASSIC}",
        {"blocker": "R12", "tight-blocker": "R12", "one-lay": "R12", "no-open": "R12"},
    ),
    # -- opening a row: an 11 frees its 10 and its 12 for everybody
    Scenario(
        "eleven-that-opens-a-row-for-the-others",
        f"R11-11 Y11Y5/G3 * 0 -:0:- {CLASSIC}",
        {"blocker": "draw", "tight-blocker": "draw", "one-lay": "Y11", "no-open": "draw", "greedy": "Y11"},
    ),
    Scenario(
        "eleven-between-its-own-ten-and-twelve",
        f"R11-11 Y10Y11Y12G5/G3 * 0 -:0:- {CLASSIC}",
        {"blocker": "Y11", "tight-blocker": "Y11", "one-lay": "Y11", "no-open": "draw"},
    ),
    Scenario(
        "no-open-lays-what-opens-no-row-and-keeps-the-eleven",
        f"R11-11 R12Y11G5/G3 * 0 -:0:- {CLASSIC}",
        {"no-open": "R12", "greedy": "R12"},
    ),
    Scenario(
        "no-open-ends-its-turn-rather-than-open",
        f"R11-12 Y11G5/G3 * 0 R12:0:- {CLASSIC}",
        {"no-open": "pass", "greedy": "Y11"},
    ),
    # -- after a lay: one-lay always stops; the blockers go on only with what they accept
    Scenario(
        "after-a-lay-more-cards-fit",
        f"R11-12 R13R14R10Y5/G3 * 0 R12:0:- {CLASSIC}",
        {
            "one-lay": "pass",
            "blocker": "R13",
            "tight-blocker": "R13",
            "no-open": "R13",
            "greedy": "R13",
            "hoarder": "pass",
        },
    ),
    Scenario(
        "after-a-lay-only-a-freeing-card-fits",
        f"R11-12 R10Y5/G3 * 0 R12:0:- {CLASSIC}",
        {"one-lay": "pass", "blocker": "pass", "tight-blocker": "pass", "no-open": "R10"},
    ),
    Scenario(
        "one-lay-stops-after-one-when-the-drawn-card-may-be-followed",
        f"R11-12 R13R14Y5/G3 * 0 R12:1:R12 {CONTINUE}",
        {"one-lay": "pass", "blocker": "R13"},
    ),
    # -- a drawn card that fits: keep it when it frees the others' cards
    Scenario(
        "drawn-ten-that-frees-the-others",
        f"R11-11 R10Y5/G3 * 0 -:1:R10 {CLASSIC}",
        {"blocker": "pass", "tight-blocker": "pass", "one-lay": "R10", "no-open": "R10", "hoarder": "pass"},
    ),
    # -- going out beats holding back (but one-lay stops after one card, always)
    Scenario(
        "goes-out-with-a-freeing-card",
        f"R11-11 R10/G3 * 0 -:0:- {CLASSIC}",
        {"blocker": "R10", "tight-blocker": "R10", "no-open": "R10", "sampler:50": "R10", "hoarder": "R10"},
    ),
    Scenario(
        "goes-out-opening-a-row",
        f"R11-11 Y11Y12/G3 * 0 -:0:- {CLASSIC}",
        {
            "blocker": "Y11",
            "tight-blocker": "Y11",
            "no-open": "Y11",
            "one-lay": "Y11",
            "sampler:50": "Y11",
            "hoarder": "Y11",
        },
    ),
    Scenario(
        "one-lay-stops-even-one-card-from-going-out",
        f"R11-11,Y11-11 Y12/G3 * 0 Y11:0:- {CLASSIC}",
        {"one-lay": "pass", "blocker": "Y12"},
    ),
    # -- must-play (Ravensburger): who can lay must lay one; the blockers lay the least freeing, then stop
    Scenario(
        "must-play-forced-lay-frees-least",
        f"R11-11 R10R12Y5/G3 * 0 -:0:- {MUST}",
        {"blocker": "R12", "tight-blocker": "R12", "one-lay": "R12"},
    ),
    Scenario(
        "must-play-after-the-forced-lay",
        f"R11-12 R10Y5/G3 * 0 R12:0:- {MUST}",
        {"blocker": "pass", "tight-blocker": "pass", "one-lay": "pass", "no-open": "R10", "hoarder": "pass"},
    ),
    # -- the hoarder: even a lay that unlocks its own run waits; with the pile empty it must lay
    Scenario(
        "hoarder-keeps-a-card-that-unlocks-its-own-run",
        f"R11-11 R12R13R14Y5Y6/G3 * 0 -:0:- {CLASSIC}",
        {"hoarder": "draw", "blocker": "R12", "greedy": "R12"},
    ),
    Scenario(
        "hoarder-lays-when-the-pile-is-empty",
        f"R11-11 R10R12Y5/* - 0 -:0:- {CLASSIC}",
        {"hoarder": "R12", "blocker": "R12"},
    ),
    Scenario(
        "must-play-the-eleven-that-frees-least",
        f"R11-11 G11Y11Y5/G3 * 0 -:0:- {MUST}",
        {"blocker": "Y11", "tight-blocker": "Y11", "one-lay": "Y11", "no-open": "Y11"},
    ),
]


@pytest.mark.parametrize(
    ("scenario", "player"),
    [(scenario, player) for scenario in SCENARIOS for player in scenario.expected],
    ids=[f"{scenario.id}/{player}" for scenario in SCENARIOS for player in scenario.expected],
)
def test_each_style_makes_its_defining_move(scenario: Scenario, player: str) -> None:
    game = read_position(expand_position(scenario.position))
    view = game.view(0)
    assert len(view.legal) > 1, "a scenario needs a choice"
    bot = make_bot(player, 3)
    bot.start_game(0, game.players, game.rules)
    assert bot.choose(view) == Move.parse(scenario.expected[player])


def test_a_lay_is_read_for_what_it_frees() -> None:
    """R10 with R8 in hand: one card (R9) for the others, then its own R8; R12 frees R13-R20; Y11 both ways."""
    game = read_position(expand_position(f"R11-11 R10R8R12Y11Y10/G3 * 0 -:0:- {CLASSIC}"))
    readings = {str(reading.move): reading for reading in read_lays(game.view(0))}
    assert (readings["R10"].frees, readings["R10"].leads_within(1), readings["R10"].leads_within(0)) == (1, True, False)
    assert (readings["R12"].frees, readings["R12"].leads_within(20)) == (8, False)
    assert (readings["Y11"].frees, readings["Y11"].opens_row) == (9, True)
    assert [str(reading.move) for reading in read_lays(game.view(0))] == ["R10", "R12", "Y11"]


# -- seeded games under every preset: legal moves only, and every game ends


@pytest.mark.parametrize("rules_name", sorted(PRESETS))
@pytest.mark.parametrize("player", [*STYLES, QUICK_SAMPLER])
def test_opponents_play_legal_games_to_the_end(player: str, rules_name: str) -> None:
    rules = PRESETS[rules_name]
    games = 6 if player.startswith("sampler") else 30
    others = ["greedy", "blocker", "medium", "one-lay", "tight-blocker", "no-open"]
    for seed in range(games):
        players = 2 + seed % 5
        game = Game.deal(players, 700 + seed, rules)
        bots = [
            make_bot(player if seat == seed % players else others[(seat + seed) % 6], seed + seat)
            for seat in range(players)
        ]
        play_out(game, bots)  # push raises on any illegal move
        assert game.is_over()
        assert game.winner is not None


@pytest.mark.parametrize(
    "rules", [Rules(after_draw="continue"), Rules(max_draws=1), Rules(must_play=True, after_draw="continue")]
)
def test_opponents_play_legal_games_under_other_rules(rules: Rules) -> None:
    for seed in range(8):
        game = Game.deal(3 + seed % 3, 900 + seed, rules)
        specs = [*STYLES, QUICK_SAMPLER]
        bots = [make_bot(specs[(seat + seed) % len(specs)], seed + seat) for seat in range(game.players)]
        play_out(game, bots)
        assert game.is_over()


def test_a_table_of_blockers_alone_still_ends() -> None:
    """Everybody holds back: the draws empty the pile, and then the rules make somebody lay every turn."""
    for preset in sorted(PRESETS):
        for seed in range(10):
            game = Game.deal(4, 40 + seed, PRESETS[preset])
            play_out(game, [make_bot("tight-blocker", seat) for seat in range(4)])
            assert game.is_over()


# -- the sampler


def test_sampler_specs() -> None:
    assert SamplerBot.from_spec("sampler:250").samples == 250
    assert SamplerBot.from_spec("sampler:250ms").think == 0.25
    assert SamplerBot.from_spec("sampler").think == 0.1
    assert make_bot("sampler:40ms").name == "sampler:40ms"
    for bad in ("sampler:0", "sampler:0ms", "sampler:fast", "sampler:10s", "sampler:-3"):
        assert not is_player_name(bad), bad
        with pytest.raises(ValueError, match="sampler"):
            make_bot(bad)


def test_sampler_of_n_deals_is_reproducible_under_its_seed() -> None:
    runs = []
    for _ in range(2):
        game = Game.deal(4, 12)
        play_out(
            game,
            [make_bot(spec, 9 + seat) for seat, spec in enumerate(("sampler:30", "blocker", "sampler:30", "greedy"))],
        )
        runs.append(game.record_moves())
    assert runs[0] == runs[1]


def test_sampler_plays_its_budget_of_deals() -> None:
    game = read_position(expand_position(f"R11-11 R10R12Y5Y11G4/G3G9B2 * 0 -:0:- {CLASSIC}"))
    bot = SamplerBot(1, samples=64)
    bot.choose(game.view(0))
    assert bot.last_samples == 64


def test_sampler_thinks_its_time() -> None:
    """The clock is read after every deal and a deal finished late is not counted: at least the time given."""
    game = read_position(expand_position(f"R11-11 R10R12Y5Y11G4/G3G9B2 * 0 -:0:- {CLASSIC}"))
    bot = SamplerBot(1, think=0.03)
    started = time.perf_counter()
    bot.choose(game.view(0))
    assert time.perf_counter() - started >= 0.03
    assert bot.last_samples > 1


# -- registration: make_bot, the arena's specs, a mixed table


def test_every_opponent_is_made_by_name() -> None:
    for name in OPPONENTS:
        assert make_bot(name, 1).name.startswith(name)
    with pytest.raises(ValueError, match="blocker"):
        make_bot("wizard")


def test_the_arena_takes_opponent_specs() -> None:
    assert seat_specs("expert,blocker,blocker,blocker", 4, commands=True) == ["expert", *["blocker"] * 3]
    assert seat_specs("sampler:100ms", 3, commands=True) == ["sampler:100ms"] * 3
    assert "sampler:N" in str(seat_specs("expert,sampler:0", 2, commands=True))


def test_a_mixed_table_in_the_arena() -> None:
    specs = ("greedy", "blocker", "tight-blocker", QUICK_SAMPLER)
    for preset in ("classic", "ravensburger"):
        config = ArenaConfig(specs=specs, deals=3, seed=5, rules=Rules.preset(preset))
        summary = summarize(config, run_arena(config, jobs=1))
        assert summary.games == 12
        assert set(summary.kinds) == set(specs)
        assert sum(kind.wins for kind in summary.kinds.values()) == 12
        assert all(kind.forfeits == 0 for kind in summary.kinds.values())


def test_the_arena_command_seats_expert_against_three_blockers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stats = tmp_path / "stats.json"
    assert main(["arena", "--bots", "expert,blocker,blocker,blocker", "--games", "1", "--json", str(stats)]) == 0
    assert "4 games (1 deals x 4 seat rotations)" in capsys.readouterr().out
    data = json.loads(stats.read_text(encoding="utf-8"))
    assert set(data["kinds"]) == {"expert", "blocker"}
    assert data["kinds"]["blocker"]["seats"] == 12
    assert sum(kind["wins"] for kind in data["kinds"].values()) == 4
    assert all(kind["forfeits"] == 0 for kind in data["kinds"].values())


def test_a_mixed_table_plays_the_same_games_in_one_process_or_two() -> None:
    config = ArenaConfig(specs=("one-lay", QUICK_SAMPLER, "no-open", "tight-blocker"), deals=3, seed=8)
    serial = [(result.winner, result.penalties) for result in run_arena(config, jobs=1)]
    parallel = [(result.winner, result.penalties) for result in run_arena(config, jobs=2)]
    assert serial == parallel
