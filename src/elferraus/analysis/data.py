"""The played tables as numpy columns, for the questions to measure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from elferraus.analysis.play import BatchResult
from elferraus.analysis.stats import Array, Estimate, clustered_share
from elferraus.analysis.store import columns_of


class StudyData:
    """Every table's games and seats, by table key (columns as numpy arrays, joined over its batches)."""

    def __init__(self, results: Mapping[str, Sequence[BatchResult]]) -> None:
        self._results = results
        self._cache: dict[tuple[str, str], dict[str, Array]] = {}

    def games(self, key: str) -> dict[str, Array]:
        """The game rows of table ``key``."""
        return self._columns(key, "games")

    def seats(self, key: str) -> dict[str, Array]:
        """The seat rows of table ``key``."""
        return self._columns(key, "seats")

    def alone_share(self, key: str) -> Estimate:
        """The win share per seat of the player in slot 0 of the duplicate table ``key`` (``one_against``'s
        player alone), its interval clustered by deal."""
        seats = self.seats(key)
        mine = seats["slot"] == 0
        return clustered_share(seats["won"][mine].astype(float), seats["deal"][mine])

    def records(self, key: str) -> list[str]:
        """The ``elferraus/1`` records (JSON lines) of table ``key``, which must keep them (``Table.records``)."""
        if key not in self._results:
            raise KeyError(f"the study played no table {key!r}")
        return [line for result in self._results[key] for line in result.records]

    def _columns(self, key: str, which: str) -> dict[str, Array]:
        if (key, which) not in self._cache:
            if key not in self._results:
                raise KeyError(f"the study played no table {key!r}")
            self._cache[key, which] = columns_of(self._results[key], which)
        return self._cache[key, which]
