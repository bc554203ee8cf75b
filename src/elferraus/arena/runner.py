"""Duplicate-deal matches between players, in parallel worker processes.

Every deal is played once per seat rotation: in rotation ``r`` seat ``s``
is taken by the player of slot ``(s + r) % players``, so each player holds
each hand of the deal once. A game's randomness comes only from the arena
seed: deal ``d`` uses ``derive_seed(seed, d)``, and the player at seat ``s``
is seeded ``seat_seed(deal_seed, s)``, the rule of every table
(:func:`elferraus.bots.seat_seed`).
"""

from __future__ import annotations

import atexit
import multiprocessing
import signal
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing.pool import Pool
from typing import Any

from elferraus.arena.players import ForfeitError, Player, make_player
from elferraus.arena.stats import KindStats, Ratings, rank_of_result
from elferraus.bots import play_turns, seat_seed
from elferraus.deal import derive_seed
from elferraus.game import Game
from elferraus.record import write_record
from elferraus.rules import Rules


@dataclass(frozen=True)
class ArenaConfig:
    """What to play."""

    specs: tuple[str, ...]
    """One player spec per slot (a level name or ``cmd:PROGRAM``)."""
    deals: int
    seed: int = 0
    rules: Rules = field(default_factory=Rules)
    move_time: float = 5.0
    """Seconds an external player may think per move."""
    records: bool = False

    @property
    def players(self) -> int:
        """Seats at the table."""
        return len(self.specs)


@dataclass
class GameResult:
    """One game of one deal and rotation."""

    deal: int
    rotation: int
    specs: list[str]
    """The spec in each seat."""
    winner: int | None
    penalties: list[int] | None
    forfeit: tuple[int, str] | None
    latencies: list[list[float]]
    """Per seat, the seconds of each decision."""
    record: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The result as JSON-ready data (:meth:`from_json` reads it back)."""
        return {
            "deal": self.deal,
            "rotation": self.rotation,
            "specs": self.specs,
            "winner": self.winner,
            "penalties": self.penalties,
            "forfeit": list(self.forfeit) if self.forfeit is not None else None,
            "latencies": self.latencies,
            "record": self.record,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameResult:
        """A result written by :meth:`to_json`."""
        forfeit = data["forfeit"]
        return cls(
            deal=int(data["deal"]),
            rotation=int(data["rotation"]),
            specs=[str(spec) for spec in data["specs"]],
            winner=data["winner"],
            penalties=data["penalties"],
            forfeit=(int(forfeit[0]), str(forfeit[1])) if forfeit is not None else None,
            latencies=[[float(t) for t in seat] for seat in data["latencies"]],
            record=data.get("record"),
        )


_WORKER_PLAYERS: dict[tuple[int, str], Player] = {}


def _player(slot: int, spec: str, move_time: float) -> Player:
    key = (slot, spec)
    if key not in _WORKER_PLAYERS:
        if not _WORKER_PLAYERS:
            atexit.register(close_players)
        _WORKER_PLAYERS[key] = make_player(spec, move_time=move_time)
    return _WORKER_PLAYERS[key]


def close_players() -> None:
    """Stop every player this process started."""
    for player in _WORKER_PLAYERS.values():
        player.close()
    _WORKER_PLAYERS.clear()


def play_game(config: ArenaConfig, deal: int, rotation: int) -> GameResult:
    """Play deal ``deal`` in seat rotation ``rotation``."""
    players = config.players
    deal_seed = derive_seed(config.seed, deal)
    slots = [(seat + rotation) % players for seat in range(players)]
    specs = [config.specs[slot] for slot in slots]
    seats = [_player(slot, config.specs[slot], config.move_time) for slot in slots]
    game = Game.deal(players, deal_seed, config.rules)
    latencies: list[list[float]] = [[] for _ in range(players)]
    forfeit: tuple[int, str] | None = None
    seat = 0
    try:
        for seat, player in enumerate(seats):
            player.start_game(seat, players, config.rules, seat_seed(deal_seed, seat))
        seat = -1  # from here on the seat at fault is the one to move
        play_turns(game, dict(enumerate(seats)), lambda mover, move, thought: latencies[mover].append(thought))
    except ForfeitError as error:
        forfeit = (game.turn if seat < 0 else seat, str(error))
    result = None if game.winner is None else {"winner": game.winner, "penalties": game.penalties()}
    for player in seats:
        player.end_game(result)
    record = None
    if config.records:
        game.metadata.update({"bots": specs, "deal": deal + 1, "rotation": rotation, "seed": deal_seed})
        if forfeit is not None:
            game.metadata["forfeit"] = {"seat": forfeit[0], "reason": forfeit[1]}
        record = write_record(game)
    return GameResult(
        deal=deal,
        rotation=rotation,
        specs=specs,
        winner=game.winner,
        penalties=game.penalties() if game.is_over() else None,
        forfeit=forfeit,
        latencies=latencies,
        record=record,
    )


def _play_deal(task: tuple[ArenaConfig, int]) -> list[GameResult]:
    config, deal = task
    return [play_game(config, deal, rotation) for rotation in range(config.players)]


def run_arena(config: ArenaConfig, jobs: int = 1, deals: Iterable[int] | None = None) -> Iterator[GameResult]:
    """Play every deal in every rotation; results come in deal order.

    ``deals`` picks some of the config's deal numbers (a run taken up again
    plays only the deals it has no results for); the default is all of them.
    """
    chosen = range(config.deals) if deals is None else sorted(set(deals))
    tasks = [(config, deal) for deal in chosen if 0 <= deal < config.deals]
    if jobs <= 1:
        try:
            for task in tasks:
                yield from _play_deal(task)
        finally:
            close_players()
        return
    with _pool(jobs) as pool:
        for results in pool.imap(_play_deal, tasks, chunksize=1):
            yield from results


def _pool(jobs: int) -> Pool:
    """``jobs`` worker processes that ignore Ctrl-C from their start, which a terminal sends to the whole
    process group: the process that runs the arena answers it (and ends its pool), so that no worker prints
    a traceback of its own, not even one still starting."""
    context = multiprocessing.get_context("spawn")
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # inherited by the workers as they start
    except ValueError:  # not the main thread: Ctrl-C is not this caller's to handle
        return context.Pool(jobs)
    try:
        return context.Pool(jobs)
    finally:
        signal.signal(signal.SIGINT, previous)


@dataclass
class Summary:
    """What an arena run found, per kind of player."""

    config: ArenaConfig
    kinds: dict[str, KindStats]
    games: int = 0
    forfeits: list[tuple[int, int, str, str]] = field(default_factory=list)
    """(deal, rotation, spec, reason) of every forfeited game."""
    ratings: Ratings | None = None
    seconds: float = 0.0


def summarize(
    config: ArenaConfig,
    results: Iterator[GameResult],
    on_game: Callable[[GameResult], None] | None = None,
) -> Summary:
    """Fold game results into per-kind statistics (and ratings for pools of 3+ kinds)."""
    started = time.perf_counter()
    kinds = {spec: KindStats(spec) for spec in config.specs}
    rated = len(kinds) > 2
    summary = Summary(config, kinds, ratings=Ratings() if rated else None)
    for result in results:
        summary.games += 1
        for seat, spec in enumerate(result.specs):
            penalty = result.penalties[seat] if result.penalties is not None else None
            forfeited = result.forfeit is not None and result.forfeit[0] == seat
            kinds[spec].add_seat(result.deal, result.winner == seat, penalty, forfeited)
            kinds[spec].latencies.extend(result.latencies[seat])
        if result.forfeit is not None:
            seat, reason = result.forfeit
            summary.forfeits.append((result.deal, result.rotation, result.specs[seat], reason))
        if summary.ratings is not None and result.penalties is not None:
            summary.ratings.add_game(_identities(result.specs), rank_of_result(result.winner, result.penalties))
        if on_game is not None:
            on_game(result)
    summary.seconds = time.perf_counter() - started
    return summary


def _identities(specs: Sequence[str]) -> list[str]:
    """Rating identities: a spec seated twice in one game is two instances."""
    seen: dict[str, int] = {}
    names = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        names.append(spec if seen[spec] == 1 else f"{spec} #{seen[spec]}")
    return names
