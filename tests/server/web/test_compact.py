"""The page's scripts and styles go out without comments and indentation, line for line, and nothing else
changes: table-driven cases of ``compact``, every shipped file as the server sends it, and a new version of a
file as a new ETag."""

from __future__ import annotations

import asyncio
import gzip
import shutil
from pathlib import Path

import httpx
import pytest

from elferraus.server.web.app import STATIC
from elferraus.server.web.compact import Kind, compact, spans_lines
from tests.support.web_helpers import serving

CASES: list[tuple[str, Kind, str, str]] = [  # what it shows, the kind, the text, compacted
    ("a comment line goes, its line stays", "script", "// why\nlet a = 1;\n", "\nlet a = 1;\n"),
    ("indentation and trailing spaces go", "script", "if (a) {\n    b();   \n}", "if (a) {\nb();\n}"),
    ("an indented comment line goes", "script", "f();\n    // why\ng();", "f();\n\ng();"),
    ("a comment after code stays", "script", "f(); // why\n", "f(); // why\n"),
    ("a URL in a string stays", "script", 'const u = "http://x/*y";\n', 'const u = "http://x/*y";\n'),
    ("a block comment goes, line by line", "script", "/**\n * the why\n */\nf();", "\n\n\nf();"),
    ("a one-line block comment goes", "style", "/* tone */\na { b: c; }", "\na { b: c; }"),
    ("code after a block comment's end stays", "script", "/* x\n y */ f();\ng();", "\n y */ f();\ng();"),
    ("code after a one-line block comment stays", "style", "  /* x */ a { b: c; }", "  /* x */ a { b: c; }"),
    ("a style has no line comments", "style", "a {\n  // b: c;\n}", "a {\n// b: c;\n}"),
    (
        "a template literal over lines goes out as written",
        "script",
        "const t = `\n    // text\n    `;\n    f();",
        "const t = `\n    // text\n    `;\n    f();",
    ),
    ("a template literal on one line is compacted around", "script", "  x = `a ${b}`;\n  // c", "x = `a ${b}`;\n"),
    ("an escaped backtick is not a template's end", "script", "  x = `a \\` b`;\n  // c", "x = `a \\` b`;\n"),
]


@pytest.mark.parametrize(("kind", "text", "expected"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_compact(kind: Kind, text: str, expected: str) -> None:
    assert compact(text, kind) == expected
    assert compact(text, kind).count("\n") == text.count("\n")


def shipped() -> list[Path]:
    return sorted([*STATIC.glob("js/*.js"), *STATIC.glob("css/*.css")])


def test_every_shipped_script_and_style_goes_out_compacted_line_for_line(tmp_path: Path) -> None:
    """Each line the server sends is the source's line without its indentation, or empty where the source has
    only a comment (or nothing); and the scripts are all compacted (none spans a template over lines)."""

    async def test(base: str) -> None:
        async with httpx.AsyncClient(base_url=base, timeout=10) as http:
            for path in shipped():
                source = path.read_text(encoding="utf-8")
                answer = await http.get(f"/static/{path.relative_to(STATIC)}")
                assert answer.status_code == 200, path
                if path.suffix == ".js":
                    assert not spans_lines(source), path
                    assert answer.headers["content-type"] == "text/javascript; charset=utf-8"
                else:
                    assert answer.headers["content-type"] == "text/css; charset=utf-8"
                sent = answer.text.split("\n")
                lines = source.split("\n")
                assert len(sent) == len(lines), path
                in_comment = False
                for number, (line, out) in enumerate(zip(lines, sent, strict=True), start=1):
                    bare = line.strip()
                    starts = bare.startswith("/*")
                    comment = in_comment or starts or bare.startswith("//") or bare == ""
                    if starts or in_comment:
                        in_comment = "*/" not in (bare[2:] if starts else bare)
                    assert out in (bare, line) or (out == "" and comment), f"{path.name}:{number}: {line!r} -> {out!r}"
                assert len(gzip.compress(answer.content)) < len(gzip.compress(source.encode())), path

    asyncio.run(_run(tmp_path, test))


def test_a_changed_script_is_sent_anew_with_a_new_etag(tmp_path: Path) -> None:
    static = tmp_path / "static"
    shutil.copytree(STATIC, static)
    script = static / "js" / "router.js"

    async def test(base: str) -> None:
        async with httpx.AsyncClient(base_url=base, timeout=10) as http:
            first = await http.get("/static/js/router.js")
            assert (
                await http.get("/static/js/router.js", headers={"if-none-match": first.headers["etag"]})
            ).status_code == 304
            script.write_text(
                script.read_text(encoding="utf-8") + "\n    // a comment\n    export const RELEASE = 2;\n"
            )
            second = await http.get("/static/js/router.js", headers={"if-none-match": first.headers["etag"]})
            assert second.status_code == 200
            assert second.headers["etag"] != first.headers["etag"]
            assert second.text.endswith("\n\nexport const RELEASE = 2;\n")

    asyncio.run(_run(tmp_path, test, static_dir=static))


async def _run(tmp_path: Path, test: object, **settings: object) -> None:
    async with serving(str(tmp_path / "rooms.db"), **settings) as base:
        await test(base)  # type: ignore[operator]
