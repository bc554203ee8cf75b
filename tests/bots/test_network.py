"""The league's networks in NumPy (elferraus.bots.network): one table input for every player count, the
critic's hidden cards, files checked on reading, and actions drawn only among the legal ones."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from elferraus.bots.network import (
    CRITIC_INPUTS,
    FORMAT,
    SLOTS,
    TABLE_INPUTS,
    LeagueNetwork,
    critic_input,
    sample_actions,
    table_input,
)
from elferraus.observation import Layout
from elferraus.vector import SelfPlay


def _arrays(widths: tuple[int, ...] = (16,), seed: int = 0, critic: bool = True) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    arrays: dict[str, np.ndarray] = {"format": np.array(FORMAT)}
    for name, inputs, outputs in (("policy", TABLE_INPUTS, 82), ("critic", CRITIC_INPUTS, SLOTS)):
        if name == "critic" and not critic:
            continue
        sizes = [inputs, *widths, outputs]
        for index in range(len(sizes) - 1):
            arrays[f"{name}_W{index}"] = rng.normal(0, 0.1, (sizes[index], sizes[index + 1])).astype(np.float32)
            arrays[f"{name}_b{index}"] = rng.normal(0, 0.1, sizes[index + 1]).astype(np.float32)
    return arrays


@pytest.mark.parametrize(("players", "rules"), [(2, "classic"), (4, "ravensburger"), (6, "beginners")])
def test_every_piece_of_the_information_state_lands_in_its_place(players: int, rules: str) -> None:
    env = SelfPlay(num_envs=8, players=players, rules=rules, seed=players)
    env.reset()
    for _ in range(30):
        env.step(env.random_actions())
    table = table_input(env.obs, players, env.rules)
    assert table.shape == (8, TABLE_INPUTS)
    pieces = Layout(players, history=True).views
    for row in range(8):
        state = pieces(env.obs[row])
        assert np.array_equal(table[row, :80], state["hand"])
        assert np.array_equal(table[row, 240:320], state["drawn"])
        assert np.array_equal(table[row, 320 : 320 + players], state["hand_counts"])
        assert not table[row, 320 + players : 326].any()
        assert table[row, 326] == state["pile"][0]
        seats = table[row, 329 : 329 + SLOTS * 82].reshape(SLOTS, 82)
        assert np.array_equal(seats[:players], state["seats"])
        assert not seats[players:].any()
    flags = table[0, TABLE_INPUTS - 9 :]
    assert flags[players - 2] == 1.0
    assert flags[:5].sum() == 1.0
    assert flags[5:8].tolist() == [float(env.rules.must_play), 1.0, float(len(env.rules.colors) == 3)]
    hidden = env.hidden()
    critic = critic_input(table, hidden)
    assert critic.shape == (8, CRITIC_INPUTS)
    assert np.array_equal(critic[:, TABLE_INPUTS : TABLE_INPUTS + 80], hidden[:, 0])
    assert np.array_equal(critic[:, -80:], hidden[:, players])


def test_a_saved_network_is_read_and_a_broken_one_refused(tmp_path: Path) -> None:
    path = tmp_path / "league.npz"
    np.savez(path, **_arrays())
    network = LeagueNetwork.load(path)
    rows = np.zeros((3, TABLE_INPUTS), np.float32)
    mask = np.zeros((3, 82), np.bool_)
    mask[:, [10, 80]] = True
    logits = network.logits(rows, mask)
    assert np.isneginf(logits[:, 0]).all()
    assert network.values(np.zeros((3, CRITIC_INPUTS), np.float32)).shape == (3, SLOTS)
    snapshot = LeagueNetwork(_arrays(critic=False))
    with pytest.raises(ValueError, match="saved without its critic"):
        snapshot.values(np.zeros((1, CRITIC_INPUTS), np.float32))
    broken = _arrays()
    broken["policy_W0"] = broken["policy_W0"][:, :5]
    with pytest.raises(ValueError, match=r"policy_W0 is \(830, 5\), not \(830, 16\)"):
        LeagueNetwork(broken)
    with pytest.raises(ValueError, match="format is not elferraus-league/1"):
        LeagueNetwork({key: value for key, value in _arrays().items() if key != "format"})


def test_actions_are_drawn_among_the_legal_ones_and_the_best_at_temperature_zero() -> None:
    rng = np.random.default_rng(1)
    logits = np.full((500, 82), -np.inf, np.float32)
    logits[:, 3] = 0.0
    logits[:, 80] = 1.0
    drawn = sample_actions(logits.copy(), rng)
    assert set(drawn.tolist()) == {3, 80}
    assert 0.6 < (drawn == 80).mean() < 0.85  # e / (1 + e) = 0.73
    assert (sample_actions(logits.copy(), rng, 0.0) == 80).all()
