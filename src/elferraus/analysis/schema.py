"""The structure of ``results.json``, checked: what docs/analysis.md documents, as pydantic models.

Every figure that is an estimate carries its 95 % interval ``ci95`` (low,
high) and ``n``, the number of units it rests on (games, shuffles, or deals
where the games of a deal belong together). Tables of players are keyed by
their number of players as a string, ``"2"`` to ``"6"``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Interval(_Strict):
    """The part every estimate shares."""

    ci95: tuple[float, float]
    n: int = Field(ge=0)

    @model_validator(mode="after")
    def _ordered(self) -> Interval:
        if self.ci95[0] > self.ci95[1]:
            raise ValueError(f"interval {self.ci95} runs backwards")
        return self


class Share(Interval):
    share: float = Field(ge=0, le=1)


class Mean(Interval):
    mean: float


class Redeal(Interval):
    exact: float = Field(ge=0, le=1)
    exact_fraction: str = Field(pattern=r"^\d+/\d+$")
    simulated: float = Field(ge=0, le=1)
    deals: int


class PositionShare(Interval):
    position: int
    win_share: float = Field(ge=0, le=1)


class Starter(Interval):
    win_share: float = Field(ge=0, le=1)
    parity: float
    by_position: list[PositionShare]


class Length(Interval):
    mean_actions: float
    actions_median: float
    actions_p90: float
    turns: Mean
    draws: Mean
    lays: Mean
    pile_out: Share


class Histogram(_Strict):
    edges: list[float]
    counts: list[int]


class LengthHistogram(Histogram):
    players: int


class Points(Interval):
    points: float


class Holdback(Interval):
    win_share: float = Field(ge=0, le=1)
    gain_over_greedy: Points


class Readiness(Holdback):
    readiness: float


class HoldbackPart(_Strict):
    greedy: Holdback
    medium: Holdback
    expert: Holdback
    readiness: dict[str, Readiness]


class WinShare(Interval):
    win_share: float = Field(ge=0, le=1)
    parity: float


class Icc(Interval):
    icc: float


class Luck(_Strict):
    better_wins: WinShare
    hand_decides: Icc
    same_winner: Share


class MeanActions(Interval):
    mean_actions: float


class RulesEntry(_Strict):
    length: MeanActions
    starter: WinShare
    skill: WinShare


class FeatureShare(Interval):
    value: int
    or_more: bool
    win_share: float = Field(ge=0, le=1)


class Coefficient(_Strict):
    per_sd: float
    ci95: tuple[float, float]


class Calibration(Interval):
    predicted: float
    observed: float


class Model(_Strict):
    features: list[str]
    coefficients: dict[str, Coefficient]
    auc: float = Field(ge=0, le=1)
    brier: float
    brier_parity: float
    train_rows: int
    test_rows: int
    calibration: list[Calibration]


class Hands(_Strict):
    by_feature: dict[str, list[FeatureShare]]
    model: Model


class LoserPoints(Interval):
    mean: float
    median: float
    p90: float
    histogram: Histogram


class MatchRounds(Interval):
    mean_rounds: float


class Penalties(_Strict):
    loser: LoserPoints
    match: dict[str, MatchRounds]


class StrongestRules(_Strict):
    players: int
    games: int
    held_back: Share
    held_back_early: Share
    held_back_late: Share
    kept_drawn: Share
    race_cards_per_turn: Mean
    race_lays: dict[Literal["free", "leads", "opens_row", "gives"], Share]


class StrongestHoarder(_Strict):
    master_alone: Share
    hoarder_alone: Share


class Strongest(_Strict):
    rules: dict[str, StrongestRules]
    hoarder: StrongestHoarder


class TableInfo(_Strict):
    part: str
    players: int
    rules: str
    players_by_slot: list[str]
    deals: int
    duplicate: bool
    games: int


class Results(_Strict):
    """The whole of ``results.json``."""

    format: Literal["elferraus-analysis/1"]
    seed: int
    quick: bool
    games: int
    tables: dict[str, TableInfo]
    redeal: dict[str, Redeal]
    redeal_beginners: dict[str, Redeal]
    starter: dict[str, dict[str, Starter]]
    length: dict[str, dict[str, Length]]
    length_histogram: LengthHistogram
    holdback: HoldbackPart
    luck: dict[str, dict[str, Luck]]
    rules: dict[str, dict[str, RulesEntry]]
    hands: dict[str, Hands]
    penalties: dict[str, Penalties]
    strongest: Strongest
