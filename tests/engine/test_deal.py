"""Dealing: hand sizes, the redeal rule, determinism, and who starts."""

from __future__ import annotations

import pytest

from elferraus import CARDS, Card, Game, NotationError, Rules, format_position, write_record
from elferraus.deal import deal_cards
from tests.support.engine_helpers import PLAYER_COUNTS, RULE_SETS

CLASSIC = Rules.preset("classic")
BEGINNERS = Rules.preset("beginners")


def _elevens(rules: Rules) -> set[int]:
    return {Card.parse(f"{color}11").index for color in rules.colors}


def _texts(indices: tuple[int, ...]) -> str:
    return " ".join(str(CARDS[i]) for i in indices)


# -- hand sizes -------------------------------------------------------------------------------------

HAND_SIZES = [
    # rules, players, cards per hand, pile
    ("classic", 2, 20, 40),
    ("classic", 3, 20, 20),
    ("classic", 4, 15, 20),
    ("classic", 5, 12, 20),
    ("classic", 6, 10, 20),
    ("beginners", 2, 20, 20),
    ("beginners", 3, 20, 0),
    ("beginners", 4, 15, 0),
    ("beginners", 5, 12, 0),
    ("beginners", 6, 10, 0),
]


@pytest.mark.parametrize(
    ("preset", "players", "size", "pile"), HAND_SIZES, ids=[f"{r}-{p}p" for r, p, *_ in HAND_SIZES]
)
def test_hand_sizes_by_player_count(preset: str, players: int, size: int, pile: int) -> None:
    rules = Rules.preset(preset)
    assert rules.cards_per_player(players) == size
    for seed in range(5):
        game = Game.deal(players, seed, preset)
        assert game.hand_sizes() == (size,) * players
        assert game.pile_size() == pile
        dealt = deal_cards(players, seed, rules)
        assert [len(hand) for hand in dealt.hands] == [size] * players
        assert len(dealt.pile) == pile


HAND_SIZE_OVERRIDES = [
    # colours, hand_size, players, pile
    ("RYGB", 7, 2, 66),
    ("RYGB", 7, 6, 38),
    ("RYGB", 1, 3, 77),
    ("RYGB", 40, 2, 0),
    ("RYGB", 13, 6, 2),
    ("RYG", 30, 2, 0),
    ("RYG", 5, 4, 40),
]


@pytest.mark.parametrize(("colors", "size", "players", "pile"), HAND_SIZE_OVERRIDES)
def test_hand_size_override(colors: str, size: int, players: int, pile: int) -> None:
    rules = Rules(colors=colors, hand_size=size)
    assert rules.cards_per_player(players) == size
    game = Game.deal(players, 11, rules)
    assert game.hand_sizes() == (size,) * players
    assert game.pile_size() == pile
    assert game.rules.hand_size == size


@pytest.mark.parametrize(
    ("rules", "players"),
    [
        pytest.param(CLASSIC, 1, id="one-player"),
        pytest.param(CLASSIC, 7, id="seven-players"),
        pytest.param(CLASSIC, 0, id="no-players"),
        pytest.param(Rules(hand_size=41), 2, id="hands-bigger-than-the-deck"),
        pytest.param(Rules(colors="RYG", hand_size=11), 6, id="beginners-66-of-60"),
    ],
)
def test_impossible_deals_are_refused(rules: Rules, players: int) -> None:
    with pytest.raises(NotationError):
        Game.deal(players, 1, rules)
    with pytest.raises(NotationError):
        deal_cards(players, 1, rules)


@pytest.mark.parametrize("size", [0, -1, True, 2.5, "7"])
def test_bad_hand_size_option(size: object) -> None:
    with pytest.raises(NotationError, match="hand_size"):
        Rules(hand_size=size)  # type: ignore[arg-type]


# -- every deal is a deal ---------------------------------------------------------------------------


@pytest.mark.parametrize("rules_name", ["classic", "beginners"])
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_each_card_dealt_once_and_an_eleven_in_hand(rules_name: str, players: int) -> None:
    rules = RULE_SETS[rules_name]
    elevens = _elevens(rules)
    for seed in range(200):
        dealt = deal_cards(players, seed, rules)
        cards = [card for hand in dealt.hands for card in hand] + list(dealt.pile)
        assert sorted(cards) == list(range(rules.deck_size))
        assert all(list(hand) == sorted(hand) for hand in dealt.hands)
        assert elevens & {card for hand in dealt.hands for card in hand}, "an 11 is always dealt"


# -- the redeal rule --------------------------------------------------------------------------------


@pytest.mark.parametrize("rules_name", ["classic", "beginners"])
def test_redealt_deals_have_an_eleven(rules_name: str) -> None:
    rules = RULE_SETS[rules_name]
    redealt = [seed for seed in range(400) if deal_cards(2, seed, rules).redeals > 0]
    assert redealt, "some of 400 two-player deals need a redeal"
    for seed in redealt:
        dealt = deal_cards(2, seed, rules)
        in_hands = {card for hand in dealt.hands for card in hand}
        assert _elevens(rules) & in_hands
        game = Game.deal(2, seed, rules)
        assert game.dealt is not None
        assert [[card.index for card in hand] for hand in game.dealt[0]] == [list(hand) for hand in dealt.hands]
        assert [card.index for card in game.dealt[1]] == list(dealt.pile)
        record = write_record(game)  # a record keeps only the deal that was played
        assert record["hands"] == [[str(CARDS[i]) for i in hand] for hand in dealt.hands]
        assert record["pile"] == [str(CARDS[i]) for i in dealt.pile]


REDEAL_SHARES = [
    # rules, players, low, high: the exact chance that no 11 is among the dealt cards is
    # C(D-E, H)/C(D, H) for D cards, E elevens and H dealt cards.
    pytest.param("classic", 2, 0.045, 0.072, id="classic-2p-5.8%"),  # 40*39*38*37/(80*79*78*77) = 5.78%
    pytest.param("beginners", 2, 0.022, 0.046, id="beginners-2p-3.3%"),  # 20*19*18/(60*59*58) = 3.33%
    pytest.param("classic", 3, 0.0, 0.008, id="classic-3p-0.3%"),  # 20*19*18*17/(80*79*78*77) = 0.31%
    pytest.param("beginners", 3, 0.0, 0.0, id="beginners-3p-never"),  # every card is dealt
]


@pytest.mark.parametrize(("rules_name", "players", "low", "high"), REDEAL_SHARES)
def test_redeal_share(rules_name: str, players: int, low: float, high: float) -> None:
    rules = RULE_SETS[rules_name]
    seeds = 5_000
    share = sum(deal_cards(players, seed, rules).redeals > 0 for seed in range(seeds)) / seeds
    assert low <= share <= high


# -- determinism ------------------------------------------------------------------------------------


@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
def test_same_seed_same_deal(rules_name: str) -> None:
    rules = RULE_SETS[rules_name]
    for players in PLAYER_COUNTS:
        for seed in (0, 1, 2**40 + 3, 123456789):
            assert deal_cards(players, seed, rules) == deal_cards(players, seed, rules)
            assert format_position(Game.deal(players, seed, rules)) == format_position(Game.deal(players, seed, rules))


def test_different_seeds_different_deals() -> None:
    deals = {deal_cards(4, seed, CLASSIC).hands for seed in range(300)}
    assert len(deals) == 300


GOLDEN_SEED_1_FOUR_PLAYERS = {
    "hands": [
        "R3 R12 R20 Y9 Y11 Y19 G1 G8 G10 G13 G18 B1 B2 B8 B17",
        "R2 R4 R7 R11 R15 Y1 Y7 Y13 Y14 Y17 Y18 G5 G9 B5 B14",
        "R5 R9 Y8 Y15 Y16 G2 G6 G12 G14 G15 G19 G20 B3 B11 B19",
        "R1 R10 R16 R17 R18 Y4 Y10 G7 G11 G17 B4 B6 B10 B12 B20",
    ],
    "pile": "R19 R8 Y12 G3 B15 R6 Y6 Y2 G16 B7 Y3 Y20 B16 B13 B18 Y5 R13 B9 G4 R14",
    "redeals": 0,
    "starter": 1,
}


def test_golden_deal_seed_1_four_players() -> None:
    """A regression check: changing the shuffle changes every seeded deal and record."""
    dealt = deal_cards(4, 1, CLASSIC)
    assert [_texts(hand) for hand in dealt.hands] == GOLDEN_SEED_1_FOUR_PLAYERS["hands"]
    assert _texts(dealt.pile) == GOLDEN_SEED_1_FOUR_PLAYERS["pile"]
    assert dealt.redeals == GOLDEN_SEED_1_FOUR_PLAYERS["redeals"]
    game = Game.deal(players=4, seed=1)
    assert game.turn == GOLDEN_SEED_1_FOUR_PLAYERS["starter"]
    assert [str(c) for c in game.pile()] == GOLDEN_SEED_1_FOUR_PLAYERS["pile"].split()
    assert game.metadata == {"seed": 1}


# -- who starts -------------------------------------------------------------------------------------


@pytest.mark.parametrize("rules_name", ["classic", "beginners"])
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_starter_holds_the_first_eleven_in_colour_order(rules_name: str, players: int) -> None:
    rules = RULE_SETS[rules_name]
    openings: set[str] = set()
    for seed in range(300):
        game = Game.deal(players, seed, rules)
        holder = {card: seat for seat in range(players) for card in game.hand(seat)}
        first = next(Card.parse(f"{c}11") for c in rules.colors if Card.parse(f"{c}11") in holder)
        assert game.turn == holder[first]
        assert [str(m) for m in game.legal_moves()] == [str(first)]
        openings.add(str(first))
    if players == 2:
        assert len(openings) >= 3, "two-player deals leave R11 on the pile often enough"


def test_preset_by_name() -> None:
    for name in ("classic", "ravensburger", "beginners"):
        assert Game.deal(3, 5, name).rules == Rules.preset(name)
    with pytest.raises(NotationError, match="unknown rules preset"):
        Game.deal(3, 5, "tournament")
