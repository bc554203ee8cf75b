#!/usr/bin/env python3
"""Complete random 4-player games per second: elferraus vs. OpenSpiel vs. RLCard.

Every contestant plays whole games from a fresh deal to the end, choosing
uniformly at random among the legal moves, through the library's public
Python API. Game ``i`` of a run uses seed ``i`` (seeds 0..N-1; the
``elferraus-rollouts`` row plays 1000 games per call, and call ``k`` uses
seed ``k``). The process is
pinned to one core and the contestants run one after another, each for
``--games`` games or ``--seconds`` seconds, whichever comes first, after a
short untimed warm-up on other seeds (1_000_000 and up).

What each row times, per game:

``elferraus``
    ``Game.deal(players=4, seed=seed)`` (classic rules; the deal is
    included), ``rng = random.Random(seed)``, then
    ``while not game.is_over(): game.push(rng.choice(game.legal_moves()))``.

``openspiel``
    OpenSpiel ``crazy_eights`` with ``{"players": 4}`` (other parameters at
    their defaults: no special cards, no reshuffle, at most 5 draws per turn,
    game cut after 100 card plays; with random play about two thirds of the
    games end with the stock empty and everyone passing, the rest when a
    player goes out). ``game.new_initial_state()`` and a
    ``random.Random(seed)``; while not terminal, a chance node (choosing the
    dealer, dealing each card, each card drawn) is resolved by inverse-CDF
    sampling of ``state.chance_outcomes()`` with ``rng.random()``; a player
    node applies ``rng.choice(state.legal_actions())``. Inverse-CDF sampling
    is the cheapest correct draw in Python here (``rng.choices`` over the
    unzipped outcomes costs OpenSpiel about 40% of its games/s). OpenSpiel
    deals card by card through chance nodes, so its dealing and drawing cost
    shows up as chance steps, reported separately from player actions.

``openspiel-numpy``
    The same loop, but chance nodes sampled the way OpenSpiel's own
    ``python/examples/example.py`` does it:
    ``np.random.choice(outcomes, p=probs)`` (here from a seeded
    ``np.random.RandomState``). This is the idiomatic OpenSpiel loop and
    several times slower than the ``openspiel`` row (numpy's per-call
    overhead dominates); it is shown for reference only: ``openspiel``, the
    faster loop, is the yardstick every ratio is taken against.

``openspiel-cpp``
    The same game played entirely in C++:
    ``pyspiel.evaluate_bots(game.new_initial_state(), bots, seed)`` with
    ``bots = [pyspiel.make_uniform_random_bot(p, seed) for p in range(4)]``.
    It reports no move count, so its actions per game are taken from the
    ``openspiel`` row (same game, same uniform policy, hence the same
    distribution) when that row ran, and marked ``~``.

``elferraus-rollouts``
    The compiled playout primitive of the search players
    (``elferraus._core.random_playouts``; reference: ``elferraus.rollout``).
    One timed call is ``random_playouts(1000, 4, seed)``: it deals 1000
    classic 4-player games from the 80 cards (a SplitMix64 Fisher-Yates
    shuffle of the deck seeded with ``seed``, dealt again while no 11 is in
    a hand) and plays each to the end choosing uniformly at random among the
    legal moves for every seat, all in C: no Python object per move or per
    game. A call counts as 1000 games and call ``k`` uses seed ``k``. Its
    actions are counted in C, every lay, draw and pass (the opening 11
    included), as in the ``elferraus`` row. Compare it with
    ``openspiel-cpp``: both play whole games with no Python in the loop
    (OpenSpiel crosses from Python into C++ once per game, this row once per
    1000 games).

``rlcard``
    RLCard ``uno``. ``rlcard.make("uno", config={"seed": 0,
    "game_num_players": 4})`` is built once; its UnoEnv ignores
    ``game_num_players`` (it only forwards game config for blackjack and the
    hold'em games), so the 4-player count is set with the public
    ``env.game.configure({"game_num_players": 4})``. Per game:
    ``env.seed(seed)`` (reseeds the game's shuffle RNG),
    ``rng = random.Random(seed)``, ``env.game.init_game()``, then
    ``while not game.is_over(): game.step(rng.choice(game.get_legal_actions()))``.
    This game-level loop is the cheapest faithful one: ``env.run`` with
    ``RandomAgent`` adds numpy observation encoding per step and uses
    ``env.num_players``, which stays 2.

Why this is fair: every loop does the same kind of work through a public
API (a fresh deal, legal-move generation, one uniform choice per decision,
applying it, testing for the end). The Python loops draw from the same
``random.Random`` and have identical bookkeeping (one counter increment per
step); the C++ row shows how far OpenSpiel gets without Python. The
games differ (Elfer raus!, Crazy Eights, UNO), so games/s depends on game
length too; actions/game and µs/action show the per-decision cost. An
"action" is one player decision; chance steps are counted separately.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

# One complete game for a seed -> (player actions or None if unknown, chance steps).
PlayFn = Callable[[int], tuple[int | None, int]]

PLAYERS = 4
WARMUP_SEED = 1_000_000
ROLLOUT_BATCH = 1000  # games per call of the elferraus-rollouts row


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def setup_elferraus() -> PlayFn:
    from elferraus import Game

    def play(seed: int) -> tuple[int | None, int]:
        game = Game.deal(players=PLAYERS, seed=seed)
        rng = random.Random(seed)
        actions = 0
        while not game.is_over():
            game.push(rng.choice(game.legal_moves()))
            actions += 1
        return actions, 0

    return play


def _crazy_eights() -> tuple[Any, Any]:  # pyspiel ships no type stubs
    import pyspiel

    return pyspiel, pyspiel.load_game("crazy_eights", {"players": PLAYERS})


def _sample(outcomes: list[tuple[int, float]], r: float) -> int:
    """Inverse-CDF draw from OpenSpiel's (outcome, probability) list, r in [0, 1)."""
    for outcome, prob in outcomes:
        r -= prob
        if r < 0.0:
            return outcome
    return outcomes[-1][0]  # r left over by rounding


def setup_openspiel() -> PlayFn:
    _, game = _crazy_eights()

    def play(seed: int) -> tuple[int | None, int]:
        state = game.new_initial_state()
        rng = random.Random(seed)
        actions = chance = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(_sample(state.chance_outcomes(), rng.random()))
                chance += 1
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                actions += 1
        return actions, chance

    return play


def setup_openspiel_numpy() -> PlayFn:
    import numpy as np

    _, game = _crazy_eights()

    def play(seed: int) -> tuple[int | None, int]:
        state = game.new_initial_state()
        rng = random.Random(seed)
        np_rng = np.random.RandomState(seed)
        actions = chance = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(np_rng.choice(outcomes, p=probs)))
                chance += 1
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                actions += 1
        return actions, chance

    return play


def setup_openspiel_cpp() -> PlayFn:
    pyspiel, game = _crazy_eights()

    def play(seed: int) -> tuple[int | None, int]:
        bots = [pyspiel.make_uniform_random_bot(p, seed) for p in range(PLAYERS)]
        pyspiel.evaluate_bots(game.new_initial_state(), bots, seed)
        return None, 0

    return play


def setup_elferraus_rollouts() -> PlayFn:
    from elferraus._core import random_playouts

    def play(seed: int) -> tuple[int | None, int]:
        _, actions = random_playouts(ROLLOUT_BATCH, PLAYERS, seed)
        return actions, 0

    return play


def setup_rlcard() -> PlayFn:
    import rlcard

    env = rlcard.make("uno", config={"seed": 0, "game_num_players": PLAYERS})
    game = env.game
    game.configure({"game_num_players": PLAYERS})

    def play(seed: int) -> tuple[int | None, int]:
        env.seed(seed)
        rng = random.Random(seed)
        game.init_game()
        actions = 0
        while not game.is_over():
            game.step(rng.choice(game.get_legal_actions()))
            actions += 1
        return actions, 0

    play(0)
    if len(game.players) != PLAYERS:
        raise RuntimeError(f"RLCard uno dealt {len(game.players)} hands, not {PLAYERS}")
    return play


@dataclass(frozen=True)
class Contestant:
    key: str
    library: str
    dist: str  # distribution name for the version
    game: str
    setup: Callable[[], PlayFn]
    games_per_call: int = 1  # games one call of the PlayFn plays


CONTESTANTS = (
    Contestant("elferraus", "elferraus", "elferraus", "Elfer raus! classic, 4p", setup_elferraus),
    Contestant("openspiel", "OpenSpiel (Python loop)", "open_spiel", "crazy_eights, 4p", setup_openspiel),
    Contestant(
        "openspiel-numpy",
        "OpenSpiel (Python loop, numpy chance sampling)",
        "open_spiel",
        "crazy_eights, 4p",
        setup_openspiel_numpy,
    ),
    Contestant(
        "openspiel-cpp",
        "OpenSpiel (C++ evaluate_bots)",
        "open_spiel",
        "crazy_eights, 4p",
        setup_openspiel_cpp,
    ),
    Contestant(
        "elferraus-rollouts",
        "elferraus C playouts, random policy",
        "elferraus",
        "Elfer raus! classic, 4p",
        setup_elferraus_rollouts,
        games_per_call=ROLLOUT_BATCH,
    ),
    Contestant("rlcard", "RLCard (game API)", "rlcard", "uno, 4p", setup_rlcard),
)


@dataclass
class Result:
    key: str
    library: str
    version: str | None
    game: str
    status: str = "ok"  # "ok", "not installed" or "error: ..."
    games: int = 0
    seconds: float = 0.0
    actions: int | None = None  # player decisions over all timed games
    chance_steps: int = 0
    actions_estimated: bool = False  # openspiel-cpp: taken from the openspiel row

    @property
    def games_per_s(self) -> float | None:
        return self.games / self.seconds if self.seconds else None

    @property
    def actions_per_game(self) -> float | None:
        return self.actions / self.games if self.actions is not None and self.games else None

    @property
    def chance_steps_per_game(self) -> float | None:
        return self.chance_steps / self.games if self.chance_steps and self.games else None

    @property
    def us_per_action(self) -> float | None:
        return self.seconds / self.actions * 1e6 if self.actions else None

    def to_json(self) -> dict[str, object]:
        return {
            **asdict(self),
            "games_per_s": self.games_per_s,
            "actions_per_game": self.actions_per_game,
            "chance_steps_per_game": self.chance_steps_per_game,
            "us_per_action": self.us_per_action,
        }


def measure(
    play: PlayFn, result: Result, max_games: int, max_seconds: float, warmup: float, games_per_call: int = 1
) -> None:
    """Untimed warm-up, then seeds 0, 1, ... (one per call) until max_games or max_seconds."""
    seed = WARMUP_SEED
    deadline = time.perf_counter() + warmup
    while time.perf_counter() < deadline:
        play(seed)
        seed += 1
    games = calls = chance_steps = 0
    actions: int | None = 0
    start = now = time.perf_counter()
    while games < max_games and now - start < max_seconds:
        n, chance = play(calls)
        actions = None if n is None or actions is None else actions + n
        chance_steps += chance
        games += games_per_call
        calls += 1
        now = time.perf_counter()
    result.games, result.seconds = games, now - start
    result.actions, result.chance_steps = actions, chance_steps


def run(c: Contestant, max_games: int, max_seconds: float, warmup: float) -> Result:
    result = Result(c.key, c.library, None, c.game)
    try:
        play = c.setup()
        result.version = _version(c.dist)
        measure(play, result, max_games, max_seconds, warmup, c.games_per_call)
    except ModuleNotFoundError as exc:  # (a bad name inside a module is an error)
        print(f"{c.key}: not installed ({exc})", file=sys.stderr)
        result.status = "not installed"
    except Exception as exc:  # report it, go on with the others
        result.status = f"error: {type(exc).__name__}: {exc}"
    return result


def _reference(results: list[Result]) -> Result | None:
    return next((r for r in results if r.key == "openspiel" and r.status == "ok"), None)


def _fmt(value: float | None, spec: str, prefix: str = "", suffix: str = "") -> str:
    return "-" if value is None else f"{prefix}{value:{spec}}{suffix}"


def markdown(results: list[Result]) -> str:
    ref = _reference(results)
    ref_rate = ref.games_per_s if ref else None
    lines = [
        "| library | game | games/s | actions/game | chance steps/game | µs/action | games/s vs OpenSpiel (Python) |",
        "|---|---|--:|--:|--:|--:|--:|",
    ]
    for r in results:
        name = f"{r.library} {r.version}" if r.version else r.library
        if r.status != "ok":
            lines.append(f"| {name} | {r.game} | {r.status} | - | - | - | - |")
            continue
        approx = "~" if r.actions_estimated else ""
        rate = r.games_per_s
        ratio = rate / ref_rate if rate is not None and ref_rate else None
        lines.append(
            f"| {name} | {r.game} | {_fmt(rate, ',.0f')} "
            f"| {_fmt(r.actions_per_game, '.1f', approx)} "
            f"| {_fmt(r.chance_steps_per_game, '.1f')} "
            f"| {_fmt(r.us_per_action, '.2f', approx)} | {_fmt(ratio, '.2f', suffix='x')} |"
        )
    elf = next((r for r in results if r.key == "elferraus" and r.status == "ok"), None)
    if elf and elf.games_per_s is not None and ref_rate:
        ratio = elf.games_per_s / ref_rate
        lines += ["", f"elferraus / OpenSpiel (Python loop): {ratio:.2f}x games/s"]
    rollouts = next((r for r in results if r.key == "elferraus-rollouts" and r.status == "ok"), None)
    cpp = next((r for r in results if r.key == "openspiel-cpp" and r.status == "ok"), None)
    if rollouts and cpp and rollouts.games_per_s is not None and cpp.games_per_s:
        ratio = rollouts.games_per_s / cpp.games_per_s
        lines += ["", f"elferraus C playouts / OpenSpiel (C++ evaluate_bots): {ratio:.2f}x games/s"]
    return "\n".join(lines)


def pin_to_cpu(cpu: int) -> list[int]:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {cpu})
        return sorted(os.sched_getaffinity(0))
    return []


def main(argv: list[str] | None = None) -> int:
    keys = [c.key for c in CONTESTANTS]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000, help="max games per contestant")
    parser.add_argument("--seconds", type=float, default=10.0, help="max seconds per contestant")
    parser.add_argument("--warmup", type=float, default=1.0, help="warm-up seconds per contestant")
    parser.add_argument("--cpu", type=int, default=0, help="core to pin the process to")
    parser.add_argument("--only", default=",".join(keys), help=f"comma list of {keys}")
    parser.add_argument("--json", metavar="OUT", help="also write the results as JSON")
    args = parser.parse_args(argv)
    chosen = [k.strip() for k in args.only.split(",") if k.strip()]
    unknown = sorted(set(chosen) - set(keys))
    if unknown:
        parser.error(f"unknown contestants: {unknown}")

    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    cpus = pin_to_cpu(args.cpu)

    results: list[Result] = []
    for c in CONTESTANTS:
        if c.key in chosen:
            print(f"running {c.key} ...", file=sys.stderr, flush=True)
            results.append(run(c, args.games, args.seconds, args.warmup))

    ref = _reference(results)
    for r in results:
        if r.key == "openspiel-cpp" and r.status == "ok" and ref and ref.actions is not None:
            r.actions = round(ref.actions / ref.games * r.games)
            r.actions_estimated = True

    print(markdown(results))
    if args.json:
        report = {
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "cpu_affinity": cpus,
            "settings": {
                "games": args.games,
                "seconds": args.seconds,
                "warmup": args.warmup,
                "players": PLAYERS,
            },
            "results": [r.to_json() for r in results],
        }
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(report, fh, indent=2)
            fh.write("\n")
    return 1 if any(r.status.startswith("error") for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
