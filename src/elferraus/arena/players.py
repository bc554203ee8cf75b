"""The seats of an arena: built-in players in process, or programs over the protocol."""

from __future__ import annotations

import contextlib
import os
import random
import selectors
import shlex
import subprocess
import time
from typing import Any, Protocol

from elferraus.bots import Bot, is_player_name, make_bot, player_names, protocol
from elferraus.moves import Move
from elferraus.rules import Rules
from elferraus.view import SeatView


class ForfeitError(Exception):
    """A player broke the rules of the arena; it loses this game."""


class Player(Protocol):
    """What the arena needs of a seat."""

    label: str

    def start_game(self, seat: int, players: int, rules: Rules, seed: int) -> None:
        """Prepare for a game; raises ForfeitError if the player cannot."""

    def choose(self, view: SeatView) -> Move:
        """A legal move for ``view``; raises ForfeitError."""

    def end_game(self, result: dict[str, Any] | None) -> None:
        """The game is over (or forfeited)."""

    def close(self) -> None:
        """Free the player's resources."""


class BuiltinPlayer:
    """A built-in level or opponent (``blocker``, ``sampler:100ms``, ...), playing in the arena's own process."""

    def __init__(self, level: str) -> None:
        if not is_player_name(level):
            raise ValueError(
                f"unknown level {level!r}; choose one of {', '.join(player_names())}, "
                "cmd:PROGRAM, openspiel-ismcts:SIMULATIONS or league:PATH"
            )
        self.label = level
        self._level = level
        self._bot: Bot | None = None

    def start_game(self, seat: int, players: int, rules: Rules, seed: int) -> None:
        """A fresh bot, seeded for this game."""
        self._bot = make_bot(self._level, seed)
        self._bot.start_game(seat, players, rules)

    def choose(self, view: SeatView) -> Move:
        """Ask the bot."""
        assert self._bot is not None
        move = self._bot.choose(view)
        if move not in view.legal:
            raise ForfeitError(f"{self.label} chose the illegal move {move}")
        return move

    def end_game(self, result: dict[str, Any] | None) -> None:
        """Nothing to do."""

    def close(self) -> None:
        """Nothing to free."""


class ExternalPlayer:
    """A program that speaks ``elferraus-bot/1`` on its standard input and output.

    It is started on first use and again after it misbehaved (crashed, hung,
    sent garbage): such a player forfeits the game in which it happened. A
    program that refuses a seat (``refuse``) forfeits that game with its
    reason, and every later game that offers it the same ``hello``, without
    being started again for it.
    """

    def __init__(self, command: str, *, move_time: float = 5.0, start_time: float = 10.0) -> None:
        self.command = shlex.split(command)
        if not self.command:
            raise ValueError("cmd: needs a program to run")
        self.label = f"cmd:{command}"
        self.move_time = move_time
        self.start_time = start_time
        self._process: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self._refusals: dict[str, str] = {}
        """The forfeit reason of each ``hello`` line the program refused."""

    def _start(self) -> subprocess.Popen[bytes]:
        if self._process is not None:
            if self._process.poll() is None:
                return self._process
            self._kill()  # it died on its own: close its pipes before starting anew
        try:
            self._process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                bufsize=0,
            )
        except OSError as error:
            raise ForfeitError(f"cannot start {self.command[0]}: {error.strerror}") from None
        return self._process

    def _send(self, message: dict[str, Any]) -> None:
        process = self._start()
        assert process.stdin is not None
        try:
            process.stdin.write((protocol.encode(message) + "\n").encode())
            process.stdin.flush()
        except (BrokenPipeError, OSError):
            self._kill()
            raise ForfeitError("the program closed its input (it crashed or quit)") from None

    def _receive(self, timeout: float, waiting_for: str) -> dict[str, Any]:
        process = self._process  # never a fresh one: the answer must come from the program just written to
        if process is None or process.stdout is None:
            raise ForfeitError(f"the program is gone while the arena waited for {waiting_for}")
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0:
                    self._kill()
                    raise ForfeitError(f"no {waiting_for} within {timeout:g} s")
                if not selector.select(left):
                    continue
                chunk = os.read(process.stdout.fileno(), 65536)
                if not chunk:
                    code = process.wait()
                    self._kill()
                    raise ForfeitError(f"the program exited (code {code}) while the arena waited for {waiting_for}")
                self._buffer += chunk
                if len(self._buffer) > protocol.MAX_LINE:
                    self._kill()
                    raise ForfeitError(f"a line longer than {protocol.MAX_LINE} bytes")
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            return protocol.decode(line.decode("utf-8", errors="replace"))
        except protocol.ProtocolError as error:
            self._kill()
            raise ForfeitError(str(error)) from None

    def start_game(self, seat: int, players: int, rules: Rules, seed: int) -> None:
        """Say hello and wait for ready; a refusal is a forfeit, remembered for the same hello."""
        hello = protocol.hello(seat, players, rules)
        offer = protocol.encode(hello)
        if offer in self._refusals:
            raise ForfeitError(self._refusals[offer])
        self._send(hello)
        answer = self._receive(self.start_time, '"ready"')
        if answer.get("type") == "refuse":
            self._kill()
            reason = answer.get("reason")
            words = " ".join(reason.split()) if isinstance(reason, str) else ""
            self._refusals[offer] = f"refused the seat: {_cut(words) or 'no reason given'}"
            raise ForfeitError(self._refusals[offer])
        if answer.get("type") != "ready":
            self._kill()
            raise ForfeitError(f'expected {{"type": "ready"}}, got {protocol.encode(answer)[:80]}')

    def choose(self, view: SeatView) -> Move:
        """Send ``act`` and read the move."""
        self._send(protocol.act(view))
        answer = self._receive(self.move_time, "move")
        try:
            return protocol.parse_answer(answer, view.legal)
        except protocol.ProtocolError as error:
            raise ForfeitError(str(error)) from None

    def end_game(self, result: dict[str, Any] | None) -> None:
        """Tell the program the game is over (if it is still there)."""
        if self._process is not None and self._process.poll() is None:
            with contextlib.suppress(ForfeitError):
                self._send(protocol.end(result))

    def _kill(self) -> None:
        if self._process is not None:
            if self._process.poll() is None:
                self._process.kill()
            self._process.wait()
            for stream in (self._process.stdin, self._process.stdout):
                if stream is not None:
                    stream.close()
        self._process = None
        self._buffer = b""

    def close(self) -> None:
        """Say quit, give the program a moment, then make sure it is gone."""
        if self._process is not None and self._process.poll() is None:
            try:
                self._send({"type": "quit"})
                self._process.wait(timeout=2)
            except (ForfeitError, subprocess.TimeoutExpired):
                pass
        self._kill()


def _cut(text: str, limit: int = 200) -> str:
    """``text`` cut to ``limit`` characters, as a report line quotes a program's words."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


class OpenSpielIsmctsPlayer:
    """OpenSpiel's own Information Set MCTS with ``simulations`` per move (needs the ``research`` extra).

    From the seat's view alone it builds a state of the OpenSpiel game whose hidden cards are a world
    drawn for that view (``elferraus.openspiel.state_from_view``), and lets the search resample from it.
    """

    def __init__(self, simulations: int) -> None:
        if simulations < 1:
            raise ValueError(f"openspiel-ismcts needs at least 1 simulation, not {simulations}")
        self.label = f"openspiel-ismcts:{simulations}"
        self.simulations = simulations
        self._game: Any = None
        self._bot: Any = None
        self._rng = random.Random(0)

    def start_game(self, seat: int, players: int, rules: Rules, seed: int) -> None:
        """Load the OpenSpiel game of these rules and a fresh search, seeded for this game."""
        import pyspiel

        from elferraus.envs import openspiel

        if rules.preset_name is None:
            raise ForfeitError(f"{self.label} plays the presets only, not {rules}")
        self._game = pyspiel.load_game(openspiel.SHORT_NAME, {"players": players, "rules": rules.preset_name})
        self._bot = openspiel.ismcts_bot(self._game, self.simulations, seed % 2**32)
        self._rng = random.Random(seed)

    def choose(self, view: SeatView) -> Move:
        """The search's move from a state drawn for ``view``."""
        from elferraus.actions import move_of
        from elferraus.envs import openspiel

        if len(view.legal) == 1:
            return view.legal[0]
        state = openspiel.state_from_view(self._game, view, self._rng)
        move = move_of(int(self._bot.step(state)))
        if move not in view.legal:
            raise ForfeitError(f"{self.label} chose the illegal move {move}")
        return move

    def end_game(self, result: dict[str, Any] | None) -> None:
        """Nothing to do."""

    def close(self) -> None:
        """Nothing to free."""


class LeaguePlayer:
    """A league network's policy from a ``.npz`` file (a snapshot of the league's learner, or its whole network),
    playing its likeliest legal action (:class:`elferraus.bots.league.LeagueBot`).

    Raises:
        ValueError: the file cannot be read or is not a league network (the message names the file).
    """

    def __init__(self, path: str) -> None:
        from elferraus.bots.league import LeagueBot
        from elferraus.bots.network import LeagueNetwork

        if not path:
            raise ValueError("league: needs a network file, e.g. league:examples/league/results/league.npz")
        try:
            network = LeagueNetwork.load(path)
        except (OSError, ValueError) as error:
            raise ValueError(f"league:{path}: {error}") from None
        self.label = f"league:{path}"
        self._bot = LeagueBot(network)

    def start_game(self, seat: int, players: int, rules: Rules, seed: int) -> None:
        """Forget the last game (the policy draws nothing at random: the seed changes nothing)."""
        self._bot.start_game(seat, players, rules)

    def choose(self, view: SeatView) -> Move:
        """The policy's likeliest legal move."""
        return self._bot.choose(view)

    def end_game(self, result: dict[str, Any] | None) -> None:
        """Nothing to do."""

    def close(self) -> None:
        """Nothing to free."""


OPENSPIEL_ISMCTS = "openspiel-ismcts:"
LEAGUE = "league:"


def make_player(spec: str, *, move_time: float = 5.0) -> Player:
    """A player from a spec: a level or opponent name, ``cmd:PROGRAM ARGS``, ``openspiel-ismcts:SIMULATIONS``
    or ``league:PATH`` (a league network's policy)."""
    if spec.startswith("cmd:"):
        return ExternalPlayer(spec[4:], move_time=move_time)
    if spec.startswith(LEAGUE):
        return LeaguePlayer(spec[len(LEAGUE) :])
    if spec.startswith(OPENSPIEL_ISMCTS):
        count = spec[len(OPENSPIEL_ISMCTS) :]
        if not count.isdigit():
            raise ValueError(f"{spec!r}: write openspiel-ismcts:SIMULATIONS, e.g. openspiel-ismcts:200")
        return OpenSpielIsmctsPlayer(int(count))
    return BuiltinPlayer(spec)
