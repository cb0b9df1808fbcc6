"""A real bot tournament, logged by the real sequencer, exported with ``tournament export --to FOLDER`` (the
export, its games' archives, the log): ``tournament verify FOLDER`` proves it against a checkpoint the
auditor kept and the log's key pinned, and each game's archive alone against the same log. The anchors
agree with what the sequencer wrote, leaf by leaf."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from events.log_store import LogStore
from events.tlog.note import Signer
from services import cli
from services import logging as hm_logging
from services import tournament_service as service
from services.archive import archive_missing
from services.export_folder import write_folder
from tests.support.pipeline import services_for
from tests.support.tournaments import play_to_the_end, tournament_workers
from workers.log_sequencer import LogSequencer


class Exported:
    def __init__(self, folder: Path, checkpoint: Path, vkey: str, summary: dict[str, object]) -> None:
        self.folder, self.checkpoint, self.vkey, self.summary = folder, checkpoint, vkey, summary


@pytest.fixture(scope="module")
def exported(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Exported]:
    redis.Redis.from_url(redis_url).flushdb()
    archives = tmp_path_factory.mktemp("archives")
    services = services_for(redis_url)
    services.bus.ensure_groups()
    signer = Signer.generate("harbormaster.test/log")
    sequencer = LogSequencer(services.redis, signer)
    sequencer.publish()
    spec = service.TournamentSpec(game="manila", rounds=2, table_size=3, players=6, bots=["greedy", "random"],
                                  id="folder")  # fmt: skip
    tid = service.create(services, spec)
    sequencer.tick()  # the tournament's start is logged before its games exist
    with tournament_workers(redis_url, services.bus.partitions, archives):
        play_to_the_end(services, redis_url, tid, timeout_s=300)
    archive_missing(services.store, list(service.game_ids(service.load(services, tid))), archives)
    sequencer.tick()  # every chain's last head, finished
    kept = tmp_path_factory.mktemp("auditor") / "checkpoint.txt"
    checkpoint = LogStore(services.redis).checkpoint()
    assert checkpoint is not None
    kept.write_text(checkpoint)
    sequencer.tick()
    folder = tmp_path_factory.mktemp("export") / "folder"
    summary = write_folder(services, tid, folder)
    yield Exported(folder, kept, signer.verifier.vkey, summary)
    redis.Redis.from_url(redis_url).flushdb()


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    try:
        code = cli.run(list(argv))
    finally:  # run configures logging for a process, caching loggers: the other tests get the test set-up back
        hm_logging.configure("console", os.environ.get("HARBORMASTER_LOG_LEVEL", "warning"), cache=False)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_the_folder_holds_the_export_its_archives_and_the_log(exported: Exported) -> None:
    names = sorted(p.name for p in exported.folder.iterdir())
    assert names == ["folder-r1-t1.jsonl.gz", "folder-r1-t2.jsonl.gz", "folder-r2-t1.jsonl.gz",
                     "folder-r2-t2.jsonl.gz", "folder.jsonl", "log.jsonl"]  # fmt: skip
    assert exported.summary["archives"] == 4 and exported.summary["not_archived"] == []


def test_tournament_verify_proves_the_folder_against_a_kept_checkpoint(
    exported: Exported, capsys: pytest.CaptureFixture[str]
) -> None:
    code, said = _run(capsys, "tournament", "verify", str(exported.folder), "--checkpoint", str(exported.checkpoint),
                      "--log-key", exported.vkey)  # fmt: skip
    assert code == 0, said
    assert "ANCHORED: the log's first" in said and "leaves are the ones in the checkpoint you hold" in said
    assert "ANCHORED: 5 of 5 chains match the log's leaves" in said, said
    assert "ANCHOR FAILED" not in said
    assert "no digest of its command records" not in said, said  # each game's Commands leaf, logged and equal


def test_each_game_alone_is_proven_against_the_log(
    exported: Exported, capsys: pytest.CaptureFixture[str]
) -> None:
    code, said = _run(capsys, "verify", str(exported.folder / "folder-r2-t1.jsonl.gz"), "--log",
                      str(exported.folder / "log.jsonl"), "--log-key", exported.vkey)  # fmt: skip
    assert code == 0, said
    assert "ANCHORED: 1 of 1 chains match the log's leaves" in said, said


def test_a_key_other_than_the_logs_is_refused(exported: Exported, capsys: pytest.CaptureFixture[str]) -> None:
    other = Signer.generate("harbormaster.test/log").verifier.vkey
    code, said = _run(capsys, "tournament", "verify", str(exported.folder), "--log-key", other)
    assert code == 1 and "ANCHOR FAILED: the log's checkpoint" in said, said


def test_a_forgery_against_the_sequencers_own_log_is_named(
    exported: Exported, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The winner renamed in the tournament's creation and its chain re-hashed, the real log kept."""
    import gzip
    import json

    import msgspec

    from domain.tournament import TournamentCreated
    from tests.support.forger import Folder, rechain, replaced

    source = exported.folder
    games = {p.name.removesuffix(".jsonl.gz"): gzip.decompress(p.read_bytes()).splitlines()
             for p in sorted(source.glob("*.jsonl.gz"))}  # fmt: skip
    lines = [json.loads(line) for line in (source / "folder.jsonl").read_bytes().splitlines()]
    forged = Folder(tid="folder", tournament=lines, games=games)

    def rename(created: TournamentCreated) -> TournamentCreated:
        entrants = (msgspec.structs.replace(created.entrants[0], name="Mallory"), *created.entrants[1:])
        return msgspec.structs.replace(created, entrants=entrants)

    rechain(forged, lambda events: replaced(events, lambda e: isinstance(e, TournamentCreated), rename))
    folder = forged.write(tmp_path / "forged", (source / "log.jsonl").read_bytes())
    code, said = _run(capsys, "tournament", "verify", str(folder), "--checkpoint", str(exported.checkpoint),
                      "--log-key", exported.vkey)  # fmt: skip
    assert code == 1, said
    assert "OK folder (finished)" in said  # the export alone passes: it is consistent with itself
    assert "ANCHOR FAILED: tournament folder: event 1 differs from the head the log holds" in said, said


def test_bot_commands_relabelled_are_named_by_the_sequencers_commands_leaf(
    exported: Exported, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside every hash chain, a game's command records are bound by the Commands leaf its archive queued."""
    import gzip
    import json

    from tests.support.forger import Folder, regame

    source = exported.folder
    games = {p.name.removesuffix(".jsonl.gz"): gzip.decompress(p.read_bytes()).splitlines()
             for p in sorted(source.glob("*.jsonl.gz"))}  # fmt: skip
    lines = [json.loads(line) for line in (source / "folder.jsonl").read_bytes().splitlines()]
    forged = Folder(tid="folder", tournament=lines, games=games)
    regame(
        forged, "folder-r2-t1", command=lambda c: c.update(origin="seat") if c["origin"] == "bot" else None
    )
    folder = forged.write(tmp_path / "forged", (source / "log.jsonl").read_bytes())
    code, said = _run(capsys, "tournament", "verify", str(folder), "--checkpoint", str(exported.checkpoint),
                      "--log-key", exported.vkey)  # fmt: skip
    assert code == 1, said
    assert "ANCHOR FAILED: game folder-r2-t1: its" in said and "command records are not the" in said, said
