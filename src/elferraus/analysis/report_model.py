"""What a question hands the report: its section, in the reader's language."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Plot:
    """One figure: its file name (without folder), the PNG, and a sentence for readers who cannot see it."""

    name: str
    png: bytes
    alt: str
    caption: str


@dataclass(frozen=True)
class TableBlock:
    """A small table of figures (already formatted text)."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    caption: str = ""


@dataclass(frozen=True)
class Section:
    """One question of the study as the report shows it."""

    key: str
    title: str
    question: str
    paragraphs: tuple[str, ...]
    """What the numbers mean."""
    plots: tuple[Plot, ...] = ()
    tables: tuple[TableBlock, ...] = field(default_factory=tuple)
