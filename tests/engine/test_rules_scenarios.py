"""The rules of RULES.md, one small scenario each: a position, moves, what must follow.

Each row gives a compact position string (see :func:`engine_helpers.expand_position`:
``*`` stands for every card not written elsewhere), the moves to push, and
any of: the position afterwards, the exact legal moves afterwards, the
moves that must then be rejected with their ``IllegalMoveError.reason`` code,
and the winner.

Rules fields used below: ``RYGB:3:free:end`` is the classic game,
``:must:`` the must-play switch (Ravensburger), ``:continue`` the after-draw
switch, ``RYG`` the beginners' deck, and the number the draw limit.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from elferraus import Card, Game, IllegalMoveError, Move, Rules, format_position, read_position
from tests.support.engine_helpers import expand_position


@dataclass(frozen=True)
class Scenario:
    id: str
    position: str
    moves: str = ""
    """Moves pushed in order, separated by spaces."""
    result: str | None = None
    """The position after the moves (compact form)."""
    legal: str | None = None
    """The legal moves after the moves, separated by spaces ("" for none)."""
    illegal: tuple[tuple[str, str], ...] = ()
    """(move, reason code) pairs that must then be rejected."""
    winner: int | None = None


SCENARIOS = [
    # -- who starts, and the opening move -----------------------------------------------------------
    Scenario(
        "start/red-eleven-holder-opens",
        "- R5R11Y11/G11B11 * 0 -:0:- RYGB:3:free:end",
        legal="R11",
        illegal=(("Y11", "opening"), ("R5", "opening"), ("draw", "opening"), ("pass", "opening")),
    ),
    Scenario(
        "start/opening-is-a-move-of-its-own",
        "- R5R11Y11/G11B11 * 0 -:0:- RYGB:3:free:end",
        moves="R11",
        result="R11-11 R5Y11/G11B11 * 1 -:0:- RYGB:3:free:end",
        legal="G11 B11 draw",
    ),
    Scenario(
        "start/yellow-when-red-not-dealt",
        "- R5G11/Y11Y12 R11* 1 -:0:- RYGB:3:free:end",
        legal="Y11",
        illegal=(("Y12", "opening"),),
    ),
    Scenario(
        "start/yellow-opening-ends-turn",
        "- R5G11/Y11Y12 R11* 1 -:0:- RYGB:3:free:end",
        moves="Y11",
        result="Y11-11 R5G11/Y12 R11* 0 -:0:- RYGB:3:free:end",
        legal="G11 draw",
    ),
    Scenario(
        "start/red-eleven-drawn-later-opens-red-row",
        "Y11-11 R5G11/Y12 R11* 0 -:0:- RYGB:3:free:end",
        moves="draw",
        result="Y11-11 R5R11G11/Y12 * 0 -:1:R11 RYGB:3:free:end",
        legal="R11 pass",
    ),
    Scenario(
        "start/green-when-red-and-yellow-not-dealt",
        "- G11R5/B11Y5 R11Y11* 0 -:0:- RYGB:3:free:end",
        legal="G11",
        illegal=(("pass", "opening"),),
    ),
    Scenario(
        "start/blue-last",
        "- R5/B11Y5 * 1 -:0:- RYGB:3:free:end",
        legal="B11",
    ),
    Scenario(
        "start/beginners-red-first",
        "- R11Y11/G11G5 * 0 -:0:- RYG:3:free:end",
        legal="R11",
    ),
    Scenario(
        "start/beginners-yellow-when-red-not-dealt",
        "- R5G11/Y11Y5 * 1 -:0:- RYG:3:free:end",
        legal="Y11",
    ),
    Scenario(
        "start/beginners-green-when-red-yellow-not-dealt",
        "- R5G11/Y5 * 0 -:0:- RYG:3:free:end",
        moves="G11",
        result="G11-11 R5/Y5 * 1 -:0:- RYG:3:free:end",
        legal="draw",
    ),
    Scenario(
        "start/opening-with-the-last-card-wins",
        "- R11/Y5 * 0 -:0:- RYGB:3:free:end",
        moves="R11",
        result="R11-11 -/Y5 * 0 R11:0:- RYGB:3:free:end",
        legal="",
        winner=0,
    ),
    Scenario(
        "turn/passes-to-seat-plus-one-modulo-players",
        "R11-11 Y5/G5/R10B5 * 2 -:0:- RYGB:3:free:end",
        moves="R10 pass",
        result="R10-11 Y5/G5/B5 * 0 -:0:- RYGB:3:free:end",
        legal="draw",
    ),
    # -- laying ------------------------------------------------------------------------------------
    Scenario(
        "lay/one-card-then-pass-or-lay",
        "R11-11 R12Y5/G3 * 0 -:0:- RYGB:3:free:end",
        moves="R12",
        result="R11-12 Y5/G3 * 0 R12:0:- RYGB:3:free:end",
        legal="pass",
    ),
    Scenario(
        "lay/several-cards-in-one-turn",
        "R11-11 R10R12Y11Y5/G3 * 0 -:0:- RYGB:3:free:end",
        moves="R10 R12 Y11",
        result="R10-12,Y11-11 Y5/G3 * 0 R10R12Y11:0:- RYGB:3:free:end",
        legal="pass",
    ),
    Scenario(
        "lay/card-two-away-does-not-fit-yet",
        "R11-11 R9R10Y5/G3 * 0 -:0:- RYGB:3:free:end",
        legal="R10 draw",
        illegal=(("R9", "not_fitting"),),
    ),
    Scenario(
        "lay/r10-makes-r9-fit",
        "R11-11 R9R10Y5/G3 * 0 -:0:- RYGB:3:free:end",
        moves="R10",
        legal="R9 pass",
    ),
    Scenario(
        "lay/r10-then-r9",
        "R11-11 R9R10Y5/G3 * 0 -:0:- RYGB:3:free:end",
        moves="R10 R9",
        result="R9-11 Y5/G3 * 0 R10R9:0:- RYGB:3:free:end",
        legal="pass",
    ),
    Scenario(
        "lay/up-to-twenty",
        "R11-19 R20Y5/G3 * 0 -:0:- RYGB:3:free:end",
        moves="R20",
        result="R11-20 Y5/G3 * 0 R20:0:- RYGB:3:free:end",
        legal="pass",
    ),
    Scenario(
        "lay/down-to-one-completes-the-row",
        "R2-20 R1Y5/G3 * 0 -:0:- RYGB:3:free:end",
        moves="R1",
        result="R1-20 Y5/G3 * 0 R1:0:- RYGB:3:free:end",
        legal="pass",
    ),
    Scenario(
        "lay/only-the-two-row-ends-fit",
        "R8-13 R6R7R14R15/G3 * 0 -:0:- RYGB:3:free:end",
        legal="R7 R14 draw",
        illegal=(("R6", "not_fitting"), ("R15", "not_fitting"), ("G3", "not_in_hand"), ("R10", "not_in_hand")),
    ),
    Scenario(
        "lay/eleven-opens-a-new-row",
        "R11-11 Y10Y11Y12/G3 * 0 -:0:- RYGB:3:free:end",
        legal="Y11 draw",
        illegal=(("Y10", "row_not_open"), ("Y12", "row_not_open")),
    ),
    Scenario(
        "lay/after-the-eleven-both-neighbours-fit",
        "R11-11 Y10Y11Y12/G3 * 0 -:0:- RYGB:3:free:end",
        moves="Y11",
        result="R11-11,Y11-11 Y10Y12/G3 * 0 Y11:0:- RYGB:3:free:end",
        legal="Y10 Y12 pass",
    ),
    Scenario(
        "lay/every-eleven-opens-its-own-row",
        "R11-11 Y11G11B11B12/G3 * 0 -:0:- RYGB:3:free:end",
        moves="B11 Y11 G11",
        result="R11-11,Y11-11,G11-11,B11-11 B12/G3 * 0 B11Y11G11:0:- RYGB:3:free:end",
        legal="B12 pass",
    ),
    # -- ending the turn ---------------------------------------------------------------------------
    Scenario(
        "pass/after-laying-ends-the-turn",
        "R11-11 R12Y5/G3 * 0 -:0:- RYGB:3:free:end",
        moves="R12 pass",
        result="R11-12 Y5/G3 * 1 -:0:- RYGB:3:free:end",
        legal="draw",
    ),
    Scenario(
        "pass/not-before-laying-or-drawing",
        "R11-11 R12Y5/G3 * 0 -:0:- RYGB:3:free:end",
        illegal=(("pass", "pass_too_early"),),
    ),
    Scenario(
        "pass/not-even-when-nothing-fits",
        "R11-11 Y5/G3 * 0 -:0:- RYGB:3:free:end",
        legal="draw",
        illegal=(("pass", "pass_too_early"), ("Y5", "row_not_open")),
    ),
    Scenario(
        "draw/not-after-laying",
        "R11-11 R12R13Y5/G3 * 0 -:0:- RYGB:3:free:end",
        moves="R12",
        legal="R13 pass",
        illegal=(("draw", "draw_after_lay"),),
    ),
    # -- drawing -----------------------------------------------------------------------------------
    Scenario(
        "draw/allowed-though-he-could-lay",
        "R11-11 R12Y5/G3 G20* 0 -:0:- RYGB:3:free:end",
        legal="R12 draw",
    ),
    Scenario(
        "draw/takes-the-top-card-and-a-miss-forces-another-draw",
        "R11-11 R12Y5/G3 G20* 0 -:0:- RYGB:3:free:end",
        moves="draw",
        result="R11-11 R12Y5G20/G3 * 0 -:1:G20 RYGB:3:free:end",
        legal="draw",
        illegal=(("R12", "only_drawn_card"), ("G20", "row_not_open"), ("pass", "must_draw_again")),
    ),
    Scenario(
        "draw/fitting-card-may-be-laid-or-kept",
        "R11-11 Y5/G3 R12* 0 -:0:- RYGB:3:free:end",
        moves="draw",
        result="R11-11 R12Y5/G3 * 0 -:1:R12 RYGB:3:free:end",
        legal="R12 pass",
        illegal=(("draw", "drawn_fits"),),
    ),
    Scenario(
        "draw/laying-the-drawn-card-ends-the-turn",
        "R11-11 Y5/G3 R12* 0 -:0:- RYGB:3:free:end",
        moves="draw R12",
        result="R11-12 Y5/G3 * 1 -:0:- RYGB:3:free:end",
        legal="draw",
    ),
    Scenario(
        "draw/keeping-the-drawn-card-and-passing",
        "R11-11 Y5/G3 R12* 0 -:0:- RYGB:3:free:end",
        moves="draw pass",
        result="R11-11 R12Y5/G3 * 1 -:0:- RYGB:3:free:end",
        legal="draw",
    ),
    Scenario(
        "draw/only-the-drawn-card-may-be-laid",
        "R11-11 R10Y5/G3 R12* 0 -:0:- RYGB:3:free:end",
        moves="draw",
        legal="R12 pass",
        illegal=(("R10", "only_drawn_card"), ("draw", "drawn_fits")),
    ),
    Scenario(
        "draw/second-miss-draws-a-third",
        "R11-11 Y5/G3 G20B1R12* 0 -:0:- RYGB:3:free:end",
        moves="draw draw",
        result="R11-11 Y5G20B1/G3 R12* 0 -:2:B1 RYGB:3:free:end",
        legal="draw",
        illegal=(("pass", "must_draw_again"),),
    ),
    Scenario(
        "draw/third-draw-fits",
        "R11-11 Y5/G3 G20B1R12* 0 -:0:- RYGB:3:free:end",
        moves="draw draw draw",
        result="R11-11 R12Y5G20B1/G3 * 0 -:3:R12 RYGB:3:free:end",
        legal="R12 pass",
    ),
    Scenario(
        "draw/third-drawn-card-laid-ends-turn",
        "R11-11 Y5/G3 G20B1R12* 0 -:0:- RYGB:3:free:end",
        moves="draw draw draw R12",
        result="R11-12 Y5G20B1/G3 * 1 -:0:- RYGB:3:free:end",
    ),
    Scenario(
        "draw/limit-three-then-pass",
        "R11-11 Y5/G3 G20B1Y20* 0 -:0:- RYGB:3:free:end",
        moves="draw draw draw",
        result="R11-11 Y5Y20G20B1/G3 * 0 -:3:Y20 RYGB:3:free:end",
        legal="pass",
        illegal=(("draw", "draw_limit"), ("Y5", "row_not_open")),
    ),
    Scenario(
        "draw/limit-three-pass-ends-turn",
        "R11-11 Y5/G3 G20B1Y20* 0 -:0:- RYGB:3:free:end",
        moves="draw draw draw pass",
        result="R11-11 Y5Y20G20B1/G3 * 1 -:0:- RYGB:3:free:end",
    ),
    Scenario(
        "draw/limit-one",
        "R11-11 Y5/G3 G20* 0 -:0:- RYGB:1:free:end",
        moves="draw",
        result="R11-11 Y5G20/G3 * 0 -:1:G20 RYGB:1:free:end",
        legal="pass",
        illegal=(("draw", "draw_limit"),),
    ),
    Scenario(
        "draw/limit-one-fitting",
        "R11-11 Y5/G3 R12* 0 -:0:- RYGB:1:free:end",
        moves="draw",
        legal="R12 pass",
    ),
    Scenario(
        "draw/limit-five-fourth-miss",
        "R11-11 Y5/G3 G20B1B2B3B4* 0 -:0:- RYGB:5:free:end",
        moves="draw draw draw draw",
        legal="draw",
        illegal=(("pass", "must_draw_again"),),
    ),
    Scenario(
        "draw/limit-five-fifth-miss",
        "R11-11 Y5/G3 G20B1B2B3B4* 0 -:0:- RYGB:5:free:end",
        moves="draw draw draw draw draw",
        result="R11-11 Y5G20B1B2B3B4/G3 * 0 -:5:B4 RYGB:5:free:end",
        legal="pass",
        illegal=(("draw", "draw_limit"),),
    ),
    Scenario(
        "draw/last-card-of-the-pile-ends-drawing",
        "R11-11 Y5/* G20 0 -:0:- RYGB:3:free:end",
        moves="draw",
        result="R11-11 Y5G20/* - 0 -:1:G20 RYGB:3:free:end",
        legal="pass",
        illegal=(("draw", "pile_empty"),),
    ),
    # -- the empty pile ----------------------------------------------------------------------------
    Scenario(
        "empty-pile/must-lay-if-he-can",
        "R11-11 R12Y5/* - 0 -:0:- RYGB:3:free:end",
        legal="R12",
        illegal=(("pass", "must_lay"), ("draw", "pile_empty")),
    ),
    Scenario(
        "empty-pile/after-laying-may-pass",
        "R11-11 R12R13Y5/* - 0 -:0:- RYGB:3:free:end",
        moves="R12",
        legal="R13 pass",
    ),
    Scenario(
        "empty-pile/nothing-fits-pass-only",
        "R11-11 Y5/* - 0 -:0:- RYGB:3:free:end",
        legal="pass",
        illegal=(("draw", "pile_empty"),),
    ),
    Scenario(
        "empty-pile/pass-goes-to-the-next-seat",
        "R11-11 Y5/* - 0 -:0:- RYGB:3:free:end",
        moves="pass",
        result="R11-11 Y5/* - 1 -:0:- RYGB:3:free:end",
        legal="R10 R12 Y11 G11 B11",
    ),
    Scenario(
        "empty-pile/beginners-three-players-start-with-no-pile",
        "- R11R5/Y11/* - 0 -:0:- RYG:3:free:end",
        moves="R11",
        legal="Y11",
        illegal=(("pass", "must_lay"), ("draw", "pile_empty")),
    ),
    # -- winning -----------------------------------------------------------------------------------
    Scenario(
        "win/last-card-ends-the-game-at-once",
        "R11-11 R12/G3 * 0 -:0:- RYGB:3:free:end",
        moves="R12",
        result="R11-12 -/G3 * 0 R12:0:- RYGB:3:free:end",
        legal="",
        winner=0,
        illegal=(("pass", "game_over"), ("draw", "game_over"), ("G3", "game_over")),
    ),
    Scenario(
        "win/after-several-lays",
        "R11-11 R10R9/* - 0 -:0:- RYGB:3:free:end",
        moves="R10 R9",
        result="R9-11 -/* - 0 R10R9:0:- RYGB:3:free:end",
        legal="",
        winner=0,
        illegal=(("R8", "game_over"),),
    ),
    Scenario(
        "win/not-before-the-last-card",
        "R11-11 R10R9/* - 0 -:0:- RYGB:3:free:end",
        moves="R10",
        legal="R9 pass",
    ),
    # -- must_play (the Ravensburger edition) ------------------------------------------------------
    Scenario(
        "must-play/who-can-lay-must-lay",
        "R11-11 R12Y5/G3 * 0 -:0:- RYGB:3:must:end",
        legal="R12",
        illegal=(("draw", "must_lay"), ("pass", "must_lay")),
    ),
    Scenario(
        "must-play/pass-after-one-lay",
        "R11-11 R12R13Y5/G3 * 0 -:0:- RYGB:3:must:end",
        moves="R12",
        legal="R13 pass",
        illegal=(("draw", "draw_after_lay"),),
    ),
    Scenario(
        "must-play/who-cannot-lay-draws",
        "R11-11 Y5/G3 R12* 0 -:0:- RYGB:3:must:end",
        legal="draw",
        illegal=(("pass", "pass_too_early"),),
    ),
    Scenario(
        "must-play/fitting-draw-must-be-laid",
        "R11-11 Y5/G3 R12* 0 -:0:- RYGB:3:must:end",
        moves="draw",
        legal="R12",
        illegal=(("pass", "must_lay_drawn"), ("draw", "drawn_fits")),
    ),
    Scenario(
        "must-play/laying-the-drawn-card-ends-the-turn",
        "R11-11 Y5/G3 R12* 0 -:0:- RYGB:3:must:end",
        moves="draw R12",
        result="R11-12 Y5/G3 * 1 -:0:- RYGB:3:must:end",
    ),
    Scenario(
        "must-play/three-misses-then-pass",
        "R11-11 Y5/G3 G20B1Y20* 0 -:0:- RYGB:3:must:end",
        moves="draw draw draw",
        legal="pass",
    ),
    Scenario(
        "must-play/empty-pile-nothing-fits",
        "R11-11 Y5/* - 0 -:0:- RYGB:3:must:end",
        legal="pass",
    ),
    Scenario(
        "must-play/with-continue",
        "R11-11 R13Y5/G3 R12* 0 -:0:- RYGB:3:must:continue",
        moves="draw R12",
        result="R11-12 R13Y5/G3 * 0 R12:1:R12 RYGB:3:must:continue",
        legal="R13 pass",
    ),
    # -- after_draw = continue ---------------------------------------------------------------------
    Scenario(
        "continue/only-the-drawn-card-first",
        "R11-11 R10R13Y5/G3 R12* 0 -:0:- RYGB:3:free:continue",
        moves="draw",
        legal="R12 pass",
        illegal=(("R10", "only_drawn_card"),),
    ),
    Scenario(
        "continue/then-any-fitting-cards",
        "R11-11 R10R13Y5/G3 R12* 0 -:0:- RYGB:3:free:continue",
        moves="draw R12",
        result="R11-12 R10R13Y5/G3 * 0 R12:1:R12 RYGB:3:free:continue",
        legal="R10 R13 pass",
        illegal=(("draw", "draw_after_lay"),),
    ),
    Scenario(
        "continue/then-pass",
        "R11-11 R10R13Y5/G3 R12* 0 -:0:- RYGB:3:free:continue",
        moves="draw R12 R13 R10 pass",
        result="R10-13 Y5/G3 * 1 -:0:- RYGB:3:free:continue",
    ),
    Scenario(
        "continue/win-after-the-drawn-card",
        "R11-11 R13/G3 R12* 0 -:0:- RYGB:3:free:continue",
        moves="draw R12 R13",
        result="R11-13 -/G3 * 0 R12R13:1:R12 RYGB:3:free:continue",
        legal="",
        winner=0,
    ),
    Scenario(
        "continue/misses-still-limited",
        "R11-11 R10Y5/G3 G20B1Y20* 0 -:0:- RYGB:3:free:continue",
        moves="draw draw draw",
        legal="pass",
        illegal=(("R10", "only_drawn_card"), ("draw", "draw_limit")),
    ),
    # -- beginners' deck ---------------------------------------------------------------------------
    Scenario(
        "beginners/no-blue-cards",
        "R11-11 R12Y5/G3 * 0 -:0:- RYG:3:free:end",
        legal="R12 draw",
        illegal=(("B11", "not_in_hand"),),
    ),
    Scenario(
        "beginners/all-but-one-card-on-the-table",
        "R1-20,Y2-20,G2-20 G1/Y1 - 0 -:0:- RYG:3:free:end",
        moves="G1",
        result="R1-20,Y2-20,G1-20 -/Y1 - 0 G1:0:- RYG:3:free:end",
        legal="",
        winner=0,
    ),
]


def _legal(game: Game) -> list[str]:
    return sorted(str(move) for move in game.legal_moves())


@pytest.mark.parametrize("case", SCENARIOS, ids=[case.id for case in SCENARIOS])
def test_scenario(case: Scenario) -> None:
    game = read_position(expand_position(case.position))
    assert format_position(game) == expand_position(case.position)
    for text in case.moves.split():
        game.push(Move.parse(text))
    if case.result is not None:
        assert format_position(game) == expand_position(case.result)
    if case.legal is not None:
        assert _legal(game) == sorted(case.legal.split())
        assert len(set(game.legal_moves())) == len(game.legal_moves())
    assert game.winner == case.winner
    assert game.is_over() == (case.winner is not None)
    if case.winner is not None:
        assert game.legal_moves() == ()
    before = format_position(game)
    for text, reason in case.illegal:
        move = Move.parse(text)
        assert not game.is_legal(move)
        with pytest.raises(IllegalMoveError) as caught:
            game.push(move)
        assert caught.value.reason == reason, caught.value
        assert before in str(caught.value), "the message carries the position"
        assert caught.value.explanation
        assert format_position(game) == before, "a rejected move changes nothing"


@pytest.mark.parametrize("case", SCENARIOS, ids=[case.id for case in SCENARIOS])
def test_scenario_undo(case: Scenario) -> None:
    """Popping every move of a scenario gives back the starting position."""
    game = read_position(expand_position(case.position))
    moves = [Move.parse(text) for text in case.moves.split()]
    positions = []
    for move in moves:
        positions.append(format_position(game))
        game.push(move)
    for move in reversed(moves):
        assert game.pop() is move
        assert format_position(game) == positions.pop()
    with pytest.raises(IndexError):
        game.pop()


@pytest.mark.parametrize("case", SCENARIOS, ids=[case.id for case in SCENARIOS])
def test_every_legal_move_can_be_pushed_and_every_other_is_rejected(case: Scenario) -> None:
    game = read_position(expand_position(case.position))
    for text in case.moves.split():
        game.push(Move.parse(text))
    legal = set(game.legal_moves())
    candidates = [Move.lay(card) for card in game.hand(game.turn)] + [Move.parse("draw"), Move.parse("pass")]
    for move in candidates:
        assert game.is_legal(move) == (move in legal)
        if move in legal:
            game.push(move)
            game.pop()
        else:
            with pytest.raises(IllegalMoveError):
                game.push(move)
    assert all(move in candidates for move in legal), "every legal lay is of a card in hand"


# -- the starter, from a deal --------------------------------------------------------------------


def _deal(colors: str, hands: list[str]) -> Game:
    """A deal of two-card hands (``hand_size=2``); every other card is on the pile, in deck order."""
    rules = Rules(colors=colors, hand_size=2)
    hand_cards = [[Card.parse(text) for text in hand.split()] for hand in hands]
    dealt = {card for hand in hand_cards for card in hand}
    deck = [Card.parse(f"{color}{number}") for color in colors for number in range(1, 21)]
    return Game(hand_cards, [card for card in deck if card not in dealt], rules)


START_DEALS = [
    pytest.param("RYGB", ["R5 Y11", "G11 R11", "B11 B5"], 1, "R11", id="red-eleven-holder"),
    pytest.param("RYGB", ["R5 Y11", "G11 G12", "B11 B5"], 0, "Y11", id="no-red-yellow"),
    pytest.param("RYGB", ["R5 B11", "G11 G12", "Y5 B5"], 1, "G11", id="no-red-yellow-green"),
    pytest.param("RYGB", ["R5 Y5", "G5 G12", "B11 B5"], 2, "B11", id="only-blue"),
    pytest.param("RYG", ["R5 Y5", "G11 G12", "Y11 R6"], 2, "Y11", id="beginners-yellow"),
    pytest.param("RYG", ["R5 G11", "Y5 G12", "R6 R7"], 0, "G11", id="beginners-green"),
    pytest.param("RYG", ["R5 G11", "R11 G12", "Y11 R7"], 1, "R11", id="beginners-red"),
]


@pytest.mark.parametrize(("colors", "hands", "starter", "opening"), START_DEALS)
def test_starter_of_a_deal(colors: str, hands: list[str], starter: int, opening: str) -> None:
    game = _deal(colors, hands)
    assert game.turn == starter
    assert not game.started
    assert [str(m) for m in game.legal_moves()] == [opening]
    game.push(Move.parse(opening))
    assert game.started
    assert game.turn == (starter + 1) % len(hands), "the opening ends the starter's turn"
    assert game.laid_this_turn() == []
    assert game.record_moves() == [f"{starter} {opening}"]


def test_push_rejects_what_is_not_a_move() -> None:
    game = Game.deal(players=2, seed=1)
    with pytest.raises(IllegalMoveError) as caught:
        game.push("R11")  # type: ignore[arg-type]
    assert caught.value.reason == "not_a_move"


def test_push_text_parses_and_pushes() -> None:
    game = Game.deal(players=2, seed=1)
    opening = game.legal_moves()[0]
    assert game.push_text(str(opening).lower()) is opening
    assert game.peek() is opening


def test_not_fitting_details_name_the_fitting_cards() -> None:
    game = read_position(expand_position("R8-13 R6R7R14R15/G3 * 0 -:0:- RYGB:3:free:end"))
    with pytest.raises(IllegalMoveError) as caught:
        game.push(Move.parse("R15"))
    assert caught.value.details["fitting"] == ["R7", "R14"]
    assert "R7 or R14" in caught.value.explanation
