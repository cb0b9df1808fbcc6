"""What creating a game writes, computed apart from the writing: its header, opening events (the game's
``setup`` folded into a chain from the header's genesis hash), set-up record and meta fields.

``EventStore.create`` writes one; ``events/create_batch.py`` writes many in a pipeline. Both take what is
written from ``set_up``, so a game's genesis is byte-identical whichever wrote it (same seed, set-up id
and clock reading).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from domain.engine import Game, seed_commitment
from events import codec
from events.chain import envelopes_for, genesis
from events.envelope import CommandRecord, Envelope, GameHeader


class SetUp(msgspec.Struct, frozen=True, kw_only=True):
    """One game's creation, ready to write (``meta_fields``: the meta hash as the append script sets it)."""

    header: GameHeader
    seed: bytes
    envelopes: list[Envelope]
    record: CommandRecord
    meta_fields: dict[str, bytes | str | int]
    bots: dict[str, str]
    """Seat (as text) -> bot name."""
    tournament: bool
    spectator_delay: int


def set_up(
    game: Game[Any, Any, Any, Any],
    game_key: str,
    game_id: str,
    seats: int,
    options: Mapping[str, Any],
    seed: bytes,
    *,
    setup_id: str,
    ts: int,
    bots: Mapping[int, str] | None = None,
    tournament: bool = False,
    spectator_delay: int = 0,
    hold: str = "",
) -> SetUp:
    """The game's creation at clock reading ``ts`` (ms) under the set-up command id ``setup_id``: the rules'
    own set-up (the CPU work of a creation) and the records around it; pure."""
    events = game.setup(seats, dict(options), seed)
    header = GameHeader(
        game_id=game_id,
        game=game_key,
        seats=seats,
        options=dict(options),
        seed_commitment=seed_commitment(seed),
        created_ms=ts,
    )
    envelopes = envelopes_for(game_id, events, 0, genesis(header), setup_id, None, ts)
    record = CommandRecord(
        command_id=setup_id,
        origin="server",
        seat=None,
        command=b"",
        status="applied",
        at_seq=0,
        first_seq=1,
        last_seq=len(envelopes),
        ts_ms=ts,
    )
    bot_map = {str(seat): name for seat, name in (bots or {}).items()}
    meta_fields: dict[str, bytes | str | int] = {
        "header": codec.encode_header(header),
        "seed": seed,
        "status": "live",
        "bots": msgspec.json.encode(bot_map),
        "tournament": int(tournament),
        "spectator_delay": spectator_delay,
        **({"creating": hold} if hold else {}),
    }
    return SetUp(
        header=header,
        seed=seed,
        envelopes=list(envelopes),
        record=record,
        meta_fields=meta_fields,
        bots=bot_map,
        tournament=tournament,
        spectator_delay=spectator_delay,
    )
