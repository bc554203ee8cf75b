"""The arena: duplicate deals, misbehaving external bots, statistics with known answers."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from elferraus import read_records
from elferraus.arena.runner import ArenaConfig, GameResult, run_arena, summarize
from elferraus.arena.stats import KindStats, clustered_mean, percentile, rank_of_result, wilson
from elferraus.cli.main import main
from elferraus.table.seating import seat_specs
from tests.support import ROOT

BOT_PREAMBLE = """
import json, sys, time
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        print(json.dumps({"type": "ready", "name": "test"}), flush=True)
    elif kind == "quit":
        break
    elif kind == "act":
"""

MISBEHAVIOUR = {
    "illegal": (
        "        deck = [c + str(n) for c in 'RYGB' for n in range(1, 21)]\n"
        "        print(json.dumps({'move': next(c for c in deck if c not in message['legal'])}), flush=True)\n",
        "illegal move",
    ),
    "garbage": ("        print('this is not json', flush=True)\n", "not JSON"),
    "not-an-object": ("        print('[1, 2, 3]', flush=True)\n", "a message is a JSON object"),
    "hang": ("        time.sleep(30)\n", "no move within 1 s"),
    "crash": ("        sys.exit(3)\n", "the program exited (code 3)"),
}


def _bot_script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(BOT_PREAMBLE + body, encoding="utf-8")
    return f"cmd:{sys.executable} {path}"


@pytest.mark.parametrize("kind", sorted(MISBEHAVIOUR))
def test_misbehaving_bot_forfeits_and_the_arena_carries_on(tmp_path: Path, kind: str) -> None:
    body, reason = MISBEHAVIOUR[kind]
    bad = _bot_script(tmp_path, kind, body)
    # A generous move time, so that a loaded machine cannot turn a crash into a timeout.
    move_time = 1.0 if kind == "hang" else 20.0
    config = ArenaConfig(specs=(bad, "greedy"), deals=2, seed=1, move_time=move_time, records=True)
    results = list(run_arena(config))
    assert len(results) == 4  # every game was played despite the forfeits
    for result in results:
        assert result.forfeit is not None
        seat, why = result.forfeit
        assert result.specs[seat] == bad
        assert reason in why
        assert result.winner is None
        assert result.record is not None
        assert result.record["forfeit"]["reason"] == why
        assert result.record["result"] is None
    summary = summarize(config, iter(results))
    assert summary.kinds[bad].forfeits == 4
    assert summary.kinds[bad].wins == 0


def test_bot_that_never_says_ready(tmp_path: Path) -> None:
    path = tmp_path / "mute.py"
    path.write_text("import time\ntime.sleep(30)\n", encoding="utf-8")
    from elferraus.arena.players import ExternalPlayer, ForfeitError
    from elferraus.rules import Rules

    player = ExternalPlayer(f"{sys.executable} {path}", start_time=0.5)
    with pytest.raises(ForfeitError, match=re.escape('no "ready" within 0.5 s')):
        player.start_game(0, 2, Rules(), 1)
    player.close()


def test_missing_program_forfeits(tmp_path: Path) -> None:
    config = ArenaConfig(specs=(f"cmd:{tmp_path}/no-such-bot", "greedy"), deals=1, seed=1)
    results = list(run_arena(config))
    assert all(r.forfeit is not None and "cannot start" in r.forfeit[1] for r in results)


def test_identical_players_share_exactly(tmp_path: Path) -> None:
    """Greedy is deterministic, so every rotation of a deal replays the same game: each
    slot takes the winning seat exactly once per deal. The protocol path must agree."""
    external = f"cmd:{sys.executable} -m elferraus.cli.main bot greedy"
    config = ArenaConfig(specs=("greedy", external, "greedy", external), deals=5, seed=3)
    summary = summarize(config, run_arena(config))
    assert summary.games == 20
    for kind in summary.kinds.values():
        assert kind.seats == 40  # 2 slots x 4 rotations x 5 deals
        assert kind.wins == 10  # 2 slots x 1 win per deal x 5 deals: exactly parity
        assert kind.win_share()[0] == 0.25


def test_duplicate_deals_rotate_every_hand(tmp_path: Path) -> None:
    config = ArenaConfig(specs=("medium", "greedy", "random"), deals=2, seed=9, records=True)
    results = list(run_arena(config))
    assert [(r.deal, r.rotation) for r in results] == [(d, r) for d in range(2) for r in range(3)]
    for deal in range(2):
        records = [r.record for r in results if r.deal == deal]
        assert len({json.dumps(rec["hands"]) for rec in records if rec}) == 1  # one deal...
        seats_of_medium = {r.specs.index("medium") for r in results if r.deal == deal}
        assert seats_of_medium == {0, 1, 2}  # ...and medium held each hand once


def test_arena_is_reproducible_and_parallel_agrees() -> None:
    config = ArenaConfig(specs=("medium", "random", "greedy", "random"), deals=4, seed=5)
    serial = [(r.winner, r.penalties) for r in run_arena(config, jobs=1)]
    parallel = [(r.winner, r.penalties) for r in run_arena(config, jobs=2)]
    assert serial == parallel


def test_some_deals_play_as_they_do_in_the_whole_run_and_results_round_trip_as_json() -> None:
    config = ArenaConfig(specs=("medium", "random", "greedy"), deals=5, seed=3, records=True)
    whole = list(run_arena(config))
    part = list(run_arena(config, deals=[4, 1, 1, 9]))
    assert [(r.deal, r.rotation) for r in part] == [(1, r) for r in range(3)] + [(4, r) for r in range(3)]

    def played(result: GameResult) -> dict[str, object]:
        return {key: value for key, value in result.to_json().items() if key != "latencies"}

    assert [played(r) for r in part] == [played(r) for r in whole if r.deal in (1, 4)]
    again = [GameResult.from_json(json.loads(json.dumps(r.to_json()))) for r in whole]
    assert again == whole


def test_wilson_and_clustered_intervals_have_known_values() -> None:
    low, high = wilson(0, 10)
    assert low == 0.0
    assert high == pytest.approx(0.2775, abs=1e-4)
    mean, low, high = clustered_mean([0.0, 1.0] * 50)
    assert mean == pytest.approx(0.5)
    assert high - mean == pytest.approx(1.959963984540054 * (0.25 * 100 / 99 / 100) ** 0.5, rel=1e-9)
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.95) == 4.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.0


def test_kind_stats_counts() -> None:
    stats = KindStats("x")
    for deal, won in enumerate([True, False, True, True]):
        stats.add_seat(deal, won, 0 if won else 12, forfeited=False)
    assert stats.wins == 3
    assert stats.mean_penalty() == 3.0
    share, low, high = stats.win_share()
    assert share == 0.75
    assert low < 0.75 < high


def test_rank_of_result() -> None:
    assert rank_of_result(1, [30, 0, 12, 12]) == [4, 1, 3, 3]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("medium", ["medium"] * 3),
        ("medium,greedy,random", ["medium", "greedy", "random"]),
        ("master,expert,greedy", ["master", "expert", "greedy"]),
        ("cmd:python3 bot.py --x 1,2,greedy,random", ["cmd:python3 bot.py --x 1,2", "greedy", "random"]),
    ],
)
def test_parse_specs(text: str, expected: list[str]) -> None:
    assert seat_specs(text, 3, commands=True) == expected


def test_arena_command_reports_and_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stats, records = tmp_path / "stats.json", tmp_path / "games.jsonl"
    code = main(
        [
            "arena",
            "--players",
            "3",
            "--bots",
            "medium,greedy,random",
            "--games",
            "3",
            "--seed",
            "2",
            "--json",
            str(stats),
            "--records",
            str(records),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "9 games (3 deals x 3 seat rotations)" in out
    assert "win share (95% CI)" in out
    assert "rating (OpenSkill)" in out
    data = json.loads(stats.read_text(encoding="utf-8"))
    assert data["games"] == 9
    assert set(data["kinds"]) == {"medium", "greedy", "random"}
    assert sum(kind["wins"] for kind in data["kinds"].values()) == 9
    games = list(read_records(records.read_text(encoding="utf-8").splitlines()))
    assert len(games) == 9
    assert all(game.is_over() for game in games)


def test_arena_command_seats_master_the_strongest_level(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stats = tmp_path / "stats.json"
    assert main(["arena", "--bots", "master,greedy", "--players", "2", "--games", "2", "--json", str(stats)]) == 0
    assert "4 games (2 deals x 2 seat rotations)" in capsys.readouterr().out
    data = json.loads(stats.read_text(encoding="utf-8"))
    assert set(data["kinds"]) == {"master", "greedy"}
    assert sum(kind["wins"] for kind in data["kinds"].values()) == 4


def test_report_shows_long_bot_names_whole(capsys: pytest.CaptureFixture[str]) -> None:
    """Two external bots whose commands differ only at the end must stay apart in every table."""
    example = ROOT / "examples" / "minimal_bot.py"
    first, second = (f"cmd:{sys.executable} {example} --label {label}" for label in ("first", "second"))
    assert main(["arena", "--players", "3", "--bots", f"{first},{second},greedy", "--games", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    for spec in (first, second):  # once in the results, once in the ratings
        assert sum(1 for line in lines if line.startswith(f"{spec} ")) == 2, lines


def test_bot_that_exits_before_the_arena_reads_is_not_restarted(tmp_path: Path) -> None:
    """The answer must come from the program the arena wrote to, even if it is already gone."""
    import time

    from elferraus import Game
    from elferraus.arena.players import ExternalPlayer, ForfeitError
    from elferraus.rules import Rules

    body, _ = MISBEHAVIOUR["crash"]
    player = ExternalPlayer(_bot_script(tmp_path, "crash", body)[4:], move_time=20)
    game = Game.deal(2, 1)
    player.start_game(0, 2, Rules(), 1)
    player._send({"type": "act", "view": game.view(0).to_dict(), "legal": []})
    time.sleep(0.3)
    with pytest.raises(ForfeitError, match=re.escape("the program exited (code 3)")):
        player._receive(20, "move")
    player.close()


REFUSING_BOT = """
import json, sys
with open(sys.argv[1], "a", encoding="utf-8") as starts:
    starts.write("start\\n")
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "refuse", **json.loads(sys.argv[2])}), flush=True)
        sys.exit(2)
"""


@pytest.mark.parametrize(
    ("refusal", "reason"),
    [
        (
            {"reason": "plays 4 players only; the table has 2"},
            "refused the seat: plays 4 players only; the table has 2",
        ),
        ({"reason": "plays 4 players\n   only"}, "refused the seat: plays 4 players only"),
        ({"reason": "x" * 500}, f"refused the seat: {'x' * 197}..."),
        ({"reason": ["4"]}, "refused the seat: no reason given"),
        ({}, "refused the seat: no reason given"),
    ],
    ids=["reason", "reason-on-lines", "reason-long", "reason-not-text", "no-reason"],
)
def test_bot_that_refuses_its_seat_forfeits_with_its_reason_and_is_not_offered_it_again(
    tmp_path: Path, refusal: dict[str, object], reason: str
) -> None:
    script, starts = tmp_path / "refuser.py", tmp_path / "starts.txt"
    script.write_text(REFUSING_BOT, encoding="utf-8")
    refuser = f"cmd:{sys.executable} {script} {starts} '{json.dumps(refusal)}'"
    config = ArenaConfig(specs=(refuser, "greedy"), deals=3, seed=1, move_time=20.0, records=True)
    results = list(run_arena(config))
    assert len(results) == 6
    for result in results:
        assert result.forfeit is not None
        assert result.specs[result.forfeit[0]] == refuser
        assert result.forfeit[1] == reason
        assert result.record is not None
        assert result.record["forfeit"]["reason"] == reason
    assert starts.read_text(encoding="utf-8").count("start") == 2  # once per seat, not once per game
