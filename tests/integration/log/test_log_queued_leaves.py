"""The leaves other writers queue for the log: an archived game's command records digest (what ``verify --log``
holds an export's command lines to), and each account's new rating after a rated game."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from domain.engine import Outcome, Seat
from events import keys
from events.archived import archive_lines
from events.log_store import LogStore
from events.tlog import leaves, note
from services.archive import archive_game
from services.audit.chains import game_chain
from services.bootstrap import Services
from tests.integration.log.test_log_sequencer import create_bot_games, play_round
from tests.support.pipeline import services_for
from workers.fold import FoldWorker
from workers.jobs.account_ratings import rate_game, seat_account
from workers.log_sequencer import LogSequencer


@pytest.fixture
def services(redis_url: str, redis_client: redis.Redis) -> Iterator[Services]:
    yield services_for(redis_url, archive_trim=False)


def logged(services: Services) -> list[leaves.Leaf]:
    sequencer = LogSequencer(services.redis, note.Signer.generate("harbormaster.test/log"))
    sequencer.publish()
    sequencer.tick()
    log = LogStore(services.redis)
    return [leaves.decode(data) for data in log.leaves(0, log.size())]


def test_an_archived_game_has_its_command_records_digest_logged(services: Services, tmp_path: Path) -> None:
    [game_id, *_] = create_bot_games(services, "arch")
    worker = FoldWorker(services.redis, services.store, services.bus, block_ms=10)
    while play_round(services, worker, [game_id]):
        pass
    entry = archive_game(services.store, game_id, tmp_path)
    assert entry["verified"]
    [commands] = [leaf for leaf in logged(services) if isinstance(leaf, leaves.Commands)]
    chain = game_chain(archive_lines(entry["file"]))
    assert chain is not None and chain.command_lines
    assert commands == leaves.Commands(
        stream="game",
        id=game_id,
        last_seq=services.store.meta(game_id).last_seq,
        count=len(chain.command_lines),
        digest=leaves.commands_digest(chain.command_lines),
    )
    assert services.redis.xlen(keys.LOG_QUEUE) == 0


def test_a_rated_game_logs_each_accounts_new_rating(services: Services) -> None:
    for seat, account in enumerate(("ann", "bob", "cy")):
        seat_account(services.redis, "rated-1", seat, account)
    outcome = Outcome(ranking=(Seat(1), Seat(0), Seat(2)), scores=(5, 9, 1), winners=(Seat(1),))
    assert rate_game(services.redis, "rated-1", "manila", outcome)
    ratings = [leaf for leaf in logged(services) if isinstance(leaf, leaves.Rating)]
    assert [(r.account, r.game_id, r.place) for r in ratings] == [
        ("bob", "rated-1", 0),
        ("ann", "rated-1", 1),
        ("cy", "rated-1", 2),
    ]
    assert ratings[0].mu > 25 > ratings[2].mu
    assert not rate_game(services.redis, "rated-1", "manila", outcome)  # rated once: logged once
    assert services.redis.xlen(keys.LOG_QUEUE) == 0
