"""A league network's policy as a player (elferraus.bots.league) and its arena seat ``league:PATH``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from elferraus.actions import ACTION_COUNT, action_of
from elferraus.arena.runner import ArenaConfig, run_arena
from elferraus.bots import make_bot, play_turns, seat_seed, start_players
from elferraus.bots.base import Bot
from elferraus.bots.league import SHIPPED, LeagueBot
from elferraus.bots.network import LeagueNetwork, table_input
from elferraus.game import Game
from elferraus.moves import Move
from elferraus.observation import Layout, write_view
from elferraus.rules import Rules
from elferraus.table.seating import seat_specs
from elferraus.view import SeatView


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A league snapshot as the league writes one: the shipped network's policy alone, in float16."""
    path = tmp_path_factory.mktemp("league") / "update-00001.npz"
    with np.load(SHIPPED) as arrays:
        kept = {
            name: arrays[name].astype(np.float16) if name.startswith("policy") else arrays[name]
            for name in arrays.files
            if not name.startswith("critic")
        }
    np.savez(path, **kept)  # type: ignore[arg-type]
    return path


class _Checked(Bot):
    """Asks the league bot and checks its move against the policy read from the whole view afresh."""

    def __init__(self, bot: LeagueBot) -> None:
        super().__init__()
        self.bot = bot
        self.decisions = 0

    def start_game(self, seat: int, players: int, rules: Rules) -> None:
        self.bot.start_game(seat, players, rules)

    def choose(self, view: SeatView) -> Move:
        move = self.bot.choose(view)
        assert move in view.legal
        if len(view.legal) > 1:
            layout = Layout(view.players, history=True)
            state = np.zeros(layout.size, np.float32)
            write_view(view, layout.views(state), history=True)
            mask = np.zeros((1, ACTION_COUNT), np.bool_)
            mask[0, [action_of(legal) for legal in view.legal]] = True
            logits = self.bot.network.logits(table_input(state, view.players, view.rules), mask)[0]
            assert logits[action_of(move)] == logits.max()
            self.decisions += 1
        return move


@pytest.mark.parametrize(("players", "rules"), [(2, "classic"), (4, "classic"), (4, "ravensburger"), (6, "classic")])
def test_it_plays_the_policys_likeliest_legal_move_at_every_table(snapshot: Path, players: int, rules: str) -> None:
    network = LeagueNetwork.load(snapshot)
    assert network.critic is None
    game = Game.deal(players, 11, Rules.preset(rules))
    checked = _Checked(LeagueBot(network))
    seats: dict[int, Bot] = {0: checked}
    seats.update({seat: make_bot("greedy", seat_seed(11, seat)) for seat in range(1, players)})
    start_players(seats, game)
    play_turns(game, seats)
    assert game.is_over()
    assert checked.decisions > 0


def test_the_arena_seats_a_snapshot_by_its_path(snapshot: Path) -> None:
    spec = f"league:{snapshot}"
    assert seat_specs(f"{spec},greedy", 2, commands=True) == [spec, "greedy"]
    config = ArenaConfig(specs=(spec, "greedy", "greedy", "greedy"), deals=1, seed=3)
    results = list(run_arena(config))
    assert len(results) == 4
    assert all(result.forfeit is None and result.winner is not None for result in results)
    again = list(run_arena(config))
    assert [r.winner for r in again] == [r.winner for r in results], "the policy draws nothing at random"


def test_a_file_that_is_no_league_network_is_refused_by_name(tmp_path: Path) -> None:
    missing = tmp_path / "missing.npz"
    assert str(missing) in str(seat_specs(f"league:{missing},greedy", 2, commands=True))
    other = tmp_path / "other.npz"
    np.savez(other, weights=np.zeros(3))
    assert "not a league network" in str(seat_specs(f"league:{other}", 2, commands=True))
    assert "league: needs a network file" in str(seat_specs("league:", 2, commands=True))
    assert "unknown bot" in str(seat_specs(f"league:{other}", 2, commands=False)), "a seat for the arena only"
