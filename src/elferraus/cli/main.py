"""``elferraus``: play, simulate, check and replay games."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from elferraus import __version__
from elferraus.bots import BOTS
from elferraus.cli.check import SHOWN
from elferraus.i18n import Lang, detect_language, tr
from elferraus.rules import PRESETS

if TYPE_CHECKING:
    Commands = argparse._SubParsersAction[argparse.ArgumentParser]
    """The subcommands of the parser, each added by its own function."""


def _players(text: str) -> int:
    value = int(text)
    if not 2 <= value <= 6:
        raise argparse.ArgumentTypeError(f"players must be 2-6, not {value}")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, not {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number 0 or more, not {text}")
    return value


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def _hours(text: str) -> float:
    return _seconds(text, 3600.0)


def _days(text: str) -> float:
    return _seconds(text, 86400.0)


def _seconds(text: str, unit: float) -> float:
    """A duration in ``unit``s (0 or more), as seconds."""
    seconds = _non_negative_float(text) * unit
    if seconds == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number 0 or more, not {text}")
    return seconds


def _positive_float(text: str) -> float:
    value = _non_negative_float(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def _origins(text: str) -> frozenset[str]:
    from elferraus.server.web.origins import parse_origins

    try:
        return parse_origins(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(
        prog="elferraus",
        description="Elfer raus! - the family card game. Play it, simulate it, check and replay game records.",
    )
    parser.add_argument("--version", action="version", version=f"elferraus {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    _add_play(commands)
    _add_simulate(commands)
    _add_check(commands)
    _add_replay(commands)
    _add_arena(commands)
    _add_serve(commands)
    _add_backup(commands)
    _add_analyze(commands)
    _add_bot(commands)
    return parser


def _add_play(commands: Commands) -> None:
    """Add ``elferraus play`` and its options."""
    play = commands.add_parser(
        "play",
        help="play in the terminal, against computer players or with friends at one screen",
        description="Opens the terminal game (a new-game screen, then the table). With --plain, or when not run "
        "in a terminal, it plays at a plain prompt instead: one person against computers.",
    )
    play.add_argument("--players", type=_players, default=4, help="players at the table, 2-6 (default 4)")
    play.add_argument("--rules", choices=sorted(PRESETS), default="classic", help="rules preset (default classic)")
    play.add_argument(
        "--bots",
        default="medium",
        help="computer level, or one per computer seat, comma-separated (default %(default)s)",
    )
    play.add_argument("--rounds", type=_positive, default=1, help="rounds of a match with penalty points (default 1)")
    play.add_argument("--seed", type=int, default=None, help="seed of the deal (default: a new one each time)")
    play.add_argument("--lang", choices=["en", "de"], default=None, help="language (default: the system locale)")
    play.add_argument(
        "--save",
        metavar="FILE",
        default=None,
        help="the game's own save file: the match's records, rewritten at each round's end and offered first by "
        "'s' (default: none; 's' then offers a new file in the user's data folder)",
    )
    play.add_argument(
        "--delay", type=float, default=None, help="seconds a computer move takes (default 0.6; 0 at --plain)"
    )
    play.add_argument(
        "--resume", metavar="FILE", default=None, help="continue the last game saved in FILE (default: a new game)"
    )
    play.add_argument("--plain", action="store_true", help="a plain prompt instead of the full-screen game")


def _add_simulate(commands: Commands) -> None:
    """Add ``elferraus simulate`` and its options."""
    simulate = commands.add_parser("simulate", help="play many games between computer players")
    simulate.add_argument(
        "--players", type=_players, default=4, help="players at each table, 2-6 (default %(default)s)"
    )
    simulate.add_argument("--games", type=_positive, default=1000, help="games to play (default %(default)s)")
    simulate.add_argument(
        "--seed", type=int, default=0, help="seed of the run: the same seed deals the same games (default %(default)s)"
    )
    simulate.add_argument(
        "--bots",
        default="random",
        help=f"one level for all seats or one per seat, comma-separated ({', '.join(BOTS)}; default %(default)s)",
    )
    simulate.add_argument(
        "--rules", choices=sorted(PRESETS), default="classic", help="rules preset (default %(default)s)"
    )
    simulate.add_argument(
        "--out",
        metavar="FILE",
        default=None,
        help="write the records as JSON Lines ('-' = stdout; default: none are written, only the wins are shown)",
    )


def _add_check(commands: Commands) -> None:
    """Add ``elferraus check`` and its options."""
    check = commands.add_parser(
        "check",
        help="check every record in a JSON Lines file",
        description="Reads every elferraus/1 record of the file and replays its moves against the rules. "
        f"Each bad record gets one line (the first {SHOWN}; the rest are counted), naming its line, move or "
        "column. Exit status: 0 when every record is legal; 1 when a record is bad, or when the file holds no "
        "record at all (so that an empty file never passes for a good one); 2 when the file cannot be read or "
        "is not JSON Lines.",
    )
    check.add_argument("file", metavar="FILE", help="a file of elferraus/1 records ('-' = stdin)")


def _add_replay(commands: Commands) -> None:
    """Add ``elferraus replay`` and its options."""
    replay = commands.add_parser("replay", help="show a recorded game move by move")
    replay.add_argument("file", metavar="FILE", help="a file of elferraus/1 records ('-' = stdin)")
    replay.add_argument("--game", type=_positive, default=1, help="which game of the file (default 1)")
    replay.add_argument("--lang", choices=["en", "de"], default=None, help="language (default: the system locale)")
    replay.add_argument(
        "--all",
        action="store_true",
        help="print the whole game at once (on a terminal it otherwise steps: Enter or Space for the next move, "
        "a for all the rest, q to quit; into a pipe it always prints it whole)",
    )


def _add_arena(commands: Commands) -> None:
    """Add ``elferraus arena`` and its options."""
    arena = commands.add_parser(
        "arena",
        help="duplicate-deal matches between computer players, with statistics",
        description="Each deal is played once per seat rotation, so every player holds every hand.",
    )
    arena.add_argument("--players", type=_players, default=4, help="players at each table, 2-6 (default %(default)s)")
    arena.add_argument(
        "--bots",
        required=True,
        help="required: one spec for every seat, or one per seat, comma-separated: a level, an opponent to "
        "measure against (blocker, tight-blocker, one-lay, no-open, hoarder, sampler:N, sampler:MSms, "
        "expert-reads), cmd:PROGRAM ARGS, "
        "openspiel-ismcts:SIMULATIONS or league:PATH (a league network's policy, its likeliest legal move)",
    )
    arena.add_argument(
        "--games", type=_positive, default=100, help="deals to play, each in every rotation (default %(default)s)"
    )
    arena.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the match: the same seed deals the same games (default %(default)s)",
    )
    arena.add_argument("--rules", choices=sorted(PRESETS), default="classic", help="rules preset (default %(default)s)")
    arena.add_argument("--jobs", type=_positive, default=1, help="worker processes (default %(default)s)")
    arena.add_argument(
        "--move-time",
        type=_positive_float,
        default=5.0,
        help="seconds an external bot may take per move before it forfeits the game (default %(default)s)",
    )
    arena.add_argument(
        "--json", metavar="FILE", default=None, help="write the statistics as JSON (default: only the tables are shown)"
    )
    arena.add_argument(
        "--records",
        metavar="FILE",
        default=None,
        help="write every game's record as JSON Lines (default: none are written)",
    )


def _add_serve(commands: Commands) -> None:
    """Add ``elferraus serve`` and its options."""
    serve = commands.add_parser(
        "serve",
        help="the web game: play in a browser, alone against computers or with friends by invite link",
        description="Serves the page, the rooms and their games. Every accepted move is stored in the database "
        "before anybody is told, so a restarted server carries on every game.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument(
        "--db",
        metavar="FILE|URL",
        default="elferraus.sqlite3",
        help="the database that stores every room and move: a SQLite file (default: %(default)s in the current "
        "folder, made if missing; a server started in another folder without --db starts with no games) or a "
        "PostgreSQL URL postgresql://USER:PASSWORD@HOST:PORT/NAME, its schema upgraded in place (docs/deploy.md)",
    )
    serve.add_argument(
        "--bus",
        metavar="URL",
        default=None,
        help="a Redis redis://HOST:PORT/DB shared by several server processes on one PostgreSQL --db: any of "
        "them serves any room, each hears the others' moves at once, and one at a time drives each room's "
        "computers (docs/deploy.md; default: none, this process alone)",
    )
    serve.add_argument(
        "--rooms-per-minute",
        type=_non_negative_float,
        default=10.0,  # the server's ROOMS_PER_MINUTE, written out so that --help need not import Starlette
        help="new rooms one address (IPv6: one /64) may create a minute, on average, after a burst of 20; refused "
        "requests cost nothing (default 10; 0: no limit)",
    )
    # The defaults below are the server's (elferraus.server.limits), written out for the same reason.
    serve.add_argument(
        "--request-timeout",
        type=_positive_float,
        default=10.0,
        metavar="SECONDS",
        help="seconds a client has to send a whole request, headers and body, or a WebSocket handshake; "
        "slower connections, and silent ones, are closed (default 10; idle keep-alive ones after 5)",
    )
    serve.add_argument(
        "--max-connections-per-address",
        type=_non_negative_int,
        default=128,
        metavar="N",
        help="connections one client address (IPv6: one /64) may hold open, HTTP and WebSocket alike; "
        "more are closed at once (default 128; 0: no limit)",
    )
    serve.add_argument(
        "--max-connections",
        type=_positive,
        default=None,
        metavar="N",
        help="connections all clients together may hold open (default, and at most: the open-files limit "
        "less 320, after raising that limit to its hard limit)",
    )
    serve.add_argument(
        "--forwarded-allow-ips",
        default="",
        metavar="LIST",
        help="proxies whose X-Forwarded-For is believed, comma-separated addresses or networks ('*': all); "
        "their own connections are not capped per address, the clients they forward are (default: none)",
    )
    # The expiry's defaults are the server's (elferraus.server.expiry.Expiry), written out for the same reason.
    serve.add_argument(
        "--expire-waiting",
        type=_hours,
        default="6",  # a string, which argparse reads with its type: the seconds
        metavar="HOURS",
        help="a room nobody started expires this many hours after its last activity: its creation, a join, "
        "a client connected to it (default 6; 0: never). An expired room's seats and unfinished game are "
        "deleted, and its code answers room_expired (docs/deploy.md)",
    )
    serve.add_argument(
        "--expire-finished",
        type=_days,
        default="3",
        metavar="DAYS",
        help="a room whose match is over expires this many days after its last activity (default 3; 0: never)",
    )
    serve.add_argument(
        "--expire-abandoned",
        type=_days,
        default="3",
        metavar="DAYS",
        help="a room in play that nobody touched (no move, no client connected) expires after this many days "
        "(default 3; 0: never)",
    )
    serve.add_argument(
        "--keep-records",
        type=_days,
        default="30",
        metavar="DAYS",
        help="a finished game's record and replay stay downloadable this many days after it finished, unless "
        "its room still plays that match; then it is deleted. An expired room's code is kept from new rooms "
        "as long after it expired (default 30; 0: for ever)",
    )
    serve.add_argument(
        "--allowed-origins",
        type=_origins,
        default=frozenset(),
        metavar="LIST",
        help="the site's own origins, comma-separated, e.g. https://elfer.example: a WebSocket opened by a page "
        "of any other site is refused (default: none named, any accepted; harmless, as a seat is the token the "
        "page sends, never a cookie)",
    )
    serve.add_argument(
        "--think-workers",
        type=_non_negative_int,
        default=None,
        metavar="N",
        help="processes in which the computers of the searching levels (hard, expert, master) think, so that "
        "their thinking never holds the server's event loop; started as they are first needed, at a lower "
        "priority (default: one per core this process may use but one, at least 1; 0: none, they think in "
        "threads of this process)",
    )


def _add_backup(commands: Commands) -> None:
    """Add ``elferraus backup`` and its options."""
    backup = commands.add_parser(
        "backup",
        help="a consistent copy of the web game's database, also while the server runs",
        description="Copies the database with SQLite's online backup: the copy holds every move stored up to one "
        "moment. The database is only read. OUT must be a new file or an earlier copy: never the database, its "
        "-wal, -shm or -journal file, or another database. To restore, stop the server and put the copy in place "
        "of the database (docs/web-protocol.md).",
    )
    backup.add_argument(
        "--db", metavar="FILE", default="elferraus.sqlite3", help="the server's SQLite database (default %(default)s)"
    )
    backup.add_argument("out", metavar="OUT", help="the file to write the copy to (new, or an earlier copy)")


def _add_analyze(commands: Commands) -> None:
    """Add ``elferraus analyze`` and its options."""
    analyze = commands.add_parser(
        "analyze",
        help="the study of the game: simulated games, plots and a report (docs/analysis.md)",
        description="Plays the study's games (or reuses those already in DIR), then writes report.html, report.md "
        "with its plots, results.json, and every game as records and as Parquet tables. The full study takes about "
        "half an hour on two cores; --quick shows the report's shape in under a minute.",
    )
    analyze.add_argument("--out", metavar="DIR", required=True, help="folder for the report, results and games")
    analyze.add_argument("--seed", type=int, default=1, help="seed of every deal and player (default %(default)s)")
    analyze.add_argument("--quick", action="store_true", help="a few games per question, to try it")
    analyze.add_argument(
        "--lang", choices=["en", "de"], default=None, help="language of the report (default: the system's)"
    )
    analyze.add_argument(
        "--jobs", type=_positive, default=2, help="worker processes on this machine (default %(default)s)"
    )
    analyze.add_argument(
        "--cluster",
        metavar="ADDRESS",
        default=None,
        help="play on a running Dask cluster, e.g. tcp://10.0.0.5:8786, instead of local processes (same results)",
    )


def _add_bot(commands: Commands) -> None:
    """Add ``elferraus bot`` and its options."""
    bot = commands.add_parser("bot", help="a built-in computer player speaking elferraus-bot/1 on stdin/stdout")
    bot.add_argument("level", choices=sorted(BOTS), help="the computer level to play")
    bot.add_argument("--seed", type=int, default=0, help="seed of its random choices (default %(default)s)")


INTERRUPTED_EXIT_CODE = 130
"""The exit code after Ctrl-C (128 + SIGINT, as a shell reports a command it interrupted)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code.

    Ctrl-C ends any command with one line on standard error ("stopped", in the person's language) and
    exit code 130, never a traceback.
    """
    try:
        return _dispatch(argv)
    except BrokenPipeError:
        # The reader (e.g. `head`) went away: stop quietly, as Unix tools do.
        sys.stderr.close()
        return 141
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C while it says so changes nothing
        print(tr("cli_stopped", _language(argv)), file=sys.stderr)
        return INTERRUPTED_EXIT_CODE


def _language(argv: Sequence[str] | None) -> Lang:
    """The language of the command line: its ``--lang``, else the system's."""
    words = list(sys.argv[1:] if argv is None else argv)
    given = next((word.partition("=")[2] for word in words if word.startswith("--lang=")), None)
    if "--lang" in words and words.index("--lang") + 1 < len(words):
        given = words[words.index("--lang") + 1]
    try:
        return detect_language(given)
    except ValueError:
        return detect_language(None)


def _command_parser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The parser of one subcommand: its errors show that command's usage, not the top-level one."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found = action.choices.get(command)
            if isinstance(found, argparse.ArgumentParser):
                return found
    return parser


def _dispatch(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is not None:
        parser = _command_parser(parser, args.command)
    if args.command == "simulate":
        from elferraus.cli.simulate import run_simulate

        return run_simulate(args, parser)
    if args.command == "check":
        from elferraus.cli.check import run_check

        return run_check(args)
    if args.command == "replay":
        from elferraus.cli.replay import run_replay

        return run_replay(args)
    if args.command == "arena":
        from elferraus.cli.arena import run_arena_command

        return run_arena_command(args, parser)
    if args.command == "bot":
        from elferraus.bots.protocol import serve_level

        return serve_level(args.level, args.seed)
    if args.command == "analyze":
        from elferraus.cli.analyze import run_analyze

        return run_analyze(args)
    if args.command == "backup":
        from elferraus.cli.backup import run_backup

        return run_backup(args)
    if args.command == "serve":
        from elferraus.cli.backup import database_problem

        if (problem := database_problem(args.db, args.bus)) is not None:
            print(problem, file=sys.stderr)
            return 2
        from elferraus.server import run_server
        from elferraus.server.storage.expiry import Expiry

        expiry = Expiry(args.expire_waiting, args.expire_finished, args.expire_abandoned, args.keep_records)
        return run_server(
            args.host,
            args.port,
            args.db,
            args.rooms_per_minute,
            bus=args.bus,
            request_timeout=args.request_timeout,
            max_connections_per_address=args.max_connections_per_address,
            max_connections=args.max_connections,
            forwarded_allow_ips=args.forwarded_allow_ips,
            allowed_origins=args.allowed_origins,
            expiry=expiry,
            think_workers=args.think_workers,
        )
    if args.command == "play":
        if not args.plain and sys.stdin.isatty() and sys.stdout.isatty():
            from elferraus.tui import run_tui

            return run_tui(args, parser)
        from elferraus.cli.play import run_play

        return run_play(args, parser)
    parser.print_help()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
