"""A learned player without its training library: the network's weights in NumPy, playing from a seat's view.

A trained policy is saved as a ``.npz`` file of plain arrays (the training
example, ``examples/train/``, writes it). It is one of two kinds, named by
the array ``kind`` (``"mlp"`` when absent):

``"mlp"``: one network from the information-state tensor of
``elferraus.observation`` to one logit per action id.

==================  ==========================================================
array               what it is
==================  ==========================================================
``hidden_W{i}``     the weights of hidden layer ``i`` (inputs x outputs), in order
``hidden_b{i}``     its biases
``action_W``        the weights of the action layer (last hidden x 82)
``action_b``        its biases
==================  ==========================================================

``"scorer"``: one small network, the same for every action, from that
action's row of ``elferraus.envs.features`` to its logit.

==================  ==========================================================
array               what it is
==================  ==========================================================
``hidden_W{i}``     hidden layer ``i`` (features x outputs at ``i = 0``)
``hidden_b{i}``     its biases
``action_W``        last hidden x 1: the logit
``action_b``        its bias (1)
==================  ==========================================================

Both have ``activation`` (``"tanh"`` or ``"relu"``, after every hidden
layer) and ``players`` (the player count the network was trained for). The
player takes the legal action with the highest logit, so it never makes an
illegal move.

``python -m elferraus.envs.learned MODEL.npz`` plays over the bot protocol
``elferraus-bot/1``, so the arena can seat it:
``elferraus arena --bots "cmd:python -m elferraus.envs.learned MODEL.npz,greedy,greedy,greedy"``.
Without ``MODEL.npz`` it plays :data:`SHIPPED`, the scorer that
``make train`` trained for four players (``examples/train/README.md``).
Offered a seat at a table of another size, it answers ``refuse`` with the
reason, says it on standard error in one line and exits with code 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from elferraus.actions import ACTION_COUNT, MOVES, action_of
from elferraus.bots import Bot, SeatRefusedError
from elferraus.bots.protocol import serve
from elferraus.envs.features import FEATURE_COUNT, ActionFeatures
from elferraus.moves import Move
from elferraus.observation import Layout, write_view
from elferraus.rules import Rules
from elferraus.view import SeatView

SHIPPED = Path(__file__).with_name("models") / "learned-4p.npz"
"""The trained player that comes with elferraus: a ``scorer`` for four players."""


def _relu(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    return np.maximum(x, 0.0)


def _tanh(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    return np.tanh(x)


ACTIVATIONS: dict[str, Callable[[npt.NDArray[np.float32]], npt.NDArray[np.float32]]] = {"tanh": _tanh, "relu": _relu}
KINDS = ("mlp", "scorer")


class Network:
    """The layers of a saved policy network, and its forward pass."""

    def __init__(self, arrays: Mapping[str, npt.NDArray[np.generic]]) -> None:
        try:
            kind = str(arrays["kind"]) if "kind" in arrays else "mlp"
            activation = str(arrays["activation"])
            self.players = int(arrays["players"])
            self.hidden: list[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]] = []
            while f"hidden_W{len(self.hidden)}" in arrays:
                index = len(self.hidden)
                self.hidden.append(
                    (
                        np.asarray(arrays[f"hidden_W{index}"], np.float32),
                        np.asarray(arrays[f"hidden_b{index}"], np.float32),
                    )
                )
            self.action = (np.asarray(arrays["action_W"], np.float32), np.asarray(arrays["action_b"], np.float32))
        except KeyError as error:
            raise ValueError(f"not a saved policy: no array {error}") from None
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, not {activation!r}")
        self.kind = kind
        self.activation = ACTIVATIONS[activation]
        inputs = self.hidden[0][0].shape[0] if self.hidden else self.action[0].shape[0]
        if kind == "mlp":
            size = Layout(self.players, history=True).size
            if inputs != size:
                raise ValueError(
                    f"the network takes {inputs} inputs; the information state of {self.players} players has {size}"
                )
        elif inputs != FEATURE_COUNT:
            raise ValueError(f"the scorer takes {inputs} inputs; an action has {FEATURE_COUNT} features")
        outputs = ACTION_COUNT if kind == "mlp" else 1
        widths = [inputs] + [bias.shape[0] for _, bias in self.hidden]
        for index, ((weights, bias), width) in enumerate(zip(self.hidden, widths, strict=False)):
            if weights.shape != (width, bias.shape[0]):
                raise ValueError(f"hidden_W{index} is {weights.shape}, not ({width}, {bias.shape[0]})")
        if self.action[0].shape != (widths[-1], outputs) or self.action[1].shape != (outputs,):
            raise ValueError(
                f"the action layer is {self.action[0].shape} + {self.action[1].shape}, "
                f"not ({widths[-1]}, {outputs}) + ({outputs},)"
            )

    @classmethod
    def load(cls, path: str | Path) -> Network:
        """Read a ``.npz`` file.

        Raises:
            ValueError: the file is not a saved policy (the message says what is missing or wrong).
        """
        with np.load(path, allow_pickle=False) as arrays:
            return cls({name: arrays[name] for name in arrays.files})

    def logits(self, observation: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """One number per action id (higher is better).

        ``observation`` is the information-state tensor (``mlp``) or the
        82 x features rows of ``elferraus.envs.features`` (``scorer``).
        """
        x = observation
        for weights, bias in self.hidden:
            x = self.activation(x @ weights + bias)
        weights, bias = self.action
        out: npt.NDArray[np.float32] = x @ weights + bias
        return out.reshape(ACTION_COUNT)


class LearnedBot(Bot):
    """A computer player that takes its network's best legal action."""

    name = "learned"

    def __init__(self, network: Network, seed: int = 0) -> None:
        super().__init__(seed)
        self.network = network
        self._layout = Layout(network.players, history=True)
        self._features = ActionFeatures()
        self._rows = np.zeros((ACTION_COUNT, FEATURE_COUNT), np.float32)

    def start_game(self, seat: int, players: int, rules: Rules) -> None:
        """Start a game; a table of another size than the network's is refused (:class:`SeatRefusedError`)."""
        if players != self.network.players:
            raise SeatRefusedError(
                f"this network was trained for {self.network.players} players; the table has {players}"
            )
        self._features.reset()

    def choose(self, view: SeatView) -> Move:
        if self.network.kind == "scorer":
            self._features.write(view, self._rows)
            logits = self.network.logits(self._rows)
        else:
            tensor = np.zeros(self._layout.size, np.float32)
            write_view(view, self._layout.views(tensor), history=True)
            logits = self.network.logits(tensor)
        legal = [action_of(move) for move in view.legal]
        return MOVES[max(legal, key=lambda action: float(logits[action]))]


def main(argv: Sequence[str] | None = None) -> int:
    """Play the saved policy ``MODEL.npz`` over the bot protocol on stdin and stdout."""
    parser = argparse.ArgumentParser(prog="python -m elferraus.envs.learned", description=main.__doc__)
    parser.add_argument(
        "model",
        nargs="?",
        default=str(SHIPPED),
        help="a policy saved as .npz (default: the one shipped, for 4 players)",
    )
    args = parser.parse_args(argv)
    try:
        network = Network.load(args.model)
    except (OSError, ValueError) as error:
        print(f"elferraus learned: {args.model}: {error}", file=sys.stderr)
        return 2
    return serve(LearnedBot(network))


if __name__ == "__main__":
    raise SystemExit(main())
