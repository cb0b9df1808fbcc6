"""Text people type that others will read: printable only, and shown escaped wherever it is printed.

An organiser's reasons and the entrants' names are read on pages and in an auditor's terminal. A control
character there is not text: ESC starts a terminal escape (a forged reason could erase the line above and
print a green ``OK``), CR returns to the start of the line, NUL cuts strings in C tools, and the bidi
overrides and isolates (U+202A-U+202E, U+2066-U+2069) show characters in another order than stored. So
such text is refused where it comes in (``refusal``), and the verifiers print anything read from a file
through ``escaped``, so that a file made by hand cannot paint the auditor's screen either.
"""

from __future__ import annotations

import unicodedata

BIDI_CONTROLS = frozenset(map(chr, [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]))
"""Embeddings, overrides and isolates: they reorder what follows them on screen."""
LINE_BREAKS = frozenset({"\u2028", "\u2029", "\x85"})


def unprintable(text: str) -> str | None:
    """The first character ``text`` may not hold (as ``U+XXXX``), or ``None``: control characters (C0,
    DEL, C1), bidi controls and line or paragraph separators are refused; every other letter, mark, digit,
    symbol, space or emoji is taken."""
    for char in text:
        if unicodedata.category(char) == "Cc" or char in BIDI_CONTROLS or char in LINE_BREAKS:
            return f"U+{ord(char):04X}"
    return None


def escaped(text: str) -> str:
    """``text`` to print: every character Python would not print as itself (controls, format characters
    such as the bidi ones, separators other than the space) written as its escape, ``\\x1b``, ``\\u202e``."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else char.encode("unicode_escape").decode() for char in text)


def same_name(name: str) -> str:
    """The key two names are the same person under: NFC, then case-folded (``Ann`` and ``ANN`` are one)."""
    return unicodedata.normalize("NFC", name).casefold()
