"""The league's networks in PyTorch, the twins of ``elferraus.bots.network`` (which plays them in NumPy)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn

from elferraus.actions import ACTION_COUNT
from elferraus.bots.network import CRITIC_INPUTS, FORMAT, SLOTS, TABLE_INPUTS


def _mlp(inputs: int, widths: tuple[int, ...], outputs: int) -> nn.Sequential:
    layers: list[nn.Module] = []
    width = inputs
    for hidden in widths:
        layers += [nn.Linear(width, hidden), nn.ReLU()]
        width = hidden
    layers.append(nn.Linear(width, outputs))
    return nn.Sequential(*layers)


class LeagueModel(nn.Module):
    """A policy over the table input and a critic over the table input and the hidden cards."""

    def __init__(self, widths: tuple[int, ...] = (256, 256)) -> None:
        super().__init__()
        self.widths = widths
        self.policy = _mlp(TABLE_INPUTS, widths, ACTION_COUNT)
        self.critic = _mlp(CRITIC_INPUTS, widths, SLOTS)
        last = self.policy[-1]
        assert isinstance(last, nn.Linear)
        nn.init.normal_(last.weight, std=0.01)  # a near-uniform first policy
        nn.init.zeros_(last.bias)

    def logits(self, table: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.policy(table).masked_fill(~mask, -1e9)

    def values(self, critic: torch.Tensor) -> torch.Tensor:
        return self.critic(critic)

    def arrays(self) -> dict[str, np.ndarray]:
        """The weights as ``elferraus.bots.network.LeagueNetwork`` reads them."""
        arrays: dict[str, np.ndarray] = {"format": np.array(FORMAT)}
        for name, net in (("policy", self.policy), ("critic", self.critic)):
            linears = [layer for layer in net if isinstance(layer, nn.Linear)]
            for index, layer in enumerate(linears):
                arrays[f"{name}_W{index}"] = layer.weight.detach().numpy().T.astype(np.float32).copy()
                arrays[f"{name}_b{index}"] = layer.bias.detach().numpy().astype(np.float32).copy()
        return arrays

    def export(self, path: Path, *, policy_only: bool = False, dtype: type = np.float32) -> None:
        """Write the weights to ``path`` (``.npz``), whole or not at all: the policy alone for a snapshot,
        in ``float16`` where size matters more than the last digits."""
        arrays = {
            name: array.astype(dtype) if array.dtype == np.float32 else array
            for name, array in self.arrays().items()
            if not (policy_only and name.startswith("critic"))
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.stem + ".partial.npz")
        np.savez_compressed(partial, **arrays)
        partial.replace(path)

    def load_arrays(self, path: Path) -> None:
        """Take the weights of a file written by :meth:`export` (whole)."""
        with np.load(path, allow_pickle=False) as arrays:
            for name, net in (("policy", self.policy), ("critic", self.critic)):
                linears = [layer for layer in net if isinstance(layer, nn.Linear)]
                for index, layer in enumerate(linears):
                    with torch.no_grad():
                        layer.weight.copy_(torch.from_numpy(arrays[f"{name}_W{index}"].astype(np.float32).T))
                        layer.bias.copy_(torch.from_numpy(arrays[f"{name}_b{index}"].astype(np.float32)))
