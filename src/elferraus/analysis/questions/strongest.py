"""How does the strongest player play? ``master`` players among themselves, under each rule set, every turn read.

Four at the text's classic rules and at the Ravensburger edition's, and two
at the beginners' game (the text's tip for two; at four, its 60 cards are
all dealt and there is no pile).

Each game is replayed from its record, and every turn is read from the
mover's own view at its start: whether a card fitted, whether the pile
still lasted, what the turn did. While the pile lasts a player free to
lay or not (not with the opening 11, not under must-play rules) either
lays or *holds back* (draws instead; the rules allow no other way to lay
nothing). After a draw whose card fits he may keep it. Once the
pile is empty every turn with a fitting card must lay, and each lay is read
for what it opens (as the blocking players read it,
:func:`elferraus.bots.blocking.read_lays`): nothing for anybody, a way
towards the layer's own cards, a new row (an 11), or cards for the others.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from elferraus.analysis.data import StudyData
from elferraus.analysis.plan import Sizes, Table, equal_table, one_against
from elferraus.analysis.plots import ACCENT, LEVEL_COLOURS, figure, png
from elferraus.analysis.report_model import Plot, Section, TableBlock
from elferraus.analysis.stats import clustered_share, mean
from elferraus.analysis.words import Words
from elferraus.bots.blocking import LEAD_GAP, read_lays
from elferraus.game import Game
from elferraus.moves import Move, MoveKind
from elferraus.record import read_record
from elferraus.view import SeatView

NAME = "strongest"
PLAYER = "master"
HOARDER = "hoarder"
"""The plan ``master`` follows while the pile lasts, measured against it head to head."""
PLAYERS = {"classic": 4, "ravensburger": 4, "beginners": 2}
"""The rule sets, in the order of the report, and the table size of each."""
VARIANTS = tuple(PLAYERS)
LAY_KINDS = ("free", "leads", "opens_row", "gives")
"""What a lay in the race opens, in the order of the report: nothing for the others, a short way towards own
cards, a new row, cards for the others."""


def key(variant: str) -> str:
    """The table of ``master`` players under ``variant``."""
    suffix = "" if variant == "classic" else f"-{variant}"
    return f"{NAME}/{PLAYER}-{PLAYERS[variant]}{suffix}"


def duplicate_key(alone: str, against: str) -> str:
    """The duplicate table of one ``alone`` against three ``against`` (4 players, classic rules)."""
    return f"{NAME}/{alone}-vs-{against}-4"


def tables(sizes: Sizes) -> list[Table]:
    """A table of ``master`` players under each rule set, its records kept for the reading of turns; and
    ``master`` and the hoarder each alone against three of the other, on the same duplicate deals."""
    return [
        *(
            equal_table(NAME, PLAYER, players, sizes.master_equal_deals, sizes, variant, records=True)
            for variant, players in PLAYERS.items()
        ),
        one_against(NAME, PLAYER, HOARDER, 4, sizes.master_duplicate_deals, sizes),
        one_against(NAME, HOARDER, PLAYER, 4, sizes.master_duplicate_deals, sizes),
    ]


@dataclass
class Turns:
    """Every turn of a set of games, read; one entry per turn (or per draw, or per lay), with its game."""

    could_hold: list[tuple[int, bool, bool]] = field(default_factory=list)
    """Turns while the pile lasts that began with a free choice to lay a card that fits or not (not the forced
    opening 11, not under must-play rules): (game, held back, pile at least half)."""
    drawn_fits: list[tuple[int, bool]] = field(default_factory=list)
    """Draws whose card fitted and could be kept: (game, kept)."""
    race_turns: list[tuple[int, int]] = field(default_factory=list)
    """Turns after the pile ran out with a card that fits: (game, cards laid)."""
    race_lays: list[tuple[int, str]] = field(default_factory=list)
    """Lays after the pile ran out: (game, one of :data:`LAY_KINDS`)."""


def read_turns(game: Game, number: int, turns: Turns) -> None:
    """Replay the finished ``game`` (numbered ``number``) from its deal and read each of its turns into ``turns``."""
    history = [move for _seat, move, _drawn in game.history()]
    while game.move_count:
        game.pop()
    full_pile = game.pile_size()
    in_race = False  # the turn in progress began after the pile ran out, with a card that fits
    laid = 0
    for move in history:
        view = game.view(game.turn)
        fits = any(legal.card is not None for legal in view.legal)
        free = fits and any(legal.card is None for legal in view.legal)  # it may lay, and it may not
        if not view.laid and not view.draws:  # a turn begins
            if in_race:
                turns.race_turns.append((number, laid))
            in_race, laid = fits and not view.pile, 0
            if free and view.pile:
                turns.could_hold.append((number, move.kind is not MoveKind.LAY, 2 * view.pile >= full_pile))
        elif view.draws and not view.laid and free:  # the card just drawn fits, and it may keep it
            turns.drawn_fits.append((number, move.kind is not MoveKind.LAY))
        if move.kind is MoveKind.LAY and in_race:
            laid += 1
            turns.race_lays.append((number, lay_kind(view, move)))
        game.push(move)
    if in_race:
        turns.race_turns.append((number, laid))


def lay_kind(view: SeatView, move: Move) -> str:
    """What the lay ``move`` opens, one of :data:`LAY_KINDS`, read from the layer's ``view``."""
    reading = next(lay for lay in read_lays(view) if lay.move == move)
    if reading.opens_row:
        return "opens_row"
    if reading.is_free:
        return "free"
    return "leads" if reading.leads_within(LEAD_GAP) else "gives"


def _read_table(records: list[str]) -> Turns:
    turns = Turns()
    for number, line in enumerate(records):
        read_turns(read_record(json.loads(line)), number, turns)
    return turns


def _share(pairs: list[tuple[int, bool]]) -> dict[str, Any]:
    games = np.array([game for game, _ in pairs], dtype=np.int64)
    values = np.array([value for _, value in pairs], dtype=float)
    return clustered_share(values, games).as_json("share")


def measure(data: StudyData, sizes: Sizes, seed: int) -> dict[str, Any]:
    """``strongest.rules.<variant>``: how often it holds back (early and late in the pile), keeps a drawn card that
    fits, how many cards it lays a turn in the race and what those lays open; shares clustered by game.
    ``strongest.hoarder``: ``master`` alone against three hoarders and a hoarder alone against three ``master``s,
    win share per seat clustered by deal."""
    result: dict[str, Any] = {}
    for variant in VARIANTS:
        turns = _read_table(data.records(key(variant)))
        hold = [(game, held) for game, held, _ in turns.could_hold]
        early = [(game, held) for game, held, is_early in turns.could_hold if is_early]
        late = [(game, held) for game, held, is_early in turns.could_hold if not is_early]
        by_game: dict[int, list[int]] = {}
        for game, count in turns.race_turns:
            by_game.setdefault(game, []).append(count)
        result[variant] = {
            "players": PLAYERS[variant],
            "games": len(data.games(key(variant))["winner"]),
            "held_back": _share(hold),
            "held_back_early": _share(early),
            "held_back_late": _share(late),
            "kept_drawn": _share(turns.drawn_fits),
            "race_cards_per_turn": mean([float(np.mean(counts)) for counts in by_game.values()]).as_json("mean"),
            "race_lays": {kind: _share([(game, got == kind) for game, got in turns.race_lays]) for kind in LAY_KINDS},
        }
    versus = {
        f"{alone}_alone": data.alone_share(duplicate_key(alone, against)).as_json("share")
        for alone, against in ((PLAYER, HOARDER), (HOARDER, PLAYER))
    }
    return {NAME: {"rules": result, "hoarder": versus}}


def section(results: dict[str, Any], words: Words) -> Section:
    """The section on how the strongest player plays."""
    figures = results[NAME]["rules"]
    versus = results[NAME]["hoarder"]
    names = [words(f"strongest.rules_{variant}") for variant in VARIANTS]
    with figure(2) as (fig, (holding, race)):
        positions = np.arange(len(VARIANTS))
        width = 0.38
        for offset, (name, colour, hatch) in enumerate(
            (("held_back", LEVEL_COLOURS["expert"], ""), ("kept_drawn", LEVEL_COLOURS["greedy"], "//"))
        ):
            entries = [figures[variant][name] for variant in VARIANTS]
            values = [100 * entry["share"] for entry in entries]
            bars = [
                [100 * (entry["share"] - entry["ci95"][0]) for entry in entries],
                [100 * (entry["ci95"][1] - entry["share"]) for entry in entries],
            ]
            holding.bar(
                positions + (offset - 0.5) * width,
                values,
                width,
                yerr=bars,
                color=colour,
                hatch=hatch,
                edgecolor="white",
                capsize=3,
                label=words(f"strongest.{name}"),
            )
        for position, variant in zip(positions, VARIANTS, strict=True):
            if not figures[variant]["held_back"]["n"]:
                holding.text(float(position), 50, words("strongest.no_choice"), ha="center", va="center", fontsize=9)
        holding.set_xticks(positions, names)
        holding.set_ylabel(words("strongest.axis_share"))
        holding.set_ylim(0, 100)
        holding.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)
        bottom = np.zeros(len(VARIANTS))
        colours = (LEVEL_COLOURS["medium"], LEVEL_COLOURS["greedy"], ACCENT, LEVEL_COLOURS["expert"])
        hatches = ("", "..", "//", "xx")
        for kind, colour, hatch in zip(LAY_KINDS, colours, hatches, strict=True):
            shares = np.array([100 * figures[variant]["race_lays"][kind]["share"] for variant in VARIANTS])
            race.bar(
                positions, shares, 0.6, bottom=bottom, color=colour, hatch=hatch, edgecolor="white",
                label=words(f"strongest.lay_{kind}"),
            )  # fmt: skip
            bottom += shares
        race.set_xticks(positions, names)
        race.set_ylabel(words("strongest.axis_lays"))
        race.set_ylim(0, 100)
        race.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)
        picture = png(fig)
    rows = tuple(
        (
            words(f"strongest.rules_{variant}"),
            _shown(figures[variant]["held_back"], words),
            _shown(figures[variant]["held_back_early"], words),
            _shown(figures[variant]["held_back_late"], words),
            _shown(figures[variant]["kept_drawn"], words),
            words.value_with_interval(figures[variant]["race_cards_per_turn"], "mean", 2),
            *(_shown(figures[variant]["race_lays"][kind], words) for kind in LAY_KINDS),
        )
        for variant in VARIANTS
    )
    classic, ravensburger = figures["classic"], figures["ravensburger"]
    paragraphs = (
        words(
            "strongest.meaning",
            held=words.share_with_interval(classic["held_back"], "share"),
            early=words.share_with_interval(classic["held_back_early"], "share"),
            late=words.share_with_interval(classic["held_back_late"], "share"),
            kept=words.share_with_interval(classic["kept_drawn"], "share"),
        ),
        words(
            "strongest.race",
            cards=words.value_with_interval(classic["race_cards_per_turn"], "mean", 2),
            free=words.share_with_interval(classic["race_lays"]["free"], "share"),
            leads=words.share_with_interval(classic["race_lays"]["leads"], "share"),
            gives=words.share_with_interval(classic["race_lays"]["gives"], "share"),
        ),
        words(
            "strongest.rules",
            cards=words.value_with_interval(ravensburger["race_cards_per_turn"], "mean", 2),
            gives=words.share_with_interval(ravensburger["race_lays"]["gives"], "share"),
            games=words.number(sum(figures[variant]["games"] for variant in VARIANTS), 0),
        ),
        words(
            "strongest.hoarder",
            master=words.share_with_interval(versus["master_alone"], "share"),
            hoarder=words.share_with_interval(versus["hoarder_alone"], "share"),
        ),
        words(_verdict(versus)),
    )
    header = (
        words("strongest.rules_column"),
        words("strongest.held_back"),
        words("strongest.held_back_early"),
        words("strongest.held_back_late"),
        words("strongest.kept_drawn"),
        words("strongest.race_cards"),
        *(words(f"strongest.lay_{kind}") for kind in LAY_KINDS),
    )
    return Section(
        NAME,
        words("strongest.title"),
        words("strongest.question"),
        paragraphs,
        (Plot("strongest.png", picture, words("strongest.alt"), words("strongest.caption")),),
        (TableBlock(header, rows),),
    )


def _shown(entry: dict[str, Any], words: Words) -> str:
    """A share with its interval, or a dash where there was nothing to count."""
    return words.share_with_interval(entry, "share") if entry["n"] else "–"


def _verdict(versus: dict[str, Any]) -> str:
    """Who of ``master`` and the hoarder has the edge, by the intervals of each alone against the other."""
    master_low, master_high = versus["master_alone"]["ci95"]
    hoarder_low, hoarder_high = versus["hoarder_alone"]["ci95"]
    if master_low > 0.25 or hoarder_high < 0.25:
        return "strongest.verdict_master_ahead"
    if master_high < 0.25 or hoarder_low > 0.25:
        return "strongest.verdict_hoarder_ahead"
    return "strongest.verdict_even"
