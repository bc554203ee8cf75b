"""The pure-Python twin of the compiled ``VecGames`` (``_core/vec.c``): one engine :class:`Game` per game.

It deals with the same generators and writes the same rows, so that a seed gives
the same games with or without the compiled core; the tests compare the two
number for number. It is what :class:`elferraus.vector.SelfPlay` runs on
where the core was not compiled (``ELFERRAUS_PURE=1``), about a thousand times slower.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from elferraus.actions import ACTION_COUNT, action_of, move_of
from elferraus.cards import CARDS, ELEVEN, NUMBERS
from elferraus.errors import NotationError
from elferraus.game import Game, cards_of
from elferraus.observation import SeatObserver
from elferraus.rollout.simulation import SplitMix64, shuffle
from elferraus.rules import Rules

MASK64 = (1 << 64) - 1
KEEP = -1
"""Not an action: the game stays as it is."""
REDEAL = -2
"""Not an action: the game is dealt again (its ``done`` set, no reward)."""


def derive(seed: int, k: int) -> int:
    """The seed of generator ``k`` of a run seeded ``seed`` (``derive`` in ``vec.c``)."""
    first = SplitMix64(k).next()
    return SplitMix64((seed & MASK64) ^ first).next()


class PyVecGames:
    """Many engine games behind the interface of the compiled ``VecGames``, writing into the same arrays."""

    def __init__(
        self,
        *,
        num_envs: int,
        rules: Rules,
        players: int,
        seed: int,
        obs: npt.NDArray[np.float32],
        mask: npt.NDArray[np.bool_],
        seat: npt.NDArray[np.int64],
        rewards: npt.NDArray[np.float32],
        done: npt.NDArray[np.bool_],
    ) -> None:
        self.rules = rules
        self.players = players
        self.hand_size = rules.cards_per_player(players)
        self._obs, self._mask, self._seat, self._rewards, self._done = obs, mask, seat, rewards, done
        self._observers: list[SeatObserver] = [SeatObserver(players, rules.max_draws) for _ in range(num_envs)]
        self._deal_rngs = [SplitMix64(derive(seed, 2 * i)) for i in range(num_envs)]
        self._action_rngs = [SplitMix64(derive(seed, 2 * i + 1)) for i in range(num_envs)]
        self._games: list[Game | None] = [None] * num_envs
        self.obs_size = int(obs.shape[1])
        self.finished = 0

    def _dealt(self, i: int) -> Game:
        self._observers[i] = SeatObserver(self.players, self.rules.max_draws)
        deck_size = self.rules.deck_size
        elevens = {colour * NUMBERS + ELEVEN - 1 for colour in range(len(self.rules.colors))}
        dealt = self.hand_size * self.players
        while True:
            deck = list(range(deck_size))
            shuffle(deck, self._deal_rngs[i])
            if elevens.intersection(deck[:dealt]):
                break
        hands = [[CARDS[c] for c in deck[s * self.hand_size : (s + 1) * self.hand_size]] for s in range(self.players)]
        return Game(hands, [CARDS[c] for c in deck[dealt:]], self.rules)

    def _game(self, i: int) -> Game:
        game = self._games[i]
        if game is None:
            raise RuntimeError("no game was dealt yet: call reset() first")
        return game

    def _write(self, i: int) -> None:
        game = self._game(i)
        seat = game.turn
        self._obs[i] = self._observers[i].observe(game, seat)
        self._mask[i] = False
        for move in game.legal_moves():
            self._mask[i, action_of(move)] = True
        self._seat[i] = seat

    def reset(self, seed: int | None = None) -> None:
        for i in range(len(self._games)):
            if seed is not None:
                self._deal_rngs[i] = SplitMix64(derive(seed, 2 * i))
                self._action_rngs[i] = SplitMix64(derive(seed, 2 * i + 1))
            self._games[i] = self._dealt(i)
            self._write(i)
            self._rewards[i] = 0.0
            self._done[i] = False
        self.finished = 0

    def step(self, actions: npt.NDArray[np.int64]) -> None:
        for i, action in enumerate(actions):
            game = self._game(i)
            if action in (KEEP, REDEAL):
                continue
            if not (0 <= action < ACTION_COUNT and game.is_legal(move_of(int(action)))):
                raise ValueError(
                    f"game {i}: action {int(action)} is not legal for seat {game.turn} (no game was stepped); "
                    "the mask says which are"
                )
        for i, action in enumerate(actions):
            if action in (KEEP, REDEAL):
                self._rewards[i] = 0.0
                self._done[i] = action == REDEAL
                if action == REDEAL:
                    self._games[i] = self._dealt(i)
                    self._write(i)
                continue
            game = self._game(i)
            game.push(move_of(int(action)))
            winner = game.winner
            if winner is not None:
                self._rewards[i] = -1.0 / (self.players - 1)
                self._rewards[i, winner] = 1.0
                self._done[i] = True
                self.finished += 1
                self._games[i] = self._dealt(i)
            else:
                self._rewards[i] = 0.0
                self._done[i] = False
            self._write(i)

    def random_actions(self, out: npt.NDArray[np.int64]) -> None:
        for i in range(len(self._games)):
            legal = self._game(i).legal_moves()  # lays by increasing card, then draw or pass: the order of vec.c
            move = legal[0] if len(legal) == 1 else legal[self._action_rngs[i].below(len(legal))]
            out[i] = action_of(move)

    def load(self, index: int, hands: Sequence[int], pile: Sequence[int]) -> None:
        self._check_index(index)
        try:
            game = Game([cards_of(mask) for mask in hands], [CARDS[c] for c in pile], self.rules)
        except NotationError as error:
            deck = self.rules.deck_size
            raise ValueError(
                f"the hands and the pile must hold each card of the {deck}-card deck once: {error}"
            ) from None
        self._games[index] = game
        self._observers[index] = SeatObserver(self.players, self.rules.max_draws)
        self._write(index)
        self._rewards[index] = 0.0
        self._done[index] = False

    def load_position(self, index: int, *_position: object) -> None:
        raise RuntimeError(
            "SelfPlay.load_position needs the compiled core (elferraus._core): the Python twin plays from deals only"
        )

    def _check_index(self, index: int) -> None:
        self._game(0)
        if not 0 <= index < len(self._games):
            raise IndexError(f"game {index} does not exist (0-{len(self._games) - 1})")

    def deal(self, index: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        self._check_index(index)
        dealt = self._game(index).dealt
        assert dealt is not None
        hands, pile = dealt
        return tuple(sum(1 << card.index for card in hand) for hand in hands), tuple(card.index for card in pile)

    def hands(self, out: npt.NDArray[np.float32]) -> None:
        out.fill(0.0)
        for i in range(len(self._games)):
            game = self._game(i)
            for slot in range(self.players):
                for card in game.hand((game.turn + slot) % self.players):
                    out[i, slot, card.index] = 1.0
            for card in game.pile():
                out[i, self.players, card.index] = 1.0
