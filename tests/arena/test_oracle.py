"""``benchmarks/engine/oracle.py``: ``master`` told what its seat cannot see, and the fair inferences tried beside it.

The oracle is a diagnostic that reads the true game; these tests check that it is told exactly what its variant
names (each opponent's true hand, nothing else), that the inference of blockers' lays reads the history as
documented, and that a deal's games follow from its number alone.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from benchmarks.engine import oracle
from elferraus import Game
from elferraus.bots.knowledge import Knowledge, Tracker
from elferraus.moves import DRAW


def cards(*names: str) -> list[int]:
    """Card indices as the core counts them: colour * 20 + number - 1."""
    return ["RYGB".index(name[0]) * 20 + int(name[1:]) - 1 for name in names]


# (rows before the lay, the card laid) -> per door, the next cards beyond it (up to three, within the row)
DOORS = [
    ({}, "R11", [cards("R10", "R9", "R8"), cards("R12", "R13", "R14")]),
    ({0: (11, 11)}, "R12", [cards("R13", "R14", "R15")]),
    ({0: (11, 12)}, "R10", [cards("R9", "R8", "R7")]),
    ({1: (11, 18)}, "Y19", [cards("Y20")]),
    ({1: (11, 19)}, "Y20", [[]]),
    ({2: (3, 11)}, "G2", [cards("G1")]),
]


@pytest.mark.parametrize(("rows", "laid", "beyond"), DOORS)
def test_a_lay_opens_its_doors_with_the_cards_beyond(
    rows: dict[int, tuple[int, int]], laid: str, beyond: list[list[int]]
) -> None:
    color, number = "RYGB".index(laid[0]), int(laid[1:])
    assert oracle.door_cards(rows, color, number) == beyond


def test_a_lay_of_its_own_accord_claims_a_card_beyond_until_one_is_laid() -> None:
    moves = ["1 R11", "1 pass", "2 draw", "2 pass", "3 R12", "3 pass", "0 draw", "0 pass", "1 R13", "1 pass"]
    view = SimpleNamespace(players=4, seat=0, pile=28, moves=moves)
    claims = oracle.open_door_claims(view)
    assert claims[0] == []  # the reader's own lays are not read
    assert claims[1] == [cards("R14", "R15", "R16")]  # the opening 11 is forced: no claim; its R13 claims
    assert claims[2] == []
    assert claims[3] == [cards("R14", "R15")]  # R12 claimed R13-R15; seat 1 laid R13, so seat 3 never held it
    explained = oracle.open_door_claims(SimpleNamespace(players=4, seat=0, pile=27, moves=[*moves, "3 draw", "3 R14"]))
    assert explained[3] == [cards("R15", "R16", "R17")]  # R14 explains its claim; the new lay claims anew
    assert explained[1] == [cards("R15", "R16")]


def test_no_claim_once_the_pile_is_empty() -> None:
    """With nothing to draw a blocker may have to lay: its lay says nothing of the cards beyond."""
    view = SimpleNamespace(players=2, seat=0, pile=0, moves=["1 R11", "1 pass", "0 draw", "0 pass", "1 R12"])
    assert oracle.open_door_claims(view) == [[], []]


def test_the_oracle_of_hands_samples_each_opponents_true_hand_and_nothing_else_known() -> None:
    game = Game.deal(players=4, seed=oracle.DEAL_SEED)
    while game.turn != 0 or len(game.legal_moves()) < 2:
        legal = game.legal_moves()
        game.push(DRAW if DRAW in legal else legal[0])
    view = game.view(0)
    player = oracle.ReadingOracle(1, game, frozenset({"hands"}), oracle.PLAYOUT_POLICY["blocker"])
    player.start_game(0, 4, game.rules)
    tracker = player._tracker = Tracker.following(view, None)
    knowledge = Knowledge.of(view, tracker)
    arguments = player._arguments(view, knowledge)
    weights = arguments["weights"]
    assert weights[0] is None
    for seat in (1, 2, 3):
        held = {card.index for card in game.hand(seat)}
        assert {card for card in range(80) if weights[seat][card] > 0} == held
    fair = oracle.MasterBot._arguments(view, knowledge)
    assert {key: value for key, value in arguments.items() if key != "weights"} == {
        key: value for key, value in fair.items() if key != "weights"
    }


def test_a_deal_is_played_the_same_from_its_number_alone(tmp_path: Path) -> None:
    out = tmp_path / "oracle.jsonl"
    assert (
        oracle.main(
            ["--against", "greedy", "--variants", "hoarder,hands", "--deals", "2", "--start", "3", "--json", str(out)]
        )
        == 0
    )
    first = [json.loads(line) for line in out.read_text().splitlines()]
    assert [record["variant"] for record in first] == ["hoarder", "hands"]
    assert all(len(record["wins_per_deal"]) == 2 for record in first)
    assert all(0 <= won <= 4 for record in first for won in record["wins_per_deal"])
    assert first[1]["wins_per_deal"] == [oracle.play_deal("hands", "greedy", deal) for deal in (3, 4)]

    with pytest.raises(SystemExit):
        oracle.main(["--against", "greedy", "--variants", "hands+peeks"])


@pytest.mark.parametrize("variant", ["hands", "claims"])
def test_the_published_figures_are_what_the_code_plays(variant: str) -> None:
    """A deal of the committed results, played again: the same games won."""
    results = Path(__file__).parents[2] / "benchmarks" / "results" / "2026-12-07-oracle.jsonl"
    record = next(
        found
        for found in map(json.loads, results.read_text(encoding="utf-8").splitlines())
        if found["variant"] == variant and found["against"] == "blocker" and found["start"] == 0
    )
    assert oracle.play_deal(variant, "blocker", 1) == record["wins_per_deal"][1]
