"""The population ``master`` is measured against, the settings, and the cells of each setting.

A **member** is named as the arena names its seat (``hoarder``,
``sampler:100ms``, ``openspiel-ismcts:100``, ``league:PATH``,
``cmd:python -m elferraus.envs.learned``); its ``spec`` is what the arena is
given (the learned player's program runs with this very Python). Its
**fingerprint** says which code plays it (a SHA-256 over the players'
modules and shipped networks) and which network file: a journal's games
count only for the same fingerprints, so a run taken up again never mixes
two versions of a player.

A **cell** is one table played on duplicate deals: ``solo:X`` is ``master``
against ``players - 1`` of ``X``, ``trio:X`` is ``players - 1`` masters
against one ``X`` (at two players it is the solo cell, and left out), and
``mixed:NN`` the round robin's table ``NN``, distinct members (master among
them) chosen by :func:`mixed_tables`.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import math
import random
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

MASTER = "master"
LEARNED = "cmd:python -m elferraus.envs.learned"
"""The first learned player, as the arena's documentation names its seat."""
ISMCTS = "openspiel-ismcts:100"
"""OpenSpiel's ISMCTS at 100 simulations a move: half the strength table's 200, about a quarter of a second a
move, so that its cells take hours rather than days."""
SAMPLER = "sampler:100ms"
BASE = (
    "random",
    "greedy",
    "easy",
    "medium",
    "hard",
    "expert",
    "expert-reads",
    "hoarder",
    "blocker",
    "tight-blocker",
    SAMPLER,
    LEARNED,
    ISMCTS,
    "league",
)
"""The population without the league's snapshots (``--snapshots`` adds them)."""
SNAPSHOTS = Path("benchmarks/results/league-snapshots")
"""The league's snapshots the population holds: copied from ``examples/league/results/snapshots/`` (which the
league thins out as it trains, and git does not keep) at updates 160, 220 and 280, and kept in git."""
STRONGEST = 5
"""The members that meet ``master`` at 2 and 6 players and under Ravensburger rules."""


@dataclass(frozen=True)
class Setting:
    """A table size and rules preset."""

    key: str
    players: int
    rules: str


SETTINGS = {
    "4p": Setting("4p", 4, "classic"),
    "2p": Setting("2p", 2, "classic"),
    "6p": Setting("6p", 6, "classic"),
    "ravensburger": Setting("ravensburger", 4, "ravensburger"),
}
HOME = SETTINGS["4p"]
"""The setting whose results choose the strongest members for the others."""


def spec_of(name: str) -> str:
    """What the arena is given for the member ``name``."""
    if name == LEARNED:
        return f"cmd:{shlex.quote(sys.executable)} -m elferraus.envs.learned"
    return name


def can_sit(name: str, setting: Setting) -> bool:
    """Whether the member plays this table (the learned player refuses every size but 4)."""
    return name != LEARNED or setting.players == 4


@functools.cache
def _file_hash(path: str) -> str:
    """The first 16 hex digits of the file's SHA-256, or ``missing`` (such a member cannot be seated)."""
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()[:16]
    except OSError:
        return "missing"


PLAYERS_CODE = ("bots", "rollout", "_core", "envs", "arena")
"""The package's folders whose code decides how a member plays (with the engine's modules at its root)."""


@functools.cache
def code_hash() -> str:
    """The first 16 hex digits of a SHA-256 over the players' code: every module of :data:`PLAYERS_CODE` and
    the engine's, by path and content (a change to any player's code makes every cell new)."""
    import elferraus

    package = Path(elferraus.__file__).parent
    files = sorted(
        [*package.glob("*.py"), *(path for folder in PLAYERS_CODE for path in (package / folder).rglob("*"))],
        key=lambda path: path.relative_to(package).as_posix(),
    )
    digest = hashlib.sha256()
    for path in files:
        if path.is_file() and path.suffix in (".py", ".c", ".h", ".npz"):
            digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def fingerprint(name: str) -> str:
    """Which version of the member plays: the players' code (:func:`code_hash`, with the shipped networks), and
    for a ``league:PATH`` member its file's hash."""
    if name.startswith("league:"):
        return f"{code_hash()} {_file_hash(name.partition(':')[2])}"
    return code_hash()


def default_snapshots(folder: Path = SNAPSHOTS, count: int = 3) -> list[str]:
    """``count`` of the league's snapshots in ``folder``, spread from the oldest to the newest."""
    files = sorted(folder.glob("update-*.npz"))
    if len(files) <= count:
        return [str(path) for path in files]
    picked = sorted({round(i * (len(files) - 1) / (count - 1)) for i in range(count)})
    return [str(files[i]) for i in picked]


@dataclass(frozen=True)
class Cell:
    """One table of a setting, played on duplicate deals."""

    key: str
    kind: str
    """``solo``, ``trio`` or ``mixed``."""
    table: tuple[str, ...]
    """The member in each slot."""
    deals: int
    opponent: str = ""
    """The member ``master`` meets (solo and trio cells)."""


def cells(setting: Setting, population: list[str], deals: int, mixed_deals: int, tables: int, seed: int) -> list[Cell]:
    """Every cell of a setting: solo and trio per member, then the round robin's tables."""
    players = setting.players
    found = []
    for name in population:
        found.append(Cell(f"solo:{name}", "solo", (MASTER, *(name,) * (players - 1)), deals, name))
        if players > 2:
            found.append(Cell(f"trio:{name}", "trio", ((MASTER,) * (players - 1) + (name,)), deals, name))
    for number, table in enumerate(mixed_tables([MASTER, *population], players, tables, seed)):
        found.append(Cell(f"mixed:{number:02d}", "mixed", table, mixed_deals))
    return found


def mixed_tables(names: list[str], players: int, count: int, seed: int) -> list[tuple[str, ...]]:
    """The round robin's tables: every ``players``-subset of ``names`` when ``count`` is 0 and there are at most
    60, else ``count`` of them (0: enough for every pair to meet twice) chosen one by one to balance the pairs.

    Each next table is the subset whose pairs have met least so far (then whose members have sat least),
    ties broken in an order drawn from ``seed``; the members of a table keep the order of ``names``.

    >>> mixed_tables(["a", "b", "c", "d"], 2, 0, 1)
    [('a', 'b'), ('a', 'c'), ('a', 'd'), ('b', 'c'), ('b', 'd'), ('c', 'd')]
    >>> tables = mixed_tables([str(i) for i in range(9)], 3, 12, 1)  # a Steiner triple system exists: 12 tables
    >>> sorted({sum(1 for t in tables if a in t and b in t) for a, b in itertools.combinations("012345678", 2)})
    [1]
    """
    subsets = list(itertools.combinations(range(len(names)), players))
    if not subsets:
        return []
    if count == 0 and len(subsets) <= 60:
        return [tuple(names[i] for i in subset) for subset in subsets]
    if count == 0:
        count = math.ceil(2 * math.comb(len(names), 2) / math.comb(players, 2))
    order = list(range(len(subsets)))
    random.Random(seed).shuffle(order)
    rank = {index: position for position, index in enumerate(order)}
    met = [[0] * len(names) for _ in names]
    sat = [0] * len(names)
    chosen: list[tuple[int, ...]] = []
    used: set[int] = set()
    for _ in range(min(count, len(subsets))):

        def cost(index: int) -> tuple[int, int, int]:
            subset = subsets[index]
            pairs = sum(met[a][b] for a, b in itertools.combinations(subset, 2))
            return pairs, sum(sat[a] for a in subset), rank[index]

        best = min((i for i in order if i not in used), key=cost)
        used.add(best)
        chosen.append(subsets[best])
        for a, b in itertools.combinations(subsets[best], 2):
            met[a][b] += 1
            met[b][a] += 1
        for a in subsets[best]:
            sat[a] += 1
    return [tuple(names[i] for i in subset) for subset in chosen]
