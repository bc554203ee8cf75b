"""The game in words (``elferraus.table.words``): moves in, words out, in both languages."""

from __future__ import annotations

import random

import pytest

from elferraus.cards import Card, Color
from elferraus.game import Game
from elferraus.i18n import LANGUAGES, Lang, tr
from elferraus.moves import DRAW, PASS
from elferraus.rules import Rules
from elferraus.table.words import (
    Message,
    describe_move,
    describe_turn,
    is_opening,
    last_laid,
    last_lay,
    last_turn_messages,
    last_turns,
    log_line,
    log_message,
    made_for_coming,
    made_for_coming_line,
    made_for_done,
    match_message,
    move_message,
    row_lines,
    rules_words,
    say,
    status,
    status_line,
    turn_message,
    turn_status,
    winner_message,
)

NAMES = ["Anna", "Ben", "Cleo"]


@pytest.mark.parametrize(
    ("moves", "players", "expected"),
    [
        ([], 3, [[], [], []]),
        (["2 R11"], 3, [[], [], ["R11"]]),
        (["2 R11", "0 R10", "0 G11", "0 pass"], 3, [["R10", "G11", "pass"], [], ["R11"]]),
        (
            ["2 R11", "0 R10", "0 pass", "1 draw", "1 draw", "1 Y4", "2 pass"],
            3,
            [["R10", "pass"], ["draw", "draw", "Y4"], ["pass"]],
        ),
        # a seat's new turn replaces its last one
        (["0 R11", "1 draw", "1 pass", "0 R10", "0 pass"], 2, [["R10", "pass"], ["draw", "pass"]]),
        # the reader's own draws carry the card; the word is all that counts
        (["0 R11", "1 draw B7", "1 pass"], 2, [["R11"], ["draw", "pass"]]),
        (["3 Y11"], 4, [[], [], [], ["Y11"]]),
    ],
    ids=["none", "opening", "several-lays", "draws", "next-turn", "own-draw", "four-seats"],
)
def test_last_turns(moves: list[str], players: int, expected: list[list[str]]) -> None:
    assert last_turns(moves, players) == expected


@pytest.mark.parametrize(
    ("actions", "opening", "english", "german"),
    [
        ([], False, "", ""),
        ([], True, "", ""),
        (["R11"], True, "opened with R11", "eröffnet mit R11"),
        (["R11"], False, "laid R11", "legt R11 an"),
        (["R10", "G11", "pass"], False, "laid R10 G11", "legt R10 G11 an"),
        (["draw"], False, "drew 1", "zieht 1"),
        (["draw", "draw", "draw", "pass"], False, "drew 3", "zieht 3"),
        (["draw", "draw", "Y4"], False, "drew 2, laid Y4", "zieht 2, legt Y4 an"),
        (["draw", "Y4", "pass"], False, "drew 1, laid Y4", "zieht 1, legt Y4 an"),
        (["pass"], False, "ended the turn", "beendet den Zug"),
        (["pass"], True, "ended the turn", "beendet den Zug"),
    ],
)
def test_describe_turn(actions: list[str], opening: bool, english: str, german: str) -> None:
    assert describe_turn(actions, opening=opening, lang="en") == english
    assert describe_turn(actions, opening=opening, lang="de") == german


@pytest.mark.parametrize(
    ("text", "lang", "you", "show_draws", "expected"),
    [
        ("0 R10", "en", None, True, "Anna laid R10"),
        ("0 R10", "de", None, True, "Anna legt R10 an"),
        ("0 R10", "en", 0, True, "You laid R10"),
        ("0 R10", "de", 0, False, "Du legst R10 an"),
        ("0 R10", "en", 1, True, "Anna laid R10"),
        ("1 draw Y4", "en", 1, True, "You drew Y4"),
        ("1 draw Y4", "de", 1, True, "Du ziehst Y4"),
        ("1 draw Y4", "en", None, True, "Ben drew Y4"),
        ("1 draw Y4", "de", None, True, "Ben zieht Y4"),
        ("1 draw Y4", "en", None, False, "Ben drew a card"),
        ("1 draw Y4", "de", None, False, "Ben zieht eine Karte"),
        ("1 draw Y4", "en", 1, False, "Ben drew a card"),
        ("1 draw", "en", 0, True, "Ben drew a card"),
        ("1 draw", "de", 0, True, "Ben zieht eine Karte"),
        ("2 pass", "en", None, True, "Cleo ended the turn"),
        ("2 pass", "de", None, False, "Cleo beendet den Zug"),
        ("2 pass", "en", 2, True, "You ended your turn"),
        ("2 pass", "de", 2, True, "Du beendest deinen Zug"),
    ],
)
def test_log_line(text: str, lang: Lang, you: int | None, show_draws: bool, expected: str) -> None:
    assert log_line(text, NAMES, lang, you=you, show_draws=show_draws) == expected


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_log_line_never_shows_a_drawn_card_when_told_not_to(lang: Lang, seed: int) -> None:
    game = Game.deal(3, seed=seed)
    rng = random.Random(seed)
    while not game.is_over():
        game.push(rng.choice(game.legal_moves()))
    moves = game.record_moves()
    drawn = {text.split()[2] for text in moves if text.split()[1] == "draw"}
    assert drawn, "choose a seed with draws"
    for text in moves:
        for you in (None, 0, 1, 2):
            line = log_line(text, NAMES, lang, you=you, show_draws=False)
            if text.split()[1] == "draw":
                assert not any(card in line.split() for card in drawn), line
                assert line.startswith(NAMES[int(text.split()[0])])
        shown = log_line(text, NAMES, lang, you=None, show_draws=True)
        if text.split()[1] == "draw":
            assert shown.split()[-1] == text.split()[2]


@pytest.mark.parametrize(
    ("moves", "seat", "expected"),
    [
        ([], 0, False),
        (["0 R11"], 0, True),
        (["0 R11"], 1, False),
        (["0 R11", "1 pass", "2 draw"], 0, True),
        (["0 R11", "1 pass", "0 R10"], 0, False),
        (["2 Y11", "0 Y10", "0 pass"], 2, True),
        (["2 Y11", "0 Y10", "0 pass"], 0, False),
    ],
)
def test_is_opening(moves: list[str], seat: int, expected: bool) -> None:
    assert is_opening(moves, seat) is expected


@pytest.mark.parametrize(
    ("moves", "expected"),
    [
        ([], None),
        (["0 R11"], "R11"),
        (["0 R11", "1 draw", "1 pass"], "R11"),
        (["0 R11", "1 R12", "1 Y11", "1 pass", "2 draw G4", "2 draw"], "Y11"),
        (["2 B11", "0 B10", "0 pass", "1 draw", "1 B12"], "B12"),
    ],
)
def test_last_lay(moves: list[str], expected: str | None) -> None:
    assert last_lay(moves) == (Card.parse(expected) if expected else None)


def test_status_line_words_the_phase() -> None:
    game = Game.deal(players=2, seed=4)
    opener = game.turn
    assert "open the game" in status_line(game.view(opener), "en")
    game.push(game.legal_moves()[0])
    assert status_line(game.view(game.turn), "de").startswith("du bist dran")


def test_the_status_is_a_message_key_with_parameters_any_page_can_word() -> None:
    game = Game.deal(players=2, seed=4)
    key, params = status(game.view(game.turn))
    assert key == "status_opening"
    assert params == {"card": str(game.legal_moves()[0])}
    for lang in ("en", "de"):
        assert status_line(game.view(game.turn), lang) == tr(key, lang, **params)


# -- the same words as message keys with parameters (what the server sends the page) ----------------------


@pytest.mark.parametrize(
    ("text", "you", "expected"),
    [
        ("2 R10", False, ("did_lay", {"seat": 2, "card": "R10"})),
        ("2 R10", True, ("you_lay", {"card": "R10"})),
        ("1 draw Y4", False, ("did_draw_card", {"seat": 1, "card": "Y4"})),
        ("1 draw Y4", True, ("you_draw", {"card": "Y4"})),
        ("1 draw", False, ("did_draw", {"seat": 1})),
        ("1 draw", True, ("did_draw", {"seat": 1})),
        ("0 pass", False, ("did_pass", {"seat": 0})),
        ("0 pass", True, ("you_pass", {})),
    ],
)
def test_move_message(text: str, you: bool, expected: Message) -> None:
    assert move_message(text, you=you) == expected
    for lang in LANGUAGES:
        seat = int(text.split(maxsplit=1)[0])
        assert describe_move(NAMES[seat], text, lang, you=you) == say(*expected, NAMES, lang)


@pytest.mark.parametrize(
    ("text", "you", "show_draws", "expected"),
    [
        ("1 draw Y4", None, True, ("did_draw_card", {"seat": 1, "card": "Y4"})),
        ("1 draw Y4", None, False, ("did_draw", {"seat": 1})),
        ("1 draw Y4", 1, True, ("you_draw", {"card": "Y4"})),
        ("1 draw Y4", 1, False, ("did_draw", {"seat": 1})),
        ("2 R12", 2, False, ("you_lay", {"card": "R12"})),
        ("2 R12", 0, True, ("did_lay", {"seat": 2, "card": "R12"})),
    ],
)
def test_log_message(text: str, you: int | None, show_draws: bool, expected: Message) -> None:
    assert log_message(text, you=you, show_draws=show_draws) == expected
    for lang in LANGUAGES:
        assert log_line(text, NAMES, lang, you=you, show_draws=show_draws) == say(*expected, NAMES, lang)


@pytest.mark.parametrize(
    ("actions", "opening", "expected"),
    [
        ([], False, None),
        (["R11"], True, ("last_opened", {"card": "R11"})),
        (["R11"], False, ("last_laid", {"cards": "R11"})),
        (["R10", "G11", "pass"], False, ("last_laid", {"cards": "R10 G11"})),
        (["draw", "draw", "Y4"], False, ("last_drew_laid", {"n": 2, "cards": "Y4"})),
        (["draw", "draw", "draw", "pass"], False, ("last_drew", {"n": 3})),
        (["pass"], False, ("last_ended", {})),
    ],
)
def test_turn_message(actions: list[str], opening: bool, expected: Message | None) -> None:
    assert turn_message(actions, opening=opening) == expected
    for lang in LANGUAGES:
        words = tr(expected[0], lang, **expected[1]) if expected else ""
        assert describe_turn(actions, opening=opening, lang=lang) == words


def test_last_turn_messages_are_each_seats_last_turn() -> None:
    moves = ["2 R11", "0 R10", "0 pass", "1 draw", "1 draw", "1 Y4"]
    assert last_turn_messages(moves, 4) == [
        ("last_laid", {"cards": "R10"}),
        ("last_drew_laid", {"n": 2, "cards": "Y4"}),
        ("last_opened", {"card": "R11"}),
        None,
    ]


@pytest.mark.parametrize(
    ("moves", "expected"),
    [
        ([], None),
        (["0 R11", "1 draw", "1 pass"], (0, "R11")),
        (["2 B11", "0 B10", "0 pass", "1 draw", "1 B12"], (1, "B12")),
    ],
)
def test_last_laid(moves: list[str], expected: tuple[int, str] | None) -> None:
    assert last_laid(moves) == (None if expected is None else (expected[0], Card.parse(expected[1])))


@pytest.mark.parametrize("rules", ["classic", "ravensburger", "beginners"])
def test_the_words_of_a_move_made_for_the_person(rules: str) -> None:
    """One set of words for the page, the prompt and the terminal: before a move made for a person, why his
    turn has no choice; after it, the reason and the move, naming the very card laid or drawn."""
    rng = random.Random(rules)
    seen: set[str] = set()
    for seed in range(12):
        game = Game.deal(players=3, seed=seed, rules=Rules.preset(rules))
        while not game.is_over():
            legal = game.legal_moves()
            seat = game.turn
            if len(legal) > 1:
                game.push(rng.choice(legal))
                continue
            (move,) = legal
            before = game.view(seat)
            coming = made_for_coming(before, move)
            game.push(move)
            after = game.view(seat)
            done = made_for_done(before, move, after)
            seen |= {coming[0], done[0]}
            if move is DRAW:
                assert done == (
                    ("made_draw", {"card": str(after.own_last_draw())})
                    if not before.draws
                    else (
                        "made_draw_again",
                        {
                            "drawn": str(before.own_last_draw()),
                            "card": str(after.own_last_draw()),
                            "draws": after.draws,
                            "limit": after.rules.max_draws,
                        },
                    )
                )
            elif move is PASS:
                assert done[0] in ("made_pass", "made_pass_laid", "made_pass_empty", "made_pass_draws")
                assert (done[0] == "made_pass_laid") == bool(before.laid)
            else:
                assert done == ("made_open" if not before.rows else "made_lay", {"card": str(move)})
                assert coming[1].get("card") in (str(move), *(str(card) for card in before.laid))
            for lang in LANGUAGES:
                for key, params in (coming, done):
                    assert "{" not in tr(key, lang, **params)
            assert made_for_coming_line(before, move, "de") == tr(coming[0], "de", **coming[1])
    assert {"made_open", "made_soon_open"} <= seen, seen
    assert seen & {"made_pass", "made_pass_laid", "made_pass_empty", "made_pass_draws"}, seen
    if rules == "classic":  # nothing fits, so the table draws: common when every card may be held back
        assert {"made_draw", "made_soon_draw"} <= seen, seen


def test_whose_turn_and_who_won() -> None:
    assert turn_status(1, computer=False) == ("status_other", {"seat": 1})
    assert turn_status(2, computer=True) == ("status_thinking", {"seat": 2})
    assert say(*turn_status(2, computer=True), NAMES, "de") == "Cleo überlegt"
    assert winner_message(1, you=True) == ("winner_you", {})
    assert say(*winner_message(1, you=False), NAMES, "en") == "Ben won."
    assert match_message([2], 14, you=2) == ("match_over_you", {"points": 14})
    assert say(*match_message([2], 14, you=0), NAMES, "en") == "Cleo wins the match with 14 points."
    assert say(*match_message([0, 2], 9, you=0), NAMES, "en") == "The match ends in a tie at 9 points: Anna, Cleo."


ROWS_SEEN = [
    ((11, 11), "+10 [11] +12"),
    ((10, 12), "+9  10 [11]  12 +13"),
    ((1, 13), "1  2  3  4  5  6  7  8  9  10 [11]  12  13 +14"),
    ((8, 20), "+7  8  9  10 [11]  12  13  14  15  16  17  18  19  20"),
]


@pytest.mark.parametrize(("row", "seen"), ROWS_SEEN, ids=[f"{low}-{high}" for (low, high), _ in ROWS_SEEN])
def test_a_row_keeps_its_numbers_apart(row: tuple[int, int], seen: str) -> None:
    header, line = row_lines({Color.GREEN: row}, "G", "en")
    assert line.startswith("G ■ ")
    assert seen in line
    # One place per number, each apart from the next, under the header's numbers.
    assert len(line[len("G ■ ") :].split()) == 20
    assert len(line) == len(header)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_row_not_yet_open_shows_its_11_in_the_11s_column(lang: Lang) -> None:
    header, line = row_lines({}, "R", lang)
    eleven = header.index("11") + 2
    assert line[eleven - 3 : eleven] == "+11"
    assert line.endswith(tr("not_open", lang))


@pytest.mark.parametrize(
    ("rules", "lang", "short", "words"),
    [
        (Rules(), "en", False, "Classic: 80 cards, draw up to 3"),
        (Rules(), "de", True, "Klassisch"),
        (Rules.preset("beginners"), "de", False, "Anfänger: 60 Karten, ohne Blau"),
        (Rules(max_draws=2), "en", False, "rules of their own: colours RYGB, draw up to 2"),
        (Rules(colors="RYG", max_draws=1), "de", True, "eigene Regeln: Farben RYG, bis zu 1 ziehen"),
    ],
)
def test_rules_are_named_in_the_readers_words(rules: Rules, lang: Lang, short: bool, words: str) -> None:
    assert rules_words(rules, lang, short=short) == words
