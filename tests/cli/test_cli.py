"""The elferraus command: every subcommand, its output and its exit codes."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from elferraus import __version__, read_records
from elferraus.bots import make_bot
from elferraus.cli.main import build_parser, main
from elferraus.cli.play import PromptGame, parse_input
from elferraus.game import Game
from elferraus.moves import DRAW, PASS, Move
from elferraus.record import write_record
from elferraus.table.session import Seat, Table, TableSetup


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"elferraus {__version__}"


@pytest.mark.parametrize("command", ["play", "simulate", "check", "replay"])
def test_help_names_every_command(capsys: pytest.CaptureFixture[str], command: str) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    assert command in capsys.readouterr().out


def test_console_script_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "elferraus.cli.main", "--version"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0
    assert __version__ in done.stdout


def test_simulate_writes_legal_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "games.jsonl"
    code, stdout, _ = run(
        capsys,
        "simulate",
        "--players",
        "3",
        "--games",
        "25",
        "--seed",
        "7",
        "--bots",
        "greedy,random,greedy",
        "--out",
        str(out),
    )
    assert code == 0
    assert "25 games in" in stdout
    assert "games/s" in stdout
    # Seats count from 1 for the reader, as in every game (the records count from 0).
    assert [line.split(":")[0].split() for line in stdout.splitlines()[1:]] == [
        ["seat", "1", "greedy"],
        ["seat", "2", "random"],
        ["seat", "3", "greedy"],
    ]
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 25
    games = list(read_records(lines))
    assert all(game.is_over() and game.players == 3 for game in games)
    assert json.loads(lines[0])["bots"] == ["greedy", "random", "greedy"]


def test_simulate_is_reproducible(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path in (first, second):
        run(capsys, "simulate", "--games", "10", "--seed", "3", "--bots", "random", "--out", str(path))
    assert first.read_bytes() == second.read_bytes()


@pytest.mark.parametrize("preset", ["classic", "ravensburger", "beginners"])
def test_simulate_every_preset(tmp_path: Path, capsys: pytest.CaptureFixture[str], preset: str) -> None:
    out = tmp_path / "games.jsonl"
    code, _, _ = run(capsys, "simulate", "--players", "2", "--games", "5", "--rules", preset, "--out", str(out))
    assert code == 0
    games = list(read_records(out.read_text(encoding="utf-8").splitlines()))
    assert {game.rules.preset_name for game in games} == {preset}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bots", "greedy,random"], "2 bots for 4 players"),
        (["--bots", "wizard"], "unknown bot 'wizard'"),
        (["--players", "7"], "players must be 2-6"),
        (["--games", "0"], "must be at least 1"),
    ],
)
def test_simulate_rejects_bad_arguments(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["simulate", *argv])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def _record_lines(count: int) -> list[str]:
    lines = []
    for seed in range(count):
        game = Game.deal(players=2, seed=seed)
        while not game.is_over():
            game.push(game.legal_moves()[0])
        lines.append(json.dumps(write_record(game)))
    return lines


@pytest.mark.parametrize(("count", "summary"), [(3, "3 records: 3 legal, 0 bad"), (1, "1 record: 1 legal, 0 bad")])
def test_check_accepts_good_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], count: int, summary: str
) -> None:
    path = tmp_path / "good.jsonl"
    path.write_text("\n".join(_record_lines(count)) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "check", str(path))
    assert code == 0
    assert out == summary + "\n"


def test_check_reports_one_line_per_bad_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _record_lines(3)
    broken_move = json.loads(good[1])
    broken_move["moves"][4] = "9 pass"
    lines = [good[0], json.dumps(broken_move), "{not json", good[2], json.dumps({"format": "elferraus/2"})]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "check", str(path))
    assert code == 1
    reported = out.strip().splitlines()
    assert len(reported) == 3
    assert reported[0].startswith("line 2, move 5: '9 pass': it is seat")
    assert reported[1] == "line 3, column 2: not valid JSON: Expecting property name enclosed in double quotes"
    assert reported[2].startswith("line 5: ")
    assert "5 records: 2 legal, 3 bad" in err


def _cut(line: str, at: str) -> str:
    """``line`` cut off just after the first ``at`` in it."""
    return line[: line.index(at) + len(at)]


@pytest.mark.parametrize(
    ("bad_line", "reported"),
    [
        # Cut inside a string: it breaks past the end, not where the string began.
        (lambda good: _cut(good, '"moves": ["0 R'), "line 2, column {end}: not valid JSON: the line ends inside"),
        (lambda good: _cut(good, '"moves": ['), "line 2, column {end}: not valid JSON: the line ends too early"),
        (lambda good: _cut(good, '"format": "elferraus/1",'), "line 2, column {end}: not valid JSON: the line ends"),
        (lambda good: good.replace('"format"', "format", 1), "line 2, column 2: not valid JSON: Expecting property"),
        (lambda good: good + " x", "line 2, column {extra}: not valid JSON: Extra data"),
    ],
    ids=["in-a-string", "after-a-bracket", "after-a-comma", "bad-key", "extra-data"],
)
def test_check_names_the_column_where_the_json_breaks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bad_line: Callable[[str], str], reported: str
) -> None:
    good = _record_lines(2)
    line = bad_line(good[1])
    path = tmp_path / "cut.jsonl"
    path.write_text(f"{good[0]}\n{line}\n", encoding="utf-8")
    code, out, _ = run(capsys, "check", str(path))
    assert code == 1
    assert out.startswith(reported.format(end=len(line) + 1, extra=len(good[1]) + 2))
    assert "is it cut off?" in out if "{end}" in reported else "cut off" not in out


def test_check_shows_the_first_ten_bad_records_and_counts_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text('{"format": "elferraus/1"}\n' * 25, encoding="utf-8")
    code, out, err = run(capsys, "check", str(path))
    assert code == 1
    reported = out.splitlines()
    assert [line.split(":")[0] for line in reported[:-1]] == [f"line {n}" for n in range(1, 11)]
    assert reported[-1] == "... and 15 more bad records not shown"
    assert "25 records: 0 legal, 25 bad" in err


@pytest.mark.parametrize(
    ("content", "code", "message"),
    [
        ("", 1, "is empty: it holds no records to check"),
        ("\n  \n\n", 1, "holds only blank lines: it holds no records to check"),
        ("# elferraus\n\nElfer raus! in Python.\n", 2, "line 1 begins '# elferraus', not '{'"),
        ("\n\nseed,winner\n1,0\n", 2, "line 3 begins 'seed,winner', not '{'"),
        ('[{"format": "elferraus/1"}]\n', 2, "line 1 begins '[{\"format\": \"elferraus/1\"}]', not '{'"),
    ],
    ids=["empty", "blank-lines", "markdown", "csv", "json-array"],
)
def test_check_says_once_that_a_file_holds_no_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, code: int, message: str
) -> None:
    path = tmp_path / "other.txt"
    path.write_text(content, encoding="utf-8")
    answer, out, err = run(capsys, "check", str(path))
    assert answer == code
    assert out == ""
    assert err.splitlines() == [err.strip()]
    assert err.startswith(f"elferraus check: {path} ")
    assert message in err


def test_check_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "check", "/nonexistent/games.jsonl")
    assert code == 2
    assert "cannot open /nonexistent/games.jsonl" in err


def test_replay_shows_the_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text("\n".join(_record_lines(2)) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "replay", str(path), "--game", "2", "--lang", "en")
    assert code == 0
    game = next(iter(read_records(path.read_text(encoding="utf-8").splitlines()[1:])))
    assert f"{game.players} players" in out
    first_lay = game.record_moves()[0].split()[1]
    # Seats count from 1 for the reader, as at the table; the record counts from 0.
    assert f"1. Seat {game.history()[0][0] + 1} laid {first_lay}" in out
    assert "R ●" in out
    assert "pile: " in out
    winner = game.winner
    assert winner is not None
    assert f"Seat {winner + 1} won." in out
    assert "Seat 0" not in out


def test_replay_in_german(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text(_record_lines(1)[0] + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "replay", str(path), "--lang", "de")
    assert code == 0
    assert "legt" in out
    assert "Stapel" in out
    assert "Strafpunkte" in out


def test_replay_missing_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text(_record_lines(1)[0] + "\n", encoding="utf-8")
    code, _, err = run(capsys, "replay", str(path), "--game", "4")
    assert code == 1
    assert "has no game 4, only 1" in err


def test_replay_of_an_empty_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text("\n", encoding="utf-8")
    code, _, err = run(capsys, "replay", str(path))
    assert code == 1
    assert err == f"elferraus replay: {path} holds no records\n"


def _unfinished_line(moves: int, forfeit: dict[str, object] | None = None) -> str:
    game = Game.deal(players=3, seed=4)
    for _ in range(moves):
        game.push(game.legal_moves()[0])
    if forfeit is not None:
        game.metadata["forfeit"] = forfeit
    return json.dumps(write_record(game))


@pytest.mark.parametrize(
    ("moves", "forfeit", "lang", "ending"),
    [
        (7, None, "en", ["The game is unfinished: the record stops after move 7, with Seat 2 to move."]),
        (7, None, "de", ["Das Spiel ist nicht zu Ende: die Aufzeichnung hört nach Zug 7 auf, Platz 2 ist am Zug."]),
        (0, None, "en", ["The game is unfinished: the record stops before the first move, with Seat 3 to move."]),
        (
            0,
            None,
            "de",
            ["Das Spiel ist nicht zu Ende: die Aufzeichnung hört vor dem ersten Zug auf, Platz 3 ist am Zug."],
        ),
        (
            7,
            {"seat": 1, "reason": "no answer within 5 s"},
            "en",
            [
                "The game is unfinished: the record stops after move 7, with Seat 2 to move.",
                "Seat 2 forfeited the game: no answer within 5 s",
            ],
        ),
        (
            7,
            {"seat": 1, "reason": "no answer within 5 s"},
            "de",
            [
                "Das Spiel ist nicht zu Ende: die Aufzeichnung hört nach Zug 7 auf, Platz 2 ist am Zug.",
                "Platz 2 hat das Spiel verwirkt: no answer within 5 s",
            ],
        ),
    ],
    ids=["en", "de", "no-moves-en", "no-moves-de", "forfeit-en", "forfeit-de"],
)
def test_replay_says_where_an_unfinished_game_stops(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    moves: int,
    forfeit: dict[str, object] | None,
    lang: str,
    ending: list[str],
) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text(_unfinished_line(moves, forfeit) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "replay", str(path), "--lang", lang)
    assert code == 0
    lines = out.splitlines()
    assert lines[-len(ending) :] == ending
    # The table where it stopped comes just before: the pile, after every hand.
    assert lines[-len(ending) - 1].strip().startswith(("pile: ", "Stapel: "))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("R12", Move.parse("R12")),
        (" y7 ", Move.parse("Y7")),
        ("d", DRAW),
        ("ziehen", DRAW),
        ("z", DRAW),
        ("e", PASS),
        ("b", PASS),
        ("p", PASS),
        ("beenden", PASS),
        ("?", "help"),
        ("h", "hint"),
        ("m", "moves"),
        ("u", "undo"),
        ("s", "save"),
        ("q", "quit"),
    ],
)
def test_parse_input(text: str, expected: object) -> None:
    assert parse_input(text) == expected


class Script:
    """Typed answers for the prompt; records every question asked."""

    def __init__(self, answers: list[str]) -> None:
        self.answers = answers
        self.questions: list[str] = []

    def __call__(self, question: str) -> str:
        self.questions.append(question)
        if not self.answers:
            raise EOFError
        return self.answers.pop(0)


def test_prompt_plays_a_whole_game_and_explains_mistakes(capsys: pytest.CaptureFixture[str]) -> None:
    table = Table(TableSetup((Seat("You"), Seat("Computer 2", "greedy"), Seat("Computer 3", "random")), seed=11))
    game = table.game
    helper = make_bot("greedy", 1)
    answers: list[str] = ["nonsense", "B99", "pass"]

    def read(question: str) -> str:
        if answers:
            return answers.pop(0)
        return str(helper.choose(game.view(0)))

    from rich.console import Console

    console = Console(file=sys.stdout, width=100, color_system=None)
    PromptGame(table, "en", read=read, console=console).play()
    out = capsys.readouterr().out
    assert game.is_over()
    assert "'nonsense' is not a move" in out
    assert "'B99' is not a move" in out
    assert "Lay a card or draw before you end your turn" in out or "You hold" in out
    assert "\nYou · " in out  # the hand, labelled as the full game labels it


def test_play_command_quits_cleanly_on_end_of_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_more(question: str) -> str:
        raise EOFError

    monkeypatch.setattr("builtins.input", no_more)
    code = main(["play", "--players", "2", "--seed", "1", "--lang", "en"])
    assert code == 0
    assert "Goodbye!" in capsys.readouterr().out


def test_play_saves_the_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_more(question: str) -> str:
        raise EOFError

    monkeypatch.setattr("builtins.input", no_more)
    path = tmp_path / "saved.jsonl"
    main(["play", "--players", "2", "--seed", "1", "--save", str(path)])
    saved = list(read_records(path.read_text(encoding="utf-8").splitlines()))
    assert len(saved) == 1
    assert saved[0].winner is None
    assert saved[0].metadata["names"][0] in ("You", "Du")


def test_serve_limits_new_rooms_per_address_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    from elferraus.cli.main import build_parser
    from elferraus.server.web.api import ROOMS_PER_MINUTE

    parser = build_parser()
    assert parser.parse_args(["serve"]).rooms_per_minute == ROOMS_PER_MINUTE
    assert parser.parse_args(["serve", "--rooms-per-minute", "0"]).rooms_per_minute == 0
    for wrong in ("-1", "many", "nan", "inf"):
        with pytest.raises(SystemExit):
            parser.parse_args(["serve", "--rooms-per-minute", wrong])
        assert "--rooms-per-minute" in capsys.readouterr().err


def test_serve_takes_the_sites_origins_and_refuses_what_is_no_origin(capsys: pytest.CaptureFixture[str]) -> None:
    from elferraus.cli.main import build_parser

    parser = build_parser()
    assert parser.parse_args(["serve"]).allowed_origins == frozenset()
    given = parser.parse_args(["serve", "--allowed-origins", "https://Elfer.Example:443/, http://[::1]:8000"])
    assert given.allowed_origins == {"https://elfer.example", "http://[::1]:8000"}
    for wrong in ("https://elfer.example/play", "elfer.example", "ftp://elfer.example", "https://a@elfer.example"):
        with pytest.raises(SystemExit):
            parser.parse_args(["serve", "--allowed-origins", wrong])
        error = capsys.readouterr().err
        assert f"argument --allowed-origins: {wrong!r} is no origin" in error, error


@pytest.mark.parametrize(
    ("options", "workers"),
    [((), None), (("--think-workers", "0"), 0), (("--think-workers", "3"), 3), (("--think-workers", "-1"), "error")],
)
def test_serve_takes_the_thinker_processes_its_default_the_servers(
    options: tuple[str, ...], workers: int | str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    from elferraus.cli.main import build_parser

    parser = build_parser()
    if workers == "error":
        with pytest.raises(SystemExit):
            parser.parse_args(["serve", *options])
        assert "argument --think-workers: must be 0 or more, not -1" in capsys.readouterr().err
    else:
        assert parser.parse_args(["serve", *options]).think_workers == workers


def test_serve_reads_when_rooms_expire_in_hours_and_days_its_defaults_the_servers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from elferraus.cli.main import build_parser
    from elferraus.server.storage.expiry import Expiry

    parser = build_parser()

    def policy(*options: str) -> Expiry:
        args = parser.parse_args(["serve", *options])
        return Expiry(args.expire_waiting, args.expire_finished, args.expire_abandoned, args.keep_records)

    assert policy() == Expiry()
    given = policy(
        "--expire-waiting", "0.5", "--expire-finished", "1", "--expire-abandoned", "0", "--keep-records", "0"
    )
    assert given == Expiry(waiting=1800, finished=86400, abandoned=0, records=0)
    for option in ("--expire-waiting", "--expire-finished", "--expire-abandoned", "--keep-records"):
        for wrong in ("-1", "soon", "nan", "inf", "1e306"):
            with pytest.raises(SystemExit):
                parser.parse_args(["serve", option, wrong])
            assert f"argument {option}" in capsys.readouterr().err


def _subcommand(name: str) -> argparse.ArgumentParser:
    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    parser = commands.choices[name]
    assert isinstance(parser, argparse.ArgumentParser)
    return parser


@pytest.mark.parametrize("command", ["simulate", "arena", "replay", "check", "serve", "backup", "bot", "play"])
def test_every_option_has_help_that_gives_its_default(command: str) -> None:
    parser = _subcommand(command)
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        assert action.help, f"{command} {action.dest} has no help"
        if action.option_strings and not isinstance(action, argparse._StoreTrueAction):
            text = action.help % {"default": action.default}
            assert "default" in text or (action.required and "required" in text), f"{command} {action.dest}: {text}"
    assert "%(default)s" not in parser.format_help()


@pytest.mark.parametrize(
    ("command", "option", "shown"),
    [
        ("simulate", "--games", "(default 1000)"),
        ("simulate", "--bots", "default random"),
        ("simulate", "--out", "default: none are written"),
        ("arena", "--move-time", "(default 5.0)"),
        ("arena", "--jobs", "(default 1)"),
        ("serve", "--db", "elferraus.sqlite3 in the current folder"),
    ],
)
def test_help_shows_the_default(command: str, option: str, shown: str) -> None:
    help_text = " ".join(_subcommand(command).format_help().split())
    assert f"{option} " in help_text
    assert shown in help_text


def test_arena_refuses_a_move_time_that_is_not_positive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["arena", "--bots", "greedy", "--move-time", "0"])
    assert exit_info.value.code == 2
    assert "--move-time: must be more than 0" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("lang", "heading"),
    [
        ("en", "2 players · Classic: 80 cards, draw up to 3 · seed: "),
        ("de", "2 Spieler · Klassisch: 80 Karten, bis zu 3 "),
    ],
)
def test_replay_names_the_rules_in_the_readers_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str, heading: str
) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text(_record_lines(1)[0] + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "replay", str(path), "--lang", lang)
    assert code == 0
    assert out.splitlines()[0].startswith(heading)
    assert "classic" not in out
