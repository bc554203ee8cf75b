#!/usr/bin/env python3
"""Random legal steps per second with observations, on one core: ``SelfPlay`` beside the frameworks' loops.

A benchmark, not a timed test: nothing here fails on a figure. It measures
in one run how many random legal steps a second ``elferraus.vector.SelfPlay``
makes beside PettingZoo's ``connect_four_v3``, RLCard's UNO and OpenSpiel
played from Python. The goal set for ``SelfPlay`` is 1,000,000 steps/s.

A step is one decision of the player to move, and in every row that player
gets an observation at every step. Dealing and drawing are inside the time
but are not counted as steps.

``selfplay:N`` (N = 4096, 256, 1)
    ``SelfPlay(num_envs=N, players=4, rules="classic", seed=0)``, reset
    once; one call plays ``65536 // N`` rounds (at least one) of
    ``env.step(env.random_actions())``: the C core picks a uniformly random
    legal action per game, then steps every game, writes the 659 floats of
    the information state of the seat to move, the mask, the seat, rewards
    and done, and deals a finished game again. Every step of every game
    counts, and the games go on from call to call. With N = 1 the rate is
    mostly the cost of one call from Python.
``selfplay:4096 (NumPy chooser)``
    The same with the action picked in NumPy from the returned mask:
    ``(mask * rng.random(mask.shape, dtype=np.float32)).argmax(axis=1)``, a
    uniformly random legal action, as a learner's sampling code would do it.
``pyspiel+obs:elfer_raus`` and ``pyspiel+obs:crazy_eights (C++)``
    frameworks.py's ``pyspiel`` loop (chance outcomes by inverse CDF,
    ``rng.choice(state.legal_actions())``), which also reads the tensor of the
    player to move at each decision: ``information_state_tensor()`` for
    ``elfer_raus`` (4 players, the 659 numbers ``SelfPlay`` writes) and
    ``observation_tensor()`` for OpenSpiel's C++ ``crazy_eights`` (4 players),
    which offers no information-state tensor. Only decisions count.
``rlcard:uno``
    ``rlcard.make("uno")`` set to 4 players with
    ``env.game.configure({"game_num_players": 4})`` (its ``UnoEnv`` ignores
    ``game_num_players``). Per game ``env.seed(seed)``, ``env.reset()``, then
    ``env.step(rng.choice(list(state["legal_actions"])))`` until
    ``env.is_over()``; each state carries ``obs``, 4 x 4 x 15 numbers.
``aec:connect_four_v3`` and ``aec:elferraus_v0``
    frameworks.py's AEC rows: ``env.last()`` hands each agent its observation
    and ``action_mask``.

Measurement is frameworks.py's: three untimed calls, then ``--seconds`` of
calls per row and round, the rows taking turns for ``--rounds`` rounds, each
row's median counting, rates per second of the process's CPU time. The
process is pinned to one core (``--cpu``, default the last it may use).
The table gives each row's observation (how many numbers, of which type),
the ratio of ``selfplay:4096`` to the row, and the games finished; for the
``selfplay`` rows, whose games run across the timed windows, steps/game is
only roughly the length of a game.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import operator
import platform
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from benchmarks.engine.frameworks import (
    Play,
    aec_env,
    connect_four,
    elferraus_aec,
    load_pyspiel_game,
    pick_chance_outcome,
    pin_to_one_core,
    set_up,
    summarise,
    take_turns,
)

PLAYERS = 4
STEPS_PER_CALL = 65_536
GOAL = 1_000_000
REFERENCE = "selfplay:4096"
COLUMNS = "{:32} {:>12} {:>8} {:>10} {:>17} {:>10}  {}"

Actions = npt.NDArray[np.int64]
Chooser = Callable[[npt.NDArray[np.bool_]], Actions]


def selfplay(num_envs: int, numpy_chooser: bool = False) -> Play:
    from elferraus.vector import SelfPlay

    env = SelfPlay(num_envs=num_envs, players=PLAYERS, rules="classic", seed=0)
    _obs, mask, _seat = env.reset()
    rng = np.random.default_rng(0)
    calls = max(1, STEPS_PER_CALL // num_envs)

    def from_numpy(legal: npt.NDArray[np.bool_]) -> Actions:
        chosen: Actions = (legal * rng.random(legal.shape, dtype=np.float32)).argmax(axis=1)
        return chosen

    def from_core(_legal: npt.NDArray[np.bool_]) -> Actions:
        return env.random_actions()

    choose: Chooser = from_numpy if numpy_chooser else from_core

    def play(seed: int) -> tuple[int, int]:
        del seed  # the games go on from call to call; their seed was given once
        nonlocal mask
        before = env.finished
        for _ in range(calls):
            _obs, mask, _seat, _rewards, _done = env.step(choose(mask))
        return env.finished - before, calls * num_envs

    return play


def pyspiel_observed(name: str, params: dict[str, Any], tensor: str) -> Play:
    game = load_pyspiel_game(name, params)
    observe = operator.methodcaller(tensor)

    def play(seed: int) -> tuple[int, int]:
        rng = random.Random(seed)
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(pick_chance_outcome(state.chance_outcomes(), rng))
                continue
            observe(state)
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
        return 1, steps

    return play


def rlcard_uno() -> Play:
    import rlcard

    env = rlcard.make("uno", config={"seed": 0})
    env.game.configure({"game_num_players": PLAYERS})

    def play(seed: int) -> tuple[int, int]:
        rng = random.Random(seed)
        env.seed(seed)
        state, _player = env.reset()
        steps = 0
        while not env.is_over():
            state, _player = env.step(rng.choice(list(state["legal_actions"])))
            steps += 1
        return 1, steps

    play(0)
    if len(env.game.players) != PLAYERS:
        raise RuntimeError(f"RLCard uno dealt {len(env.game.players)} hands, not {PLAYERS}")
    return play


@dataclass(frozen=True)
class Row:
    """A row of the table: what its player observes at each step, and how to set its play up."""

    observation: str
    make: Callable[[], Play]


ROWS: dict[str, Row] = {
    REFERENCE: Row("659 float32", lambda: selfplay(4096)),
    "selfplay:256": Row("659 float32", lambda: selfplay(256)),
    "selfplay:1": Row("659 float32", lambda: selfplay(1)),
    "selfplay:4096 (NumPy chooser)": Row("659 float32", lambda: selfplay(4096, numpy_chooser=True)),
    "pyspiel+obs:elfer_raus": Row(
        "659 floats", lambda: pyspiel_observed("elfer_raus", {"players": PLAYERS}, "information_state_tensor")
    ),
    "pyspiel+obs:crazy_eights (C++)": Row(
        "319 floats", lambda: pyspiel_observed("crazy_eights", {"players": PLAYERS}, "observation_tensor")
    ),
    "rlcard:uno": Row("240 int64", rlcard_uno),
    "aec:connect_four_v3": Row("84 int8", lambda: aec_env(connect_four)),
    "aec:elferraus_v0": Row("659 float32", lambda: aec_env(elferraus_aec)),
}


def _versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for dist in ("elferraus", "numpy", "open_spiel", "rlcard", "pettingzoo"):
        try:
            versions[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            versions[dist] = None
    return versions


def report(runs: dict[str, list[dict[str, float]]]) -> dict[str, Any]:
    """Print the table and the goal's line; return each row's figures, with the ratio of ``SelfPlay`` to it."""
    results = {
        name: {"unit": "steps", "observation": ROWS[name].observation, **summarise(rows)} for name, rows in runs.items()
    }
    reference = results[REFERENCE]["per_second"] if REFERENCE in results else None
    print(COLUMNS.format("row", "observation", "games", "steps/game", "steps/s (median)", "4096 / row", "rounds"))
    for name, result in results.items():
        ratio = "-"
        if reference is not None:
            result["selfplay_ratio"] = reference / result["per_second"]
            ratio = f"{result['selfplay_ratio']:.2f}x"
        per_game = f"{result['actions'] / result['games']:.1f}" if result["games"] else "-"
        rate = f"{result['per_second']:,.0f}"
        spread = ", ".join(f"{row['per_second']:,.0f}" for row in result["rounds"])
        print(COLUMNS.format(name, result["observation"], result["games"], per_game, rate, ratio, spread))
    if reference is not None:
        reached = "reached" if reference >= GOAL else "not reached"
        print(f"goal {GOAL:,} steps/s with observations: {REFERENCE} makes {reference:,.0f} ({reached})")
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="timed seconds per row and round (default 3)")
    parser.add_argument(
        "--rounds", type=int, default=3, help="rounds, the rows taking turns (default 3); the median counts"
    )
    parser.add_argument("--cpu", type=int, help="the core to pin the process to (default: the last it may use)")
    parser.add_argument("--only", help=f"comma-separated row names of: {', '.join(ROWS)}")
    parser.add_argument("--json", metavar="OUT", help="also write the results as JSON")
    args = parser.parse_args(argv)
    names = args.only.split(",") if args.only else list(ROWS)
    unknown = [name for name in names if name not in ROWS]
    if unknown:
        parser.error(f"unknown rows: {unknown}")
    core = pin_to_one_core(args.cpu)
    where = f"pinned to core {core} (os.sched_setaffinity)" if core is not None else "not pinned (no sched_setaffinity)"
    print(
        f"{where}; steps per CPU second (time.process_time), the median of {args.rounds} rounds"
        f" of {args.seconds:g} s per row"
    )
    plays = set_up(names, {name: ROWS[name].make for name in names})
    results = report(take_turns(plays, args.rounds, args.seconds))
    if args.json:
        meta = {
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "cpu": core,
            "seconds": args.seconds,
            "rounds": args.rounds,
            "steps_per_call": STEPS_PER_CALL,
            "versions": _versions(),
        }
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"meta": meta, "results": results}, out, indent=1)
            out.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
