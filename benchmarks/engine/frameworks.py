#!/usr/bin/env python3
"""Random play through the research frameworks' own loops: elferraus beside each framework's own games.

Every row plays whole games, choosing uniformly at random among the legal
actions, through the framework's public API, on one core, for ``--seconds``
seconds after a short untimed warm-up. Game ``i`` uses seed ``i``. The rows
take turns for ``--rounds`` rounds and each row's median counts. Rates are
per second of the process's CPU time (``time.process_time``), which time
stolen from a virtual machine does not inflate.

``pyspiel`` rows (actions/s, chance outcomes counted as actions):
    ``game.new_initial_state()``; while not terminal, a chance node applies
    an outcome drawn by inverse CDF from ``state.chance_outcomes()`` with a
    ``random.Random``, a decision node ``rng.choice(state.legal_actions())``.
    ``elfer_raus`` (4 players, classic) against OpenSpiel's pure-Python
    ``python_block_dominoes`` and ``python_kuhn_poker``, and its C++
    ``crazy_eights`` (4 players) in the same loop for scale.

``aec`` rows (steps/s, the agents' actions; the dead steps at the end not
counted): ``env.reset(seed=i)``; for each agent of ``env.agent_iter()``,
``env.last()``, then a random action whose ``action_mask`` is 1, or None
once terminated. ``elferraus_v0`` (4 players) against PettingZoo's own
``classic/connect_four-v3``, both from ``pettingzoo.make("aec", ...)`` (so
both with their ``env()`` wrappers).

``gymnasium`` row (steps/s of the learner): ``ElferRaus-v0``, 4 players,
three ``greedy`` opponents (their moves happen inside each step), a random
action among ``action_masks()``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

# Plays from a seed: (games finished, actions or steps made). A row's loop plays one whole game a call.
Play = Callable[[int], tuple[int, int]]


def pick_chance_outcome(outcomes: list[tuple[int, float]], rng: random.Random) -> int:
    """An outcome of a chance node, drawn by inverse CDF with ``rng``."""
    point = rng.random()
    for action, probability in outcomes:
        point -= probability
        if point <= 0:
            return action
    return outcomes[-1][0]


def load_pyspiel_game(name: str, params: dict[str, Any]) -> Any:
    """``pyspiel.load_game`` with OpenSpiel's Python games and ``elfer_raus`` registered."""
    import pyspiel
    from open_spiel.python import games  # noqa: F401 (registers OpenSpiel's Python games)

    import elferraus.openspiel  # noqa: F401

    return pyspiel.load_game(name, params)


def pyspiel_game(name: str, params: dict[str, Any]) -> Play:
    game = load_pyspiel_game(name, params)

    def play(seed: int) -> tuple[int, int]:
        rng = random.Random(seed)
        state = game.new_initial_state()
        actions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(pick_chance_outcome(state.chance_outcomes(), rng))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            actions += 1
        return 1, actions

    return play


def aec_env(make: Callable[[], Any]) -> Play:
    table = make()

    def play(seed: int) -> tuple[int, int]:
        rng = np.random.default_rng(seed)
        table.reset(seed=seed)
        steps = 0
        for agent in table.agent_iter():
            observation, _reward, termination, truncation, _info = table.last()
            if termination or truncation:
                table.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            table.step(int(legal[rng.integers(len(legal))]))
            steps += 1
            del agent
        return 1, steps

    return play


def gym_env() -> Play:
    import gymnasium

    import elferraus.gym  # noqa: F401

    environment = gymnasium.make("elferraus/ElferRaus-v0", players=4, opponents="greedy").unwrapped

    def play(seed: int) -> tuple[int, int]:
        rng = np.random.default_rng(seed)
        environment.reset(seed=seed)
        steps, done = 0, False
        while not done:
            legal = np.flatnonzero(environment.action_masks())
            _observation, _reward, done, _truncated, _info = environment.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        return 1, steps

    return play


def connect_four() -> Any:
    import pettingzoo

    return pettingzoo.make("aec", "classic/connect_four-v3")


def elferraus_aec() -> Any:
    import pettingzoo

    import elferraus.pettingzoo  # noqa: F401 (registers elferraus_v0)

    return pettingzoo.make("aec", "elferraus_v0", players=4)


ROWS: dict[str, tuple[str, str, Callable[[], Play]]] = {
    "pyspiel:elfer_raus": ("pyspiel", "actions", lambda: pyspiel_game("elfer_raus", {"players": 4})),
    "pyspiel:python_block_dominoes": ("pyspiel", "actions", lambda: pyspiel_game("python_block_dominoes", {})),
    "pyspiel:python_kuhn_poker": ("pyspiel", "actions", lambda: pyspiel_game("python_kuhn_poker", {})),
    "pyspiel:crazy_eights (C++)": ("pyspiel", "actions", lambda: pyspiel_game("crazy_eights", {"players": 4})),
    "aec:elferraus_v0": ("aec", "steps", lambda: aec_env(elferraus_aec)),
    "aec:connect_four_v3": ("aec", "steps", lambda: aec_env(connect_four)),
    "gymnasium:ElferRaus-v0 (greedy)": ("gymnasium", "steps", gym_env),
}


def measure(play: Play, seconds: float) -> dict[str, float]:
    """Three untimed calls, then calls with seeds 0, 1, ... for ``seconds``: the counts, the time and the rate."""
    for seed in range(1_000_000, 1_000_003):
        play(seed)
    start, cpu = time.perf_counter(), time.process_time()
    calls = games = actions = 0
    while time.perf_counter() - start < seconds:
        finished, made = play(calls)
        calls += 1
        games += finished
        actions += made
    elapsed, used = time.perf_counter() - start, time.process_time() - cpu
    # Rates per second of CPU time: a virtual machine's stolen time would slow the row it fell on.
    return {"games": games, "actions": actions, "seconds": elapsed, "cpu_seconds": used, "per_second": actions / used}


def pin_to_one_core(core: int | None = None) -> int | None:
    """Pin this process to ``core`` (default: the last it may use) and return it; None where it cannot pin."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    chosen = sorted(os.sched_getaffinity(0))[-1] if core is None else core
    os.sched_setaffinity(0, {chosen})
    return chosen


def set_up(names: list[str], factories: dict[str, Callable[[], Play]]) -> dict[str, Play]:
    """The plays of the rows named; a row whose library is missing is reported and left out."""
    plays: dict[str, Play] = {}
    for name in names:
        try:
            plays[name] = factories[name]()
        except ImportError as error:
            print(f"{name:36} not installed ({error})")
    return plays


def take_turns(plays: dict[str, Play], rounds: int, seconds: float) -> dict[str, list[dict[str, float]]]:
    """Each row measured ``rounds`` times, the rows taking turns, so a slow spell of the machine hits them all."""
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in plays}
    for _ in range(rounds):
        for name, play in plays.items():
            runs[name].append(measure(play, seconds))
    return runs


def summarise(rows: list[dict[str, float]]) -> dict[str, Any]:
    """One row's rounds: the median rate, the games and actions of all rounds, and the rounds themselves."""
    median = statistics.median(row["per_second"] for row in rows)
    games = sum(int(row["games"]) for row in rows)
    actions = sum(int(row["actions"]) for row in rows)
    return {"per_second": median, "games": games, "actions": actions, "rounds": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="timed seconds per row and round (default 3)")
    parser.add_argument(
        "--rounds", type=int, default=3, help="rounds, the rows taking turns (default 3); the median counts"
    )
    parser.add_argument("--only", help="comma-separated row names")
    parser.add_argument("--json", metavar="OUT", help="also write the results as JSON")
    args = parser.parse_args(argv)
    pin_to_one_core()
    names = args.only.split(",") if args.only else list(ROWS)
    plays = set_up(names, {name: ROWS[name][2] for name in names})
    runs = take_turns(plays, args.rounds, args.seconds)
    results: dict[str, Any] = {}
    print(f"{'row':36} {'games':>7} {'per game':>9} {'per second (median)':>20}  rounds")
    for name, rows in runs.items():
        unit = ROWS[name][1]
        results[name] = {"unit": unit, **summarise(rows)}
        games, actions, median = results[name]["games"], results[name]["actions"], results[name]["per_second"]
        spread = ", ".join(f"{row['per_second']:,.0f}" for row in rows)
        print(f"{name:36} {games:>7} {actions / games:>9.1f} {median:>15,.0f} {unit}/s  {spread}")
    for loop in ("pyspiel", "aec"):
        ours = [name for name in results if name.startswith(loop) and "elfer" in name]
        for name in results:
            if name.startswith(loop) and ours and name not in ours:
                ratio = results[ours[0]]["per_second"] / results[name]["per_second"]
                print(f"  {ours[0]} / {name}: {ratio:.2f}x")
    if args.json:
        meta = {
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "seconds": args.seconds,
            "rounds": args.rounds,
        }
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"meta": meta, "results": results}, out, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
