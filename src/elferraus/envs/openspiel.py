"""The OpenSpiel game behind :mod:`elferraus.openspiel`: the game, its states, observer and bots.

It sits beside what the frameworks share (actions, observations, worlds); the game is registered with
``pyspiel`` when this module is imported. Users import it by its public path, :mod:`elferraus.openspiel`,
whose docstring documents it (docs/research.md).
"""

from __future__ import annotations

import functools
import random
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from elferraus.actions import ACTION_COUNT, CARD_COUNT, DRAW_ACTION, MOVES, action_of, action_text, actions_of
from elferraus.bots import make_bot
from elferraus.cards import CARDS, ELEVEN, Card
from elferraus.envs.worlds import sample_world
from elferraus.game import Game
from elferraus.moves import DRAW, Move
from elferraus.observation import Layout, information_text, observation_text, write_view
from elferraus.rules import MAX_PLAYERS, MIN_PLAYERS, Rules, table_rules
from elferraus.view import SeatView

SHORT_NAME = "elfer_raus"
DEFAULT_PARAMETERS = {"players": 4, "rules": "classic"}

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Elfer raus!",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULT_PARAMETERS,
)


def max_game_length(players: int, rules: Rules) -> int:
    """The most decisions a game can take.

    Every card is laid at most once and drawn at most once, and each turn
    ends with at most one pass. A turn lays, draws, or (pile empty) passes
    with nothing to lay; of the last kind at most ``players - 1`` come in a
    row, since with the pile empty somebody can always lay.
    """
    deck = len(rules.colors) * 20
    pile = deck - players * rules.cards_per_player(players)
    turns = deck + pile + (deck + 1) * (players - 1)
    return deck + pile + turns


class ElferRausGame(pyspiel.Game):  # type: ignore[misc]
    """The game: its rules and player count, and the states it starts."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**DEFAULT_PARAMETERS, **(params or {})}
        players = int(params["players"])
        name = str(params["rules"])
        rules = table_rules(players, name)
        info = pyspiel.GameInfo(
            num_distinct_actions=ACTION_COUNT,
            max_chance_outcomes=CARD_COUNT,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_game_length(players, rules),
        )
        super().__init__(_GAME_TYPE, info, {"players": players, "rules": name})

    # Read from the game's parameters, never kept beside them: a game that comes back from pickle (a worker
    # process's copy) is rebuilt by OpenSpiel from its parameters alone, without this class's __init__.
    @functools.cached_property
    def players(self) -> int:
        """The number of players."""
        return int(self.get_parameters()["players"])

    @functools.cached_property
    def rules(self) -> Rules:
        """The rules the game is played by."""
        return table_rules(self.players, str(self.get_parameters()["rules"]))

    def new_initial_state(self) -> ElferRausState:
        """The state before the deal."""
        return ElferRausState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: dict[str, Any] | None = None
    ) -> ElferRausObserver:
        """An observer: the information state when ``iig_obs_type.perfect_recall``, else the observation."""
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return ElferRausObserver(self.players, history=perfect_recall)


class ElferRausState(pyspiel.State):  # type: ignore[misc]
    """A state of the game: the deal so far, or the game itself (``game``), and whether a draw is pending."""

    def __init__(self, game: ElferRausGame) -> None:
        super().__init__(game)
        self._rules = game.rules
        self._players = game.players
        self._hand_size = game.rules.cards_per_player(game.players)
        self._dealt: list[int] = []
        self._undealt: list[int] = [card.index for card in CARDS[: len(game.rules.colors) * 20]]
        self.game: Game | None = None
        """The engine's game, once dealt (its pile order is chosen draw by draw: ``Game.put_on_top``)."""
        self._drawing = False
        self._replay: list[tuple[int, int]] | None = None
        self._replayed = 0

    def _write_history(self, steps: list[tuple[int, int]]) -> None:
        """Give this new state ``steps`` (player, action) as OpenSpiel's history without playing them:
        OpenSpiel records a history only through ``apply_action``, so the steps are applied with the game
        standing still. The caller then sets the position they lead to."""
        self._replay, self._replayed = steps, 0
        try:
            for _, action in steps:
                self.apply_action(action)
        finally:
            self._replay = None

    def clone(self) -> ElferRausState:
        """An independent copy with the same history. (OpenSpiel's own clone of a Python state replays
        every action of the history on the engine; this copies the engine's game instead.)"""
        other = ElferRausState(self.get_game())
        other._write_history([(step.player, step.action) for step in self.full_history()])
        other._dealt = list(self._dealt)
        other._undealt = list(self._undealt)
        other.game = self.game.copy() if self.game is not None else None
        other._drawing = self._drawing
        return other

    def __deepcopy__(self, memo: dict[int, Any]) -> ElferRausState:
        return self.clone()

    # -- the OpenSpiel API ------------------------------------------------------------

    def current_player(self) -> int:
        if self._replay is not None:
            return self._replay[self._replayed][0]
        game = self.game
        if game is None or self._drawing:
            return int(pyspiel.PlayerId.CHANCE)
        if game.is_over():
            return int(pyspiel.PlayerId.TERMINAL)
        return game.turn

    def _legal_actions(self, player: int) -> list[int]:
        game = self.game
        if game is None or player != game.turn:
            raise ValueError(f"player {player} is not to move")
        return actions_of(game.legal_moves())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        cards = self._undealt if self.game is None else sorted(card.index for card in self.game.pile())
        share = 1.0 / len(cards)
        return [(card, share) for card in cards]

    def _apply_action(self, action: int) -> None:
        if self._replay is not None:
            self._replayed += 1  # only OpenSpiel's own history is being written: see _with_history
            return
        game = self.game
        if game is None:
            self._deal(action)
        elif self._drawing:
            game.put_on_top(CARDS[action])
            game.push(DRAW)
            self._drawing = False
        elif action == DRAW_ACTION:
            if DRAW not in game.legal_moves():
                raise ValueError(f"draw is not legal now: {game!r}")
            self._drawing = True
        else:
            game.push(MOVES[action])

    def _deal(self, card: int) -> None:
        self._undealt.remove(card)
        self._dealt.append(card)
        if len(self._dealt) < self._players * self._hand_size:
            return
        hands = [[CARDS[c] for c in self._dealt[seat :: self._players]] for seat in range(self._players)]
        if not any(card.number == ELEVEN for hand in hands for card in hand):
            self._undealt = sorted(self._undealt + self._dealt)  # no 11 dealt: deal again
            self._dealt = []
            return
        self.game = Game(hands, [CARDS[c] for c in self._undealt], self._rules)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            verb = "deal" if self.game is None else "draw"
            return f"{verb} {CARDS[action]}"
        return action_text(action)

    def is_terminal(self) -> bool:
        return self.game is not None and self.game.is_over()

    def returns(self) -> list[float]:
        game = self.game
        if game is None or game.winner is None:
            return [0.0] * self._players
        loss = -1.0 / (self._players - 1)
        return [1.0 if seat == game.winner else loss for seat in range(self._players)]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any = None) -> ElferRausState:
        """A state ``player_id`` cannot tell from this one: his cards and the public history kept, every
        card he has not seen dealt again consistently (``elferraus.envs.worlds``).

        The worlds are drawn with the search players' weights. ``probability_sampler`` (a callable giving
        numbers in [0, 1), such as ``pyspiel.UniformProbabilitySampler(seed, 0, 1)``) seeds the draw, so
        a seeded sampler gives the same worlds again; without one, Python's ``random`` does.
        """
        seed = int(probability_sampler() * 2**53) if probability_sampler is not None else random.getrandbits(64)
        return resampled(self, player_id, random.Random(seed))

    def __str__(self) -> str:
        if self.game is None:
            return f"dealing: {len(self._dealt)} of {self._players * self._hand_size} cards dealt"
        text = repr(self.game)
        return f"{text} (drawing)" if self._drawing else text

    # -- what one seat sees ---------------------------------------------------------------

    def seat_view(self, player: int) -> SeatView | None:
        """``player``'s view of the game, or None while dealing."""
        return None if self.game is None else self.game.view(player)

    def dealt_to(self, player: int) -> list[Card]:
        """The cards dealt to ``player`` so far (while dealing)."""
        return [CARDS[c] for c in self._dealt[player :: self._players]]


def resampled(state: ElferRausState, player: int, rng: random.Random) -> ElferRausState:
    """A state with the same information for ``player`` as ``state``: a world of ``sample_world`` dealt and
    played through the game's actions (so its history is a real one)."""
    game = state.get_game()
    if state.game is not None:
        return state_from_view(game, state.game.view(player), rng, drawing=state._drawing)
    fresh: ElferRausState = game.new_initial_state()
    own = set(state.dealt_to(player))
    others = [card.index for card in CARDS[: len(state._rules.colors) * 20] if card not in own]
    rng.shuffle(others)
    for index in range(len(state._dealt)):
        seat = index % state._players
        fresh.apply_action(state._dealt[index] if seat == player else others.pop())
    return fresh


def state_from_view(
    game: ElferRausGame, view: SeatView, rng: random.Random, *, drawing: bool = False
) -> ElferRausState:
    """A state of ``game`` that ``view``'s seat cannot tell from the real one: its own cards and the history
    as it saw them, every other card dealt by :func:`~elferraus.envs.worlds.sample_world`. ``drawing``: the
    seat to move has chosen to draw and the card is still to come.

    This is how a program that only has a seat's view (the arena, a bot over the protocol) gives
    OpenSpiel's algorithms a state to search from.
    """
    world = sample_world(view, rng, drawing=drawing)
    fresh: ElferRausState = game.new_initial_state()
    for index in range(view.players * len(world.hands[0])):
        fresh.apply_action(world.hands[index % view.players][index // view.players].index)
    pile = iter(world.pile)
    for text in view.moves:
        _, action, *_ = text.split()
        if action == "draw":
            fresh.apply_action(DRAW_ACTION)
            fresh.apply_action(next(pile).index)
        else:
            fresh.apply_action(action_of(Move.parse(action)))
    if drawing:
        fresh.apply_action(DRAW_ACTION)
    return fresh


class ElferRausObserver:
    """OpenSpiel's observer of this game: ``tensor`` with a view per piece in ``dict``; ``set_from`` and
    ``string_from`` fill them for one player from his view only."""

    def __init__(self, players: int, *, history: bool) -> None:
        self.layout = Layout(players, history)
        self.history = history
        self.tensor = np.zeros(self.layout.size, np.float32)
        self._pieces = self.layout.views(self.tensor)
        # OpenSpiel sizes the tensor from ``dict``: the pieces only, not the named views inside ``seats``.
        self.dict = {name: self._pieces[name] for name, _ in self.layout.pieces}

    def set_from(self, state: ElferRausState, player: int) -> None:
        """Fill ``tensor`` with what ``player`` knows of ``state``."""
        self.tensor.fill(0.0)
        view = state.seat_view(player)
        if view is None:
            for card in state.dealt_to(player):
                self._pieces["hand"][card.index] = 1.0
            return
        write_view(view, self._pieces, history=self.history)

    def string_from(self, state: ElferRausState, player: int) -> str:
        """What ``player`` knows of ``state`` as text (all he has seen, with ``perfect_recall``)."""
        view = state.seat_view(player)
        if view is None:
            dealt = " ".join(map(str, sorted(state.dealt_to(player), key=lambda card: card.index)))
            return f"seat {player} | dealing | dealt {dealt}"
        text = information_text(view) if self.history else observation_text(view)
        return f"{text} | drawing" if state._drawing else text


class LevelBot(pyspiel.Bot):  # type: ignore[misc]
    """A built-in level (``random`` … ``master``) as an OpenSpiel bot for ``player``.

    It reads only that player's view of the state. A state whose history
    does not continue the last one it saw starts a new game for it.
    """

    def __init__(self, game: ElferRausGame, player: int, level: str, seed: int = 0) -> None:
        pyspiel.Bot.__init__(self)
        self.player = player
        self.level = level
        self.seed = seed
        self._game = game
        self._games = 0
        self._bot = make_bot(level, seed)
        self._seen: tuple[str, ...] | None = None

    def step(self, state: ElferRausState) -> int:
        """The action this bot chooses at ``state`` (its player must be to move)."""
        view = state.seat_view(self.player)
        if view is None or state.current_player() != self.player:
            raise ValueError(f"player {self.player} is not to move (player {state.current_player()} is)")
        if self._seen is None or view.moves[: len(self._seen)] != self._seen:
            self._games += 1
            self._bot = make_bot(self.level, self.seed * 1_000_003 + self._games)
            self._bot.start_game(self.player, view.players, view.rules)
        self._seen = view.moves
        return action_of(self._bot.choose(view))

    def restart(self) -> None:
        """Forget the game: the next step starts a new one."""
        self._seen = None

    def restart_at(self, state: ElferRausState) -> None:
        self.restart()

    def inform_action(self, state: ElferRausState, player_id: int, action: int) -> None:
        """Nothing to do: the bot reads the history from the state's view when it is asked."""

    def provides_policy(self) -> bool:
        return False


class IsmctsBot(ismcts.ISMCTSBot):  # type: ignore[misc]
    """OpenSpiel's own Information Set MCTS (``open_spiel.python.algorithms.ismcts``) with one random rollout
    per simulation, able to join OpenSpiel's ``evaluate_bots`` (it searches afresh at every move, so
    restarting and being told of moves change nothing)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._worlds = random.Random(int(self._random_state.randint(0, 2**31 - 1)))

    def resample_from_infostate(self, state: ElferRausState) -> ElferRausState:
        """A world drawn with the bot's own generator, seeded from its ``random_state``: a seeded bot
        searches the same worlds, and so plays the same moves, every time."""
        return resampled(state, state.current_player(), self._worlds)

    def restart_at(self, state: ElferRausState) -> None:
        self.reset()

    def restart(self) -> None:
        self.reset()

    def inform_action(self, state: ElferRausState, player_id: int, action: int) -> None:
        """Nothing to keep: each move is searched from the information state alone."""


def ismcts_bot(game: ElferRausGame, simulations: int, seed: int = 0, uct_c: float = 2.0) -> IsmctsBot:
    """An :class:`IsmctsBot` with ``simulations`` per move (UCT constant ``uct_c``), seeded."""
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed))
    return IsmctsBot(game, evaluator, uct_c, simulations, random_state=np.random.RandomState(seed))


pyspiel.register_game(_GAME_TYPE, ElferRausGame)
