"""The study's reading of how the strongest player plays: each lay's kind, each turn's reading, the records kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from elferraus import Game, Move, read_position
from elferraus.analysis.data import StudyData
from elferraus.analysis.plan import QUICK, equal_table
from elferraus.analysis.questions import strongest
from elferraus.analysis.questions.strongest import Turns, lay_kind, read_turns
from elferraus.analysis.run import run_tables
from elferraus.analysis.store import GameStore
from elferraus.bots import make_bot, start_players
from elferraus.bots.simulate import play_out
from elferraus.moves import DRAW
from elferraus.rules import Rules
from tests.support.engine_helpers import expand_position

CLASSIC = "RYGB:3:free:end"


@pytest.mark.parametrize(
    ("position", "lay", "kind"),
    [
        (f"R11-11 R12R13Y5/G3 * 0 -:0:- {CLASSIC}", "R12", "free"),  # R13 is its own: nobody else gains
        (f"R11-11 R10R8R12Y11Y10/G3 * 0 -:0:- {CLASSIC}", "R10", "leads"),  # one card (R9), then its own R8
        (f"R11-11 R10R8R12Y11Y10/G3 * 0 -:0:- {CLASSIC}", "R12", "gives"),  # R13-R20 for the others
        (f"R11-11 R10R8R12Y11Y10/G3 * 0 -:0:- {CLASSIC}", "Y11", "opens_row"),
    ],
)
def test_each_lay_is_read_for_what_it_opens(position: str, lay: str, kind: str) -> None:
    game = read_position(expand_position(position))
    assert lay_kind(game.view(0), Move.parse(lay)) == kind


def _played(players: list[str], rules: Rules, seed: int) -> Game:
    game = Game.deal(len(players), seed, rules)
    bots = {seat: make_bot(name, seed + seat) for seat, name in enumerate(players)}
    start_players(bots, game)
    play_out(game, [bots[seat] for seat in range(len(players))])
    return game


def _read(players: list[str], rules: Rules, games: int) -> tuple[Turns, list[Game]]:
    turns = Turns()
    played = []
    for number in range(games):
        game = _played(players, rules, 100 + number)
        played.append(game.copy())
        read_turns(game, number, turns)
    return turns, played


@pytest.mark.parametrize("preset", ["classic", "ravensburger"])
def test_every_lay_after_the_pile_ran_out_is_counted_once_and_a_race_turn_lays(preset: str) -> None:
    turns, played = _read(["medium", "hoarder", "greedy", "blocker"], Rules.preset(preset), 12)
    assert sum(laid for _, laid in turns.race_turns) == len(turns.race_lays)
    assert all(laid >= 1 for _, laid in turns.race_turns), "with the pile empty a card that fits must be laid"
    for number, game in enumerate(played):  # counted again: lays in turns that began with the pile empty
        after = 0
        history = [move for _, move, _ in game.history()]
        while game.move_count:
            game.pop()
        began_empty = False
        for move in history:
            if not game.laid_this_turn() and not game.draws_this_turn:
                began_empty = game.pile_size() == 0
            after += began_empty and move.card is not None
            game.push(move)
        assert after == sum(1 for game_number, _ in turns.race_lays if game_number == number)


def test_a_player_who_lays_whatever_fits_never_holds_back() -> None:
    turns, _ = _read(["greedy"] * 4, Rules(), 10)
    assert turns.could_hold, "the pile lasted some turns in which a card fitted"
    assert not any(held for _, held, _ in turns.could_hold)
    assert not any(kept for _, kept in turns.drawn_fits)


def test_the_hoarder_holds_back_in_every_turn_but_the_one_it_goes_out_in() -> None:
    turns, played = _read(["hoarder"] * 4, Rules(), 10)
    laid = [number for number, held, _ in turns.could_hold if not held]
    assert len(set(laid)) == len(laid), "at most one lay a game: going out"
    assert sum(held for _, held, _ in turns.could_hold) >= len(played)
    assert {early for _, _, early in turns.could_hold} == {True, False}


def test_under_the_ravensburger_rules_nobody_is_free_to_hold_back_or_keep_a_card_that_fits() -> None:
    turns, _ = _read(["hoarder", "blocker", "medium", "tight-blocker"], Rules.preset("ravensburger"), 10)
    assert turns.race_lays, "the games were read"
    assert turns.could_hold == []
    assert turns.drawn_fits == []


def test_the_forced_opening_eleven_is_no_choice_to_hold_back() -> None:
    """The opening 11 is forced; the next player, who could lay a card that fits, draws instead."""
    seed = next(
        seed for seed in range(200) if any(move.card is not None for move in _after_opening(seed).legal_moves())
    )
    game = _after_opening(seed)
    game.push(DRAW)
    turns = Turns()
    read_turns(game, 0, turns)
    assert turns.could_hold == [(0, True, True)]


def _after_opening(seed: int) -> Game:
    game = Game.deal(4, seed, Rules())
    [opening] = game.legal_moves()
    game.push(opening)
    return game


def test_a_table_that_keeps_its_records_reads_them_back_from_the_store(tmp_path: Path) -> None:
    kept = equal_table("test", "greedy", 2, 4, QUICK, records=True)
    plain = equal_table("test", "greedy", 3, 4, QUICK)
    assert kept.batches(1)[0].key == equal_table("test", "greedy", 2, 4, QUICK).batches(1)[0].key, (
        "keeping records changes no game, so not the cache's key"
    )
    first = StudyData(run_tables([kept, plain], 1, GameStore(tmp_path), progress=False))
    again = StudyData(run_tables([kept, plain], 1, GameStore(tmp_path), progress=False))
    assert len(first.records(kept.key)) == 4
    assert again.records(kept.key) == first.records(kept.key)
    assert again.records(plain.key) == [], "a table that does not keep them leaves its records on disk"
    with pytest.raises(KeyError, match="no table"):
        first.records("test/nothing-2")


def _versus(master: tuple[float, float], hoarder: tuple[float, float]) -> dict[str, Any]:
    return {"master_alone": {"ci95": list(master)}, "hoarder_alone": {"ci95": list(hoarder)}}


@pytest.mark.parametrize(
    ("master", "hoarder", "verdict"),
    [
        ((0.23, 0.28), (0.22, 0.27), "strongest.verdict_even"),
        ((0.26, 0.30), (0.22, 0.27), "strongest.verdict_master_ahead"),  # master alone above parity
        ((0.23, 0.28), (0.20, 0.24), "strongest.verdict_master_ahead"),  # the hoarder alone below it
        ((0.20, 0.24), (0.22, 0.27), "strongest.verdict_hoarder_ahead"),
        ((0.23, 0.28), (0.26, 0.30), "strongest.verdict_hoarder_ahead"),
    ],
)
def test_the_verdict_on_master_and_the_hoarder_follows_the_intervals(
    master: tuple[float, float], hoarder: tuple[float, float], verdict: str
) -> None:
    assert strongest._verdict(_versus(master, hoarder)) == verdict
