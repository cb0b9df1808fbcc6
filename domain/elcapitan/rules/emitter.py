"""The events of one decision, folded as they are emitted.

Its own module, below every rule module that emits: ``payday`` and ``building`` emit without importing
``flow``, which imports them (``flow`` calls ``payday`` at a phase's end), so there is no circle.
"""

from __future__ import annotations

from domain.elcapitan import events as ev
from domain.elcapitan.evolve import evolve
from domain.elcapitan.state import State


class Emitter:
    """Events of one decision, folded as they are emitted so that later ones see their effect."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.events: list[ev.ElCapitanEvent] = []

    def emit(self, event: ev.ElCapitanEvent) -> None:
        """Record ``event`` and fold it into ``state``."""
        self.events.append(event)
        self.state = evolve(self.state, event)
