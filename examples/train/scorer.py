"""The network the example trains: one small scorer shared by every action, for sb3-contrib's MaskablePPO.

Each of the 82 actions is described by its row of ``elferraus.envs.features``;
the same few weights turn every row into that action's logit. The critic
reads the scorer's hidden layer, averaged over the legal actions, beside the
facts that are the same for every action. ``export`` writes the actor as the
``scorer`` kind of ``elferraus.envs.learned``, which plays without torch.
"""

from __future__ import annotations

from pathlib import Path

import gymnasium
import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from elferraus.actions import ACTION_COUNT
from elferraus.envs.features import FEATURE_COUNT, FEATURES, ActionFeatures

_KINDS = 3
"""The first columns say which kind of action a row is; all zero for an illegal action."""
_SHARED = FEATURES.index("hand")


class FeatureRows(gymnasium.Wrapper[np.ndarray, np.int64, np.ndarray, np.int64]):
    """The Gymnasium env with the feature rows as observation, making the only legal move itself.

    A decision with one legal action teaches nothing, so the wrapper makes it
    and adds its reward; the learner sees only real choices.
    """

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        self.observation_space = spaces.Box(0.0, np.inf, (ACTION_COUNT * FEATURE_COUNT,), np.float32)
        self._features = ActionFeatures()

    def reset(self, **kwargs):  # type: ignore[no-untyped-def]
        self._features.reset()
        _, info = self.env.reset(**kwargs)
        _, _, _, info = self._skip_forced(info)
        return self._rows(info), info

    def step(self, action):  # type: ignore[no-untyped-def]
        _, reward, terminated, truncated, info = self.env.step(action)
        if not (terminated or truncated):
            more, terminated, truncated, info = self._skip_forced(info)
            reward += more
        return self._rows(info), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.env.unwrapped.action_masks()

    def _skip_forced(self, info):  # type: ignore[no-untyped-def]
        reward, terminated, truncated = 0.0, False, False
        while not (terminated or truncated):
            mask = info["action_mask"]
            if mask.sum() != 1:
                break
            _, step_reward, terminated, truncated, info = self.env.step(int(np.flatnonzero(mask)[0]))
            reward += float(step_reward)
        return reward, terminated, truncated, info

    def _rows(self, info) -> np.ndarray:  # type: ignore[no-untyped-def]
        view = info["view"]
        if view.winner is not None:
            return np.zeros(ACTION_COUNT * FEATURE_COUNT, np.float32)
        return self._features.array(view).reshape(-1)


class ScorerExtractor(BaseFeaturesExtractor):
    """Scores every action with one shared network; passes the critic what it needs too."""

    def __init__(self, observation_space: spaces.Box, hidden: tuple[int, ...] = (64, 64)) -> None:
        super().__init__(observation_space, features_dim=ACTION_COUNT + hidden[-1] + FEATURE_COUNT - _SHARED)
        layers: list[nn.Module] = []
        width = FEATURE_COUNT
        for size in hidden:
            layers += [nn.Linear(width, size), nn.Tanh()]
            width = size
        self.body = nn.Sequential(*layers)
        self.score = nn.Linear(width, 1)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        rows = observations.view(-1, ACTION_COUNT, FEATURE_COUNT)
        legal = rows[..., :_KINDS].sum(-1, keepdim=True)
        hidden = self.body(rows)
        scores = self.score(hidden).squeeze(-1)
        pooled = (hidden * legal).sum(1) / legal.sum(1).clamp(min=1.0)
        shared = rows[..., _SHARED:].amax(1)
        return torch.cat([scores, pooled, shared], dim=1)


class FirstScores(nn.Module):
    """The actor's logits: the scores at the front of the extractor's output."""

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        return latent[:, :ACTION_COUNT]


class ScorerPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy with the shared scorer as actor."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        kwargs.setdefault("features_extractor_class", ScorerExtractor)
        kwargs.setdefault("net_arch", {"pi": [], "vf": [64, 64]})
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule) -> None:  # type: ignore[no-untyped-def]
        super()._build(lr_schedule)
        self.action_net = FirstScores()
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)


def export(policy: ScorerPolicy, path: Path, players: int) -> Path:
    """Write the actor as a ``scorer`` ``.npz`` for ``elferraus.envs.learned``."""
    extractor = policy.pi_features_extractor
    assert isinstance(extractor, ScorerExtractor)
    arrays: dict[str, np.ndarray] = {
        "kind": np.array("scorer"),
        "activation": np.array("tanh"),
        "players": np.array(players),
    }
    linears = [layer for layer in extractor.body if isinstance(layer, nn.Linear)]
    for index, layer in enumerate(linears):
        arrays[f"hidden_W{index}"] = layer.weight.detach().cpu().numpy().T.astype(np.float32)
        arrays[f"hidden_b{index}"] = layer.bias.detach().cpu().numpy().astype(np.float32)
    arrays["action_W"] = extractor.score.weight.detach().cpu().numpy().T.astype(np.float32)
    arrays["action_b"] = extractor.score.bias.detach().cpu().numpy().astype(np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, **arrays)
    return path
