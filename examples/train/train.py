#!/usr/bin/env python3
"""Train a player with sb3-contrib's MaskablePPO on the Gymnasium env, and export it for the arena.

    make train                      # set-up, training, plot and the arena figures
    python examples/train/train.py --steps 1500000 --out examples/train/out

It writes, into ``--out``:

- ``policy.npz``: the actor, for ``python -m elferraus.envs.learned policy.npz``;
- ``model.zip``: the whole MaskablePPO model (actor, critic, optimiser);
- ``curve.json`` and ``curve.png``: the win share per seat against three
  players of each level in ``--eval``, measured every ``--eval-every``
  steps on the same duplicate deals, with 95 % intervals.

The learner sees each legal action as a row of ``elferraus.envs.features``
and scores every row with one small shared network (``scorer.py``). Seats
are drawn anew for every episode; each environment plays against three
players of one level of ``--opponents``, the levels taken in turn.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scorer import FeatureRows, ScorerPolicy, export

import elferraus.gym  # noqa: F401 - registers elferraus/ElferRaus-v0
from elferraus.arena.stats import KindStats
from elferraus.bots import make_bot, seat_seed
from elferraus.bots.simulate import play_out
from elferraus.deal import derive_seed
from elferraus.envs.learned import LearnedBot, Network
from elferraus.game import Game
from elferraus.rules import Rules

EVAL_SEED = 7_000_000
"""The evaluation deals' seed, apart from the arena's usual seeds and from training's."""


def make_env(players: int, rules: str, level: str):  # type: ignore[no-untyped-def]
    def build() -> gymnasium.Env:
        return FeatureRows(gymnasium.make("elferraus/ElferRaus-v0", players=players, rules=rules, opponents=level))

    return build


def evaluate(path: Path, players: int, rules: Rules, level: str, deals: int) -> tuple[float, float, float]:
    """The saved policy's win share per seat against ``players - 1`` of ``level``, on duplicate deals."""
    network = Network.load(path)
    stats = KindStats("learned")
    for deal in range(deals):
        deal_seed = derive_seed(EVAL_SEED, deal)
        for learner in range(players):
            bots = [
                LearnedBot(network) if seat == learner else make_bot(level, seat_seed(deal_seed, seat))
                for seat in range(players)
            ]
            game = play_out(Game.deal(players, deal_seed, rules), bots)
            stats.add_seat(deal, game.winner == learner, game.penalties()[learner], False)
    return stats.win_share()


class Progress(BaseCallback):
    """A progress bar over the training steps, and the learning curve, measured as training goes."""

    def __init__(self, args: argparse.Namespace, out: Path) -> None:
        super().__init__()
        self.args = args
        self.out = out
        self.curve: list[dict[str, object]] = []
        self.started = time.perf_counter()
        self.next_eval = 0
        self.bar: tqdm | None = None

    def _on_training_start(self) -> None:
        self.bar = tqdm(total=self.args.steps, unit="step", unit_scale=True, dynamic_ncols=True)
        self._measure()

    def _on_step(self) -> bool:
        assert self.bar is not None
        self.bar.update(min(self.model.num_timesteps, self.args.steps) - self.bar.n)
        if self.model.num_timesteps >= self.next_eval:
            self._measure()
        return time.perf_counter() - self.started < 60 * self.args.minutes

    def _on_training_end(self) -> None:
        if self.curve[-1]["steps"] != self.model.num_timesteps:
            self._measure()
        assert self.bar is not None
        self.bar.close()

    def _measure(self) -> None:
        training = time.perf_counter() - self.started - sum(float(p["eval_seconds"]) for p in self.curve)
        began = time.perf_counter()
        path = export(self.model.policy, self.out / "policy.npz", self.args.players)
        point: dict[str, object] = {"steps": self.model.num_timesteps, "train_seconds": training}
        for level in self.args.eval:
            share, low, high = evaluate(
                path, self.args.players, Rules.preset(self.args.rules), level, self.args.eval_deals
            )
            point[level] = {"win_share": share, "ci95": [low, high]}
        point["eval_seconds"] = time.perf_counter() - began
        self.curve.append(point)
        self.next_eval = self.model.num_timesteps + self.args.eval_every
        (self.out / "curve.json").write_text(json.dumps(self._report(), indent=2) + "\n", encoding="utf-8")
        if self.bar is not None:
            shares = {level: point[level]["win_share"] for level in self.args.eval}  # type: ignore[index]
            self.bar.set_postfix({level: f"{100 * share:.0f}%" for level, share in shares.items()})

    def _report(self) -> dict[str, object]:
        return {"settings": {k: v for k, v in vars(self.args).items() if k != "out"}, "curve": self.curve}


def plot(curve: list[dict[str, object]], levels: list[str], players: int, path: Path) -> None:
    """The learning curve: win share per seat against each level over training steps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = np.array([point["steps"] for point in curve], float)
    figure, axes = plt.subplots(figsize=(7.5, 4.2), dpi=120)
    for level in levels:
        shares = np.array([point[level]["win_share"] for point in curve])  # type: ignore[index]
        lows = np.array([point[level]["ci95"][0] for point in curve])  # type: ignore[index]
        highs = np.array([point[level]["ci95"][1] for point in curve])  # type: ignore[index]
        axes.plot(steps, 100 * shares, marker="o", markersize=3, label=f"against three {level}")
        axes.fill_between(steps, 100 * lows, 100 * highs, alpha=0.2)
    axes.axhline(100 / players, color="grey", linestyle="--", linewidth=1, label=f"parity ({100 / players:.0f} %)")
    axes.set_xlabel("training steps (decisions of the learner)")
    axes.set_ylabel("win share per seat, %")
    axes.set_ylim(0, 100)
    axes.set_title("MaskablePPO with a shared action scorer: win share while learning")
    axes.grid(alpha=0.3)
    axes.legend(loc="lower right")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=500_000, help="training steps (learner decisions)")
    parser.add_argument("--minutes", type=float, default=55.0, help="stop earlier after this many minutes")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--opponents", default="random,greedy,medium", help="levels, one per environment in turn")
    parser.add_argument("--envs", type=int, help="environments stepped side by side (default: one per level)")
    parser.add_argument("--processes", action="store_true", help="step the environments in worker processes")
    parser.add_argument("--eval", default="random,greedy,medium", help="levels the learning curve is measured against")
    parser.add_argument("--eval-deals", type=int, default=50, help="duplicate deals per measurement")
    parser.add_argument("--eval-every", type=int, default=25_000, help="steps between measurements")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("examples/train/out"))
    args = parser.parse_args(argv)
    args.opponents = args.opponents.split(",")
    args.eval = args.eval.split(",")
    args.envs = args.envs or len(args.opponents)
    args.out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    builders = [make_env(args.players, args.rules, args.opponents[i % len(args.opponents)]) for i in range(args.envs)]
    venv: VecEnv = SubprocVecEnv(builders) if args.processes else DummyVecEnv(builders)
    venv.seed(args.seed)
    model = MaskablePPO(
        ScorerPolicy,
        venv,
        n_steps=1024,
        batch_size=512,
        n_epochs=4,
        learning_rate=1e-3,
        gamma=1.0,
        gae_lambda=0.95,
        ent_coef=0.003,
        seed=args.seed,
        verbose=0,
    )
    progress = Progress(args, args.out)
    model.learn(args.steps, callback=progress)
    model.save(args.out / "model.zip")
    plot(progress.curve, args.eval, args.players, args.out / "curve.png")
    last = progress.curve[-1]
    print(f"trained {last['steps']:,} steps in {float(last['train_seconds']) / 60:.1f} min (without measuring)")
    for level in args.eval:
        share = last[level]
        print(f"  against three {level}: {100 * share['win_share']:.1f} % per seat")  # type: ignore[index]
    print(f"wrote {args.out / 'policy.npz'}, model.zip, curve.json, curve.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
