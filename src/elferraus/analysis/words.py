"""The report's words in English and German, and numbers written as each language writes them."""

from __future__ import annotations

import tomllib
from importlib import resources
from typing import Any

from elferraus.i18n import Lang, tr

_TEXTS: dict[str, dict[str, str]] = tomllib.loads(
    resources.files("elferraus.analysis").joinpath("texts.toml").read_text(encoding="utf-8")
)


_GERMAN_MARKS = str.maketrans({",": ".", ".": ","})


class Words:
    """Texts and numbers for one language (``texts.toml`` holds every text in both)."""

    def __init__(self, lang: Lang) -> None:
        self.lang = lang

    def __call__(self, key: str, **fields: Any) -> str:
        """The text ``key`` (``section.name``) with ``fields`` filled in.

        Raises:
            KeyError: no such text, or it lacks this language.
        """
        try:
            entry = _TEXTS[key]
        except KeyError:
            raise KeyError(f"the report has no text {key!r}") from None
        return entry[self.lang].format(**fields)

    def number(self, value: float, digits: int = 1) -> str:
        """``value`` with ``digits`` decimals and a thousands separator, in the language's marks."""
        text = f"{value:,.{digits}f}"
        if abs(value) < 10_000:  # 1234.5, but 12,345.6: the separator only where it helps reading
            text = text.replace(",", "")
        return text.translate(_GERMAN_MARKS) if self.lang == "de" else text

    def signed(self, value: float, digits: int = 1) -> str:
        """``value`` with its sign always written, a true minus for negatives: ``+4.2``, ``−1.5``."""
        return ("+" if value >= 0 else "\u2212") + self.number(abs(value), digits)

    def percent(self, share: float, digits: int = 1) -> str:
        """A share as a percentage: ``0.254`` is ``25.4 %`` (``25,4 %`` in German)."""
        return f"{self.number(100 * share, digits)}\u00a0%"

    def interval(self, low: float, high: float, digits: int = 1, *, percent: bool = True) -> str:
        """A 95 % interval, ``24.1–26.7 %``."""
        if percent:
            return f"{self.number(100 * low, digits)}–{self.number(100 * high, digits)}\u00a0%"
        return f"{self.number(low, digits)}–{self.number(high, digits)}"

    def share_with_interval(self, figure: dict[str, Any], name: str, digits: int = 1) -> str:
        """``25.4 % (24.1–26.7 %)`` from a results entry holding ``name`` and ``ci95``."""
        low, high = figure["ci95"]
        return f"{self.percent(figure[name], digits)} ({self.interval(low, high, digits)})"

    def value_with_interval(self, figure: dict[str, Any], name: str, digits: int = 1) -> str:
        """``117.3 (116.9–117.8)`` from a results entry holding ``name`` and ``ci95``."""
        low, high = figure["ci95"]
        return f"{self.number(figure[name], digits)} ({self.interval(low, high, digits, percent=False)})"

    def level(self, spec: str) -> str:
        """A player of the study in the reader's words: ``medium`` is *mittel* in German, ``holdback:0.5``
        *Zurückhalten 0,5*."""
        if spec.startswith("holdback:"):
            return self("common.holdback", readiness=self.number(float(spec.removeprefix("holdback:")), 2))
        return tr(f"level_{spec}", self.lang)
