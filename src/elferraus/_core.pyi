"""Types of the compiled core (``_core/``); semantics: :class:`elferraus._pystate.PyState`."""

from collections.abc import Iterable, Sequence
from typing import Self

from elferraus.moves import Move

class CoreState:
    @property
    def players(self) -> int: ...
    def __init__(
        self,
        hands: Sequence[int],
        pile: Sequence[int],
        colors: int,
        max_draws: int,
        must_play: bool,
        ends_after_draw: bool,
    ) -> None: ...
    @property
    def turn(self) -> int: ...
    def is_over(self) -> bool: ...
    def legal_moves(self) -> tuple[Move, ...]: ...
    def push(self, move: Move) -> None: ...
    def pop(self) -> Move: ...
    def _illegal(self, move: object) -> Exception: ...
    def _hand_mask(self, seat: int) -> int: ...
    def _hand_count(self, seat: int) -> int: ...
    def _fit_mask(self) -> int: ...
    def _winner_seat(self) -> int: ...
    def _pile_indices(self) -> tuple[int, ...]: ...
    def _pile_left(self) -> int: ...
    def _put_on_top(self, card: int) -> int: ...
    def _phase(self) -> tuple[int, int, int]: ...
    def _stack_size(self) -> int: ...
    def _stack_entry(self, index: int) -> tuple[Move, int, int, int, int]: ...
    def _copy_state(self, history: bool) -> Self: ...
    def _load_position(self, turn: int, laid: int, draws: int, last_drawn: int, fit: int) -> None: ...
    def __getstate__(self) -> object: ...
    def __setstate__(self, state: object) -> None: ...

def key_order(data: bytes, /) -> list[int]: ...
def mask_of(indices: Iterable[int], /) -> int: ...

# Rollouts: the same functions as elferraus.rollout (the reference), compiled.
def search(
    *,
    seat: int,
    hand: int,
    counts: Sequence[int],
    pile_count: int,
    unknown: int,
    weights: Sequence[Sequence[float] | None],
    fit: int,
    laid: int,
    draws: int,
    last_drawn: int,
    colors: int,
    max_draws: int,
    must_play: bool,
    ends_after_draw: bool,
    candidates: Sequence[int],
    policies: Sequence[int],
    samples: int,
    seed: int,
    time_limit: float = 0.0,
) -> tuple[list[tuple[int, int, int]], int]: ...
def search_rounds(
    *,
    seat: int,
    hand: int,
    counts: Sequence[int],
    pile_count: int,
    unknown: int,
    weights: Sequence[Sequence[float] | None],
    fit: int,
    laid: int,
    draws: int,
    last_drawn: int,
    colors: int,
    max_draws: int,
    must_play: bool,
    ends_after_draw: bool,
    candidates: Sequence[int],
    schedule: Sequence[tuple[Sequence[int], int]],
) -> list[tuple[int, ...]]: ...
def sample_deals(
    *,
    seat: int,
    hand: int,
    counts: Sequence[int],
    pile_count: int,
    unknown: int,
    weights: Sequence[Sequence[float] | None],
    samples: int,
    seed: int,
) -> list[tuple[tuple[int, ...], tuple[int, ...], int]]: ...
def playout(
    *,
    hands: Sequence[int],
    pile: Sequence[int],
    turn: int,
    fit: int,
    laid: int,
    draws: int,
    last_drawn: int,
    colors: int,
    max_draws: int,
    must_play: bool,
    ends_after_draw: bool,
    policies: Sequence[int],
    seed: int,
) -> list[int]: ...
def random_playouts(games: int, players: int, seed: int, policy: int = 0) -> tuple[int, int]: ...
