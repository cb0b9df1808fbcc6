"""Errors of the event layer. The domain raises only ``RuleViolation``; these belong to the adapters."""

from __future__ import annotations


class EventsError(Exception):
    """Base of every error the event layer raises."""


class SequenceConflict(EventsError):
    """Someone appended to the game after the state a decision was made on."""

    def __init__(self, expected: int, actual: int) -> None:
        super().__init__(f"expected the game at seq {expected}, it is at seq {actual}")
        self.expected = expected
        self.actual = actual


class UnknownGame(EventsError):
    """No game with that id exists."""


class GameExists(EventsError):
    """A game with that id exists already."""


class PoisonMessage(EventsError):
    """An inbox message that can never be processed (undecodable, unknown game)."""
