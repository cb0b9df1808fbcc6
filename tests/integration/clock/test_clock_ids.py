"""The move clock's command ids are its own (issue 17, finding 1): a player who records commands under
them first cannot stop its own timeout, so cannot stall a game by never moving."""

from __future__ import annotations

import secrets
import time
from pathlib import Path

from events.clocks import Clock
from services.audit.timeouts import overdue
from services.audit.verify import Verified, VerifyReport, read_verified
from services.export import export_lines
from tests.conftest import TEST_GAMES
from tests.support.pipeline import services_for
from workers.fold import FoldWorker
from workers.jobs.clock import claim_timeouts, last_move_ms, read_clocks, timeout_command_id

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


# --- issue 41.3: verify accepts a timeout only as the clock makes it ----------------------------------------


def _race(services, game_id: str, goal: int = 12) -> tuple[bytes, FoldWorker]:
    seed = secrets.token_bytes(32)
    services.store.create("race", game_id, 2, {"goal": goal}, seed)
    return seed, FoldWorker(services.redis, services.store, services.bus, block_ms=20)


def _verified(services, game_id: str, tmp_path: Path) -> tuple[VerifyReport, Verified | None]:
    path = tmp_path / f"{game_id}.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in export_lines(services.store, game_id)))
    return read_verified(path, TEST_GAMES)


def _reasons(report: VerifyReport) -> str:
    return " | ".join(problem.reason for problem in report.problems)


def test_verify_refuses_a_person_s_moves_recorded_as_timeouts(redis_url, redis_client, tmp_path) -> None:
    """The report's case, as the server before the fix let it through (straight onto the bus): seat 0 sent
    every move of her own as ``timeout-p{n}-0-mine``, and the log counted her absent and timed out. The
    gateway now refuses those ids (tests/integration/api/test_command_ids.py); ``verify`` names the rule broken."""
    services = services_for(redis_url)
    _, worker = _race(services, "mine")
    for n in range(1, 200):
        if services.store.meta("mine").status == "finished":
            break
        services.bus.submit("mine", 0, b'{"type":"Roll"}', f"timeout-p{n}-0-mine")
        services.bus.submit("mine", 1, b'{"type":"Roll"}', f"c{n}")
        worker.run(until_idle=True)
    clocks = read_clocks(services.store, "mine")
    assert 0 not in clocks.moved and clocks.timeouts.get(0, 0) > 0  # the harm: she "never came"
    report, verified = _verified(services, "mine", tmp_path)
    assert verified is None and "sent by seat, not the clock" in _reasons(report)


def _silent_seat_1(services, game_id: str, worker: FoldWorker, wait_ms: int) -> None:
    """Seat 0 rolls; seat 1 never does, and the clock plays its default move once ``wait_ms`` passed."""
    while services.store.meta(game_id).status != "finished":
        to_act = services.store.load(game_id).game.to_act(services.store.load(game_id).state)
        if 0 in to_act:
            services.bus.submit(game_id, 0, b'{"type":"Roll"}')
        else:
            time.sleep(wait_ms / 1000)
            last = last_move_ms(services.store, game_id)
            assert last is not None
            claim_timeouts(services.store, services.bus, [game_id], now_ms=int(time.time() * 1000),
                           clock=Clock(move_ms=wait_ms))  # fmt: skip
        worker.run(until_idle=True)


def test_an_honest_timeout_verifies_and_is_due_under_its_clock(redis_url, redis_client, tmp_path) -> None:
    services = services_for(redis_url)
    _, worker = _race(services, "due")
    _silent_seat_1(services, "due", worker, wait_ms=30)
    report, verified = _verified(services, "due", tmp_path)
    assert report.ok and report.decisions_checked and report.timeouts > 0, report.problems
    assert verified is not None
    assert overdue(verified.envelopes, verified.commands, Clock(move_ms=30)) == []
    # Check 4: the same log held to a limit the time in it does not reach (a forger who dates a timeout
    # too early is caught so), and to no clock at all (a tournament without one claims no timeout).
    for clock in (Clock(move_ms=60_000), Clock()):
        late = overdue(verified.envelopes, verified.commands, clock)
        assert len(late) == report.timeouts and "within its clock" in late[0][1]


def test_a_move_relabelled_a_timeout_is_caught(redis_url, redis_client, tmp_path) -> None:
    """The operator holds the seed, so can make the clock's very id: a move that is not the default one
    (a ``Note`` where the clock plays ``Roll``) under it is caught, and so is an id whose tag is not the
    seed's (the HMAC zeroed), once the game is over and its seed revealed."""
    services = services_for(redis_url)
    seed, worker = _race(services, "forged", goal=7)  # a die shows 6 at most: seat 0's roll cannot end it
    services.bus.submit("forged", 0, b'{"type":"Roll"}')
    worker.run(until_idle=True)
    at = services.store.meta("forged").last_seq
    real, zeroed = timeout_command_id(seed, at, 1), f"timeout-{at}-1-{'0' * 20}"
    services.bus.submit("forged", 1, b'{"type":"Note","text":"x"}', real, origin="clock")
    worker.run(until_idle=True)
    services.bus.submit(
        "forged", 1, b'{"type":"Roll"}', zeroed.replace(f"-{at}-", f"-{at + 1}-"), origin="clock"
    )
    worker.run(until_idle=True)
    _silent_seat_1(services, "forged", worker, wait_ms=1)
    report, _ = _verified(services, "forged", tmp_path)
    assert "not the default move" in _reasons(report), report.problems
    assert "not keyed with the game's seed" in _reasons(report), report.problems
