"""Writing the report: one self-contained HTML page (plots inline) and Markdown with the plots beside it."""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from pathlib import Path

from elferraus.analysis.report_model import Section, TableBlock
from elferraus.analysis.words import Words

PLOTS = "plots"
"""The folder beside ``report.md`` that holds its PNGs."""

_CSS = """
:root { --ink: #1d1d1f; --muted: #5b5b60; --line: #d9d9de; --accent: #1F5FBF; --paper: #fdfdfb; }
* { box-sizing: border-box; }
body { margin: 0; font: 17px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
       color: var(--ink); background: var(--paper); }
main { max-width: 48rem; margin: 0 auto; padding: 1rem 1.1rem 4rem; }
h1 { font-size: 1.9rem; line-height: 1.2; margin: 1.2rem 0 .4rem; }
h2 { font-size: 1.35rem; margin: 2.6rem 0 .3rem; padding-top: .6rem; border-top: 1px solid var(--line); }
.question { color: var(--muted); font-style: italic; margin-top: 0; }
figure { margin: 1.2rem 0; }
figure img { width: 100%; height: auto; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
figcaption { color: var(--muted); font-size: .9rem; margin-top: .3rem; }
.table { overflow-x: auto; margin: 1rem 0; }
table { border-collapse: collapse; font-size: .9rem; font-variant-numeric: tabular-nums; min-width: 100%; }
th, td { padding: .35rem .55rem; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
caption { caption-side: bottom; text-align: left; color: var(--muted); font-size: .85rem; padding-top: .3rem; }
nav ol { padding-left: 1.3rem; }
a { color: var(--accent); }
.made { color: var(--muted); font-size: .9rem; }
code { font-size: .9em; background: #efeff2; padding: .05rem .3rem; border-radius: 4px; }
@media (max-width: 30rem) { body { font-size: 16px; } h1 { font-size: 1.5rem; } }
"""


def command_line(seed: int, quick: bool, lang: str) -> str:
    """The command that makes this report."""
    return f"elferraus analyze --out DIR --seed {seed} --lang {lang}" + (" --quick" if quick else "")


def write_report(out: Path, sections: Sequence[Section], words: Words, *, seed: int, quick: bool, games: int) -> None:
    """Write ``report.html``, ``report.md`` and ``plots/*.png`` into ``out``."""
    plots = out / PLOTS
    plots.mkdir(parents=True, exist_ok=True)
    for section in sections:
        for plot in section.plots:
            (plots / plot.name).write_bytes(plot.png)
    made = words("report.made", games=words.number(games, 0), seed=seed, command=command_line(seed, quick, words.lang))
    notice = words("report.quick") if quick else ""
    (out / "report.html").write_text(_html(sections, words, made, notice), encoding="utf-8")
    (out / "report.md").write_text(_markdown(sections, words, made, notice), encoding="utf-8")


def _html(sections: Sequence[Section], words: Words, made: str, notice: str) -> str:
    e = html.escape
    parts = [
        "<!doctype html>",
        f'<html lang="{words.lang}">',
        '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(words('report.title'))}</title><style>{_CSS}</style></head>",
        "<body><main>",
        f"<h1>{e(words('report.title'))}</h1>",
        f"<p>{e(words('report.intro'))}</p>",
    ]
    if notice:
        parts.append(f"<p><strong>{e(notice)}</strong></p>")
    parts.append(f'<nav aria-label="{e(words("report.contents"))}"><ol>')
    parts.extend(f'<li><a href="#{section.key}">{e(section.title)}</a></li>' for section in sections)
    parts.append("</ol></nav>")
    for section in sections:
        parts.append(f'<section id="{section.key}" aria-labelledby="{section.key}-title">')
        parts.append(f'<h2 id="{section.key}-title">{e(section.title)}</h2>')
        parts.append(f'<p class="question">{e(section.question)}</p>')
        for plot in section.plots:
            data = base64.b64encode(plot.png).decode("ascii")
            parts.append(
                f'<figure><img src="data:image/png;base64,{data}" alt="{e(plot.alt)}">'
                f"<figcaption>{e(plot.caption)}</figcaption></figure>"
            )
        parts.extend(f"<p>{e(paragraph)}</p>" for paragraph in section.paragraphs)
        parts.extend(_html_table(block) for block in section.tables)
        parts.append("</section>")
    parts.append(f'<p class="made">{e(made)}</p>')
    parts.append("</main></body></html>")
    return "\n".join(parts) + "\n"


def _html_table(block: TableBlock) -> str:
    e = html.escape
    head = "".join(f'<th scope="col">{e(cell)}</th>' for cell in block.header)
    body = "".join("<tr>" + "".join(f"<td>{e(cell)}</td>" for cell in row) + "</tr>" for row in block.rows)
    caption = f"<caption>{e(block.caption)}</caption>" if block.caption else ""
    return f'<div class="table"><table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def _markdown(sections: Sequence[Section], words: Words, made: str, notice: str) -> str:
    lines = [f"# {words('report.title')}", "", words("report.intro"), ""]
    if notice:
        lines += [f"**{notice}**", ""]
    lines += [f"{index}. [{section.title}](#{_anchor(section.title)})" for index, section in enumerate(sections, 1)]
    lines.append("")
    for section in sections:
        lines += [f"## {section.title}", "", f"*{section.question}*", ""]
        for plot in section.plots:
            lines += [f"![{_md(plot.alt)}]({PLOTS}/{plot.name})", "", f"*{_md(plot.caption)}*", ""]
        for paragraph in section.paragraphs:
            lines += [paragraph, ""]
        for block in section.tables:
            lines.append("| " + " | ".join(_md(cell) for cell in block.header) + " |")
            lines.append("|" + "|".join([":--"] + ["--:"] * (len(block.header) - 1)) + "|")
            lines += ["| " + " | ".join(_md(cell) for cell in row) + " |" for row in block.rows]
            lines.append("")
            if block.caption:
                lines += [f"*{_md(block.caption)}*", ""]
    lines += [made, ""]
    return "\n".join(lines)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _anchor(title: str) -> str:
    """The anchor GitHub gives a heading: lower case, spaces to hyphens, most punctuation dropped."""
    kept = "".join(ch for ch in title.lower() if ch.isalnum() or ch in " -")
    return kept.replace(" ", "-")
