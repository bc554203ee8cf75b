"""The word catalogue: every text a person reads, in English and German.

German terms follow the box: *anlegen* (lay), *ziehen* (draw), *Zug beenden*
(end turn), *Stapel* (pile), *Reihe* (row), *Elfer* (11).
"""

from __future__ import annotations

import locale
import os
import re
import tomllib
from collections.abc import Mapping
from importlib import resources
from typing import Literal

Lang = Literal["en", "de"]
LANGUAGES: tuple[Lang, ...] = ("en", "de")


def _load_catalogue() -> tuple[dict[str, tuple[str, str]], dict[str, tuple[str, str]]]:
    data = tomllib.loads(resources.files("elferraus").joinpath("messages.toml").read_text(encoding="utf-8"))
    colors = {key: (entry["en"], entry["de"]) for key, entry in data["colors"].items()}
    messages = {key: (entry["en"], entry["de"]) for key, entry in data["messages"].items()}
    return colors, messages


COLOR_WORDS, MESSAGES = _load_catalogue()
"""Colour names and messages: key -> (English, German), from ``messages.toml``."""


def detect_language(explicit: str | None = None) -> Lang:
    """The language to speak: ``explicit`` if given, else the system locale (German or English)."""
    if explicit:
        if explicit not in LANGUAGES:
            raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, not {explicit!r}")
        return "de" if explicit == "de" else "en"
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = os.environ.get(variable, "")
        if value:
            return "de" if value.lower().startswith("de") else "en"
    code = locale.getlocale()[0] or ""
    return "de" if code.lower().startswith("de") else "en"


def tr(key: str, lang: Lang, **params: object) -> str:
    """The message ``key`` in ``lang``, with ``params`` filled in.

    >>> tr("did_lay", "de", name="Anna", card="R12")
    'Anna legt R12 an'
    """
    english, german = MESSAGES[key]
    return (german if lang == "de" else english).format(**params)


def format_number(value: float, lang: Lang) -> str:
    """A number as a reader of ``lang`` writes it: German takes a decimal comma.

    Whole numbers stay whole (``1.0`` is ``1``); fractions keep up to six significant digits.

    >>> format_number(0.6, "de"), format_number(0.6, "en")
    ('0,6', '0.6')
    >>> format_number(2.5, "de"), format_number(1.0, "de"), format_number(2560, "de")
    ('2,5', '1', '2560')
    """
    text = str(value) if isinstance(value, int) else f"{value:.6g}"
    return text.replace(".", ",") if lang == "de" else text


def color_name(letter: str, lang: Lang) -> str:
    """The name of the colour with this letter."""
    english, german = COLOR_WORDS[letter]
    return german if lang == "de" else english


def color_letter(letter: str, lang: Lang) -> str:
    """A colour's letter as a reader of ``lang`` knows it: R, Y, G, B; in German R, Ge, Gr, B (Rot, Gelb, Grün,
    Blau: a German reads G as Gelb). The record format keeps R, Y, G, B whatever the language.

    >>> color_letter("G", "de"), color_letter("G", "en")
    ('Gr', 'G')
    """
    return tr(f"card_letter_{letter}", lang)


def card_words(card: object, lang: Lang) -> str:
    """A card (or its notation, ``Y12``) as a reader of ``lang`` reads it: ``Y12``, in German ``Ge12``."""
    text = str(card)
    return color_letter(text[0], lang) + text[1:]


_CARD_IN_TEXT = re.compile(r"(?<![A-Za-z0-9])([RYGB])(20|1[0-9]|[1-9])(?![0-9])")


def cards_in_words(text: str, lang: Lang) -> str:
    """``text`` with every card in it written as a reader of ``lang`` reads it (see :func:`card_words`).

    >>> cards_in_words("du legst Y12 an, dann G13", "de")
    'du legst Ge12 an, dann Gr13'
    """
    if lang == "en":
        return text
    return _CARD_IN_TEXT.sub(lambda found: color_letter(found[1], lang) + found[2], text)


def sentence(text: str) -> str:
    """``text`` as a line of its own begins: with a capital letter (the catalogue's words are written to be
    joined into other sentences, so they begin small).

    >>> sentence("du bist dran: lege an")
    'Du bist dran: lege an'
    """
    return text[:1].upper() + text[1:]


def explain(reason: str, details: Mapping[str, object], lang: Lang) -> str:
    """Word an illegal-move reason (from :class:`~elferraus.IllegalMoveError`) for a player."""
    if reason not in MESSAGES:
        return tr("not_a_move", lang)
    params = dict(details)
    if "color" in params:
        params["color_name"] = color_name(str(params["color"]), lang)
    if "fitting" in params:
        given = params["fitting"]
        fitting = [str(card) for card in given] if isinstance(given, list | tuple) else [str(given)]
        params["fitting"] = f" {tr('or', lang)} ".join(fitting) if fitting else tr("nothing_more", lang)
    return tr(reason, lang, **params)
