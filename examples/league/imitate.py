#!/usr/bin/env python3
"""The league's first step: learn to play as the project's strongest plain player before learning by self-play.

    python examples/league/imitate.py --decisions 2000000 --out examples/league/out/imitated.npz

As AlphaStar's league began from a network trained on people's games, this one begins from the
``hoarder``'s: it holds every card back while the pile lasts and lays carefully when the rules make it lay,
and it beats every level a family plays against. Games are played on ``SelfPlay`` at every table of the
league, most seats taken by the teacher and the others by players of other styles (so that the teacher meets
many situations); the policy learns the teacher's choices (cross-entropy over the legal actions) and the
critic the games' outcomes from every recorded seat. Decisions with one legal move are not recorded.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))

from model import LeagueModel
from tables import TABLES, pad_hidden

from elferraus.actions import action_of, move_of
from elferraus.bots import Bot, make_bot, start_players
from elferraus.bots.network import HIDDEN_INPUTS, SLOTS, TABLE_INPUTS, table_input
from elferraus.game import Game
from elferraus.rules import table_rules
from elferraus.vector import SelfPlay

OTHERS = ("greedy", "medium", "blocker", "tight-blocker", "one-lay", "no-open", "easy", "random")


def generate(decisions: int, teacher: str, teacher_share: float, seed: int) -> dict[str, np.ndarray]:
    """Play games until ``decisions`` of the teacher's choices (with more than one legal move) are recorded."""
    rng = random.Random(seed)
    tables = []
    for index, (players, rules, share) in enumerate(TABLES):
        envs = max(8, round(192 * share))
        env = SelfPlay(envs, players, rules, seed * 100 + index)
        env.reset()
        tables.append((env, players, table_rules(players, rules), share))
    table_rows = np.zeros((decisions, TABLE_INPUTS), np.float16)
    hidden_rows = np.zeros((decisions, HIDDEN_INPUTS), np.uint8)
    masks = np.zeros((decisions, 82), np.bool_)
    actions = np.zeros(decisions, np.int64)
    targets = np.zeros((decisions, SLOTS), np.float32)
    pending: dict[tuple[int, int], list[tuple[int, int]]] = {}
    size = 0
    started = time.monotonic()

    def seat_game(table_index: int, env: SelfPlay, players: int, index: int) -> tuple[Game, dict[int, Bot], set[int]]:
        game = env.game(index)
        names = [teacher if rng.random() < teacher_share else rng.choice(OTHERS) for _ in range(players)]
        if teacher not in names:
            names[rng.randrange(players)] = teacher
        bots = {seat: make_bot(name, rng.getrandbits(62)) for seat, name in enumerate(names)}
        start_players(bots, game)
        return game, bots, {seat for seat, name in enumerate(names) if name == teacher}

    seated = [
        [seat_game(t, env, players, i) for i in range(env.num_envs)] for t, (env, players, _r, _s) in enumerate(tables)
    ]
    while size < decisions or pending:
        for table_index, (env, players, rules, _share) in enumerate(tables):
            chosen = np.empty(env.num_envs, np.int64)
            record = []
            for index, (game, bots, teachers) in enumerate(seated[table_index]):
                seat = game.turn
                view = game.view(seat)
                move = bots[seat].choose(view)
                chosen[index] = action_of(move)
                if seat in teachers and len(view.legal) > 1:
                    record.append(index)
            if record and size + len(record) <= decisions:  # then the games in progress are played to their end
                rows = np.array(record)
                table_rows[size : size + len(rows)] = table_input(env.obs[rows], players, rules)
                hidden_rows[size : size + len(rows)] = pad_hidden(env.hidden()[rows], players)
                masks[size : size + len(rows)] = env.mask[rows]
                actions[size : size + len(rows)] = chosen[rows]
                for offset, index in enumerate(record):
                    pending.setdefault((table_index, index), []).append((size + offset, int(env.seat[index])))
                size += len(rows)
            _obs, _mask, _seat, rewards, done = env.step(chosen)
            for index, (game, _bots, _teachers) in enumerate(seated[table_index]):
                game.push(move_of(int(chosen[index])))
            for index in np.flatnonzero(done).tolist():
                for row, seat in pending.pop((table_index, index), []):
                    targets[row, :players] = [rewards[index, (seat + slot) % players] for slot in range(players)]
                seated[table_index][index] = seat_game(table_index, env, players, index)
    keep = np.arange(decisions) < size  # every recorded game has ended: each row has its outcome
    elapsed = time.monotonic() - started
    print(f"recorded {int(keep.sum()):,} decisions of {teacher} in {elapsed:.0f} s", flush=True)
    return {
        "table": table_rows[keep],
        "hidden": hidden_rows[keep],
        "mask": masks[keep],
        "action": actions[keep],
        "target": targets[keep],
    }


def train(data: dict[str, np.ndarray], epochs: int, minibatch: int, lr: float, seed: int) -> LeagueModel:
    torch.manual_seed(seed)
    model = LeagueModel()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    count = len(data["action"])
    holdout = np.arange(count) % 20 == 0
    train_rows = np.flatnonzero(~holdout)
    test_rows = np.flatnonzero(holdout)

    def tensors(rows: np.ndarray) -> tuple[torch.Tensor, ...]:
        table = torch.from_numpy(data["table"][rows].astype(np.float32))
        critic = torch.from_numpy(
            np.concatenate([data["table"][rows], data["hidden"][rows]], axis=1).astype(np.float32)
        )
        return (
            table,
            critic,
            torch.from_numpy(data["mask"][rows]),
            torch.from_numpy(data["action"][rows]),
            torch.from_numpy(data["target"][rows]),
        )

    for epoch in range(epochs):
        order = np.random.default_rng(seed + epoch).permutation(train_rows)
        losses = []
        for start in range(0, len(order), minibatch):
            table, critic, mask, action, target = tensors(order[start : start + minibatch])
            logits = model.logits(table, mask)
            policy_loss = nn.functional.cross_entropy(logits, action)
            known = target != 0
            value_loss = ((model.values(critic) - target) ** 2 * known).sum() / known.sum().clamp(min=1)
            loss = policy_loss + 0.5 * value_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append((float(policy_loss.detach()), float(value_loss.detach())))
        with torch.no_grad():
            table, critic, mask, action, target = tensors(test_rows)
            agree = float((model.logits(table, mask).argmax(dim=1) == action).float().mean())
        policy_loss, value_loss = np.mean(losses, axis=0)
        print(
            f"epoch {epoch + 1}: policy loss {policy_loss:.3f}, value loss {value_loss:.3f}, "
            f"held-out agreement with the teacher {agree:.1%}",
            flush=True,
        )
    return model


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("examples/league/out/imitated.npz"))
    parser.add_argument("--decisions", type=int, default=1_000_000)
    parser.add_argument("--teacher", default="hoarder")
    parser.add_argument("--teacher-share", type=float, default=0.7, help="share of the seats the teacher takes")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--minibatch", type=int, default=1024)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    data = generate(args.decisions, args.teacher, args.teacher_share, args.seed)
    model = train(data, args.epochs, args.minibatch, args.lr, args.seed)
    model.export(args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
