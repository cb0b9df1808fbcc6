"""The move clock's command ids are its own (issue 17, finding 1): a player who records commands under
them first cannot stop its own timeout, so cannot stall a game by never moving."""

from __future__ import annotations

import secrets

import pytest

from tests.support.pipeline import services_for
from workers.fold import FoldWorker
from workers.jobs.clock import claim_timeouts, last_move_ms, timeout_command_id

pytestmark = pytest.mark.redis

NONSENSE = b'{"type":"Nope"}'
"""Refused by any game (command.invalid): the staller's filler."""


def test_a_player_cannot_take_its_own_timeout_command_ids(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    seed = secrets.token_bytes(32)
    services.store.create("eic", "stall", 2, {}, seed)
    worker = FoldWorker(services.redis, services.store, services.bus, block_ms=20)
    loaded = services.store.load("stall")
    seats = sorted(loaded.game.to_act(loaded.state))
    for seat in seats:  # the old predictable id, and even the real one (which needs the secret seed)
        for command_id in (f"timeout-{loaded.seq}-{seat}", timeout_command_id(seed, loaded.seq, seat)):
            services.bus.submit("stall", seat, NONSENSE, command_id)
    worker.run(until_idle=True)
    assert services.store.meta("stall").last_seq == loaded.seq  # only refusals so far
    last = last_move_ms(services.store, "stall")
    assert last is not None
    claimed = claim_timeouts(services.store, services.bus, ["stall"], limit_ms=0, now_ms=last + 10**9)
    assert [seat for _, seat, _ in claimed] == seats
    worker.run(until_idle=True)
    assert services.store.meta("stall").last_seq > loaded.seq  # the timeouts were applied
    timeouts = [r for r in services.store.records("stall") if r.origin == "clock"]
    assert timeouts and all(r.status == "applied" for r in timeouts)
    assert {r.command_id for r in timeouts} == {timeout_command_id(seed, loaded.seq, s) for s in seats}
