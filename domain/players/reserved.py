"""Names nobody may take, and the form a shown name is compared in (issue 43, finding 16: ``admin``,
``system``, ``moderator`` and ``Harbormaster`` registered as accounts; a game made over HTTP could call a
seat exactly like an existing account and chat under that name).

Pure: the gateway turns a ``RuleViolation`` into a 422.

Two forms of a name:

- ``plain``: the name as an account name would be keyed, reached from what a person *sees*: Unicode's
  compatibility form (NFKC: full-width ``Ａｎｎ`` is ``Ann``), case folded, Cyrillic and Greek letters that
  look like Latin ones read as those (``Аnn`` with a Cyrillic A is ``ann``), and invisible characters dropped.
  An account ``ann`` exists under ``hm:account:ann``, so a seat name's plain form is looked up there.
- ``skeleton``: the plain form with digits that stand in for letters read as them (``adm1n``, ``m0derator``)
  and everything but letters dropped (``Harbor Master``, ``sys.tem``): what a reserved name is compared in,
  so that none of its look-alikes is free either. Accounts are not compared this way with each other
  (``ann0`` and ``anno`` stay two accounts, as they always were).
- ``digits_read``: the plain form with the stand-in digits read as letters (``b0b`` is ``bob``): a seat's
  name is looked up in both forms, so that a guest seat cannot pass for an account by a digit. Only that
  way round: the seat ``anno`` beside the account ``ann0`` would need every name's letters tried as digits
  (or an index of accounts by skeleton), for a name whose owner chose it to look like another.
"""

from __future__ import annotations

import unicodedata

from domain.engine import RuleViolation

RESERVED = frozenset(
    {
        "admin", "administrator", "system", "moderator", "mod", "harbormaster", "root", "staff", "support",
        "operator", "official", "organiser", "organizer", "server", "clock", "referee",
    }
)  # fmt: skip
"""What a player could take for the service speaking: refused as account names and as seat names."""

_LOOKALIKES = str.maketrans(
    {
        "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
        "у": "y", "х": "x", "і": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "ո": "n", "α": "a", "β": "b", "ε": "e",
        "ι": "i", "κ": "k", "μ": "m", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ı": "i",
    }
)  # fmt: skip
"""Cyrillic, Greek and Armenian lower-case letters drawn like a Latin one (after case folding)."""
_DIGITS = str.maketrans({"0": "o", "1": "l", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "|": "l"})


def plain(name: str) -> str:
    """The name as seen, in the form account names are keyed in (see the module's docstring)."""
    folded = unicodedata.normalize("NFKC", name).casefold().translate(_LOOKALIKES)
    return "".join(c for c in folded if unicodedata.category(c) not in ("Cf", "Mn", "Zs", "Cc"))


def digits_read(name: str) -> str:
    """``plain`` with the digits that stand in for letters read as them (``b0b``, ``4nn``: ``bob``, ``ann``)."""
    return plain(name).translate(_DIGITS)


def skeleton(name: str) -> str:
    """``plain`` with stand-in digits read as letters and everything else but letters dropped; ``i`` and
    ``l``, ``rn`` and ``m``, ``vv`` and ``w`` read alike."""
    letters = "".join(c for c in plain(name).translate(_DIGITS) if c.isalpha())
    return letters.replace("i", "l").replace("rn", "m").replace("vv", "w")


_RESERVED_SKELETONS = frozenset(skeleton(name) for name in RESERVED)


def is_reserved(name: str) -> bool:
    return skeleton(name) in _RESERVED_SKELETONS


def check_unreserved(name: str, what: str = "an account's name") -> None:
    """``RuleViolation('reserved_name')`` for a name that reads as one of ``RESERVED``."""
    if is_reserved(name):
        raise RuleViolation(
            "reserved_name", f"{name[:40]!r} is kept for the service; choose another as {what}"
        )
