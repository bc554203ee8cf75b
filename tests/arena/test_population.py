"""``benchmarks/engine/population.py``: master against a population, taken up again from its journal.

``master`` plays with a small budget here (a subclass seated under its name, in this process: ``--jobs 1``).
"""

from __future__ import annotations

import copy
import doctest
import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks.engine import meta_game, population, population_cells, population_play
from benchmarks.engine.population_cells import LEARNED, MASTER, SETTINGS
from benchmarks.engine.population_play import Deal, Journal, TableKey
from elferraus.arena.runner import GameResult
from elferraus.bots import BOTS, MasterBot


class _SmallMaster(MasterBot):
    max_samples = 16
    round_samples = 8


@pytest.fixture(autouse=True)
def small_master(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(BOTS, MASTER, _SmallMaster)


CHEAP = ["--population", "random,greedy,easy", "--jobs", "1", "--seed", "5"]


def _run(tmp_path: Path, name: str, *args: str) -> dict[str, Any]:
    out = tmp_path / f"{name}.json"
    assert population.main([*CHEAP, *args, "--json", str(out)]) == 0
    return json.loads(out.read_text())


def _figures(report: dict[str, Any]) -> dict[str, Any]:
    """What a run measured, without its clocks."""
    report = copy.deepcopy(report)
    for clock in ("seconds", "decision_times", "jobs"):
        report.pop(clock)
    for cell in report["cells"]:
        cell.pop("seconds_per_deal")
        for member in cell["members"].values():
            member.pop("latency_s")
    return report


def test_a_tiny_run_writes_every_cell_the_ratings_and_the_nash_average(tmp_path: Path) -> None:
    report = _run(tmp_path, "tiny", "--deals", "1", "--mixed-deals", "1")
    keys = [cell["key"] for cell in report["cells"]]
    assert keys == ["solo:random", "trio:random", "solo:greedy", "trio:greedy", "solo:easy", "trio:easy", "mixed:00"]
    for cell in report["cells"]:
        assert cell["deals"] == 1
        assert cell["games"] == 4, "one deal in every seat rotation"
        assert cell["forfeits"] == 0
        for member in cell["members"].values():
            low, high = member["ci95"]
            assert 0 <= low <= member["win_share"] <= high <= 1
            assert member["decisions"] > 0
            assert set(member["latency_s"]) == {"median", "p95", "max"}
    trio = report["cells"][1]
    assert trio["table"] == [MASTER, MASTER, MASTER, "random"]
    assert trio["members"][MASTER]["seats"] == 12
    robin = report["round_robin"]
    assert robin["games"] == 4
    assert sorted(row["name"] for row in robin["ratings"]) == sorted([MASTER, "random", "greedy", "easy"])
    assert sum(robin["nash"]["mixture"].values()) == pytest.approx(1.0)
    assert robin["nash"]["support"]
    assert all(score <= 1e-9 for score in robin["nash"]["scores"].values())
    assert set(report["decision_times"]) == {MASTER, "random", "greedy", "easy"}
    assert report["master"] == population_cells.code_hash()


def test_a_run_stopped_and_taken_up_again_equals_one_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ("--deals", "2", "--mixed-deals", "2", "--only", "solo:greedy,trio:easy,mixed")
    whole = _run(tmp_path, "whole", *args)
    journal = tmp_path / "journal.jsonl"
    add = Journal.add
    added = []

    def stop_after_three(self: Journal, key: TableKey, deal: Deal) -> None:
        if len(added) == 3:
            raise KeyboardInterrupt
        add(self, key, deal)
        added.append(deal)

    monkeypatch.setattr(Journal, "add", stop_after_three)
    with pytest.raises(KeyboardInterrupt):
        _run(tmp_path, "stopped", *args, "--journal", str(journal))
    monkeypatch.setattr(Journal, "add", add)
    with journal.open("a", encoding="utf-8") as handle:
        handle.write('{"table": ["master", "gree')  # a line cut off by the stop
    capsys.readouterr()
    resumed = _run(tmp_path, "resumed", *args, "--journal", str(journal))
    said = capsys.readouterr().err
    assert "the last line was cut off" in said
    assert "3 cells, 3 deals to play" in said, "6 deals in all, 3 in the journal"
    assert _figures(resumed) == _figures(whole)
    assert len(journal.read_text().splitlines()) == 6
    again = _run(tmp_path, "again", *args, "--journal", str(journal))
    assert "0 deals to play" in capsys.readouterr().err
    assert _figures(again) == _figures(whole)


def test_a_journal_is_written_by_one_run_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    with Journal(path), pytest.raises(SystemExit, match="another run"), Journal(path):
        pass


def test_a_journal_folder_is_sealed_into_parts_that_another_run_takes_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ("--deals", "2", "--only", "solo:greedy,trio:easy")
    whole = _run(tmp_path, "whole", *args)
    folder = tmp_path / "journal"
    first = _run(tmp_path, "first", *args[2:], "--deals", "1", "--journal", str(folder), "--seal")
    assert sorted(path.name for path in folder.iterdir()) == ["open.jsonl", "part-000.jsonl.xz"]
    assert (folder / "open.jsonl").read_text() == "", "what was sealed is not kept twice"
    assert first["cells"][0]["deals"] == 1
    capsys.readouterr()
    second = _run(tmp_path, "second", *args, "--journal", str(folder), "--seal")
    assert "2 cells, 2 deals to play" in capsys.readouterr().err, "the sealed part's deal is not played again"
    assert sorted(path.name for path in folder.glob("part-*")) == ["part-000.jsonl.xz", "part-001.jsonl.xz"]
    assert _figures(second) == _figures(whole)
    again = _run(tmp_path, "again", *args, "--journal", str(folder), "--seal")
    assert "0 deals to play" in capsys.readouterr().err
    assert len(list(folder.glob("part-*"))) == 2, "a run that added nothing seals nothing"
    assert _figures(again) == _figures(whole)


def test_a_broken_sealed_part_is_named_with_its_line(tmp_path: Path) -> None:
    import lzma

    folder = tmp_path / "journal"
    folder.mkdir()
    with lzma.open(folder / "part-000.jsonl.xz", "wt", encoding="utf-8") as handle:
        handle.write('{"table": ["master"]}\n')
    with pytest.raises(SystemExit, match=r"part-000\.jsonl\.xz:1: not a journal line"), Journal(folder):
        pass


def _solo(opponent: str, master_wins: int) -> tuple[TableKey, dict[int, Deal]]:
    table = (MASTER, opponent, opponent, opponent)
    games = tuple(
        GameResult(0, r, list(table[r:] + table[:r]), (-r) % 4 if r < master_wins else 1 - r % 2, [0] * 4, None, [])
        for r in range(4)
    )
    return TableKey.of(table, "classic", 5), {0: Deal(0, games, 1.0)}


def test_the_other_settings_meet_the_five_master_won_least_against(tmp_path: Path) -> None:
    journal = Journal(None)
    for opponent, wins in [("random", 4), ("greedy", 3), ("hoarder", 0), (LEARNED, 0), ("blocker", 1)]:
        key, deals = _solo(opponent, wins)
        journal.deals[key] = deals
    with pytest.raises(SystemExit, match="hold 4 members who can sit here, not 5"):
        population._strongest(journal, 5, SETTINGS["2p"])
    key, deals = _solo("medium", 2)
    journal.deals[key] = deals
    assert population._strongest(journal, 5, SETTINGS["2p"]) == ["hoarder", "blocker", "medium", "greedy", "random"]
    assert set(population._strongest(journal, 5, SETTINGS["ravensburger"])[:2]) == {"hoarder", LEARNED}


def test_an_unknown_member_or_cell_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="wizard"):
        population.main(["--population", "greedy,wizard", "--deals", "1"])
    with pytest.raises(SystemExit, match="the learned player plays 4 players"):
        population.main(["--setting", "6p", "--population", f"greedy,{LEARNED}", "--deals", "1"])
    with pytest.raises(SystemExit):
        population.main([*CHEAP, "--only", "solo:wizard", "--deals", "1"])


@pytest.mark.parametrize("module", [meta_game, population_cells, population_play])
def test_the_examples_in_the_docstrings_hold(module: object) -> None:
    failed, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)  # type: ignore[arg-type]
    assert failed == 0
