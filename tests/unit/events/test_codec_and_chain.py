"""The codec's canonical bytes, the hash chain and upcasters, without Redis."""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec
import pytest

from domain.engine import Event, Game
from events import codec, upcast
from events.chain import envelopes_for, first_broken_link, genesis, link
from events.envelope import Envelope, GameHeader
from tests.support.minimal_game import GAME as RACE
from tests.support.minimal_game import Noted, RaceStarted, Rolled

HEADER = GameHeader(
    game_id="g", game="race", seats=2, options={"b": 1, "a": [1, 2]}, seed_commitment="c", created_ms=1
)


def _chain() -> list[Envelope]:
    events = [RaceStarted(seats=2, goal=30), Rolled(seat=0, value=3), Noted(seat=1, text="hi")]
    return envelopes_for("g", events, 0, genesis(HEADER), "setup", None, 1000)


def test_canonical_bytes_do_not_depend_on_dict_order() -> None:
    shuffled = msgspec.structs.replace(HEADER, options={"a": [1, 2], "b": 1})
    assert codec.canonical_header(shuffled) == codec.canonical_header(HEADER)


def test_an_intact_chain_holds_and_each_hash_covers_prev_and_content() -> None:
    chain = _chain()
    assert first_broken_link(HEADER, chain) is None
    assert all(link(e) == e.hash for e in chain)
    assert chain[1].prev_hash == chain[0].hash


@pytest.mark.parametrize("field", ["payload", "command_id", "ts_ms", "seat", "type"])
def test_changing_any_hashed_field_breaks_the_chain_at_that_event(field: str) -> None:
    chain = _chain()
    value: Any = {
        "payload": chain[1].payload + b"x",
        "command_id": "other",
        "ts_ms": 1,
        "seat": 1,
        "type": "X",
    }[field]
    chain[1] = msgspec.structs.replace(chain[1], **{field: value})
    assert first_broken_link(HEADER, chain) == (2, "hash does not match the event's content")


def test_a_missing_event_is_named_and_a_changed_header_breaks_the_first_link() -> None:
    chain = _chain()
    assert first_broken_link(HEADER, [chain[0], chain[2]])[0] == 2
    other = msgspec.structs.replace(HEADER, seed_commitment="d")
    assert first_broken_link(other, chain)[0] == 1


def test_envelopes_round_trip_through_msgpack() -> None:
    for envelope in _chain():
        assert codec.decode_envelope(codec.encode_envelope(envelope)) == envelope


class RolledV2(Event, frozen=True, kw_only=True, tag="Rolled"):
    """A later version of Rolled that also keeps the dice count."""

    version: ClassVar[int] = 2
    seat: int
    value: int
    dice: int


def test_an_old_event_version_is_upcast_before_typed_decoding() -> None:
    game_v2: Game[Any, Any, Any, Any] = Game(
        **{**RACE.__dict__, "key": "race-v2", "Event": RaceStarted | RolledV2}
    )
    old = _chain()[1]
    assert old.version == 1
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert(msgspec.msgpack.decode(old.payload), type=game_v2.Event)

    @upcast.register("race-v2", "Rolled", 1)
    def _add_dice(raw: dict[str, Any]) -> dict[str, Any]:
        return {**raw, "dice": 1}

    try:
        assert codec.decode_event(game_v2, old) == RolledV2(seat=0, value=3, dice=1)
    finally:
        upcast.UPCASTERS.pop(("race-v2", "Rolled", 1))
