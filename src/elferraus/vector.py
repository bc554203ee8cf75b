"""Self-play at the speed of the compiled core: ``SelfPlay`` steps many games in one call.

>>> from elferraus.vector import SelfPlay
>>> env = SelfPlay(num_envs=64, players=4, rules="classic", seed=0)
>>> obs, mask, seat = env.reset()
>>> obs.shape, mask.shape, seat.shape
((64, 659), (64, 82), (64,))
>>> obs, mask, seat, rewards, done = env.step(env.random_actions())
>>> rewards.shape, done.shape
((64, 4), (64,))

- **Rows**: ``obs[i]`` is the information-state tensor of the seat to move in
  game ``i`` (``elferraus.observation``; the same layout as the
  OpenSpiel, PettingZoo and Gymnasium adapters), ``mask[i]`` its legal action
  ids (``elferraus.actions``), ``seat[i]`` that seat.
- **Rewards**: per seat, +1 for the winner and -1/(players - 1) for the others,
  in the step that ends a game; ``done[i]`` says so, and game ``i`` is dealt
  again at once (its rows are already the new game's).
- **Seeding**: game ``i`` deals from its own generator, derived from the seed
  and ``i``; the same seed gives the same games.
- **Speed**: the compiled core steps every game with no Python work per
  game and the GIL released; the arrays are the environment's own, written
  over by the next call.

"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from elferraus import core
from elferraus._pyvector import KEEP, REDEAL, PyVecGames
from elferraus.actions import ACTION_COUNT
from elferraus.cards import ALL_COLORS, CARDS, NUMBERS, Card, Color
from elferraus.game import Game, cards_of
from elferraus.observation import History, Layout
from elferraus.rules import Rules, table_rules

Observation = npt.NDArray[np.float32]
Mask = npt.NDArray[np.bool_]
Seats = npt.NDArray[np.int64]


class _Games(Protocol):
    finished: int

    def reset(self, seed: int | None = None) -> None: ...
    def step(self, actions: npt.NDArray[np.int64]) -> None: ...
    def random_actions(self, out: npt.NDArray[np.int64]) -> None: ...
    def load(self, index: int, hands: Sequence[int], pile: Sequence[int]) -> None: ...
    def load_position(
        self,
        index: int,
        hands: Sequence[int],
        pile: Sequence[int],
        table: int,
        to_move: int,
        laid: int,
        draws: int,
        last_drawn: int,
        laid_by: Sequence[int],
        drew: Sequence[int],
        kept: Sequence[int],
    ) -> None: ...
    def deal(self, index: int) -> tuple[tuple[int, ...], tuple[int, ...]]: ...
    def hands(self, out: npt.NDArray[np.float32]) -> None: ...


def table_mask(rows: Mapping[Color, tuple[int, int]]) -> int:
    """The mask of the cards on the table, from its rows (each colour's lowest and highest number)."""
    mask = 0
    for color, (low, high) in rows.items():
        base = ALL_COLORS.index(color.value) * NUMBERS
        mask |= ((1 << (high - low + 1)) - 1) << (base + low - 1)
    return mask


@dataclass(frozen=True)
class Position:
    """A game in progress with every card known, as :meth:`SelfPlay.load_position` takes it: each seat's hand
    (a mask), the pile (card indices, top first), the cards on the table (a mask), the turn, and the history's
    pieces per seat (the cards it laid as a mask, its draws, the turns it ended keeping a drawn card that fit:
    ``History.counts()``; a position read without its history has table cards nobody is known to have laid)."""

    hands: tuple[int, ...]
    pile: tuple[int, ...]
    table: int
    to_move: int
    laid: int
    draws: int
    last_drawn: int
    laid_by: tuple[int, ...]
    drew: tuple[int, ...]
    kept: tuple[int, ...]

    @classmethod
    def of_game(cls, game: Game) -> Position:
        """The position of an engine game (all of it known)."""
        history = History(game.players, game.rules.max_draws)
        history.update(game.public_moves(None), game.pile_size())
        laid_by, drew, kept = history.counts()
        last = game.last_drawn
        return cls(
            hands=tuple(sum(1 << card.index for card in game.hand(seat)) for seat in range(game.players)),
            pile=tuple(card.index for card in game.pile()),
            table=table_mask(game.rows()),
            to_move=game.turn,
            laid=len(game.laid_this_turn()),
            draws=game.draws_this_turn,
            last_drawn=last.index if last is not None else -1,
            laid_by=tuple(laid_by),
            drew=tuple(drew),
            kept=tuple(kept),
        )


@dataclass(frozen=True)
class VecDeal:
    """The deal of one game: each seat's hand and the pile, top first (``Game(hands, pile, rules)``)."""

    hands: tuple[tuple[Card, ...], ...]
    pile: tuple[Card, ...]


class SelfPlay:
    """``num_envs`` games of ``players`` under ``rules``, stepped together; a game that ends is dealt again.

    Every call writes into arrays the environment owns and returns them: copy
    what you keep past the next call.

    - ``obs`` (num_envs, obs_size) float32: the information-state tensor of the
      seat to move (``elferraus.observation``, ``Layout(players, history=True)``);
    - ``mask`` (num_envs, 82) bool: its legal action ids (``elferraus.actions``);
    - ``seat`` (num_envs,) int64: the seat to move;
    - ``rewards`` (num_envs, players) float32: +1 for the winner and -1/(players - 1) for
      the others in a game that just ended, else 0;
    - ``done`` (num_envs,) bool: the game ended with that action (its row of ``obs``,
      ``mask`` and ``seat`` is already the new game's).

    Game ``i`` deals from its own generator, derived from ``seed`` and ``i``:
    the same seed always gives the same games. The compiled core runs them, with the
    GIL released; without it (``ELFERRAUS_PURE=1``) the engine's games do, alike
    number for number and much slower.

    Two values of an action are not moves: :attr:`KEEP` leaves a game as it is
    (for games whose seat to move waits for another player's choice), and
    :attr:`REDEAL` deals it again at once.
    """

    KEEP = KEEP
    REDEAL = REDEAL

    def __init__(self, num_envs: int, players: int = 4, rules: str | Rules = "classic", seed: int = 0) -> None:
        """Seed the games; :meth:`reset` deals them.

        Raises:
            ValueError: ``num_envs`` below 1, a player count not 2-6, an unknown preset.
        """
        if type(num_envs) is not int or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, not {num_envs!r}")
        self.rules = table_rules(players, rules)
        self.num_envs = num_envs
        self.players = players
        self.layout = Layout(players, history=True)
        self.obs_size = self.layout.size
        self.action_count = ACTION_COUNT
        self.obs: Observation = np.zeros((num_envs, self.obs_size), np.float32)
        self.mask: Mask = np.zeros((num_envs, ACTION_COUNT), np.bool_)
        self.seat: Seats = np.zeros(num_envs, np.int64)
        self.rewards = np.zeros((num_envs, players), np.float32)
        self.done = np.zeros(num_envs, np.bool_)
        self._actions = np.zeros(num_envs, np.int64)
        compiled = core.compiled()
        self._games: _Games
        if compiled is not None:
            self._games = compiled.VecGames(
                num_envs=num_envs,
                players=players,
                colors=len(self.rules.colors),
                max_draws=self.rules.max_draws,
                must_play=self.rules.must_play,
                ends_after_draw=self.rules.after_draw == "end",
                hand_size=self.rules.cards_per_player(players),
                seed=seed,
                obs=self.obs,
                mask=self.mask,
                seat=self.seat,
                rewards=self.rewards,
                done=self.done,
            )
        else:
            self._games = PyVecGames(
                num_envs=num_envs,
                rules=self.rules,
                players=players,
                seed=seed,
                obs=self.obs,
                mask=self.mask,
                seat=self.seat,
                rewards=self.rewards,
                done=self.done,
            )

    def reset(self, seed: int | None = None) -> tuple[Observation, Mask, Seats]:
        """Deal every game anew (from ``seed``'s generators when given, else the next deals of the current
        ones): ``(obs, mask, seat)``."""
        self._games.reset(seed)
        return self.obs, self.mask, self.seat

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[Observation, Mask, Seats, npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        """Make ``actions`` (one action id per game, or :attr:`KEEP` or :attr:`REDEAL`):
        ``(obs, mask, seat, rewards, done)``.

        Raises:
            RuntimeError: before the first :meth:`reset`.
            ValueError: an action that is not legal in its game (named with its
                game's index); no game moved.
        """
        chosen = np.ascontiguousarray(actions, dtype=np.int64)
        if chosen.shape != (self.num_envs,):
            raise ValueError(f"actions must be one action id per game, shape ({self.num_envs},), not {chosen.shape}")
        self._games.step(chosen)
        return self.obs, self.mask, self.seat, self.rewards, self.done

    def random_actions(self) -> npt.NDArray[np.int64]:
        """A uniformly random legal action for every game, from each game's own seeded generator (a new array)."""
        out = np.empty(self.num_envs, np.int64)
        self._games.random_actions(out)
        return out

    @property
    def finished(self) -> int:
        """Games that ended since the last reset."""
        return self._games.finished

    def deal(self, index: int) -> VecDeal:
        """The deal of game ``index``'s current game."""
        hands, pile = self._games.deal(index)
        return VecDeal(tuple(tuple(cards_of(hand)) for hand in hands), tuple(CARDS[card] for card in pile))

    def game(self, index: int) -> Game:
        """A new engine game from game ``index``'s deal (at its start)."""
        deal = self.deal(index)
        return Game(deal.hands, deal.pile, self.rules)

    def load(self, index: int, hands: Sequence[Sequence[Card]], pile: Sequence[Card]) -> None:
        """Start game ``index`` from a deal (each seat's hand, the pile top first), e.g. an engine game's
        ``dealt()``; its rows are written and its reward and done cleared.

        Raises:
            ValueError: the deal does not hold each card of the deck once, or no 11 is in a hand.
        """
        masks = [sum(1 << card.index for card in hand) for hand in hands]
        self._games.load(index, masks, [card.index for card in pile])

    def load_position(self, index: int, position: Position) -> None:
        """Put game ``index`` at ``position`` (a known deal in the middle of a game, e.g. a world sampled for
        one seat's view); its rows are written and its reward and done cleared. Games dealt there later come
        from its own generator.

        Raises:
            ValueError: the position is not one of this table (cards missing or twice, a turn that cannot be).
            RuntimeError: the core was not compiled (the Python twin plays from deals only).
        """
        self._games.load_position(
            index,
            position.hands,
            position.pile,
            position.table,
            position.to_move,
            position.laid,
            position.draws,
            position.last_drawn,
            position.laid_by,
            position.drew,
            position.kept,
        )

    def hidden(self, out: npt.NDArray[np.float32] | None = None) -> npt.NDArray[np.float32]:
        """Every seat's hand, from the seat to move's own on, and the pile: (num_envs, players + 1, 80).

        What no seat may see: for a critic that learns from the whole deal while
        training (as PerfectDou's does), never for a policy's input.
        """
        if out is None:
            out = np.empty((self.num_envs, self.players + 1, len(CARDS)), np.float32)
        self._games.hands(out)
        return out
