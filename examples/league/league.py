#!/usr/bin/env python3
"""Train the league's player by self-play against a growing population, resumable, with its curves.

    make league                                   # set-up, imitation, then training for LEAGUE_HOURS
    python examples/league/league.py --start examples/league/out/imitated.npz --hours 2

It begins from the network ``imitate.py`` trained to play as the ``hoarder`` (as AlphaStar's league began
from people's games). The learner is one network for every table (2-6 players, classic, Ravensburger and
beginners' rules): a policy over the seat's information state (``elferraus.bots.network``) and a critic
that also sees the hidden cards (as PerfectDou's does), trained with PPO on ``elferraus.vector.SelfPlay``.
Half of its games are
against itself; in the others it takes one seat and the population the rest, each seat drawn by prioritized
fictitious self-play (the members it beats least, most often). The population holds the project's
players (the levels, the blockers, the hoarder, ``expert-reads``, a sampler) and the learner's own
snapshots, one added every ``--snapshot-every`` updates.

Every ``--eval-every`` updates the network alone (no search, its best action) plays 4-player classic
games against three of each kind in ``--eval``; the win shares go to ``curve.json`` and ``curve.png``.

It writes into ``--out`` (not kept in git): ``checkpoint.pt``, everything to go on with (the optimizer's state
too), after every update, and ``log.txt``. Every ``--publish-every`` updates it writes into ``--results``
(kept in git, so that another machine goes on from there): ``league.npz`` (the network, for
``elferraus.bots.network.LeagueNetwork``), ``state.json`` (the counters, the population and its results, the
curve), ``curve.json`` and ``curve.png``; and ``snapshots/`` (the population's snapshots, the policy alone in
float16, not kept in git: on another machine the population grows new ones). Started again, it goes on
from ``checkpoint.pt``, or without one from ``--results`` (with a new optimizer).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))

from model import LeagueModel
from tables import TABLES, Buffer, Member, Population, Tables, critic_rows, evaluate

from elferraus.bots.network import SLOTS, LeagueNetwork

MEMBERS = (
    # name, weight, the update it joins at: the searching players think 1-10 ms a move and keep the whole
    # batch waiting, so they sit at few tables, and only once the learner has left random play behind
    ("random", 0.5, 0),
    ("greedy", 0.5, 0),
    ("easy", 0.5, 0),
    ("medium", 1.0, 0),
    ("hoarder", 2.0, 0),
    ("blocker", 1.0, 0),
    ("tight-blocker", 1.0, 0),
    ("one-lay", 0.5, 0),
    ("no-open", 0.5, 0),
    ("hard", 0.1, 20),
    ("expert", 0.02, 40),
    ("expert-reads", 0.02, 40),
    ("sampler:10", 0.02, 40),
)

EVAL_KINDS = ("medium", "hoarder", "blocker", "tight-blocker", "expert")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("examples/league/out"))
    parser.add_argument("--results", type=Path, default=Path("examples/league/results"))
    parser.add_argument(
        "--start", type=Path, help="the network to begin from when nothing is to go on from (imitate.py's)"
    )
    parser.add_argument("--publish-every", type=int, default=10, help="updates between writes to --results")
    parser.add_argument("--keep-snapshots", type=int, default=12, help="the newest snapshots kept as members")
    parser.add_argument("--hours", type=float, default=2.0, help="stop after this much training in this run")
    parser.add_argument("--updates", type=int, default=0, help="stop at this many updates in all (0: no limit)")
    parser.add_argument("--envs", type=int, default=384, help="games stepped together, over all tables")
    parser.add_argument("--decisions", type=int, default=24_000, help="learner decisions per update")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--minibatch", type=int, default=2048)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--entropy", type=float, default=0.003)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--gae-lambda", type=float, default=0.95)
    parser.add_argument("--self-play", type=float, default=0.5, help="share of games the learner plays alone")
    parser.add_argument("--snapshot-every", type=int, default=20, help="updates between snapshots")
    parser.add_argument("--eval-every", type=int, default=10, help="updates between measurements")
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--eval", default=",".join(EVAL_KINDS), help="kinds measured against, comma-separated")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="PyTorch's threads")
    return parser.parse_args(argv)


class League:
    def __init__(
        self,
        args: argparse.Namespace,
        members: tuple[tuple[str, float, int], ...] = MEMBERS,
        tables: tuple[tuple[int, str, float], ...] = TABLES,
    ) -> None:
        self.args = args
        self.out: Path = args.out
        self.model = LeagueModel()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=args.lr)
        self.rng = random.Random(args.seed)
        self.members = [Member(name, bot=name, weight=weight, joins=joins) for name, weight, joins in members]
        self.update = 0
        self.decisions = 0
        self.games = 0
        self.seconds = 0.0
        self.curve: list[dict[str, object]] = []
        self.resume()
        self.population = Population(self.members, args.self_play, self.rng)
        self.population.update = self.update
        total = sum(share for *_, share in tables)
        self.tables = [
            Tables(
                index,
                players,
                rules,
                max(4, round(args.envs * share / total)),
                args.seed * 1000 + index + 1000 * self.update,
                self.population,
            )
            for index, (players, rules, share) in enumerate(tables)
        ]
        # The decisions of an update, and those of the games still running at its end (a game holds at most a
        # few hundred of them).
        self.buffer = Buffer(capacity=2 * args.decisions + 400 * args.envs)

    # -- checkpoints ---------------------------------------------------------

    def resume(self) -> None:
        path = self.out / "checkpoint.pt"
        if not path.exists():
            self.resume_from_results()
            return
        state = torch.load(path, weights_only=False)
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.members = [Member(**member) for member in state["members"]]
        self.update, self.decisions, self.games = state["update"], state["decisions"], state["games"]
        self.seconds = state["seconds"]
        self.curve = state["curve"]
        self.rng.setstate(state["rng"])
        self.log(f"resumed at update {self.update}: {self.decisions:,} decisions, {self.seconds / 3600:.2f} h")

    def resume_from_results(self) -> None:
        state_path = self.args.results / "state.json"
        if not state_path.exists():
            if self.args.start is not None:
                self.model.load_arrays(self.args.start)
                self.log(f"begins from {self.args.start}")
            return
        state = json.loads(state_path.read_text())
        self.model.load_arrays(self.args.results / "league.npz")
        self.members = [Member(**member) for member in state["members"]]
        missing = [member for member in self.members if member.snapshot and not Path(member.snapshot).exists()]
        for member in missing:
            member.weight = 0.0  # snapshots are not kept in git: the population grows them again
        if missing:
            self.log(f"{len(missing)} snapshots are not on this machine; new ones take their places")
        self.update, self.decisions, self.games = state["update"], state["decisions"], state["games"]
        self.seconds = state["seconds"]
        self.curve = state["curve"]
        self.rng.seed(f"{self.args.seed}:{self.update}")
        self.log(f"went on from {state_path} at update {self.update} (a new optimizer): {self.decisions:,} decisions")

    def publish(self) -> None:
        """Write what another machine needs to go on, and the curves, into --results."""
        results: Path = self.args.results
        results.mkdir(parents=True, exist_ok=True)
        self.model.export(results / "league.npz")
        state = {
            "format": "elferraus-league-state/1",
            "update": self.update,
            "decisions": self.decisions,
            "games": self.games,
            "seconds": self.seconds,
            "members": [member.state() for member in self.members],
            "curve": self.curve,
            "args": {key: str(value) for key, value in vars(self.args).items()},
        }
        partial = results / "state.partial.json"
        partial.write_text(json.dumps(state, indent=1))
        partial.replace(results / "state.json")
        (results / "curve.json").write_text(json.dumps(self.curve, indent=1))
        kept = {member.snapshot for member in self.members if member.snapshot and member.weight > 0}
        for old in (results / "snapshots").glob("*.npz"):
            if str(old) not in kept:
                old.unlink()

    def save(self) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        state = {
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "members": [member.state() for member in self.members],
            "update": self.update,
            "decisions": self.decisions,
            "games": self.games,
            "seconds": self.seconds,
            "curve": self.curve,
            "rng": self.rng.getstate(),
            "args": vars(self.args) | {"out": str(self.out)},
        }
        partial = self.out / "checkpoint.partial.pt"
        torch.save(state, partial)
        partial.replace(self.out / "checkpoint.pt")

    def log(self, line: str) -> None:
        stamp = time.strftime("%H:%M:%S")
        print(f"{stamp} {line}", flush=True)
        self.out.mkdir(parents=True, exist_ok=True)
        with (self.out / "log.txt").open("a") as log:
            log.write(f"{stamp} {line}\n")

    # -- training ------------------------------------------------------------

    def collect(self) -> None:
        """Step every table until enough of the learner's decisions belong to ended games."""
        while self.buffer.decisions() < self.args.decisions:
            for tables in self.tables:
                tables.step(self.model, self.buffer)

    def advantages(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every finished decision's index, GAE advantage (critic's slot 0, rewards at the end) and the
        critic's targets (the game's rewards from that seat on)."""
        indices = np.concatenate([np.array(seq, np.int64) for seq, _ in self.buffer.finished])
        with torch.no_grad():
            values = self.model.values(torch.from_numpy(critic_rows(self.buffer, indices)))[:, 0].numpy()
        advantages = np.zeros(len(indices), np.float32)
        targets = np.zeros((len(indices), SLOTS), np.float32)
        position = 0
        lam = self.args.gae_lambda
        for sequence, rewards in self.buffer.finished:
            count = len(sequence)
            value = values[position : position + count]
            following = np.append(value[1:], rewards[0])
            deltas = following - value
            running = 0.0
            for step in range(count - 1, -1, -1):
                running = deltas[step] + lam * running
                advantages[position + step] = running
            targets[position : position + count] = rewards
            position += count
        return indices, advantages, targets

    def learn(self) -> dict[str, float]:
        indices, advantages, targets = self.advantages()
        valid_slots = torch.from_numpy((targets != 0).any(axis=0, keepdims=True) | (np.arange(SLOTS) < 2))
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        table = torch.from_numpy(self.buffer.table[indices].astype(np.float32))
        critic = torch.from_numpy(critic_rows(self.buffer, indices))
        mask = torch.from_numpy(self.buffer.mask[indices])
        action = torch.from_numpy(self.buffer.action[indices])
        old_logp = torch.from_numpy(self.buffer.logp[indices])
        adv = torch.from_numpy(advantages)
        target = torch.from_numpy(targets)
        seat_known = target != 0
        stats = {"policy": 0.0, "value": 0.0, "entropy": 0.0, "clipped": 0.0}
        batches = 0
        for _ in range(self.args.epochs):
            order = torch.randperm(len(indices))
            for start in range(0, len(indices), self.args.minibatch):
                rows = order[start : start + self.args.minibatch]
                logits = self.model.logits(table[rows], mask[rows])
                distribution = torch.distributions.Categorical(logits=logits)
                logp = distribution.log_prob(action[rows])
                ratio = torch.exp(logp - old_logp[rows])
                clipped = torch.clamp(ratio, 1 - self.args.clip, 1 + self.args.clip)
                policy_loss = -torch.min(ratio * adv[rows], clipped * adv[rows]).mean()
                entropy = distribution.entropy().mean()
                values = self.model.values(critic[rows])
                known = seat_known[rows]
                value_loss = ((values - target[rows]) ** 2 * known).sum() / known.sum().clamp(min=1)
                loss = policy_loss - self.args.entropy * entropy + 0.5 * value_loss
                self.optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(self.model.parameters(), 0.5)
                self.optimizer.step()
                stats["policy"] += float(policy_loss.detach())
                stats["value"] += float(value_loss.detach())
                stats["entropy"] += float(entropy.detach())
                stats["clipped"] += float(((ratio - 1).abs() > self.args.clip).float().mean())
                batches += 1
        del valid_slots
        self.decisions += len(indices)
        return {name: value / batches for name, value in stats.items()}

    def snapshot(self) -> None:
        path = self.args.results / "snapshots" / f"update-{self.update:05d}.npz"
        self.model.export(path, policy_only=True, dtype=np.float16)
        member = Member(f"snapshot-{self.update}", snapshot=str(path), weight=1.0)
        member.load()
        self.members.append(member)  # the members' places are the tables' references: retired, never removed
        snapshots = [member for member in self.members if member.snapshot and member.weight > 0]
        for old in snapshots[: -self.args.keep_snapshots]:
            old.weight = 0.0
        self.log(f"snapshot {path.name} joins the population ({len(self.members)} members)")

    def measure(self) -> None:
        network = LeagueNetwork(self.model.arrays())
        point: dict[str, object] = {"update": self.update, "decisions": self.decisions, "hours": self.seconds / 3600}
        for kind in self.args.eval.split(","):
            games = (
                self.args.eval_games if kind not in ("expert", "expert-reads", "hard") else self.args.eval_games // 4
            )
            share, half = evaluate(network, kind, games, seed=7_000_000)
            point[kind] = {"share": share, "half_width": half, "games": games}
        self.curve.append(point)
        shares = ", ".join(f"{kind} {value['share']:.1%}" for kind, value in point.items() if isinstance(value, dict))
        self.log(f"measured at update {self.update}: {shares}")
        self.args.results.mkdir(parents=True, exist_ok=True)
        plot(self.curve, self.args.results / "curve.png")

    def run(self) -> None:
        torch.set_num_threads(self.args.threads)
        for tables in self.tables:
            tables.start()
        budget = self.args.hours * 3600
        started = time.monotonic()
        while time.monotonic() - started < budget and not 0 < self.args.updates <= self.update:
            tick = time.monotonic()
            before = sum(tables.games for tables in self.tables)
            self.collect()
            collected = time.monotonic() - tick
            stats = self.learn()
            self.buffer.compact()
            self.update += 1
            self.population.update = self.update
            self.games += sum(tables.games for tables in self.tables) - before
            elapsed = time.monotonic() - tick
            self.seconds += elapsed
            self.log(
                f"update {self.update}: {self.decisions:,} decisions, {self.games:,} games, "
                f"{self.args.decisions / elapsed:,.0f} decisions/s (collect {collected:.0f} s, learn "
                f"{elapsed - collected:.0f} s), entropy {stats['entropy']:.3f}, value loss {stats['value']:.3f}, "
                f"clipped {stats['clipped']:.2f}"
            )
            if self.update % self.args.snapshot_every == 0:
                self.snapshot()
            if self.update % self.args.eval_every == 0:
                self.measure()
            self.save()
            if self.update % self.args.publish_every == 0:
                self.publish()


def plot(curve: list[dict[str, object]], path: Path) -> None:
    """The win share against each kind over training, with 95 % intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(8, 4.5))
    kinds = sorted({key for point in curve for key, value in point.items() if isinstance(value, dict)})
    for kind in kinds:
        points = [(point["decisions"], point[kind]) for point in curve if kind in point]
        x = np.array([float(decisions) / 1e6 for decisions, _ in points])  # type: ignore[arg-type]
        y = np.array([value["share"] for _, value in points]) * 100  # type: ignore[index]
        half = np.array([value["half_width"] for _, value in points]) * 100  # type: ignore[index]
        axes.plot(x, y, marker="o", label=f"three {kind}")
        axes.fill_between(x, y - half, y + half, alpha=0.15)
    axes.axhline(25, color="grey", linestyle="--", linewidth=1, label="parity (25 %)")
    axes.set_xlabel("learner decisions trained on (millions)")
    axes.set_ylabel("win share of the network alone, one seat (%)")
    axes.set_title("The league's learner against three of each kind (4 players, classic)")
    axes.set_ylim(0, 100)
    axes.legend(fontsize=8, loc="upper left")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    League(parse_args(argv)).run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
