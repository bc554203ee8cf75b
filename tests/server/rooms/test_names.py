"""The names people give themselves at a web table: properties of their tidy form and of looking alike."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from elferraus.server.rooms.names import clashing_name, is_visible, looks_like_a_computer, skeleton, tidy_name
from elferraus.server.rooms.schemas import NAME_PATTERN

NAMES = st.text(st.characters(max_codepoint=0xFFFF, exclude_categories=("Cs",)), min_size=1, max_size=20)


@given(NAMES)
def test_a_tidy_name_stays_as_it_is_and_shows_what_the_name_showed(name: str) -> None:
    tidy = tidy_name(name)
    assert tidy_name(tidy) == tidy
    assert tidy == tidy.strip()
    assert "  " not in tidy
    assert any(is_visible(char) for char in tidy) == any(is_visible(char) for char in name)


@given(NAMES)
def test_the_published_pattern_takes_a_name_exactly_when_it_shows_something(name: str) -> None:
    takes = re.fullmatch(NAME_PATTERN, name) is not None
    printable = all(char.isprintable() or char.isspace() for char in name)
    assert takes == (printable and any(is_visible(char) for char in name))


@given(NAMES, st.sampled_from([str.upper, str.lower, lambda n: f"  {n} ", lambda n: n.replace(" ", "\u3164")]))
def test_a_name_looks_like_itself_written_otherwise(name: str, written: object) -> None:
    assert callable(written)
    assert skeleton(written(name)) == skeleton(name) or name.upper().lower() != name.lower()
    assert clashing_name(name, ["", name]) in (None, name)
    assert clashing_name(name, [name]) == name


def test_a_computers_label_in_either_language() -> None:
    for label in (
        "Computer 2",
        "Computer 2 (medium)",
        "Computer 2 (mittel)",
        "Computer (experte)",
        "Computer 3 (master)",
        "Computer (Meister)",
        "COMPUTER 6",
    ):
        assert looks_like_a_computer(label), label
    for name in ("Computerfan", "Comp", "Anna (easy)", "Mein Computer 2"):
        assert not looks_like_a_computer(name), name
