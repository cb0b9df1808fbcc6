"""The log kept with the archives (issue 41: "archived with the games"): serve's pass writes whole segments
once and never again, and a head file with the newest checkpoint; the folder reads as one ``log.jsonl``
whose leaves give the checkpoint's root, and ``verify --log FOLDER`` takes it."""

from __future__ import annotations

import redis

from events.log_store import LogStore
from events.tlog import merkle, note
from events.tlog.checkpoint import open_checkpoint
from services import log_archive
from services.audit.log_file import read_log
from tests.integration.log.test_log_sequencer import create_bot_games, play_round
from tests.support.pipeline import services_for
from workers.fold import FoldWorker
from workers.log_sequencer import LogSequencer


def test_the_log_folder_grows_by_whole_segments_and_reads_as_the_log(
    redis_url: str, redis_client: redis.Redis, tmp_path, monkeypatch
) -> None:
    monkeypatch.setattr(log_archive, "SEGMENT", 8)
    services = services_for(redis_url)
    signer = note.Signer.generate("archive.test/log")
    sequencer = LogSequencer(services.redis, signer)
    sequencer.publish()
    game_ids = create_bot_games(services, "arch")
    worker = FoldWorker(services.redis, services.store, services.bus, block_ms=10)
    store = LogStore(services.redis)
    folder = tmp_path / "log"
    seen_segments: dict[str, int] = {}
    for _ in range(40):
        if not play_round(services, worker, game_ids):
            break
        sequencer.tick()
        log_archive.archive_log(store, folder)
        for path in folder.glob("log-segment-*.jsonl"):  # written once, never again
            assert seen_segments.setdefault(path.name, path.stat().st_mtime_ns) == path.stat().st_mtime_ns
        read = read_log(folder)
        checkpoint = open_checkpoint(read.checkpoint, signer.verifier)
        tree = merkle.MemoryTree()
        for data in read.leaves:
            tree.append(data)
        assert tree.size == checkpoint.size and tree.root() == checkpoint.root
    assert len(seen_segments) >= 2
    assert sorted(seen_segments) == [log_archive.segment_name(8 * n) for n in range(len(seen_segments))]
