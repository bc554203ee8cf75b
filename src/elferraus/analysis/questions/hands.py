"""What makes a good hand? The win chance against what a dealt hand holds, and a model that predicts it."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from elferraus.analysis.data import StudyData
from elferraus.analysis.plan import Sizes, Table
from elferraus.analysis.plots import ACCENT, LEVEL_COLOURS, MARKERS, error_bars, figure, png
from elferraus.analysis.questions import starter
from elferraus.analysis.report_model import Plot, Section, TableBlock
from elferraus.analysis.stats import auc, brier, fit_logistic, proportion
from elferraus.analysis.words import Words

NAME = "hands"
PLAYERS = 4
LEVELS = ("greedy", "medium")
FEATURES = ("elevens", "next_to_eleven", "ends", "colours", "largest_colour", "own_run", "starts")
"""What the model reads of a hand: see :func:`elferraus.analysis.play.hand_features`; ``starts``: it holds
the opening 11."""
BUCKETS = {"elevens": range(0, 4), "next_to_eleven": range(0, 6), "own_run": range(0, 7)}
"""The values each plotted feature is grouped by (the last group takes everything above)."""


def tables(sizes: Sizes) -> list[Table]:
    """None of its own: the four-player tables of equals of the starter question."""
    return []


def _features(seats: dict[str, Any]) -> np.ndarray[Any, Any]:
    columns = [seats[name] for name in FEATURES[:-1]] + [seats["position"] == 0]
    return np.column_stack(columns).astype(float)


def hand_figures(seats: dict[str, Any]) -> dict[str, Any]:
    """Win shares by hand feature, and a logistic model fitted on even deals, judged on odd ones."""
    won = seats["won"].astype(bool)
    by_feature: dict[str, list[dict[str, Any]]] = {}
    for name, values in BUCKETS.items():
        column = seats[name]
        groups = []
        for value in values:
            at = column >= value if value == values[-1] else column == value
            groups.append(
                {
                    "value": value,
                    "or_more": value == values[-1],
                    **proportion(int(won[at].sum()), int(at.sum())).as_json("win_share"),
                }
            )
        by_feature[name] = groups
    features = _features(seats)
    train = seats["deal"] % 2 == 0
    model = fit_logistic(features[train], won[train], FEATURES)
    test = ~train
    predicted = model.predict(features[test])
    parity = float(won[train].mean())
    deciles = np.quantile(predicted, np.linspace(0, 1, 11))
    calibration = []
    for low, high in itertools.pairwise(deciles):
        at = (predicted >= low) & (predicted <= high)
        calibration.append(
            {
                "predicted": float(predicted[at].mean()),
                **proportion(int(won[test][at].sum()), int(at.sum())).as_json("observed"),
            }
        )
    return {
        "by_feature": by_feature,
        "model": {
            "features": list(FEATURES),
            "coefficients": {
                name: {
                    "per_sd": round(float(coefficient), 6),
                    "ci95": [round(float(coefficient - 1.96 * error), 6), round(float(coefficient + 1.96 * error), 6)],
                }
                for name, coefficient, error in zip(
                    ("intercept", *FEATURES), model.coefficients, model.errors, strict=True
                )
            },
            "auc": round(auc(predicted, won[test]), 6),
            "brier": round(brier(predicted, won[test]), 6),
            "brier_parity": round(brier(np.full(int(test.sum()), parity), won[test]), 6),
            "train_rows": int(train.sum()),
            "test_rows": int(test.sum()),
            "calibration": calibration,
        },
    }


def measure(data: StudyData, sizes: Sizes, seed: int) -> dict[str, Any]:
    """``hands.<level>``: win shares by feature and the fitted model, four equal players, classic."""
    return {"hands": {level: hand_figures(data.seats(starter.key(level, PLAYERS))) for level in LEVELS}}


def section(results: dict[str, Any], words: Words) -> Section:
    """The good-hand section of the report."""
    figures = results["hands"]
    with figure(panels=2) as (fig, (left, right)):
        for offset, level in enumerate(LEVELS):
            groups = figures[level]["by_feature"]["elevens"]
            values, bars = error_bars(groups, "win_share")
            xs = [group["value"] + (offset - 0.5) * 0.35 for group in groups]
            left.bar(xs, values, 0.33, yerr=bars, capsize=2, color=LEVEL_COLOURS[level], label=words.level(level))
        left.axhline(25, linestyle="--", color=ACCENT, label=words("common.parity"))
        left.set_xticks(list(BUCKETS["elevens"]), ["0", "1", "2", "3+"])
        left.set_xlabel(words("hands.elevens"))
        left.set_ylabel(words("hands.axis_share"))
        left.legend(fontsize=8)
        for level in LEVELS:
            points = figures[level]["model"]["calibration"]
            right.plot(
                [100 * p["predicted"] for p in points],
                [100 * p["observed"] for p in points],
                marker=MARKERS[level],
                color=LEVEL_COLOURS[level],
                label=words.level(level),
            )
        right.plot([0, 100], [0, 100], ":", color=ACCENT)
        top = max(100 * p["observed"] for level in LEVELS for p in figures[level]["model"]["calibration"]) + 5
        right.set_xlim(0, top)
        right.set_ylim(0, top)
        right.set_xlabel(words("hands.predicted"))
        right.set_ylabel(words("hands.observed"))
        right.set_title(words("hands.calibration"))
        right.legend(fontsize=8)
        picture = png(fig)
    model = figures["medium"]["model"]
    coefficients = model["coefficients"]
    rows = tuple(
        (
            words(f"hands.feature_{name}"),
            *(words.number(figures[level]["model"]["coefficients"][name]["per_sd"], 2) for level in LEVELS),
        )
        for name in FEATURES
    )
    ranked = sorted(FEATURES, key=lambda name: -abs(coefficients[name]["per_sd"]))
    groups = figures["medium"]["by_feature"]["elevens"]
    paragraphs = (
        words(
            "hands.meaning",
            none=words.share_with_interval(groups[0], "win_share"),
            two=words.share_with_interval(groups[2], "win_share"),
            first=words(f"hands.feature_{ranked[0]}"),
            second=words(f"hands.feature_{ranked[1]}"),
            auc=words.number(model["auc"], 2),
            brier=words.number(model["brier"], 3),
            parity=words.number(model["brier_parity"], 3),
            verdict=words(
                "hands.verdict_weak"
                if model["auc"] < 0.65
                else "hands.verdict_fair"
                if model["auc"] < 0.8
                else "hands.verdict_strong"
            ),
        ),
    )
    return Section(
        NAME,
        words("hands.title"),
        words("hands.question"),
        paragraphs,
        (Plot("hands.png", picture, words("hands.alt"), words("hands.caption")),),
        (TableBlock((words("hands.feature"), *(words.level(level) for level in LEVELS)), rows, words("hands.table")),),
    )
