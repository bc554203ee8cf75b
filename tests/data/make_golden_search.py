"""Write ``golden-search.jsonl``: games of the search players (``hard``, ``expert``), move by move.

Run from the repository root, with the engine installed::

    .venv/bin/python -m tests.data.make_golden_search

Each line is one game of :func:`elferraus.bots.simulate.simulate_game` (seeded deal, seeded players). The
search players decide by sampling, so any change to how they draw their samples, to the playouts or to
their stopping rule changes these games; ``tests/bots/test_bots.py`` plays them again and compares byte for
byte. A change meant to make them faster, not different, must leave this file as it is. Regenerate it only
for a deliberate change of how they play, and measure their strength again.
"""

from __future__ import annotations

from pathlib import Path

from elferraus import Rules, dumps_record
from elferraus.bots.simulate import simulate_game

GOLDEN_SEARCH_GAMES: list[tuple[Rules, tuple[str, ...], int]] = [
    # (rules, the player of each seat, seed)
    (Rules.preset("classic"), ("expert", "greedy", "medium", "greedy"), 11),
    (Rules.preset("classic"), ("hard", "expert", "random"), 12),
    (Rules.preset("ravensburger"), ("expert", "medium", "hard", "greedy"), 13),
    (Rules(after_draw="continue", max_draws=2), ("hard", "greedy", "expert", "medium", "greedy"), 14),
]


def golden_search_lines() -> list[str]:
    """The lines of ``golden-search.jsonl``."""
    return [dumps_record(simulate_game(len(bots), seed, bots, rules)) for rules, bots, seed in GOLDEN_SEARCH_GAMES]


def main() -> None:
    path = Path(__file__).with_name("golden-search.jsonl")
    path.write_text("".join(line + "\n" for line in golden_search_lines()), encoding="utf-8")


if __name__ == "__main__":
    main()
