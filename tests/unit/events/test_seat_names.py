"""The seats' names' one cleaning rule and one form (``events/seat_names.py``, issue 46 item 3): every
writer of the field takes its value from ``encoded``."""

from __future__ import annotations

import pytest

from events import seat_names


@pytest.mark.parametrize(
    ("chosen", "shown"),
    [
        ("  Anna  ", "Anna"),
        ("a\tb\n\nc", "a b c"),  # whitespace that does not print is a space, as it reads
        ("tab\u0007bell", "tabbell"),  # a control character is dropped
        ("A\u200bnn", "Ann"),  # so is one that takes no space
        ("x" * 30, "x" * 24),
        ("a" * 23 + " b", "a" * 23),  # cut, then no space left at the end
        ("Ｚoë", "Ｚoë"),  # letters of any script stay as they are
    ],
)
def test_a_name_is_cleaned_by_the_one_rule(chosen: str, shown: str) -> None:
    assert seat_names.cleaned(chosen) == shown
    assert seat_names.cleaned(shown) == shown  # cleaning twice changes nothing


def test_the_field_holds_the_cleaned_names_by_seat_and_reads_back() -> None:
    raw = seat_names.encoded([" Anna ", "", "b\u0007o"])
    assert raw == b'["Anna","","bo"]'
    assert seat_names.decoded(raw) == ["Anna", "", "bo"]
    assert seat_names.decoded(None) == []
