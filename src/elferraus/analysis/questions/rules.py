"""Which rules make the better game? Length, the starter's edge and the skill gap under each rule set."""

from __future__ import annotations

from typing import Any

from elferraus.analysis.data import StudyData
from elferraus.analysis.plan import VARIANTS, Sizes, Table, equal_table, one_against
from elferraus.analysis.plots import ACCENT, LEVEL_COLOURS, error_bars, figure, png
from elferraus.analysis.questions import luck, starter
from elferraus.analysis.report_model import Plot, Section, TableBlock
from elferraus.analysis.stats import mean, proportion
from elferraus.analysis.words import Words

NAME = "rules"
PLAYERS = (2, 4)
LEVEL = "medium"


def equal_key(variant: str, players: int) -> str:
    """The table of equal ``medium`` players under ``variant`` (classic: the starter question's)."""
    return starter.key(LEVEL, players) if variant == "classic" else f"rules/{LEVEL}-{players}-{variant}"


def duplicate_key(variant: str, players: int) -> str:
    """One ``medium`` against ``greedy`` players under ``variant`` (classic: the luck question's)."""
    return luck.key(players) if variant == "classic" else f"rules/{luck.BETTER}-vs-{luck.FIELD}-{players}-{variant}"


def tables(sizes: Sizes) -> list[Table]:
    """For every rule set but classic, a table of equals and a duplicate table, at two and four players."""
    made = []
    for variant in VARIANTS:
        if variant == "classic":
            continue
        for players in PLAYERS:
            made.append(equal_table(NAME, LEVEL, players, sizes.rules_deals, sizes, variant))
            made.append(one_against(NAME, luck.BETTER, luck.FIELD, players, sizes.duplicate_deals, sizes, variant))
    return made


def measure(data: StudyData, sizes: Sizes, seed: int) -> dict[str, Any]:
    """``rules.<variant>.<players>``: mean actions, the starter's edge over parity, the better player's share."""
    result: dict[str, dict[str, Any]] = {}
    for variant in VARIANTS:
        for players in PLAYERS:
            games = data.games(equal_key(variant, players))
            starts = proportion(int((games["winner"] == games["starter"]).sum()), len(games["winner"]))
            skill = data.alone_share(duplicate_key(variant, players))
            result.setdefault(variant, {})[str(players)] = {
                "length": mean(games["actions"]).as_json("mean_actions"),
                "starter": {**starts.as_json("win_share"), "parity": 1 / players},
                "skill": {**skill.as_json("win_share"), "parity": 1 / players},
            }
    return {"rules": result}


def section(results: dict[str, Any], words: Words) -> Section:
    """The rules section of the report."""
    figures = results["rules"]
    variants = list(VARIANTS)
    names = [words(f"rules.{variant}") for variant in variants]
    with figure(panels=3, height=3.4) as (fig, panels):
        for panel, (field, value, scale, label) in zip(
            panels,
            (
                ("length", "mean_actions", 1.0, words("rules.axis_length")),
                ("starter", "win_share", 100.0, words("rules.axis_starter")),
                ("skill", "win_share", 100.0, words("rules.axis_skill")),
            ),
            strict=True,
        ):
            for offset, (players, colour, hatch) in enumerate(
                ((4, LEVEL_COLOURS["medium"], ""), (2, LEVEL_COLOURS["greedy"], "//"))
            ):
                entries = [figures[variant][str(players)][field] for variant in variants]
                values, errors = error_bars(entries, value, scale)
                ys = [index + (offset - 0.5) * 0.38 for index in range(len(variants))]
                panel.barh(
                    ys,
                    values,
                    0.36,
                    xerr=errors,
                    capsize=2,
                    color=colour,
                    hatch=hatch,
                    label=words("rules.players", players=players),
                )
                if field != "length":
                    panel.axvline(100 / players, linestyle="--", color=ACCENT, linewidth=1)
            panel.set_yticks(range(len(variants)), names)
            panel.invert_yaxis()
            panel.set_xlabel(label)
        panels[0].legend(fontsize=8, loc="lower left", bbox_to_anchor=(0, 1.0), ncols=2)
        picture = png(fig)
    rows = tuple(
        (
            words(f"rules.{variant}"),
            words.number(figures[variant]["4"]["length"]["mean_actions"]),
            words.share_with_interval(figures[variant]["4"]["starter"], "win_share"),
            words.share_with_interval(figures[variant]["4"]["skill"], "win_share"),
            words.number(figures[variant]["2"]["length"]["mean_actions"]),
            words.share_with_interval(figures[variant]["2"]["skill"], "win_share"),
        )
        for variant in variants
    )
    skill = {variant: figures[variant]["4"]["skill"]["win_share"] for variant in variants}
    length = {variant: figures[variant]["4"]["length"]["mean_actions"] for variant in variants}
    most_skill = max(skill, key=skill.__getitem__)
    least_skill = min(skill, key=skill.__getitem__)
    paragraphs = (
        words(
            "rules.meaning",
            most=words(f"rules.{most_skill}"),
            most_share=words.percent(skill[most_skill]),
            least=words(f"rules.{least_skill}"),
            least_share=words.percent(skill[least_skill]),
            classic=words.percent(skill["classic"]),
            longest=words(f"rules.{max(length, key=length.__getitem__)}"),
            shortest=words(f"rules.{min(length, key=length.__getitem__)}"),
        ),
        words("rules.beginners_note"),
    )
    return Section(
        NAME,
        words("rules.title"),
        words("rules.question"),
        paragraphs,
        (Plot("rules.png", picture, words("rules.alt"), words("rules.caption")),),
        (
            TableBlock(
                (
                    words("rules.variant"),
                    words("rules.length4"),
                    words("rules.starter4"),
                    words("rules.skill4"),
                    words("rules.length2"),
                    words("rules.skill2"),
                ),
                rows,
                words("rules.table"),
            ),
        ),
    )
