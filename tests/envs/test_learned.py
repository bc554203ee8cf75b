"""The learned player's runner (``elferraus.envs.learned``): a saved network plays legal moves from a seat's
view, in process and over the bot protocol in the arena; a broken file is refused with what is wrong, and a
seat at a table of another size with a one-line ``refuse``."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from elferraus import Game
from elferraus.actions import action_of
from elferraus.arena.runner import ArenaConfig, run_arena, summarize
from elferraus.bots import protocol
from elferraus.cli.main import main as cli
from elferraus.envs.features import FEATURE_COUNT, ActionFeatures
from elferraus.envs.learned import SHIPPED, LearnedBot, Network, main
from elferraus.moves import Move
from elferraus.observation import Layout, write_view
from tests.support import ROOT


def _layers(arrays: dict[str, object], sizes: list[int], outputs: int, scale: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for index, (width, out) in enumerate(itertools.pairwise(sizes)):
        arrays[f"hidden_W{index}"] = rng.normal(0, scale, (width, out)).astype(np.float32)
        arrays[f"hidden_b{index}"] = rng.normal(0, 0.1, out).astype(np.float32)
    arrays["action_W"] = rng.normal(0, scale, (sizes[-1], outputs)).astype(np.float32)
    arrays["action_b"] = np.zeros(outputs, np.float32)


def _save(path: Path, players: int = 4, hidden: tuple[int, ...] = (32, 16), seed: int = 0) -> Path:
    arrays: dict[str, object] = {"activation": np.array("tanh"), "players": np.array(players)}
    _layers(arrays, [Layout(players, history=True).size, *hidden], 82, 0.3, seed)
    np.savez(path, **arrays)
    return path


def _save_scorer(path: Path, hidden: tuple[int, ...] = (16, 8), seed: int = 0, inputs: int = FEATURE_COUNT) -> Path:
    arrays: dict[str, object] = {"kind": np.array("scorer"), "activation": np.array("relu"), "players": np.array(4)}
    _layers(arrays, [inputs, *hidden], 1, 0.5, seed)
    np.savez(path, **arrays)
    return path


def test_a_scorer_gives_every_action_the_same_small_network_over_its_feature_row(tmp_path: Path) -> None:
    path = _save_scorer(tmp_path / "scorer.npz")
    network = Network.load(path)
    assert network.kind == "scorer"
    bot = LearnedBot(network)
    features = ActionFeatures()
    game = Game.deal(4, seed=8)
    bot.start_game(0, 4, game.rules)
    rng = np.random.default_rng(2)
    with np.load(path) as arrays:
        layers = {name: arrays[name] for name in arrays.files}
    while not game.is_over():
        view = game.view(game.turn)
        rows = features.array(view)
        expected = []
        for row in rows:
            x = row
            for index in range(2):
                x = np.maximum(x @ layers[f"hidden_W{index}"] + layers[f"hidden_b{index}"], 0)
            expected.append(float((x @ layers["action_W"] + layers["action_b"])[0]))
        assert np.allclose(network.logits(rows), expected, atol=1e-5)
        move = bot.choose(view)
        assert move in view.legal
        assert expected[action_of(move)] == pytest.approx(max(expected[action_of(legal)] for legal in view.legal))
        game.push(move if rng.random() < 0.5 else view.legal[-1])


def test_a_scorer_of_the_wrong_width_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=f"the scorer takes 9 inputs; an action has {FEATURE_COUNT} features"):
        Network.load(_save_scorer(tmp_path / "narrow.npz", inputs=9))
    path = _save_scorer(tmp_path / "odd.npz")
    with np.load(path) as arrays:
        kept = {name: arrays[name] for name in arrays.files}
    for name, cut, message in [
        ("hidden_W1", kept["hidden_W1"][:, :3], r"hidden_W1 is \(16, 3\), not \(16, 8\)"),
        ("action_W", kept["action_W"][:5], r"the action layer is \(5, 1\) \+ \(1,\), not \(8, 1\) \+ \(1,\)"),
    ]:
        np.savez(tmp_path / "odd.npz", **{**kept, name: cut})
        with pytest.raises(ValueError, match=message):
            Network.load(tmp_path / "odd.npz")
    kept["kind"] = np.array("transformer")
    np.savez(tmp_path / "odd.npz", **kept)
    with pytest.raises(ValueError, match="kind must be one of mlp, scorer, not 'transformer'"):
        Network.load(tmp_path / "odd.npz")


def test_the_network_is_the_saved_layers_and_the_bot_takes_its_best_legal_action(tmp_path: Path) -> None:
    network = Network.load(_save(tmp_path / "model.npz"))
    bot = LearnedBot(network)
    game = Game.deal(4, seed=3)
    rng = np.random.default_rng(1)
    while not game.is_over():
        view = game.view(game.turn)
        bot.start_game(view.seat, 4, game.rules)
        tensor = np.zeros(Layout(4, history=True).size, np.float32)
        write_view(view, Layout(4, history=True).views(tensor), history=True)
        x = tensor
        with np.load(tmp_path / "model.npz") as arrays:
            for index in range(2):
                x = np.tanh(x @ arrays[f"hidden_W{index}"] + arrays[f"hidden_b{index}"])
            logits = x @ arrays["action_W"] + arrays["action_b"]
        assert np.allclose(network.logits(tensor), logits, atol=1e-5)
        move = bot.choose(view)
        assert move in view.legal
        assert logits[action_of(move)] == pytest.approx(max(logits[action_of(legal)] for legal in view.legal))
        game.push(move if rng.random() < 0.5 else view.legal[0])


def test_the_runner_sits_in_the_arena_over_the_protocol(tmp_path: Path) -> None:
    model = _save(tmp_path / "model.npz")
    runner = f"cmd:{sys.executable} -m elferraus.envs.learned {model}"
    config = ArenaConfig(specs=(runner, "greedy", "greedy", "greedy"), deals=2, seed=1)
    results = list(run_arena(config))
    assert len(results) == 8
    assert all(result.forfeit is None and result.winner is not None for result in results)
    assert summarize(config, results).games == 8


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"action_W": None}, "no array 'action_W'"),
        ({"activation": np.array("sigmoid")}, "activation must be one of tanh, relu"),
        ({"players": np.array(3)}, "the information state of 3 players has 575"),
    ],
)
def test_a_broken_model_is_refused_with_what_is_wrong(
    tmp_path: Path, change: dict, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _save(tmp_path / "model.npz")
    with np.load(path) as arrays:
        kept = {name: arrays[name] for name in arrays.files}
    for name, value in change.items():
        if value is None:
            kept.pop(name)
        else:
            kept[name] = value
    broken = tmp_path / "broken.npz"
    np.savez(broken, **kept)
    with pytest.raises(ValueError, match=message):
        Network.load(broken)
    assert main([str(broken)]) == 2
    assert message.split(" has", maxsplit=1)[0] in capsys.readouterr().err
    assert main([str(tmp_path / "missing.npz")]) == 2


def test_the_shipped_player_is_the_trained_scorer_and_beats_three_greedy() -> None:
    network = Network.load(SHIPPED)
    assert network.kind == "scorer"
    assert network.players == 4
    config = ArenaConfig(
        specs=(f"cmd:{sys.executable} -m elferraus.envs.learned", "greedy", "greedy", "greedy"), deals=5
    )
    summary = summarize(config, run_arena(config))
    learned = summary.kinds[config.specs[0]]
    assert learned.forfeits == 0
    assert learned.win_share()[0] >= 0.75, "trained to win about 96 % of these games (examples/train/README.md)"


def _runner(players: int) -> subprocess.CompletedProcess[str]:
    """The shipped runner offered the first seat to move of ``players``, then asked for a move, then quit."""
    game = Game.deal(players, seed=5)
    lines = [protocol.hello(game.turn, players, game.rules), protocol.act(game.view(game.turn)), {"type": "quit"}]
    return subprocess.run(
        [sys.executable, "-m", "elferraus.envs.learned"],
        input="".join(protocol.encode(line) + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    ("players", "code", "err"),
    [
        (2, 2, "elferraus bot: refused the seat: this network was trained for 4 players; the table has 2\n"),
        (3, 2, "elferraus bot: refused the seat: this network was trained for 4 players; the table has 3\n"),
        (6, 2, "elferraus bot: refused the seat: this network was trained for 4 players; the table has 6\n"),
        (4, 0, ""),
    ],
)
def test_the_shipped_runner_refuses_a_table_of_another_size_in_one_line(players: int, code: int, err: str) -> None:
    done = _runner(players)
    assert "Traceback" not in done.stdout + done.stderr
    assert (done.returncode, done.stderr) == (code, err)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    if code:
        assert answers == [protocol.refuse(err.split("refused the seat: ")[1])]
    else:
        assert answers[0] == {"type": "ready", "name": "elferraus learned"}
        assert Move.parse(answers[1]["move"]) in Game.deal(players, seed=5).legal_moves()


def test_the_documented_refusal_is_what_the_shipped_runner_says() -> None:
    text = (ROOT / "docs" / "bot-protocol.md").read_text(encoding="utf-8")
    said = _runner(2)
    row = re.search(r'^\| bot → arena \| `(\{"type": "refuse".*?\})` \|', text, flags=re.MULTILINE)
    assert row is not None
    assert json.loads(row[1]) == json.loads(said.stdout)
    assert f"`{said.stderr.strip()}`" in " ".join(text.split())


def test_the_arena_reports_why_the_runner_refused_its_seats(capsys: pytest.CaptureFixture[str]) -> None:
    runner = f"cmd:{sys.executable} -m elferraus.envs.learned"
    assert cli(["arena", "--players", "2", "--bots", f"{runner},greedy", "--games", "3"]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    forfeits = re.findall(r"^  deal \d, rotation \d: (.*)$", out, flags=re.MULTILINE)
    reason = "refused the seat: this network was trained for 4 players; the table has 2"
    assert forfeits == [f"{runner} - {reason}"] * 6
