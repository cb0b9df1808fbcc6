"""``stream_of``: which stream a chain's header names (a tournament's says ``tournament:<game>``)."""

from __future__ import annotations

from events.tlog.leaves import stream_of


def test_tournament_headers_are_the_tournament_stream() -> None:
    assert (stream_of("tournament:manila"), stream_of("manila")) == ("tournament", "game")
