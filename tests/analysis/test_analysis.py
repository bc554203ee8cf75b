"""The study of the game (``elferraus analyze``): exact answers, known answers, the report, the cluster.

The quick study is run once per test session on a local pool of two
processes, and once more on a Dask cluster of two worker processes started
here; both must give the same ``results.json`` to the last digit.
"""

from __future__ import annotations

import fcntl
import gzip
import json
import math
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest

from elferraus.analysis import run as run_module
from elferraus.analysis import schema
from elferraus.analysis.plan import QUICK, SEARCHERS, Table, equal_table
from elferraus.analysis.play import SEAT_COLUMNS, play_batch
from elferraus.analysis.players import HoldbackBot, study_bot
from elferraus.analysis.questions import penalties, redeal
from elferraus.analysis.report import write_report
from elferraus.analysis.run import ClusterError, part_of, run_tables, table_cost
from elferraus.analysis.stats import auc, fit_logistic, intraclass_correlation, proportion
from elferraus.analysis.store import GameStore, StoreError
from elferraus.analysis.study import QUESTIONS, plan, run_study
from elferraus.analysis.words import Words
from elferraus.cli.main import main
from elferraus.game import Game
from elferraus.rules import Rules
from tests.support import ROOT
from tests.support.web_helpers import free_port

SEED = 3
SECTIONS = [question.NAME for question in QUESTIONS]


# -- exact answers -------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("preset", ["classic", "beginners"])
def test_exact_redeal_equals_the_chance_that_every_eleven_stays_in_the_pile(players: int, preset: str) -> None:
    rules = Rules.preset(preset)
    deck, elevens = rules.deck_size, len(rules.colors)
    undealt = deck - players * rules.cards_per_player(players)
    # Card by card: the first 11 lands among the undealt cards, then the second among those left, ...
    independent = math.prod(Fraction(undealt - i, deck - i) for i in range(elevens))
    assert redeal.exact_redeal(players, rules) == independent


def test_exact_redeal_of_two_players_is_the_rules_texts_six_percent() -> None:
    assert float(redeal.exact_redeal(2, Rules())) == pytest.approx(0.0578, abs=5e-5)


def test_match_rounds_count_until_a_total_reaches_the_target() -> None:
    rounds = np.array([[0, 30, 10], [20, 0, 25], [0, 20, 30], [0, 60, 0], [10, 0, 5]])
    assert penalties.match_lengths(rounds, 50) == [3, 1]
    assert penalties.match_lengths(rounds, 1000) == []


# -- statistics ------------------------------------------------------------------------------------------


def test_intraclass_correlation_is_one_when_the_group_decides_and_near_zero_when_it_does_not() -> None:
    generator = np.random.default_rng(5)
    groups = np.repeat(np.arange(400), 4)
    decided = np.repeat(generator.integers(0, 2, 400), 4).astype(float)
    assert intraclass_correlation(decided, groups).value == pytest.approx(1.0)
    noise = generator.integers(0, 2, 1600).astype(float)
    estimate = intraclass_correlation(noise, groups)
    assert estimate.low < 0 < estimate.high
    assert abs(estimate.value) < 0.06


def test_logistic_regression_recovers_known_coefficients() -> None:
    generator = np.random.default_rng(11)
    features = generator.normal(size=(20_000, 2))
    truth = np.array([-0.5, 1.2, -0.7])
    chance = 1 / (1 + np.exp(-(truth[0] + features @ truth[1:])))
    outcomes = generator.random(20_000) < chance
    model = fit_logistic(features, outcomes, ["a", "b"])
    per_unit = model.coefficients[1:] / model.scale
    assert per_unit == pytest.approx(truth[1:], abs=0.06)
    assert auc(model.predict(features), outcomes) > 0.7


def test_auc_counts_ties_as_half() -> None:
    assert auc(np.array([0.1, 0.4, 0.35, 0.8]), np.array([0, 0, 1, 1])) == 0.75
    assert auc(np.ones(4), np.array([0, 1, 0, 1])) == 0.5


# -- the players and the batches -------------------------------------------------------------------------


def test_readiness_zero_lays_whenever_it_can_and_one_plays_as_medium() -> None:
    for seed in range(6):
        game = Game.deal(4, seed)
        never = HoldbackBot(seed, 0.0)
        medium, like_medium = study_bot("medium", seed), study_bot("holdback:1", seed)
        for seat in range(4):
            for bot in (never, medium, like_medium):
                bot.start_game(seat, 4, game.rules)
        while not game.is_over():
            view = game.view(game.turn)
            if game.turn == 0:
                choice = never.choose(view)
                if any(move.card is not None for move in view.legal):
                    assert choice.card is not None, f"deal {seed}: readiness 0 held back with {view.legal}"
            assert medium.choose(view) == like_medium.choose(view)
            game.push(study_bot("greedy", 0).choose(view) if game.turn else never.choose(view))


def test_a_holdback_spec_that_is_not_a_readiness_is_refused() -> None:
    with pytest.raises(ValueError, match="'lots' is not a number"):
        study_bot("holdback:lots", 0)
    with pytest.raises(ValueError, match="at least 0"):
        study_bot("holdback:-1", 0)


def test_a_batch_is_the_same_whenever_it_is_played() -> None:
    table = equal_table("test", "greedy", 3, 8, QUICK)
    first, second = play_batch(table.batches(SEED)[0]), play_batch(table.batches(SEED)[0])
    assert first.games == second.games
    assert first.seats == second.seats
    assert first.records == second.records


def test_every_seat_row_describes_the_dealt_hand_and_the_end() -> None:
    table = Table("test/one", 4, "classic", ("medium", "greedy", "greedy", "greedy"), 3, "s", rotations=True)
    result = play_batch(table.batches(SEED)[0])
    assert len(result.games["deal"]) == 12
    assert len(result.seats["deal"]) == 48
    for record, index in zip(result.records, range(12), strict=True):
        data = json.loads(record)
        for seat in range(4):
            row = 4 * index + seat
            assert result.seats["hand_size"][row] == len(data["hands"][seat]) == 15
            elevens = sum(card[1:] == "11" for card in data["hands"][seat])
            assert result.seats["elevens"][row] == elevens
            assert result.seats["penalty"][row] == data["result"]["penalties"][seat]
        assert result.games["winner"][index] == data["result"]["winner"]
        assert result.games["actions"][index] == len(data["moves"])
    # in every rotation the medium of slot 0 holds another hand
    assert sorted(
        result.seats["seat"][r] for r in range(48) if result.seats["slot"][r] == 0 and result.seats["deal"][r] == 0
    ) == [0, 1, 2, 3]


def test_a_table_of_four_random_players_favours_no_seat() -> None:
    table = equal_table("test", "random", 4, 600, QUICK)
    seats = play_batch(Table(**{**table.__dict__, "batch": 600}).batches(SEED)[0]).seats
    for seat in range(4):
        wins = sum(won for s, won in zip(seats["seat"], seats["won"], strict=True) if s == seat)
        share = proportion(wins, 600)
        assert share.low < 0.25 < share.high, f"seat {seat + 1} won {share.value:.3f}"


# -- the store ---------------------------------------------------------------------------------------


def test_a_second_run_reads_the_stored_batches_and_plays_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tables = [equal_table("test", "greedy", 2, 6, QUICK)]
    first = run_tables(tables, SEED, GameStore(tmp_path), progress=False)

    def refuse(batch: Any) -> Any:
        raise AssertionError(f"played {batch.name} again")

    monkeypatch.setattr(run_module, "play_batch", refuse)
    second = run_tables(tables, SEED, GameStore(tmp_path), progress=False)
    assert [r.games for r in second["test/greedy-2"]] == [r.games for r in first["test/greedy-2"]]
    assert [r.seats for r in second["test/greedy-2"]] == [r.seats for r in first["test/greedy-2"]]


def test_a_damaged_stored_batch_is_named_with_what_to_do(tmp_path: Path) -> None:
    table = equal_table("test", "greedy", 2, 4, QUICK)
    store = GameStore(tmp_path)
    run_tables([table], SEED, store, progress=False)
    [stored] = list((tmp_path / "games" / "test" / "greedy-2").glob("*[0-9a-f].parquet"))
    stored.write_bytes(b"not parquet")
    with pytest.raises(StoreError, match=re.escape(str(stored)) + ".*delete it"):
        run_tables([table], SEED, store, progress=False)


def test_a_store_that_cannot_be_written_says_where(tmp_path: Path) -> None:
    (tmp_path / "games").write_text("a file where the folder should be")
    with pytest.raises(StoreError, match="cannot store the games of"):
        run_tables([equal_table("test", "greedy", 2, 2, QUICK)], SEED, GameStore(tmp_path), progress=False)


# -- the quick study, locally and on a cluster -------------------------------------------------------


@pytest.fixture(scope="module")
def local_study(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """The quick study, played once per test run: under xdist the first worker to ask plays it into the run's
    shared temporary folder and the others wait for it, as each would otherwise play it again."""
    if worker_id == "master":  # not distributed: this run's own folder
        out = tmp_path_factory.mktemp("study-local")
        run_study(out, seed=SEED, quick=True, lang="en", jobs=2, progress=False)
        return out
    out = tmp_path_factory.getbasetemp().parent / "study-local"  # the run's folder, shared by its workers
    with open(out.with_name("study-local.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (out / "report.md").exists():  # run_study writes the report last
            run_study(out, seed=SEED, quick=True, lang="en", jobs=2, progress=False)
    return out


def _results(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return data


def test_results_hold_the_documented_structure(local_study: Path) -> None:
    schema.Results.model_validate(_results(local_study))


def test_results_name_the_keys_other_tools_read(local_study: Path) -> None:
    results = _results(local_study)
    for players in ("2", "3", "4", "5", "6"):
        entry = results["redeal"][players]
        assert 0 <= entry["exact"] <= 1
        assert 0 <= entry["simulated"] <= 1
        assert len(entry["ci95"]) == 2
        for level in ("random", "greedy", "medium"):
            assert set(results["starter"][level][players]) >= {"win_share", "ci95"}
        assert "mean_actions" in results["length"]["classic"][players]
    for level in ("greedy", "medium", "expert"):
        assert set(results["holdback"][level]) >= {"win_share", "ci95"}
    assert set(results["starter"]["expert"]) == {"4"}, "equal experts sit at four players only"
    assert set(results["starter"]["expert"]["4"]) >= {"win_share", "ci95"}


def test_every_field_of_the_results_is_documented() -> None:
    text = (ROOT / "docs" / "analysis.md").read_text(encoding="utf-8")
    models = [
        value for value in vars(schema).values() if isinstance(value, type) and issubclass(value, schema.BaseModel)
    ]
    prose = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    quoted = " ".join(re.findall(r"`([^`]+)`", prose))
    names = {name for model in models for name in model.model_fields}
    undocumented = {name for name in names if not re.search(rf"(?<![\w<]){re.escape(name)}(?![\w>])", quoted)}
    assert not undocumented, f"docs/analysis.md does not name {sorted(undocumented)}"


def test_identical_players_on_duplicate_deals_each_win_exactly_their_share(local_study: Path) -> None:
    greedy = _results(local_study)["holdback"]["greedy"]
    assert greedy["win_share"] == 0.25
    assert greedy["ci95"] == [0.25, 0.25]


def test_the_simulated_redeal_rate_agrees_with_the_exact_one(local_study: Path) -> None:
    for entry in _results(local_study)["redeal"].values():
        low, high = entry["ci95"]
        assert low <= entry["exact"] <= high


def test_the_quick_report_renders_every_section_and_plot(local_study: Path) -> None:
    page = (local_study / "report.html").read_text(encoding="utf-8")
    markdown = (local_study / "report.md").read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>")
    assert '<html lang="en">' in page
    assert 'name="viewport"' in page
    assert 'src="http' not in page, "the page must stand alone"
    for name in SECTIONS:
        assert f'<section id="{name}"' in page
        assert "data:image/png;base64," in page.split(f'<section id="{name}"', 1)[1].split("</section>", 1)[0]
        assert (local_study / "plots" / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"](plots/{name}.png)" in markdown
    assert markdown.count("\n## ") == len(SECTIONS)
    text = re.sub(r"<style>.*?</style>|data:image/png;base64,[^\"]+", "", page, flags=re.DOTALL)
    assert "{" not in text, "a text field was left unfilled"
    assert "{" not in markdown


def test_the_report_speaks_german(local_study: Path, tmp_path: Path) -> None:
    results = _results(local_study)
    words = Words("de")
    sections = [question.section(results, words) for question in QUESTIONS]
    write_report(tmp_path, sections, words, seed=SEED, quick=True, games=results["games"])
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert '<html lang="de">' in page
    assert "Ist es wichtig, wer anfängt?" in page
    assert re.search(r"\d,\d\u00a0%", page), "German writes a decimal comma"


def test_the_games_are_kept_as_records_and_as_tables(local_study: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seats = pq.read_table(local_study / "seats.parquet")
    games = pq.read_table(local_study / "games.parquet")
    assert tuple(seats.column_names) == SEAT_COLUMNS
    assert games.num_rows == _results(local_study)["games"]
    records = sorted((local_study / "games").glob("*/*/*.jsonl.gz"))
    assert records
    assert main(["check", str(records[0])]) == 0
    assert "legal, 0 bad" in capsys.readouterr().out


def test_a_record_file_cut_short_is_reported_not_crashed(
    local_study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = sorted((local_study / "games").glob("*/*/*.jsonl.gz"))[0].read_bytes()
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    assert main(["check", str(cut)]) == 2
    assert "cannot be read to its end" in capsys.readouterr().err


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Dask scheduler and two single-threaded worker processes on this machine."""
    folder = tmp_path_factory.mktemp("dask")
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    log = open(folder / "cluster.log", "w")  # noqa: SIM115 - closed at teardown
    processes = [
        subprocess.Popen(
            [*dask, "--host", "127.0.0.1", "--port", str(port), "--dashboard-address", ":0"],
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=folder,
        )
    ]
    worker = [
        sys.executable,
        "-m",
        "distributed.cli.dask_worker",
        address,
        "--nthreads",
        "1",
        "--dashboard-address",
        ":0",
    ]
    processes += [
        subprocess.Popen(
            [*worker, "--name", f"w{i}", "--local-directory", str(folder / f"w{i}")],
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=folder,
        )
        for i in range(2)
    ]
    try:
        from distributed import Client

        deadline = time.monotonic() + 60
        while True:
            try:
                with Client(address, timeout=5) as client:
                    client.wait_for_workers(2, timeout=30)
                break
            except (OSError, TimeoutError):
                if time.monotonic() > deadline:
                    raise AssertionError(
                        f"the Dask cluster did not start: {(folder / 'cluster.log').read_text()}"
                    ) from None
                time.sleep(0.5)
        yield address
    finally:
        # The workers first: a worker whose scheduler is gone first retries it for seconds before it exits.
        for stopping in (processes[1:], processes[:1]):
            for process in stopping:
                process.terminate()
            for process in stopping:
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        log.close()


def test_the_study_on_a_cluster_plays_every_batch_as_the_local_run(
    local_study: Path, cluster: str, tmp_path: Path
) -> None:
    """A table of each part of the study (its quickest, and a searching player's table) played on the cluster:
    the same games, seats and records, batch by batch in the plan's order, as the local run stored."""
    quickest: dict[str, Table] = {}
    for table in plan(QUICK):
        part = part_of(table)
        if part not in quickest or table_cost(table) < table_cost(quickest[part]):
            quickest[part] = table
    searching = min((table for table in plan(QUICK) if any(spec in SEARCHERS for spec in table.specs)), key=table_cost)
    tables = list({table.key: table for table in [*quickest.values(), searching]}.values())
    on_cluster = run_tables(tables, SEED, GameStore(tmp_path), cluster=cluster, progress=False)
    stored = run_tables(tables, SEED, GameStore(local_study), progress=False)  # read back: nothing is played
    assert list(on_cluster) == list(stored) == [table.key for table in tables]
    for key, results in on_cluster.items():
        assert len(results) == len(stored[key]) >= 1
        for mine, theirs in zip(results, stored[key], strict=True):
            assert mine.batch == theirs.batch
            assert (mine.games, mine.seats) == (theirs.games, theirs.seats), key
            records = (local_study / "games" / key / mine.batch.name).with_suffix(".jsonl.gz")
            assert mine.records == gzip.decompress(records.read_bytes()).decode("utf-8").splitlines(), key


def test_an_unreachable_cluster_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_module, "CONNECT_TIMEOUT", 1.0)
    port = free_port()
    with pytest.raises(ClusterError, match=f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port}"):
        run_tables(
            [equal_table("test", "greedy", 2, 2, QUICK)],
            SEED,
            GameStore(tmp_path),
            cluster=f"tcp://127.0.0.1:{port}",
            progress=False,
        )


def test_the_plan_names_each_table_once() -> None:
    keys = [table.key for table in plan(QUICK)]
    assert len(keys) == len(set(keys))


PUBLISHED = ROOT / "docs" / "analysis"


@pytest.mark.parametrize("edition", ["en", "de"])
def test_the_published_edition_is_the_full_study_whole(edition: str) -> None:
    """docs/analysis/ holds the full study as generated: every plot its report shows is there, and the
    results are the full run's (not --quick) for the seed the report names."""
    folder = PUBLISHED if edition == "en" else PUBLISHED / edition
    report = (folder / "report.md").read_text(encoding="utf-8")
    images = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", report)
    assert len(images) >= len(QUESTIONS), images
    for image in images:
        assert (folder / image).is_file(), f"{folder / 'report.md'} shows {image}, which is not there"
    results = _results(PUBLISHED)
    schema.Results.model_validate(results)
    assert results["quick"] is False
    assert f"elferraus analyze --out DIR --seed {results['seed']} --lang {edition}" in report
    assert "--quick" not in report


def test_the_readme_quotes_the_published_study() -> None:
    """The findings in the README's introduction are the published results' figures, rounded as printed."""
    results = _results(PUBLISHED)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")

    def percent(share: float, places: int = 1) -> str:
        return f"{100 * share:.{places}f} %"

    quoted = [
        percent(results["redeal"]["2"]["exact"]),
        results["redeal"]["2"]["exact_fraction"],
        percent(results["redeal"]["4"]["exact"], 2),
        percent(results["starter"]["greedy"]["4"]["win_share"]),
        percent(results["starter"]["medium"]["4"]["win_share"]),
        percent(results["holdback"]["medium"]["win_share"]),
        percent(results["rules"]["ravensburger"]["4"]["skill"]["win_share"]),
    ]
    intro = readme.split("## Quick start", 1)[0]
    for figure in quoted:
        assert figure in intro, f"the README's introduction does not quote {figure} from docs/analysis/results.json"
    assert f"about {round(results['games'], -4):,} games" in intro
