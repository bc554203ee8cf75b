"""Thousands of seeded random games, with the engine's invariants checked after every move.

7 rule sets x 5 table sizes x GAMES games (over 10,000 in all), each game
played by ``random.Random(seed).choice`` over the legal moves.

The bound on a game's length, from RULES.md. Let D be the deck (80 or 60
cards) and P the pile after the deal. Every move is a lay, a draw or a pass.
A card is laid at most once (it never leaves the table) and drawn at most
once (it never goes back), so lays <= D and draws <= P. A pass ends a turn;
every turn but a "pass-only" one contains a lay or a draw, so passes <=
lays + draws + pass-only turns. A pass-only turn (pass before any lay or
draw) is legal only with an empty pile and nothing to lay. With an empty
pile somebody can always lay (an unopened colour's 11 is in some hand; an
open row that is not complete has a missing neighbour in some hand: no card
is on the pile), and while nobody lays nothing changes, so at most
players - 1 pass-only turns come in a row, and each such run is followed by
a lay: pass-only turns <= (players - 1) * lays. In all:

    moves <= 2 * (D + P) + (players - 1) * D

which the test asserts, together with the run length itself.
"""

from __future__ import annotations

import random

import pytest

from elferraus import DRAW, PASS, Game, format_position
from tests.support.engine_helpers import PLAYER_COUNTS, RULE_SETS, mask_of, play_random

GAMES = 290
"""Games per (rule set, table size): 35 configurations, 10,150 games."""
FULL_UNDO_EVERY = 50
"""Every 50th game also compares the whole position string before and after push+pop."""
COPY_EVERY = 4
"""Every 4th game checks copy() independence at a random point."""

CONFIGS = [(name, players) for name in RULE_SETS for players in PLAYER_COUNTS]


def _table_mask(game: Game) -> tuple[int, int]:
    """The cards on the table as a bitmask, and how many there are."""
    mask = count = 0
    for color, (low, high) in game.rows().items():
        length = high - low + 1
        mask |= ((1 << length) - 1) << (color.order * 20 + low - 1)
        count += length
    return mask, count


def _check_conservation(game: Game, hands: list[int], full: int, deck: int) -> None:
    """Each card of the deck in exactly one place: a hand, the table or the pile (from scratch)."""
    assert hands == [mask_of(game.hand(seat)) for seat in range(game.players)]
    table, table_count = _table_mask(game)
    pile = game.pile()
    union = table | mask_of(pile)
    count = table_count + len(pile)
    for hand in hands:
        union |= hand
        count += hand.bit_count()
    assert union == full, "some card is nowhere"
    assert count == deck, "some card is in two places"
    assert game.hand_sizes() == tuple(hand.bit_count() for hand in hands)
    assert game.pile_size() == len(pile)


def _play_checked(game: Game, rng: random.Random, *, full_undo: bool, copy_at: int | None) -> int:
    """Play ``game`` to the end at random, checking every move; return the number of moves.

    The test keeps its own bitmasks of every hand, the table and the pile
    and updates them by what each move must do (a lay moves one card from
    the hand to the table, a draw the top of the pile into the hand, a pass
    nothing). After every move it reads back from the game what the move
    touched (the hand after a lay or draw, the table after a lay, the pile
    after a draw) plus every hand size and the pile size, and checks that the
    places together hold each card of the deck exactly once (the union of the
    masks is the whole deck and the counts add up to its size). At the start
    and the end everything is read back from scratch. Every ``push`` is
    first undone with ``pop`` and the state compared (the whole position
    string in every FULL_UNDO_EVERY-th game).
    """
    players = game.players
    deck = game.rules.deck_size
    full = (1 << deck) - 1
    bound = 2 * (deck + game.pile_size()) + (players - 1) * deck
    hands = [mask_of(game.hand(seat)) for seat in range(players)]
    _check_conservation(game, hands, full, deck)
    table, table_count = _table_mask(game)
    pile = game.pile()
    pile_mask = mask_of(pile)
    counts = [hand.bit_count() for hand in hands]
    acted = False  # the player to move has laid or drawn this turn
    pass_only_run = 0
    moves = 0
    while not game.is_over():
        legal = game.legal_moves()
        assert legal, "a running game always has a legal move"
        seat = game.turn
        assert 0 <= seat < players, "exactly one seat is to move"
        move = rng.choice(legal)

        # push + pop restores everything (the hand too: re-pushing the same move is checked below)
        before = (seat, len(pile), game.draws_this_turn, game.last_drawn, legal, moves)
        text = format_position(game) if full_undo else ""
        game.push(move)
        assert game.pop() is move
        after = (game.turn, game.pile_size(), game.draws_this_turn, game.last_drawn, game.legal_moves())
        assert (*after, game.move_count) == before
        if full_undo:
            assert format_position(game) == text
        if copy_at == moves:
            _check_copies(game, rng)

        game.push(move)
        moves += 1
        if move.is_lay:
            bit = 1 << move.card.index  # type: ignore[union-attr]
            assert hands[seat] & bit, "a lay of a card not in hand"
            assert not table & bit, "a lay of a card on the table"
            hands[seat] ^= bit
            counts[seat] -= 1
            table |= bit
            table_count += 1
            # read back the hand and the table
            assert mask_of(game.hand(seat)) == hands[seat]
            assert _table_mask(game) == (table, table_count)
            pass_only_run = 0
            acted = True
        elif move is DRAW:
            assert pile, "no draw from an empty pile"
            bit = 1 << pile[0].index
            hands[seat] |= bit
            counts[seat] += 1
            pile_mask ^= bit
            assert game.last_drawn is pile[0]
            del pile[0]
            assert game.pile() == pile
            assert mask_of(game.hand(seat)) == hands[seat]
            acted = True
        else:
            if not acted:
                assert not pile, "a pass before laying or drawing needs an empty pile"
                assert legal == (PASS,), "... and nothing to lay"
                pass_only_run += 1
                assert pass_only_run <= players - 1, "with an empty pile somebody can always lay"
            assert game.turn == (seat + 1) % players
        # every card in exactly one place: sizes, the pile, and the masks' union and count
        union = table | pile_mask
        for hand in hands:
            union |= hand
        assert game.hand_sizes() == tuple(counts)
        assert game.pile_size() == len(pile)
        assert table_count + len(pile) + sum(counts) == deck
        assert union == full
        assert game.move_count == moves <= bound, f"game longer than the bound {bound}"
        if game.turn != seat:
            acted = False
            assert game.draws_this_turn == 0

    _check_conservation(game, hands, full, deck)
    winner = game.winner
    assert winner is not None
    assert game.turn == winner
    assert game.legal_moves() == ()
    assert game.hand(winner) == []
    assert all(game.hand(seat) for seat in range(players) if seat != winner)
    last = game.peek()
    assert last is not None
    assert last.is_lay, "a game ends with a lay"
    assert game.penalties() == [sum(card.number for card in game.hand(seat)) for seat in range(players)]
    return moves


def _check_copies(game: Game, rng: random.Random) -> None:
    """Copies are independent of the original and of each other."""
    text = format_position(game)
    copy = game.copy()
    light = game.copy(history=False)
    assert format_position(copy) == text
    assert format_position(light) == text
    assert copy.legal_moves() == game.legal_moves()
    assert light.legal_moves() == game.legal_moves()
    play_random(copy, random.Random(rng.random()))
    play_random(light, random.Random(rng.random()), 30)
    assert copy.is_over()
    assert format_position(game) == text
    assert copy.record_moves()[: game.move_count] == game.record_moves()
    game_moves = game.move_count
    while copy.move_count > game_moves:
        copy.pop()
    assert format_position(copy) == text


@pytest.mark.parametrize(("rules_name", "players"), CONFIGS, ids=[f"{name}-{p}p" for name, p in CONFIGS])
def test_random_games(rules_name: str, players: int) -> None:
    rules = RULE_SETS[rules_name]
    base = (list(RULE_SETS).index(rules_name) * 10 + players) * 100_000
    lengths = []
    for number in range(GAMES):
        seed = base + number
        game = Game.deal(players, seed, rules)
        rng = random.Random(seed)
        copy_at = rng.randrange(60) if number % COPY_EVERY == 0 else None
        lengths.append(_play_checked(game, rng, full_undo=number % FULL_UNDO_EVERY == 0, copy_at=copy_at))
    assert len(lengths) == GAMES
    assert min(lengths) > players, "every seat moves at least once"
