"""Redeals: how often no 11 is dealt, exactly and simulated."""

from __future__ import annotations

import math
import zlib
from fractions import Fraction
from typing import Any

from elferraus.analysis.data import StudyData
from elferraus.analysis.plan import PLAYER_COUNTS, VARIANTS, Sizes, Table
from elferraus.analysis.plots import ACCENT, LEVEL_COLOURS, error_bars, figure, png
from elferraus.analysis.report_model import Plot, Section, TableBlock
from elferraus.analysis.stats import proportion
from elferraus.analysis.words import Words
from elferraus.cards import NUMBERS
from elferraus.deal import derive_seed, shuffled_deal
from elferraus.rules import Rules

NAME = "redeal"


def exact_redeal(players: int, rules: Rules) -> Fraction:
    """The chance that a shuffle deals no 11 to anybody: every dealt card is one of the others.

    Choosing the dealt cards from the deck without its 11s, over choosing
    them from the whole deck (hypergeometric, nothing dealt of the 11s).

    >>> exact_redeal(2, Rules())
    Fraction(703, 12166)
    """
    deck = rules.deck_size
    elevens = deck // NUMBERS
    dealt = players * rules.cards_per_player(players)
    return Fraction(math.comb(deck - elevens, dealt), math.comb(deck, dealt))


def tables(sizes: Sizes) -> list[Table]:
    """Redeals need shuffles only, no games."""
    return []


def _simulated(players: int, rules: Rules, shuffles: int, seed: int, stream: str) -> dict[str, Any]:
    redeals = trials = 0
    stream_id = zlib.crc32(stream.encode())
    for deal in range(shuffles):
        thrown = shuffled_deal(players, derive_seed(seed, stream_id, deal), rules)[2]
        redeals += thrown
        trials += thrown + 1
    exact = exact_redeal(players, rules)
    entry = proportion(redeals, trials).as_json("simulated")
    return {
        "exact": float(exact),
        "exact_fraction": f"{exact.numerator}/{exact.denominator}",
        **entry,
        "deals": shuffles,
    }


def measure(data: StudyData, sizes: Sizes, seed: int) -> dict[str, Any]:
    """``redeal.<players>`` for the classic deck, ``redeal_beginners.<players>`` for the 60 cards.

    ``simulated`` is redeals per shuffle over ``n`` shuffles (the deals plus
    the shuffles thrown in), ``exact`` the chance computed.
    """
    classic = {str(p): _simulated(p, Rules(), sizes.redeal_deals, seed, f"redeal-{p}") for p in PLAYER_COUNTS}
    beginners = VARIANTS["beginners"]
    few = {str(p): _simulated(p, beginners, sizes.redeal_deals, seed, f"redeal-beginners-{p}") for p in (2, 3)}
    return {"redeal": classic, "redeal_beginners": few}


def section(results: dict[str, Any], words: Words) -> Section:
    """The redeal section of the report."""
    figures = results["redeal"]
    counts = sorted(figures, key=int)
    entries = [figures[p] for p in counts]
    with figure() as (fig, (axes,)):
        positions = range(len(counts))
        exact = [100 * entry["exact"] for entry in entries]
        values, bars = error_bars(entries, "simulated")
        axes.bar([x - 0.2 for x in positions], exact, 0.4, color=ACCENT, label=words("redeal.exact"))
        axes.bar(
            [x + 0.2 for x in positions],
            values,
            0.4,
            yerr=bars,
            capsize=3,
            color=LEVEL_COLOURS["greedy"],
            hatch="//",
            label=words("redeal.simulated"),
        )
        axes.set_xticks(list(positions), counts)
        axes.set_xlabel(words("common.players"))
        axes.set_ylabel(words("redeal.axis"))
        axes.legend()
        picture = png(fig)
    inside = all(entry["ci95"][0] <= entry["exact"] <= entry["ci95"][1] for entry in entries)
    rows = tuple(
        (
            p,
            words.percent(figures[p]["exact"], 2),
            figures[p]["exact_fraction"],
            words.share_with_interval(figures[p], "simulated", 2),
            words.number(figures[p]["n"], 0),
        )
        for p in counts
    )
    beginners = results["redeal_beginners"]["2"]
    paragraphs = (
        words(
            "redeal.meaning",
            two=words.percent(figures["2"]["exact"], 1),
            four=words.percent(figures["4"]["exact"], 2),
            fraction=figures["4"]["exact_fraction"],
            beginners=words.percent(beginners["exact"], 1),
        ),
        words("redeal.agree" if inside else "redeal.disagree"),
    )
    return Section(
        NAME,
        words("redeal.title"),
        words("redeal.question"),
        paragraphs,
        (Plot("redeal.png", picture, words("redeal.alt"), words("redeal.caption")),),
        (
            TableBlock(
                (
                    words("common.players"),
                    words("redeal.exact"),
                    words("redeal.fraction"),
                    words("redeal.simulated"),
                    words("redeal.shuffles"),
                ),
                rows,
            ),
        ),
    )
