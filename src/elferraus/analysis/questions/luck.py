"""Luck or skill? How often the better player wins, and how much of the outcome the deal alone decides.

On duplicate deals every hand of a deal is played by every player in turn.
If the hand decided everything, it would win in every rotation whoever held
it; if skill decided everything, the better player would win whatever he
held. The intraclass correlation of a hand's outcomes over the rotations,
once each player's own mean is taken out (the better player holds the hand in
one rotation only, so his skill would otherwise count against the hand), is
the share of the outcome's variance that the hand explains by itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from elferraus.analysis.data import StudyData
from elferraus.analysis.plan import PLAYER_COUNTS, Sizes, Table, one_against
from elferraus.analysis.plots import ACCENT, LEVEL_COLOURS, error_bars, figure, png
from elferraus.analysis.report_model import Plot, Section, TableBlock
from elferraus.analysis.stats import clustered_share, intraclass_correlation, proportion
from elferraus.analysis.words import Words

NAME = "luck"
BETTER = "medium"
FIELD = "greedy"


def key(players: int) -> str:
    """The duplicate table of one ``medium`` against ``greedy`` players, classic rules."""
    return f"luck/{BETTER}-vs-{FIELD}-{players}"


def tables(sizes: Sizes) -> list[Table]:
    """One duplicate table per player count."""
    return [one_against(NAME, BETTER, FIELD, players, sizes.duplicate_deals, sizes) for players in PLAYER_COUNTS]


def luck_figures(seats: dict[str, Any], players: int) -> dict[str, Any]:
    """Of one duplicate table: the better player's win share, the hand's share, how often one hand always wins."""
    won = seats["won"].astype(float)
    deal = seats["deal"]
    mine = seats["slot"] == 0  # one_against seats the better player in slot 0
    hand = deal * players + seats["seat"]
    beyond_skill = won - np.where(mine, won[mine].mean(), won[~mine].mean())
    winners = _winning_seats(seats)
    always = proportion(sum(len(set(seats_won)) == 1 for seats_won in winners), len(winners))
    return {
        "better_wins": {**clustered_share(won[mine], deal[mine]).as_json("win_share"), "parity": 1 / players},
        "hand_decides": intraclass_correlation(beyond_skill, hand).as_json("icc"),
        "same_winner": always.as_json("share"),
    }


def _winning_seats(seats: dict[str, Any]) -> list[list[int]]:
    """Per deal, the seat (that is, the hand) that won each rotation."""
    by_deal: dict[int, list[int]] = {}
    for deal, seat, won in zip(seats["deal"].tolist(), seats["seat"].tolist(), seats["won"].tolist(), strict=True):
        if won:
            by_deal.setdefault(deal, []).append(seat)
    return [by_deal[deal] for deal in sorted(by_deal)]


def measure(data: StudyData, sizes: Sizes, seed: int) -> dict[str, Any]:
    """``luck.classic.<players>``: better player's share, the hand's share (ICC), deals one hand always wins."""
    return {"luck": {"classic": {str(p): luck_figures(data.seats(key(p)), p) for p in PLAYER_COUNTS}}}


def verdict(figures: dict[str, Any]) -> str:
    """The section's last sentence, by what one table measured: does skill show, and do the cards weigh more?"""
    better = figures["better_wins"]
    if better["ci95"][0] <= better["parity"]:
        return "luck.verdict_luck"
    return "luck.verdict_tilts" if figures["hand_decides"]["icc"] >= 0.5 else "luck.verdict_skill"


def section(results: dict[str, Any], words: Words) -> Section:
    """The luck-or-skill section of the report."""
    figures = results["luck"]["classic"]
    entries = [figures[str(p)] for p in PLAYER_COUNTS]
    with figure(panels=2) as (fig, (left, right)):
        values, bars = error_bars([entry["better_wins"] for entry in entries], "win_share")
        left.bar(
            PLAYER_COUNTS, values, 0.6, yerr=bars, capsize=3, color=LEVEL_COLOURS[BETTER], label=words.level(BETTER)
        )
        left.plot(PLAYER_COUNTS, [100 / p for p in PLAYER_COUNTS], "--", color=ACCENT, label=words("common.parity"))
        left.set_xlabel(words("common.players"))
        left.set_ylabel(words("luck.axis_better"))
        left.legend(fontsize=8)
        icc, icc_bars = error_bars([_at_least_zero(entry["hand_decides"]) for entry in entries], "icc")
        right.bar(PLAYER_COUNTS, icc, 0.6, yerr=icc_bars, capsize=3, color=LEVEL_COLOURS["random"], hatch="..")
        same, same_bars = error_bars([entry["same_winner"] for entry in entries], "share")
        right.errorbar(
            PLAYER_COUNTS, same, yerr=same_bars, marker="D", color=LEVEL_COLOURS["expert"], label=words("luck.same")
        )
        right.set_xlabel(words("common.players"))
        right.set_ylabel(words("luck.axis_hand"))
        right.legend(fontsize=8)
        picture = png(fig)
    rows = tuple(
        (
            str(p),
            words.share_with_interval(figures[str(p)]["better_wins"], "win_share"),
            words.share_with_interval(_at_least_zero(figures[str(p)]["hand_decides"]), "icc"),
            words.share_with_interval(figures[str(p)]["same_winner"], "share"),
        )
        for p in PLAYER_COUNTS
    )
    four, two = figures["4"], figures["2"]
    paragraphs = (
        words(
            "luck.meaning",
            four=words.share_with_interval(four["better_wins"], "win_share"),
            two=words.share_with_interval(two["better_wins"], "win_share"),
            icc=words.percent(_at_least_zero(four["hand_decides"])["icc"], 0),
            same=words.percent(four["same_winner"]["share"], 0),
        ),
        words(verdict(four)),
    )
    return Section(
        NAME,
        words("luck.title"),
        words("luck.question"),
        paragraphs,
        (Plot("luck.png", picture, words("luck.alt"), words("luck.caption")),),
        (
            TableBlock(
                (words("common.players"), words("luck.better"), words("luck.hand"), words("luck.same")),
                rows,
                words("luck.table"),
            ),
        ),
    )


def _at_least_zero(estimate: dict[str, Any]) -> dict[str, Any]:
    """An ICC(1) estimate as a share: it dips below 0 by chance when the hand explains nothing, and a share of
    variance below 0 means nothing to a reader (``results.json`` keeps the estimate as it came)."""
    low, high = estimate["ci95"]
    return {**estimate, "icc": max(0.0, estimate["icc"]), "ci95": [max(0.0, low), max(0.0, high)]}
