"""Is holding back worth it? One seat's player varied on the same deals against three ``greedy``.

``greedy`` never holds a card back, ``medium`` holds back by a heuristic,
``expert`` by searching, and ``holdback:R`` is ``medium`` with its readiness
to hold back scaled by R (0: never, 1: ``medium``). All of them play the
same duplicate deals, so their differences are measured on equal cards.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from elferraus.analysis.data import StudyData
from elferraus.analysis.plan import Sizes, Table, one_against
from elferraus.analysis.players import HOLDBACK_PREFIX
from elferraus.analysis.plots import ACCENT, LEVEL_COLOURS, MARKERS, error_bars, figure, png
from elferraus.analysis.questions import luck
from elferraus.analysis.report_model import Plot, Section, TableBlock
from elferraus.analysis.stats import mean
from elferraus.analysis.words import Words

NAME = "holdback"
FIELD = luck.FIELD  # the same field, so that medium's table is the luck question's
PLAYERS = 4
LEVELS = ("greedy", "medium", "expert")
READINESS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0)
"""The readiness to hold back of the parametrised player, plotted along the x axis."""


def spec_of(readiness: float) -> str:
    """The player spec of readiness ``readiness``."""
    return f"{HOLDBACK_PREFIX}{readiness:g}"


def played_as(spec: str) -> str:
    """The player whose games stand for ``spec``: readiness 1 is ``medium`` exactly, so its games are medium's."""
    return luck.BETTER if spec == spec_of(1.0) else spec


def key(spec: str) -> str:
    """The duplicate table of ``spec`` against three ``greedy``: medium's is the luck question's, the same games."""
    spec = played_as(spec)
    return luck.key(PLAYERS) if spec == luck.BETTER else f"{NAME}/{spec}-vs-{FIELD}-{PLAYERS}"


def tables(sizes: Sizes) -> list[Table]:
    """The levels and every readiness, each in one seat against three ``greedy``, on the same deals."""
    specs = dict.fromkeys(played_as(spec) for spec in [*LEVELS, *(spec_of(r) for r in READINESS)])
    return [
        one_against(
            luck.NAME if spec == luck.BETTER else NAME,  # medium's table is the luck question's
            spec,
            FIELD,
            PLAYERS,
            sizes.expert_duplicate_deals if spec == "expert" else sizes.duplicate_deals,
            sizes,
        )
        for spec in specs
    ]


def _per_deal(seats: dict[str, Any]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The deals and, per deal, the share of rotations the player of slot 0 (the varied one) won."""
    mine = seats["slot"] == 0
    deals, inverse = np.unique(seats["deal"][mine], return_inverse=True)
    wins = np.bincount(inverse, weights=seats["won"][mine].astype(float))
    return deals, wins / np.bincount(inverse)


def measure(data: StudyData, sizes: Sizes, seed: int) -> dict[str, Any]:
    """``holdback.<level>`` and ``holdback.readiness.<R>``: win share (deal-clustered interval) and the gain
    over ``greedy`` on the same deals (paired by deal)."""
    greedy_deals, greedy_share = _per_deal(data.seats(key("greedy")))
    by_deal = dict(zip(greedy_deals.tolist(), greedy_share.tolist(), strict=True))

    def figures(spec: str) -> dict[str, Any]:
        share = data.alone_share(key(spec))
        deals, shares = _per_deal(data.seats(key(spec)))
        gain = mean([s - by_deal[d] for d, s in zip(deals.tolist(), shares.tolist(), strict=True) if d in by_deal])
        return {**share.as_json("win_share"), "gain_over_greedy": gain.as_json("points")}

    result: dict[str, Any] = {level: figures(level) for level in LEVELS}
    result["readiness"] = {f"{r:g}": {"readiness": r, **figures(spec_of(r))} for r in READINESS}
    return {"holdback": result}


def section(results: dict[str, Any], words: Words) -> Section:
    """The holding-back section of the report."""
    figures = results["holdback"]
    sweep = [figures["readiness"][f"{r:g}"] for r in READINESS]
    with figure() as (fig, (axes,)):
        values, bars = error_bars(sweep, "win_share")
        low = [v - b for v, b in zip(values, bars[0], strict=True)]
        high = [v + b for v, b in zip(values, bars[1], strict=True)]
        axes.fill_between(READINESS, low, high, color=LEVEL_COLOURS["medium"], alpha=0.2)
        axes.plot(READINESS, values, marker="^", color=LEVEL_COLOURS["medium"], label=words("holdback.sweep"))
        for level in LEVELS:
            axes.axhline(100 * figures[level]["win_share"], color=LEVEL_COLOURS[level], linestyle=":", linewidth=1)
            axes.plot(
                [READINESS[-1]],
                [100 * figures[level]["win_share"]],
                marker=MARKERS[level],
                color=LEVEL_COLOURS[level],
                label=words.level(level),
            )
        axes.axhline(25, linestyle="--", color=ACCENT, label=words("common.parity"))
        axes.set_xlabel(words("holdback.axis_readiness"))
        axes.set_ylabel(words("holdback.axis_share"))
        axes.legend(fontsize=8)
        picture = png(fig)
    best = max(sweep, key=lambda entry: entry["win_share"])
    rows = tuple(
        (words.level(level), words.share_with_interval(figures[level], "win_share"), _gain(figures[level], words))
        for level in LEVELS
    ) + tuple(
        (words.level(spec_of(entry["readiness"])), words.share_with_interval(entry, "win_share"), _gain(entry, words))
        for entry in sweep
    )
    paragraphs = (
        words(
            "holdback.meaning",
            greedy=words.share_with_interval(figures["greedy"], "win_share"),
            medium=words.share_with_interval(figures["medium"], "win_share"),
            expert=words.share_with_interval(figures["expert"], "win_share"),
            gain=_gain(figures["medium"], words),
        ),
        words(_verdict(figures["medium"]["gain_over_greedy"]), gain=_gain(figures["medium"], words)),
        words(
            "holdback.sweep_meaning",
            never=words.share_with_interval(figures["readiness"]["0"], "win_share"),
            best=words.number(best["readiness"], 2),
            best_share=words.share_with_interval(best, "win_share"),
            most=words.share_with_interval(sweep[-1], "win_share"),
        ),
    )
    return Section(
        NAME,
        words("holdback.title"),
        words("holdback.question"),
        paragraphs,
        (Plot("holdback.png", picture, words("holdback.alt"), words("holdback.caption")),),
        (TableBlock((words("holdback.player"), words("holdback.share"), words("holdback.gain")), rows),),
    )


def _verdict(gain: dict[str, Any]) -> str:
    """Whether holding back paid, by the interval of medium's gain over greedy on the same deals."""
    low, high = gain["ci95"]
    return "holdback.verdict_pays" if low > 0 else "holdback.verdict_costs" if high < 0 else "holdback.verdict_unclear"


def _gain(entry: dict[str, Any], words: Words) -> str:
    gain = entry["gain_over_greedy"]
    low, high = gain["ci95"]
    return f"{words.signed(100 * gain['points'])} ({words.number(100 * low)}–{words.number(100 * high)})"
