"""``leaves_for_chain``: the rule the sequencer and the forgery tests share for what a chain adds to the log."""

from __future__ import annotations

from events.chain import envelopes_for, genesis
from events.envelope import GameHeader
from events.tlog.leaves import Head, Start, leaves_for_chain, stream_of


def _chain(game: str = "manila") -> tuple[GameHeader, list]:
    header = GameHeader(game_id="g1", game=game, seats=3, options={}, seed_commitment="ab" * 32, created_ms=1)
    return header, envelopes_for("g1", [], 0, genesis(header), "c", None, 1)


def test_a_new_chain_starts_then_heads_only_where_it_moved() -> None:
    header, _ = _chain()
    from domain.tournament import TournamentPaused

    envelopes = envelopes_for(
        "g1", [TournamentPaused(), TournamentPaused()], 0, genesis(header), "c", None, 5
    )
    first = leaves_for_chain(header, envelopes[:1], False)
    assert first == [
        Start("game", "g1", genesis(header), "ab" * 32),
        Head("game", "g1", 1, envelopes[0].hash, False),
    ]
    assert leaves_for_chain(header, envelopes[:1], False, (1, envelopes[0].hash)) == []  # nothing moved
    assert leaves_for_chain(header, envelopes, True, (1, envelopes[0].hash)) == [
        Head("game", "g1", 2, envelopes[1].hash, True)
    ]
    assert leaves_for_chain(header, [], False) == [Start("game", "g1", genesis(header), "ab" * 32)]


def test_tournament_headers_are_the_tournament_stream() -> None:
    assert (stream_of("tournament:manila"), stream_of("manila")) == ("tournament", "game")
    header, _ = _chain("tournament:manila")
    assert leaves_for_chain(header, [], False)[0] == Start("tournament", "g1", genesis(header), "ab" * 32)
