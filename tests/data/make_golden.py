"""Write ``golden.jsonl``: the golden game records of the record tests.

Run from the repository root, with the engine installed::

    .venv/bin/python -m tests.data.make_golden

Each line is one complete game, made exactly like this: deal with
``Game.deal(players, seed, rules)``, then, with ``rng = random.Random(seed)``,
push ``rng.choice(game.legal_moves())`` until the game is over, and write the
game with ``dumps_record`` (its only extra key is the ``seed`` that
``Game.deal`` stores). ``tests/engine/test_records.py`` replays every line and
plays every game again the same way, comparing byte for byte: a change of
the shuffle, of the rules, or of the order of ``legal_moves()`` shows up
there. Regenerate the file only for such a deliberate change.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from elferraus import Game, Rules, dumps_record

GOLDEN_GAMES: list[tuple[str, Rules, int, int]] = [
    # (name, rules, players, seed)
    ("classic", Rules.preset("classic"), 2, 101),
    ("classic", Rules.preset("classic"), 4, 102),
    ("classic", Rules.preset("classic"), 6, 103),
    ("ravensburger", Rules.preset("ravensburger"), 2, 201),
    ("ravensburger", Rules.preset("ravensburger"), 4, 202),
    ("ravensburger", Rules.preset("ravensburger"), 6, 203),
    ("beginners", Rules.preset("beginners"), 2, 301),
    ("beginners", Rules.preset("beginners"), 4, 302),
    ("beginners", Rules.preset("beginners"), 6, 303),
    ("continue", Rules(after_draw="continue"), 2, 401),
    ("continue", Rules(after_draw="continue"), 5, 402),
    ("max_draws-1", Rules(max_draws=1), 3, 501),
    ("max_draws-5", Rules(max_draws=5), 4, 502),
    ("hand_size-9", Rules(hand_size=9), 3, 601),
]


def play_golden(players: int, seed: int, rules: Rules) -> Game:
    """Deal and play one golden game."""
    game = Game.deal(players, seed, rules)
    rng = random.Random(seed)
    while not game.is_over():
        game.push(rng.choice(game.legal_moves()))
    return game


def golden_lines() -> list[str]:
    """The lines of ``golden.jsonl``."""
    return [dumps_record(play_golden(players, seed, rules)) for _, rules, players, seed in GOLDEN_GAMES]


def main() -> None:
    path = Path(__file__).with_name("golden.jsonl")
    path.write_text("".join(line + "\n" for line in golden_lines()), encoding="utf-8")
    sys.stdout.write(f"wrote {len(GOLDEN_GAMES)} records to {path}\n")


if __name__ == "__main__":
    main()
