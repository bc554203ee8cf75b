"""``elferraus play --plain``: the dialogue at the prompt, typed on stdin and read on stdout, in both languages.

The plain prompt is the full game told in lines, so the last tests here run
both on the same deal and compare what a person sees: the table, the keys,
the hint and the end of a round.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console
from textual.content import Content
from textual.pilot import Pilot
from textual.widgets import RichLog, Static
from textual.widgets._footer import FooterKey

from elferraus.cli.main import main
from elferraus.cli.play import PromptGame, hand_line, result_lines
from elferraus.i18n import Lang
from elferraus.moves import DRAW, PASS, Move
from elferraus.table.saving import read_save_file
from elferraus.table.session import Seat, Table, TableSetup
from elferraus.tui.app import ElferRausApp
from elferraus.tui.result_screen import ResultScreen, winner_line
from elferraus.tui.setup_screen import SetupChoices
from elferraus.tui.table_screen import TableScreen
from elferraus.tui.widgets import HandView, OpponentsView, RowsView
from elferraus.view import SeatView

SEED = 5
"""A deal where the person's first turn has a choice: R10, G11, B12 fit, or draw."""
TABLE = ["--players", "4", "--bots", "medium", "--seed", str(SEED)]


def play_plain(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], lang: Lang, typed: list[str]
) -> str:
    """``elferraus play --plain`` with ``typed`` as its standard input; what it printed."""
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(line + "\n" for line in typed)))
    code = main(["play", "--plain", "--lang", lang, *TABLE])
    out = capsys.readouterr().out
    assert code == 0, out
    return out


def in_order(out: str, expected: list[str]) -> None:
    """Every expected piece is in ``out``, each after the one before."""
    position = 0
    for piece in expected:
        found = out.find(piece, position)
        assert found >= 0, f"{piece!r} not found after position {position} in:\n{out[position:]}"
        position = found + len(piece)


KEYS = {
    "en": "R12 lay  d draw  e end turn  h hint  u undo  ? help  q quit\n> ",
    "de": "R12 anlegen  z ziehen  b Zug beenden  h Tipp  u zurück  ? Hilfe  q beenden\n> ",
}
"""The keys of a turn under the hand, in the footer's words, and the prompt."""
PROMPT = "> "
BYE = {"en": "Goodbye!", "de": "Tschüss!"}
QUIT = {"en": ["q", "y"], "de": ["q", "j"]}

# What the person types at the first prompt, and what the game answers, in order.
DIALOGUE: dict[str, dict[Lang, tuple[list[str], list[str]]]] = {
    "the table": {
        "en": (
            [],
            [
                "Elfer raus! · Classic\n",
                "  Computer 2 (medium)  ▌▌▌▌▌▌▌▌▌▌▌▌+ 15 cards\n",
                "  Computer 3 (medium)  ▌▌▌▌▌▌▌▌▌▌▌▌+ 14 cards · opened with R11\n",
                "  Computer 4 (medium)  ▌▌▌▌▌▌▌▌▌▌▌▌  12 cards · laid B11 Y11 Y12\n",
                "  ██ pile: 20 cards\n",
                "R ●   ·  ·  ·  ·  ·  ·  ·  ·  · +10 [11] +12",
                "Your turn: lay a card, or draw (you have laid nothing yet)\n",
                "You · 15 cards: R4 R6 R7 R10* R19 │ Y7 Y17 │ G1 G10 G11* G20 │ B2 B5 B9 B12*\n",
                KEYS["en"],
            ],
        ),
        "de": (
            [],
            [
                "Elfer raus! · Klassisch\n",
                "  Computer 2 (mittel)  ▌▌▌▌▌▌▌▌▌▌▌▌+ 15 Karten\n",
                "  Computer 3 (mittel)  ▌▌▌▌▌▌▌▌▌▌▌▌+ 14 Karten · eröffnet mit R11\n",
                "  ██ Stapel: 20 Karten\n",
                "■ Gr                                 +11 (nicht eröffnet)",
                "Du bist dran: lege an oder zieh (du hast noch nichts angelegt)\n",
                "Du · 15 Karten: R4 R6 R7 R10* R19 │ Ge7 Ge17 │ Gr1 Gr10 Gr11* Gr20 │ B2 B5 B9 B12*\n",
                KEYS["de"],
            ],
        ),
    },
    "help": {
        "en": (
            ["?"],
            [
                "Rules and keys\n",
                "Type a card and Enter to lay it (R12, y7 ...) · d draw · e end turn\n",
                "h hint from the master · m the moves you may make now · u take back your last turn · s save\n",
                "? this page · q quit\n",
                "Goal: be the first to lay all your cards.",
                "draw again, up to 3 cards.",
            ],
        ),
        "de": (
            ["?"],
            [
                "Regeln und Tasten\n",
                "Karte tippen und Enter legt sie an (R12, ge7 ...) · z ziehen · b Zug beenden\n",
                "h Tipp vom Meister · m deine möglichen Züge · u letzten Zug zurücknehmen · s speichern\n",
                "Ziel: als Erster alle Karten loswerden.",
            ],
        ),
    },
    "the moves allowed now": {
        "en": (["m"], ["You may: R10, G11, B12, draw\n"]),
        "de": (["m"], ["Du darfst: R10, Gr11, B12, ziehen\n"]),
    },
    "master's hint": {
        "en": (["h"], [KEYS["en"] + "Hint: "]),
        "de": (["h"], [KEYS["de"] + "Tipp: "]),
    },
    "not a move": {
        "en": (["xx"], ["'xx' is not a move: type a card like R12, d to draw or e to end your turn (? for help)\n"]),
        "de": (
            ["xx"],
            ["'xx' ist kein Zug: tippe eine Karte wie R12, z zum Ziehen oder b zum Beenden des Zuges (? für Hilfe)\n"],
        ),
    },
    "a card that does not fit": {
        "en": (["R4"], ["R4 does not fit: red runs 11-11, so only R10 or R12 can go there\n"]),
        "de": (["R4"], ["R4 passt nicht: Rot liegt von 11 bis 11, dort passt nur R10 oder R12\n"]),
    },
    "ending the turn too early, by the shown key and the hidden p": {
        "en": (["e", "p"], ["Lay a card or draw before you end your turn\n"] * 2),
        "de": (["b", "p"], ["Lege an oder zieh, bevor du deinen Zug beendest\n"] * 2),
    },
    "drawing by the key of either language": {
        "en": (["d"], ["You drew Y6\n", "You drew Y6, it does not fit: draw again (1 of 3)\n"]),
        "de": (["z"], ["Du ziehst Ge6\n", "Du hast Ge6 gezogen, sie passt nicht: zieh noch einmal (1 von 3)\n"]),
    },
    "laying, then taking it back": {
        "en": (
            ["g11", "u"],
            [
                "You laid G11\n",
                "Lay more cards, or end your turn\n",
                "You · 14 cards: ",
                "Your last turn is taken back.\n",
                "Your turn: lay a card, or draw (you have laid nothing yet)\n",
                "You · 15 cards: ",
            ],
        ),
        "de": (
            ["gr11", "u"],  # a card typed as the game shows it (the record's g11 works too)
            [
                "Du legst Gr11 an\n",
                "Lege weitere Karten an oder beende deinen Zug\n",
                "Dein letzter Zug ist zurückgenommen.\n",
                "Du · 15 Karten: ",
            ],
        ),
    },
    "nothing to take back": {
        "en": (["u"], ["There is no turn of yours to take back.\n"]),
        "de": (["u"], ["Es gibt keinen Zug von dir zum Zurücknehmen.\n"]),
    },
    "quitting asks first, as the quit dialog does": {
        "en": (
            ["q", "n"],
            [
                "Quit the game?\n",
                "“Save and quit” asks where to keep the game. It continues with:\n",
                "  elferraus play --resume FILE\n",
                "y quit  s save and quit  n cancel > " + PROMPT + "Quit the game?",
            ],
        ),
        "de": (
            ["q", "n"],
            [
                "Das Spiel beenden?\n",
                "„Speichern und beenden“ fragt, wo das Spiel hin soll. Weiter geht es mit:\n",
                "  elferraus play --resume DATEI\n",
                "j beenden  s speichern und beenden  n abbrechen > " + PROMPT + "Das Spiel beenden?",
            ],
        ),
    },
}


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("case", list(DIALOGUE))
def test_the_dialogue_at_the_first_turn(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], case: str, lang: Lang
) -> None:
    typed, expected = DIALOGUE[case][lang]
    out = play_plain(monkeypatch, capsys, lang, [*typed, *QUIT[lang]])
    in_order(out, [*expected, BYE[lang]])
    assert not list((home / "work").iterdir()), "nothing is written into the current folder"


def test_end_of_input_quits_without_a_trace(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = play_plain(monkeypatch, capsys, "en", [])
    assert out.endswith(KEYS["en"] + "Goodbye!\n")
    assert not (home / "data").exists()


# -- saving -----------------------------------------------------------------------------------------------------------

GAMES = "{data}/elferraus/games/"
# What the person types after "s" ({tmp}: a folder of the test, {old}: a file that exists), what the game says.
SAVING: dict[str, dict[Lang, tuple[list[str], list[str]]]] = {
    "the default, in the data folder": {
        "en": (
            [""],
            [
                f"Save the game to {GAMES}elferraus-",
                "\nEnter saves there; or type another file or folder (~ is your home folder), - cancels.\n> ",
                f"Game saved to {GAMES}elferraus-",
            ],
        ),
        "de": (
            [""],
            [
                f"Spiel speichern unter {GAMES}elferraus-",
                "\nEnter speichert dort; oder tippe eine andere Datei oder einen Ordner (~ ist dein Benutzerordner), "
                "- bricht ab.\n> ",
                f"Spiel gespeichert in {GAMES}elferraus-",
            ],
        ),
    },
    "cancelled": {
        "en": (["-"], ["Not saved.\n"]),
        "de": (["-"], ["Nicht gespeichert.\n"]),
    },
    "into a folder named": {
        "en": (["{tmp}/mine/"], ["Game saved to {tmp}/mine/elferraus-"]),
        "de": (["{tmp}/mine/"], ["Spiel gespeichert in {tmp}/mine/elferraus-"]),
    },
    "a file in the home folder": {
        "en": (["~/game.jsonl"], ["Game saved to {tmp}/home/game.jsonl\n"]),
        "de": (["~/game.jsonl"], ["Spiel gespeichert in {tmp}/home/game.jsonl\n"]),
    },
    "a file that exists is kept when the answer is no": {
        "en": (["{old}", "n", "-"], ["{old} already exists. Replace it? (y/n) ", "Not saved.\n"]),
        "de": (["{old}", "n", "-"], ["{old} gibt es schon. Ersetzen? (j/n) ", "Nicht gespeichert.\n"]),
    },
    "a file that exists is replaced when the answer is yes": {
        "en": (["{old}", "y"], ["{old} already exists. Replace it? (y/n) ", "Game saved to {old}\n"]),
        "de": (["{old}", "j"], ["{old} gibt es schon. Ersetzen? (j/n) ", "Spiel gespeichert in {old}\n"]),
    },
    "a folder that is a file": {
        "en": (
            ["{old}/game.jsonl", "-"],
            ["Could not save to {old}/game.jsonl: {old} is a file, not a folder. Choose another place.\n"],
        ),
        "de": (
            ["{old}/game.jsonl", "-"],
            ["Speichern in {old}/game.jsonl ging nicht: {old} ist eine Datei, kein Ordner. Wähle einen anderen Ort.\n"],
        ),
    },
    "a device, never replaced": {
        "en": (
            ["/dev/null", "-"],
            ["Could not save to /dev/null: that is a folder or a device, not a file. Choose another name.\n"],
        ),
        "de": (
            ["/dev/null", "-"],
            ["Speichern in /dev/null ging nicht: das ist ein Ordner oder ein Gerät, keine Datei. Wähle einen anderen "],
        ),
    },
}
OLD = "not a game, and not to be lost\n"


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("case", list(SAVING))
def test_saving_asks_where(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], case: str, lang: Lang
) -> None:
    old = home / "old.jsonl"
    old.write_text(OLD, encoding="utf-8")
    names = {"tmp": str(home), "old": str(old), "data": str(home / "data")}
    typed, expected = SAVING[case][lang]
    out = play_plain(monkeypatch, capsys, lang, ["s", *(line.format(**names) for line in typed), *QUIT[lang]])
    in_order(out, [KEYS[lang], *(piece.format(**names) for piece in expected), PROMPT, BYE[lang]])
    saved = re.findall(r"(?:Game saved to|Spiel gespeichert in) (.+)\n", out)
    for path in saved:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
        assert record["match"]["seed"] == SEED
        assert re.fullmatch(r".*/(elferraus-\d{8}-\d{6}|game|old)\.jsonl", path), path
    if str(old) not in saved:
        assert old.read_text(encoding="utf-8") == OLD
    assert not list((home / "work").iterdir()), "nothing is written into the current folder"


def test_save_and_quit_then_resume_where_it_stopped(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = play_plain(monkeypatch, capsys, "en", ["G11", "q", "s", ""])
    in_order(out, ["You laid G11\n", "Quit the game?\n", f"Game saved to {home}/data/elferraus/games/", "Goodbye!"])
    (path,) = (home / "data" / "elferraus" / "games").iterdir()
    in_order(out, [f"Game saved to {path}\n", f"It continues with: elferraus play --resume {path}\n", "Goodbye!"])
    monkeypatch.setattr("sys.stdin", io.StringIO("s\n\nq\ny\n"))
    assert main(["play", "--plain", "--lang", "en", "--resume", str(path)]) == 0
    out = capsys.readouterr().out
    # The game goes on with G11 laid, and its own file is offered first and replaced without asking.
    in_order(out, ["Lay more cards, or end your turn\n", f"Save the game to {path}\n", f"Game saved to {path}\n"])
    assert "Replace it?" not in out


def test_the_command_reads_stdin_and_writes_stdout(tmp_path: Path) -> None:
    """The real command in a process of its own: typed lines in, the dialogue out, the file where it says."""
    env = {**os.environ, "HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data")}
    env.pop("ELFERRAUS_PURE", None)
    result = subprocess.run(
        [sys.executable, "-m", "elferraus.cli.main", "play", "--plain", "--lang", "de", *TABLE],
        input="m\nz\ns\n\nq\nj\n",
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    in_order(
        result.stdout, [KEYS["de"], "Du darfst: R10, Gr11, B12, ziehen\n", "Du ziehst Ge6\n", "Spiel gespeichert in "]
    )
    (path,) = (tmp_path / "data" / "elferraus" / "games").iterdir()
    assert f"Spiel gespeichert in {path}\n" in result.stdout
    assert sorted(item.name for item in tmp_path.iterdir()) == ["data"]


# -- the same as the full game ----------------------------------------------------------------------------------------


def tui_first_turn(lang: Lang) -> dict[str, object]:
    """What the full game shows at the person's first turn of the deal, and its hint after ``h``."""
    choices = SetupChoices(players=4, pace=0.0, levels=["human", "medium", "medium", "medium", "medium", "medium"])
    app = ElferRausApp(choices, lang=lang, seed=SEED, start=True)
    seen: dict[str, object] = {}

    async def script(pilot: Pilot[None]) -> None:
        deadline = time.monotonic() + 30
        while not (isinstance(app.screen, TableScreen) and app.screen.awaiting):
            assert time.monotonic() < deadline, "the person's turn did not come"
            await pilot.pause(0.01)
        screen = app.screen
        await pilot.pause()
        seen["title"] = str(screen.query_one("#title", Static).content)
        seen["players"] = str(screen.query_one(OpponentsView).render()).splitlines()
        rows = screen.query_one(RowsView)
        seen["pile"] = Content.from_markup(rows.border_title or "").plain  # the stack and the words, as text
        seen["rows"] = [line.rstrip() for line in str(rows.render()).splitlines()]
        seen["status"] = str(screen.query_one("#status", Static).content)
        seen["hand"] = " ".join(str(screen.query_one(HandView).render()).split())
        seen["log"] = [strip.text.rstrip() for strip in screen.query_one("#log", RichLog).lines]
        # the coach's keys are the full game's own: the plain prompt has no coach
        keys = [key for key in screen.query(FooterKey) if not key.action.startswith("coach")]
        seen["keys"] = [(key.key_display, key.description) for key in keys]
        await pilot.press("h")
        while not str(screen.query_one("#note", Static).content).startswith(("Hint:", "Tipp:")):
            assert time.monotonic() < deadline + 30, "no hint came"
            await pilot.pause(0.01)
        seen["hint"] = str(screen.query_one("#note", Static).content)

    async def run() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await script(pilot)

    asyncio.run(run())
    return seen


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_first_turn_reads_as_in_the_full_game(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], lang: Lang
) -> None:
    full = tui_first_turn(lang)
    out = play_plain(monkeypatch, capsys, lang, ["h", *QUIT[lang]])
    before, table = out.split("\n\n", 1)
    table, after = table.split(KEYS[lang], 1)
    lines = table.splitlines()
    title, players, pile, rows, status, hand = lines[0], lines[1:4], lines[4], lines[5:10], lines[10], lines[11]
    assert title == full["title"]
    assert players == full["players"]
    assert pile.strip() == full["pile"]
    assert rows == full["rows"]
    assert status == full["status"]
    assert " ".join(hand.split()) == full["hand"]
    assert before.splitlines() == full["log"]
    assert after.splitlines()[0] == full["hint"]
    # The keys of a turn, with the footer's words: the full game's Enter lays the chosen card, here it is typed.
    shown = [pair.split(" ", 1) for pair in KEYS[lang].removesuffix("\n" + PROMPT).split("  ")]
    keys = full["keys"]
    assert isinstance(keys, list)
    assert [word for _, word in shown] == [word for _, word in keys]
    assert [letter for letter, _ in shown[1:]] == [letter for letter, _ in keys[1:]]


def person_plays(view: SeatView) -> Move:
    """The person's choice: the first card that fits, else draw, else end the turn."""
    for card in view.hand:
        if Move.lay(card) in view.legal:
            return Move.lay(card)
    return DRAW if DRAW in view.legal else PASS


@pytest.mark.parametrize(("lang", "rounds"), [("en", 1), ("de", 1), ("en", 3), ("de", 3)])
def test_the_end_of_a_round_reads_as_the_result_screen(lang: Lang, rounds: int) -> None:
    setup = TableSetup((Seat("You"), Seat("Computer 2", "greedy"), Seat("Computer 3", "random")), rounds=rounds, seed=3)
    table = Table(setup)

    def typed(question: str) -> str:
        return str(person_plays(table.game.view(0)))

    out = io.StringIO()
    prompt = PromptGame(table, lang, read=typed, console=Console(file=out, width=100, color_system=None))
    prompt.play()
    app = ElferRausApp(lang=lang, table=table)  # it scores the round and shows the result screen
    full: dict[str, object] = {}

    async def run() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            deadline = time.monotonic() + 30
            while not isinstance(app.screen, ResultScreen):
                assert time.monotonic() < deadline, "no result screen"
                await pilot.pause(0.01)
            screen = app.screen
            await pilot.pause()
            for name in ("title", "winner", "round", "match", "then"):
                found = screen.query(f"#{name}")
                if found:
                    full[name] = found.first(Static).content
            full["round_title"] = screen.query_one("#round", Static).border_title

    asyncio.run(run())
    assert len(table.match.scores) == 1
    prompt.show_result()
    printed = out.getvalue().rstrip("\n")
    plain = printed[printed.rindex(result_lines(table, lang)[0]) :].splitlines()
    assert plain == result_lines(table, lang)
    assert plain[0] == str(full["title"])
    winner = str(full["winner"]).splitlines()
    assert plain[1 : 1 + len(winner)] == winner == winner_line(table, lang).splitlines()
    body = plain[len(winner) + 2 :]
    assert body[0] == full["round_title"]
    shown_round = [line.rstrip() for line in str(full["round"]).splitlines()]
    assert [line.strip() for line in body[1 : 1 + len(shown_round)]] == [line.strip() for line in shown_round]
    assert ("match" in full) == (rounds > 1)
    if "match" in full:
        shown_match = [line.rstrip().strip() for line in str(full["match"]).splitlines()]
        assert all(line in [text.strip() for text in body] for line in shown_match)
    assert plain[-1] == str(full["then"])


ROUND_TWO = {"en": "Elfer raus! · Round 2 of 2 · Classic", "de": "Elfer raus! · Runde 2 von 2 · Klassisch"}
BETWEEN = {"en": "⏎ next round  s save  q quit > ", "de": "⏎ nächste Runde  s speichern  q beenden > "}
ROUND_OVER = {"en": "Elfer raus! · Round {n} is over", "de": "Elfer raus! · Runde {n} ist vorbei"}


@pytest.mark.parametrize("lang", ["en", "de"])
def test_between_the_rounds_of_a_match(home: Path, lang: Lang) -> None:
    """The result screen's keys at a round's end: ``s`` saves (and the file then keeps every round), Enter goes on."""
    table = Table(TableSetup((Seat("You"), Seat("Computer 2", "greedy")), rounds=2, seed=3))
    between = ["s", ""]
    out = io.StringIO()

    def typed(question: str) -> str:
        out.write(question)  # as input() shows it
        if question.startswith("⏎"):
            return between.pop(0)
        if table.game.is_over():
            return ""  # where to save: the default
        return str(person_plays(table.game.view(0)))

    prompt = PromptGame(table, lang, read=typed, console=Console(file=out, width=100, color_system=None))
    prompt.play_match()
    text = out.getvalue()
    (path,) = games_folder(home).iterdir()
    in_order(
        text,
        [
            ROUND_OVER[lang].format(n=1),
            BETWEEN[lang],
            f"{SAVED[lang]} {path}\n",
            BETWEEN[lang],
            ROUND_TWO[lang],
            ROUND_OVER[lang].format(n=2),
        ],
    )
    assert between == []
    records = read_save_file(path)
    assert [record["round"] for record in records] == [1, 2]
    assert all(record["result"] is not None for record in records)


SAVED = {"en": "Game saved to", "de": "Spiel gespeichert in"}


def games_folder(home: Path) -> Path:
    return home / "data" / "elferraus" / "games"


def test_a_terminal_gets_lines_wrapped_between_words_never_inside_a_card_or_a_number() -> None:
    """In a terminal of 80 columns the long lines (a hand of 20 cards, the hint with its reason) wrap between
    words, as the full game's do: no card, word or number is cut at the edge, no "%" sits alone."""
    table = Table(TableSetup((Seat("You"), Seat("Computer 2", "greedy")), seed=3))
    hands: list[str] = []
    asked: list[int] = []

    def typed(question: str) -> str:
        hands.append(hand_line(table, "en", fitting=True))  # the hand just shown above the question
        game = table.game
        if not asked and not game.pile_size() and len(game.legal_moves()) > 1:  # master searches: its chance
            asked.append(game.move_count)
            return "h"
        if game.pile_size() and DRAW in game.legal_moves():  # the person holds back while the pile lasts
            return str(DRAW)
        return str(person_plays(game.view(0)))

    out = io.StringIO()
    terminal = Console(file=out, width=80, force_terminal=True, color_system=None, highlight=False)
    PromptGame(table, "en", read=typed, console=terminal).play()
    lines = out.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 80
    assert any(len(hand) > 80 for hand in hands), "a hand of 20 cards needs more than one line"
    # joined with spaces, every wrapped line reads whole again: it was cut between words only
    words = " ".join(" ".join(lines).split())
    for hand in hands:
        assert " ".join(hand.split()) in words
    assert asked, "the person never had a choice once the pile was empty"
    assert re.search(
        r"Hint: \S+ — .+ \(with this move you won \d+% of the games played out from here, over \d+ ways the hidden"
        r" cards may lie\)",
        words,
    )
