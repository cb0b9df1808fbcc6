"""Upcasters: small ``dict -> dict`` steps that lift an old event form to the next version.

Applied before typed decoding (the eventsourcing library's pattern), keyed by
``(game, event type, from version)``. A step from version ``v`` returns the event as version ``v + 1``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

UPCASTERS: dict[tuple[str, str, int], Upcaster] = {}


def register(game: str, event_type: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
    """Decorator: register the step that lifts ``event_type`` from ``from_version`` to the next."""

    def wrap(step: Upcaster) -> Upcaster:
        UPCASTERS[(game, event_type, from_version)] = step
        return step

    return wrap


def upcast(game: str, event_type: str, version: int, raw: Any) -> Any:
    """Lift ``raw`` step by step as far as registered steps go."""
    while (step := UPCASTERS.get((game, event_type, version))) is not None:
        raw = step(dict(raw))
        version += 1
    return raw
