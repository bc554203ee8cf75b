"""The hint in words: why master's move is good, said from the person's own view.

Each scenario is a hand-dealt position (you are seat 0 and to move) and
master's advice for it; the words must name the reason: blocking, opening a
row for your own cards, going out, freeing your own cards, the end of a row;
and after them, for a search, its estimated chance to win over the deals it
sampled, or, for the network's move alone (no compiled core), that it did not
look ahead.
"""

from __future__ import annotations

import pytest

from elferraus import read_position
from elferraus.bots import Advice
from elferraus.cards import CARDS, Card, parse_cards
from elferraus.game import Game
from elferraus.i18n import Lang
from elferraus.moves import DRAW, PASS, Move
from elferraus.table.hints import effect_of, hint_line

NAMES = ["You", "Anna", "Ben"]


def deal(rows: str, hand: str, phase: str = "-:0:-", *, swap: bool = False, players: int = 3) -> Game:
    """Three players at a hand-dealt position: your ``hand``; the other cards go round Anna, Ben and the pile.

    ``swap`` gives Anna's and Ben's cards and the pile to each other: what you cannot see changes, your view does not.
    """
    named = set(parse_cards(hand))
    for row in rows.split(","):
        low, high = (int(n) for n in row[1:].split("-"))
        named |= {Card.parse(f"{row[0]}{n}") for n in range(low, high + 1)}
    drawn = phase.split(":")[2]
    rest = [str(card) for card in CARDS if card not in named]
    anna, ben, pile = rest[0:40:3][:12], rest[1:40:3][:12], []
    pile = [card for card in rest if card not in anna and card not in ben]
    if swap:
        anna, ben, pile = ben, pile[:12], anna + pile[12:]
    if drawn != "-":  # the card you drew last is in your hand already
        assert drawn in hand
    hands = [hand, "".join(anna), "".join(ben)][:players]
    if players == 2:
        pile = ben + pile
    return read_position(f"{rows} {'/'.join(hands)} {''.join(pile)} 0 {phase} RYGB:3:free:end")


def advice(move: Move, reason: str = "search") -> Advice:
    """master's advice as its search gives it: the move first, one other behind it (its expected win shares)."""
    if reason != "search":
        return Advice(move, reason)  # type: ignore[arg-type]
    other = DRAW if move is not DRAW else PASS
    return Advice(move, "search", ((move, 0.61), (other, 0.42)), 320)


RATE = {
    "en": " (with this move you won 61% of the games played out from here, over 320 ways the hidden cards may lie)",
    "de": (
        " (mit diesem Zug hast du 61 Prozent der von hier aus zu Ende gespielten Partien gewonnen,"
        " bei 320 möglichen Kartenverteilungen)"
    ),
}
AFTER: dict[str, dict[Lang, str]] = {
    "search": RATE,
    "plan": {
        "en": " (the master's plan: hold every card back while the pile lasts)",
        "de": " (der Plan des Meisters: alle Karten zurückhalten, solange der Stapel reicht)",
    },
}
"""What follows the reason, by the advice's reason (nothing for the only move and for going out)."""

SCENARIOS: list[tuple[str, str, str, str, Move, str, dict[Lang, str]]] = [
    # (name, rows, your hand, phase, the advised move, master's reason, the hint in English and German)
    (
        "block-draw",
        "R10-12",
        "R9G3Y5",
        "-:0:-",
        DRAW,
        "search",
        {
            "en": "Hint: draw — it blocks: laying R9 would let the others lay R8, Anna first",
            "de": "Tipp: ziehen — du blockierst: legst du R9 an, können die anderen R8 anlegen, Anna zuerst",
        },
    ),
    (
        "block-two-cards",
        "R10-12",
        "R9G11Y5",
        "-:0:-",
        DRAW,
        "search",
        {
            "en": "Hint: draw — it blocks: laying R9 or G11 would let the others lay R8, G10 and G12, Anna first",
            "de": "Tipp: ziehen — du blockierst: legst du R9 oder G11 an, können die anderen R8, G10 und G12 anlegen,"
            " Anna zuerst",
        },
    ),
    (
        "block-keep-the-drawn-card",
        "R10-12",
        "R13G3Y5",
        "-:1:R13",
        PASS,
        "search",
        {
            "en": "Hint: end turn — it blocks: laying R13 would let the others lay R14, Anna first",
            "de": "Tipp: Zug beenden — du blockierst: legst du R13 an, können die anderen R14 anlegen, Anna zuerst",
        },
    ),
    (
        "frees-own-cards",
        "R10-12",
        "R13R14R15G3",
        "-:0:-",
        Move.lay("R13"),
        "search",
        {
            "en": "Hint: R13 — opens nothing for the others and lets you lay R14 and R15 next",
            "de": "Tipp: R13 — öffnet den anderen nichts, und danach kannst du R14 und R15 anlegen",
        },
    ),
    (
        "opens-a-row-for-own-cards",
        "R10-12",
        "Y11Y9Y14G3",
        "-:0:-",
        Move.lay("Y11"),
        "search",
        {
            "en": "Hint: Y11 — opens yellow for your own Y9 and Y14",
            "de": "Tipp: Y11 — eröffnet Gelb für deine Y9 und Y14",
        },
    ),
    (
        "opens-the-way-to-an-own-card",
        "R10-12",
        "R9R7G3",
        "-:0:-",
        Move.lay("R9"),
        "search",
        {
            "en": "Hint: R9 — opens R8 for the others; once that is laid, your R7 fits",
            "de": "Tipp: R9 — öffnet den anderen R8; sobald sie liegt, passt deine R7",
        },
    ),
    (
        "ends-a-row",
        "R10-19",
        "R20G3Y5",
        "-:0:-",
        Move.lay("R20"),
        "search",
        {
            "en": "Hint: R20 — ends its row: it opens nothing for the others",
            "de": "Tipp: R20 — schließt ihre Reihe ab: sie öffnet den anderen nichts",
        },
    ),
    (
        "opens-but-plays-out-best",
        "R10-12",
        "R9G3Y5",
        "-:0:-",
        Move.lay("R9"),
        "search",
        {
            "en": "Hint: R9 — opens R8 for the others, yet no other move it tried did as well",
            "de": "Tipp: R9 — öffnet den anderen R8, doch kein anderer erprobter Zug schnitt so gut ab",
        },
    ),
    (
        "the-plan-blocks",
        "R10-12",
        "R9G3Y5",
        "-:0:-",
        DRAW,
        "plan",
        {
            "en": "Hint: draw — it blocks: laying R9 would let the others lay R8, Anna first",
            "de": "Tipp: ziehen — du blockierst: legst du R9 an, können die anderen R8 anlegen, Anna zuerst",
        },
    ),
    (
        "goes-out",
        "R10-12",
        "R13R14",
        "-:0:-",
        Move.lay("R13"),
        "go_out",
        {
            "en": "Hint: R13 — you can lay all your cards this turn",
            "de": "Tipp: R13 — du kannst in diesem Zug alle Karten loswerden",
        },
    ),
    (
        "the-only-move",
        "R10-12",
        "G3Y5",
        "-:0:-",
        DRAW,
        "only",
        {"en": "Hint: draw — it is the only move", "de": "Tipp: ziehen — es gibt keinen anderen Zug"},
    ),
]


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize(
    ("rows", "hand", "phase", "move", "reason", "words"),
    [scenario[1:] for scenario in SCENARIOS],
    ids=[scenario[0] for scenario in SCENARIOS],
)
def test_the_hint_says_why_in_words(
    rows: str, hand: str, phase: str, move: Move, reason: str, words: dict[Lang, str], lang: Lang
) -> None:
    game = deal(rows, hand, phase)
    view = game.view(0)
    assert move in view.legal, "the scenario's move must be legal"
    after = AFTER[reason][lang] if reason in AFTER else ""
    assert hint_line(view, advice(move, reason), NAMES, lang) == words[lang] + after


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", "Hint: draw — it blocks: laying R9 or G11 would let Anna lay R8, G10 and G12"),
        ("de", "Tipp: ziehen — du blockierst: legst du R9 oder G11 an, kann Anna R8, G10 und G12 anlegen"),
    ],
)
def test_the_hint_names_the_one_other_player(lang: Lang, words: str) -> None:
    view = deal("R10-12", "R9G11Y5", players=2).view(0)
    assert hint_line(view, advice(DRAW), NAMES, lang) == words + RATE[lang]


@pytest.mark.parametrize(("rows", "hand", "phase", "move"), [(s[1], s[2], s[3], s[4]) for s in SCENARIOS])
def test_the_hint_reads_only_your_own_view(rows: str, hand: str, phase: str, move: Move) -> None:
    """Other hands and the pile dealt differently: the same view, the same words."""
    seen, other = deal(rows, hand, phase), deal(rows, hand, phase, swap=True)
    assert seen.hand(1) != other.hand(1)
    assert seen.view(0).hand == other.view(0).hand
    for lang in ("en", "de"):
        assert hint_line(seen.view(0), advice(move), NAMES, lang) == hint_line(other.view(0), advice(move), NAMES, lang)


@pytest.mark.parametrize(
    ("rows", "hand", "card", "opens", "frees", "behind"),
    [
        ("R10-12", "R9", "R9", "R8", "", ""),
        ("R10-12", "R9R8R7", "R9", "", "R8R7", ""),
        ("R10-12", "R9R7", "R9", "R8", "", "R7"),
        ("R10-12", "G11", "G11", "G10G12", "", ""),
        ("R10-12", "G11G12", "G11", "G10", "G12", ""),
        ("R2-12", "R1", "R1", "", "", ""),
        ("R10-19", "R20", "R20", "", "", ""),
    ],
)
def test_what_a_lay_opens_and_frees(rows: str, hand: str, card: str, opens: str, frees: str, behind: str) -> None:
    effect = effect_of(deal(rows, hand + "B2").view(0), Card.parse(card))
    assert (effect.opens, effect.frees, effect.behind) == tuple(
        tuple(parse_cards(text)) for text in (opens, frees, behind)
    )
