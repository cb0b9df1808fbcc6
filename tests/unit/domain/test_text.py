"""Printable text (issue 41.5): what an organiser or an entrant types is refused with any control or bidi
character, and anything printed from a file is escaped."""

from __future__ import annotations

import pytest

from domain.text import escaped, same_name, unprintable


@pytest.mark.parametrize(
    ("text", "refused"),
    [("\x00", "U+0000"), ("a\x1b[31m", "U+001B"), ("\r", "U+000D"), ("\n", "U+000A"), ("\x7f", "U+007F"),
     ("\x9b", "U+009B"), ("\u202a", "U+202A"), ("\u202e", "U+202E"), ("\u2066", "U+2066"),
     ("\u2069", "U+2069"), ("\u2028", "U+2028")],
)  # fmt: skip
def test_controls_and_bidi_characters_are_refused(text: str, refused: str) -> None:
    assert unprintable(f"name {text} end") == refused


@pytest.mark.parametrize("text", ["Ann", "Zoë Ñúñez", "李小龍", "أحمد", "family 👨‍👩‍👧", "o'Brien-Smith (2)"])
def test_people_s_names_in_any_script_are_taken(text: str) -> None:
    assert unprintable(text) is None


def test_printed_text_is_escaped_and_plain_text_is_left_alone() -> None:
    assert escaped("plain text, é 李") == "plain text, é 李"
    assert escaped("x\x1b[2K\rOK\u202e") == "x\\x1b[2K\\rOK\\u202e"
    assert "\x1b" not in escaped("\x1b" * 3)


def test_names_are_the_same_whatever_the_case_or_composition() -> None:
    assert same_name("ANN") == same_name("ann")
    assert same_name("e\u0301") == same_name("\u00e9")
    assert same_name("ann") != same_name("anne")
