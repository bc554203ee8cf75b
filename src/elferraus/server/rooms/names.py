"""The names people give themselves at a table: what a name may be, its tidy form, and when two look alike.

A name is taken in Unicode's composed form (NFC), so that ``Zoë`` typed on
one keyboard and on another are the same name; characters that draw nothing
(the Hangul fillers, the blank Braille pattern, variation selectors) count as
white space, and every run of white space becomes one space. A name must show
at least one character. At one table no person may take a name that *looks
like* another seat's name (compared by their skeletons: compatibility forms
folded, case ignored, and the look-alike letters of other scripts mapped to
the letters they imitate, after Unicode's confusables of UTS #39) or like a
computer's label (``Computer 3``, ``Computer (easy)``, in either language).
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable

from elferraus.bots import BOTS
from elferraus.i18n import tr

BLANK_LOOKING = frozenset(
    [0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x2800, 0x3164, 0xFFA0, *range(0x180B, 0x1810), *range(0xFE00, 0xFE10)]
)
"""Printable characters that draw nothing (fillers, a blank Braille cell, joiners and variation selectors):
a name of only these would look empty, and one ending in them would look like another name."""
COMPUTER_WORD = "computer"
"""How the computers' labels begin, in English and in German (``name_computer``, ``web_seat_computer``)."""


def is_visible(char: str) -> bool:
    """Whether ``char`` draws something of its own: printable, not white space, no mark alone, not blank-looking.

    >>> [is_visible(char) for char in ("A", "ß", "名", " ", "\\u3164", "\\u2800", "\\u0301", "\\u200b")]
    [True, True, True, False, False, False, False, False]
    """
    return (
        char.isprintable()
        and not char.isspace()
        and ord(char) not in BLANK_LOOKING
        and unicodedata.category(char) not in ("Mn", "Me")
    )


def tidy_name(name: str) -> str:
    """``name`` in its composed form, blank-looking characters as spaces, each run of white space one space.

    >>> tidy_name("  Anna \\t Lena "), tidy_name("Zoe\\u0308") == "Zo\\u00eb", tidy_name("Anna\\u2800")
    ('Anna Lena', True, 'Anna')
    """
    composed = unicodedata.normalize("NFC", name)
    spaced = "".join(" " if ord(char) in BLANK_LOOKING else char for char in composed)
    return " ".join(spaced.split())


@functools.cache
def _look_alikes() -> dict[str, str]:
    """Each character of Unicode's confusables that imitates another, mapped to the one it imitates."""
    from confusable_homoglyphs.confusables import confusables_data

    # The package keeps each pair of look-alikes in both directions: an imitation lists the one letter it
    # imitates; the imitated letter (the prototype) lists all of its imitations. A pair that is alone goes to
    # the smaller of the two, so that both have the same skeleton.
    prototype: dict[str, str] = {}
    for char, homoglyphs in confusables_data.items():
        if len(homoglyphs) != 1:
            continue
        other = homoglyphs[0]["c"]
        if len(confusables_data.get(other, ())) > 1 or min(char, other) == other:
            prototype[char] = other
    return prototype


def skeleton(name: str) -> str:
    """What ``name`` looks like: two names with the same skeleton can be taken for each other at a glance.

    >>> skeleton("Anna") == skeleton("\\u0410nna") == skeleton("ANNA") == skeleton("Ａｎｎａ") == skeleton("anna ")
    True
    >>> skeleton("Anna") == skeleton("Anne"), skeleton("Jürgen") == skeleton("Jurgen")
    (False, False)
    """
    folded = unicodedata.normalize("NFKC", tidy_name(name)).casefold()
    look_alikes = _look_alikes()
    mapped = "".join(look_alikes.get(char, char) for char in unicodedata.normalize("NFD", folded))
    return unicodedata.normalize("NFC", unicodedata.normalize("NFKC", mapped).casefold())


@functools.cache
def _computer_labels() -> frozenset[str]:
    words = {COMPUTER_WORD, *(tr("name_computer", lang, n="").strip().casefold() for lang in ("en", "de"))}
    levels = {tr(f"level_{level}", lang).casefold() for level in BOTS for lang in ("en", "de")}
    return frozenset(_letters(word + level) for word in words for level in {"", *levels})


def _letters(text: str) -> str:
    return "".join(char for char in skeleton(text) if char.isalpha())


def looks_like_a_computer(name: str) -> bool:
    """Whether ``name`` reads as a computer's label: the word Computer, with at most a number, a level and marks.

    >>> [looks_like_a_computer(n) for n in ("Computer 3", "Computer (easy)", "C0MPUTER-2 (mittel)", "Computerfan")]
    [True, True, True, False]
    """
    return _letters(name) in _computer_labels()


def clashing_name(name: str, others: Iterable[str]) -> str | None:
    """The first of ``others`` that ``name`` could be taken for (same skeleton), or None.

    >>> clashing_name("\\u0410nna", ["Ben", "Anna"]), clashing_name("Ann", ["Ben", "Anna"])
    ('Anna', None)
    """
    mine = skeleton(name)
    return next((other for other in others if other and skeleton(other) == mine), None)
