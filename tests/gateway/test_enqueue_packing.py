"""A socket's move is packed in one step from parts kept per game (``commands.packed_enqueue``): the bytes
are exactly those of its two commands packed one by one (``enqueue_calls``, what HTTP and a Cluster send)."""

from __future__ import annotations

import hiredis
from hypothesis import given
from hypothesis import strategies as st

from services.gateway.commands import enqueue_calls, packed_enqueue

_GAME_IDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=40)


@given(_GAME_IDS, st.integers(1, 64), st.binary(max_size=80), st.binary(max_size=2000))
def test_a_packed_enqueue_is_its_two_commands_packed_one_by_one(
    game_id: str, partitions: int, field: bytes, message: bytes
) -> None:
    one_by_one = b"".join(
        hiredis.pack_command(call) for call in enqueue_calls(game_id, partitions, field, message)
    )
    assert packed_enqueue(game_id, partitions, field, message) == one_by_one
