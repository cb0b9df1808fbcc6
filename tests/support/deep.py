"""How big the CPU-heaviest property tests run: small in ``make test``, full in ``make chaos``.

``HARBORMASTER_DEEP_PROPERTIES=1`` (set by the Makefile's chaos target) runs the full sizes; unset, the
tests check every kind of thing they check (each variant, 2 and 4 seats) on fewer examples, so that
``make test`` stays under 15 minutes on 2 cores. The hypothesis profiles are named here so that a test
takes its ``max_examples`` from one place instead of a loop of its own.
"""

from __future__ import annotations

import os

from hypothesis import settings

DEEP = os.environ.get("HARBORMASTER_DEEP_PROPERTIES") == "1"


def sized(quick: int, deep: int) -> int:
    """``deep`` under ``HARBORMASTER_DEEP_PROPERTIES=1``, else ``quick``."""
    return deep if DEEP else quick


def examples(quick: int, deep: int) -> settings:
    """A hypothesis profile with ``quick`` or ``deep`` examples and no deadline (the games are CPU-bound)."""
    name = f"harbormaster-{quick}-{deep}"
    settings.register_profile(name, max_examples=sized(quick, deep), deadline=None)
    return settings.get_profile(name)
