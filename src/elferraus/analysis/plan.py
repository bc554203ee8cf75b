"""What the study plays: tables of computer players, their deals, and the batches they are played in.

A *table* is one cell of the study: so many players, one set of rules, one
player spec per slot, played on ``deals`` deals (in every seat rotation when
``rotations`` is set, the arena's duplicate deals). Deals come from a named
*stream*: tables on the same stream play the same deals, so that the study
compares players and rules on equal cards (common random numbers).

Everything a batch plays follows from its fields and the study seed, so a
batch gives the same games on any machine, in any process, in any order.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from dataclasses import asdict, dataclass

from elferraus.rules import Rules

FORMAT = "elferraus-analysis/1"
"""The version of the study's data and results; a change of play or columns changes it."""

LEVELS = ("random", "greedy", "medium", "expert")
"""The levels whose tables of equals the study plays."""

PLAYER_COUNTS = (2, 3, 4, 5, 6)

VARIANTS: dict[str, Rules] = {
    "classic": Rules(),
    "ravensburger": Rules.preset("ravensburger"),
    "beginners": Rules.preset("beginners"),
    "draws-1": Rules(max_draws=1),
    "draws-2": Rules(max_draws=2),
    "draws-unlimited": Rules(max_draws=80),
    "continue": Rules(after_draw="continue"),
}
"""The rules the study compares, by the name its results use (``draws-unlimited``: up to the whole pile)."""


@dataclass(frozen=True)
class Table:
    """One cell of the study."""

    key: str
    """Unique name, ``part/cell``, e.g. ``starter/greedy-4``; the folder of its games."""
    players: int
    variant: str
    """A key of :data:`VARIANTS`."""
    specs: tuple[str, ...]
    """The player of each slot: a level name, or ``holdback:R`` (see :mod:`elferraus.analysis.players`)."""
    deals: int
    stream: str
    """Tables on the same stream play the same deals."""
    rotations: bool = False
    """Play each deal once per seat rotation (every slot holds every hand once)."""
    batch: int = 100
    """Deals per batch: the unit of work, of progress and of the cache."""
    records: bool = False
    """Keep the games' records in memory when read back from the cache (a question replays them)."""

    @property
    def rules(self) -> Rules:
        """The rules of :attr:`variant`."""
        return VARIANTS[self.variant]

    @property
    def games(self) -> int:
        """Games the table plays in all."""
        return self.deals * (self.players if self.rotations else 1)

    def batches(self, seed: int) -> list[Batch]:
        """The table's deals cut into batches."""
        return [
            Batch(self, seed, first, min(self.batch, self.deals - first)) for first in range(0, self.deals, self.batch)
        ]


@dataclass(frozen=True)
class Batch:
    """Deals ``first`` to ``first + count - 1`` of one table, under one study seed."""

    table: Table
    seed: int
    first: int
    count: int

    @property
    def stream_id(self) -> int:
        """The number that keys the table's deal stream into the seed."""
        return zlib.crc32(self.table.stream.encode())

    @property
    def key(self) -> str:
        """A digest of everything that decides the batch's games (its cache name)."""
        # Not the table's deal total or batch size (a longer run reuses the batches a shorter one played), nor
        # whether its records are read back: neither changes a game.
        table = {key: value for key, value in asdict(self.table).items() if key not in ("deals", "batch", "records")}
        text = json.dumps([FORMAT, self.seed, table, self.first, self.count], sort_keys=True)
        return hashlib.blake2b(text.encode(), digest_size=10).hexdigest()

    @property
    def name(self) -> str:
        """The batch's file name stem: its first deal and its key."""
        return f"{self.first:06d}-{self.key}"


@dataclass(frozen=True)
class Sizes:
    """How many deals each kind of table plays: :data:`FULL` for the study, :data:`QUICK` to try it."""

    redeal_deals: int
    """Shuffles per player count for the simulated redeal rate."""
    equal_deals: dict[int, int]
    """Deals of a table of equal fast players, by player count (about ±1 point on the starter's share)."""
    expert_equal_deals: dict[int, int]
    """The same for a table of ``expert`` players, only at the player counts it names: an ``expert``
    game costs about a thousand fast ones, so the study seats equal experts where it matters most."""
    duplicate_deals: int
    """Deals of a duplicate table of fast players (each played in every rotation)."""
    expert_duplicate_deals: int
    """Deals of a duplicate table with an ``expert`` in it."""
    rules_deals: int
    """Deals of a table of equals under each compared rule set."""
    master_equal_deals: int
    """Deals of a table of ``master`` players under each rule set (their every turn is read)."""
    master_duplicate_deals: int
    """Deals of ``master`` and the hoarder each alone against three of the other (each in every rotation)."""
    fast_batch: int = 100
    expert_batch: int = 2


FULL = Sizes(
    redeal_deals=200_000,
    equal_deals={2: 9_604, 3: 8_537, 4: 7_203, 5: 6_147, 6: 5_336},
    expert_equal_deals={4: 600},
    duplicate_deals=1_500,
    expert_duplicate_deals=150,
    rules_deals=5_000,
    master_equal_deals=100,
    master_duplicate_deals=50,
)

QUICK = Sizes(
    redeal_deals=4_000,
    equal_deals=dict.fromkeys(PLAYER_COUNTS, 40),
    expert_equal_deals={4: 1},
    duplicate_deals=12,
    expert_duplicate_deals=1,
    rules_deals=30,
    master_equal_deals=1,
    master_duplicate_deals=1,
    fast_batch=20,
    expert_batch=1,
)


SEARCHERS = ("expert", "master")
"""The levels whose games cost about a thousand fast ones: played in small batches."""


def equal_table(
    part: str, level: str, players: int, deals: int, sizes: Sizes, variant: str = "classic", *, records: bool = False
) -> Table:
    """A table of ``players`` equal ``level`` players on the stream shared by every table of equals."""
    batch = sizes.expert_batch if level in SEARCHERS else sizes.fast_batch
    suffix = "" if variant == "classic" else f"-{variant}"
    return Table(
        f"{part}/{level}-{players}{suffix}",
        players,
        variant,
        (level,) * players,
        deals,
        f"equal-{players}-{variant}",
        batch=batch,
        records=records,
    )


def one_against(
    part: str, spec: str, field: str, players: int, deals: int, sizes: Sizes, variant: str = "classic"
) -> Table:
    """``spec`` in one slot against ``players - 1`` of ``field``, on duplicate deals."""
    batch = sizes.expert_batch if {spec, field} & set(SEARCHERS) else max(1, sizes.fast_batch // players)
    suffix = "" if variant == "classic" else f"-{variant}"
    return Table(
        f"{part}/{spec}-vs-{field}-{players}{suffix}",
        players,
        variant,
        (spec,) + (field,) * (players - 1),
        deals,
        f"duplicate-{players}-{variant}",
        rotations=True,
        batch=batch,
    )
