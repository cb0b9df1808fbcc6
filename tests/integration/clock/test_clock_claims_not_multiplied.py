"""A clock-played game's timeouts are not multiplied by a duplicate (found by the tournament chaos run).

Two claimers (the fold worker's hook and the clock watcher, or the reconcile pass) may send the same
timeout. The fold worker applies one and acknowledges the other as a duplicate, and calls the hook again
for the game (``FoldWorker._after_duplicates``); the hook claimed the next position again, so it came
twice, its duplicate claimed the one after twice, and so on to the game's end: in the chaos run 140 copies
of one timeout stood in the inbox and an El Capitán final played by the clock moved every few seconds.
Here the race is made to happen: the first timeout is claimed twice at the same position, then the fold
worker (with the hook, as ``serve`` runs it) plays the whole game out; every later timeout is sent once."""

from __future__ import annotations

from collections import Counter
from typing import Any, cast

from domain.tournament import Entrant
from events.bus import CommandBus
from events.clocks import tournament_clock
from events.store import now_ms
from services import tournament_service as service
from services.audit.tournament_verify import verify_tournament_lines
from tests.support.pipeline import services_for
from workers.fold import FoldWorker
from workers.jobs.clock import claim_game, read_clocks
from workers.jobs.clock_due import ClockTrigger


class CountingBus:
    """The real bus, each command id it is given counted (the hook's only use of it is ``submit``)."""

    def __init__(self, bus: CommandBus) -> None:
        self.bus = bus
        self.sent: Counter[str] = Counter()

    def submit(self, game_id: str, seat: int | None, command: bytes, command_id: str | None = None,
               origin: Any = "seat") -> str:  # fmt: skip
        self.sent[str(command_id)] += 1
        return self.bus.submit(game_id, seat, command, command_id, origin)


def test_a_timeout_claimed_twice_does_not_double_the_moves_after_it(redis_url: str) -> None:
    services = services_for(redis_url)
    people = [Entrant(name="ann"), Entrant(name="bob")]  # neither ever moves: the clock plays the game
    spec = service.TournamentSpec(game="race", entrants=people, rounds=1, table_size=2, options={"goal": 30},
                                  points={2: [6, 1], 1: [6]}, no_show_s=0.001, id="tdup")  # fmt: skip
    tid = service.create(services, spec)
    service.start(services, redis_url, tid)
    state = service.load(services, tid)
    game_id = state.rounds[0].games[0]
    bus = CountingBus(services.bus)
    clock = tournament_clock(0, 0, 0.001, False)
    loaded = services.store.load(game_id)
    for _claimer in range(2):  # the hook and the watcher, at the same position
        clocks = read_clocks(services.store, game_id)
        claimed = claim_game(services.store, cast(CommandBus, bus), loaded, clocks, clock, clocks.last_ts_ms,
                             now_ms() + 1000)  # fmt: skip
        assert claimed
    [first] = [command_id for command_id, n in bus.sent.items() if n == 2]

    hook = ClockTrigger(services.store, cast(CommandBus, bus))
    worker = FoldWorker(services.redis, services.store, services.bus, block_ms=20, on_applied=hook)
    for _pass in range(50):  # each pass folds what is in the inbox, the hook's claims included
        worker.run(until_idle=True)
        if services.store.meta(game_id).status == "finished":
            break
    assert services.store.meta(game_id).status == "finished"

    later = {command_id: n for command_id, n in bus.sent.items() if command_id != first}
    assert len(later) >= 4  # a die moves 6 at most: at least 5 rolls to 30, all the clock's
    assert set(later.values()) == {1}, later  # each sent once, not once more per duplicate before it
    state = service.reconcile(services, redis_url, tid)
    report = verify_tournament_lines(list(service.export_lines(services, tid)))
    assert state.status == "finished" and report.ok, report.problems
