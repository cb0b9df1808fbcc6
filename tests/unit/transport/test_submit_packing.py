"""A submitted command is packed in one step from parts kept per game (``resp.packed_submit``): the bytes
are exactly those of its two commands packed one by one (``resp.submit_calls``, what a Cluster sends)."""

from __future__ import annotations

import hiredis
from hypothesis import given
from hypothesis import strategies as st

from events.transport.resp import packed_submit, submit_calls

_GAME_IDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=40)


@given(_GAME_IDS, st.integers(1, 64), st.binary(max_size=80), st.binary(max_size=2000))
def test_a_packed_submit_is_its_two_commands_packed_one_by_one(
    game_id: str, partitions: int, field: bytes, message: bytes
) -> None:
    one_by_one = b"".join(
        hiredis.pack_command(call) for call in submit_calls(game_id, partitions, field, message)
    )
    assert packed_submit(game_id, partitions, field, message) == one_by_one
