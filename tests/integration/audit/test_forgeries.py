"""The forgery suite (issue 41): a real bot tournament is exported with its games' archives and the log its
chains make; an auditor keeps the signed checkpoint (and a player the receipts of one game) at the end. Then a
forger who HOLDS THE SIGNING KEY makes each forgery of the issue's finding 2, and the 15 of the tamper suite,
re-hashing every chain it touches with the project's own functions, and either

- rebuilds the whole log from the forged chains and signs a new checkpoint: ``tournament verify`` given the
  checkpoint from before says the log no longer extends it, or
- keeps the old log and changes only the export: ``tournament verify`` names the chain and what changed
  (its start, its seed commitment, the event where its history was rewritten, its command records).

Every case runs the real command line (``harbormaster tournament verify FOLDER``) on a real export folder."""

from __future__ import annotations

import gzip
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from events.tlog.note import Signer
from services import cli
from services import logging as hm_logging
from tests.integration.tournaments.test_tamper import TAMPERS, exported  # noqa: F401 (the played tournament)
from tests.support.forger import Folder
from tests.support.forgeries import FORGERIES, GAME, IDS, Forgery, Honest, bot_commands_as_player
from tests.support.tlog import ORIGIN, checkpoint, log_file, log_leaves, receipts_file


@pytest.fixture(scope="module")
def honest(
    exported: tuple[list[dict[str, Any]], Path],  # noqa: F811 (the tamper suite's fixture)
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Honest]:
    lines, archives = exported
    games = {p.name.removesuffix(".jsonl.gz"): [ln for ln in gzip.decompress(p.read_bytes()).splitlines() if ln.strip()]
             for p in sorted(archives.glob("*.jsonl.gz"))}  # fmt: skip
    folder = Folder(tid="tamper", tournament=lines, games=games)
    signer = Signer.generate(ORIGIN)
    leaves = log_leaves(folder.chains())
    kept = tmp_path_factory.mktemp("auditor")
    (kept / "checkpoint.txt").write_text(checkpoint(leaves, signer))
    game = next(c for c in folder.chains() if c.header.game_id == GAME)
    (kept / "receipts.json").write_bytes(receipts_file(leaves, signer, game))
    path = folder.write(kept / "export", log_file(leaves, signer))
    yield Honest(folder=folder, leaves=leaves, signer=signer, checkpoint=kept / "checkpoint.txt",
                 receipts=kept / "receipts.json", path=path)  # fmt: skip


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    try:
        code = cli.run(list(argv))
    finally:  # run configures logging for a process, caching loggers: the other tests get the test set-up back
        hm_logging.configure("console", os.environ.get("HARBORMASTER_LOG_LEVEL", "warning"), cache=False)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def _held(honest: Honest, folder: Path, *more: str) -> list[str]:
    return ["tournament", "verify", str(folder), "--checkpoint", str(honest.checkpoint),
            "--log-key", honest.signer.verifier.vkey, *more]  # fmt: skip


def test_the_honest_export_is_anchored(honest: Honest, capsys: pytest.CaptureFixture[str]) -> None:
    code, said = _run(capsys, *_held(honest, honest.path))
    assert code == 0, said
    assert (
        f"ANCHORED: the log's first {len(honest.leaves)} leaves are the ones in the checkpoint you hold"
        in said
    )
    assert f"ANCHORED: {len(honest.folder.chains())} of {len(honest.folder.chains())} chains match" in said
    code, said = _run(capsys, *_held(honest, honest.path), "--receipts", str(honest.receipts))
    assert code == 0 and "ANCHOR FAILED" not in said, said


def test_without_an_anchor_it_says_what_it_could_not_prove(
    honest: Honest, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, said = _run(capsys, "tournament", "verify", str(honest.path))  # the folder's log, its own key
    assert code == 0, said
    assert "NOT PROVEN: the log's key was read from the export" in said
    assert "its operator could have re-hashed and re-signed it" in said
    bare = honest.folder.write(tmp_path / "bare", b"")
    (bare / "log.jsonl").unlink()
    code, said = _run(capsys, "tournament", "verify", str(bare))
    assert code == 0 and "NOT PROVEN: no checkpoint, receipt or pinned key given" in said, said


@pytest.mark.parametrize("forgery", [f for _, f in FORGERIES], ids=IDS)
def test_a_rewritten_and_re_signed_log_does_not_extend_the_checkpoint_held(
    honest: Honest, forgery: Forgery, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    forged, _ = forgery(honest)
    log = forged.log(honest.signer)  # the forger holds the key: the new log and checkpoint are well signed
    folder = forged.write(tmp_path / "forged", log)
    code, said = _run(capsys, *_held(honest, folder))
    assert code == 1, said
    size, rebuilt = len(honest.leaves), len(log_leaves(forged.chains()))
    how = f"was rewritten before leaf {size}" if rebuilt >= size else f"has only {rebuilt} leaves"
    assert f"ANCHOR FAILED: the log {how}: it does not extend the checkpoint you hold (size {size}" in said


@pytest.mark.parametrize("forgery", [f for _, f in FORGERIES], ids=IDS)
def test_the_old_log_names_what_changed(
    honest: Honest, forgery: Forgery, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    forged, named = forgery(honest)
    folder = forged.write(tmp_path / "forged", log_file(honest.leaves, honest.signer))
    code, said = _run(capsys, *_held(honest, folder))
    assert code == 1, said
    assert (
        "ANCHORED: the log's first" in said
    )  # the old log still extends the checkpoint: the export does not
    for words in named:
        assert words in said, (words, said)


GAME_FORGERIES = ["game_relabelled", "table_redealt", "winner_move_timeout", "game_header_time"]


@pytest.mark.parametrize("name", GAME_FORGERIES)
def test_the_players_receipts_name_the_first_event_rewritten(
    honest: Honest, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The game's export alone, against what its player was shown and kept (no log at all)."""
    forged, _ = dict(FORGERIES)[name](honest)
    folder = forged.write(tmp_path / "forged", b"")
    before = {c.header.game_id: c for c in honest.folder.chains()}[GAME]
    after = {c.header.game_id: c for c in forged.chains()}[GAME]
    first = next(a.seq for a, b in zip(before.envelopes, after.envelopes, strict=False) if a.hash != b.hash)
    code, said = _run(capsys, "verify", str(folder / f"{GAME}.jsonl.gz"), "--receipts", str(honest.receipts),
                      "--log-key", honest.signer.verifier.vkey)  # fmt: skip
    assert code == 1, said
    assert re.search(rf"event {first} of game {GAME} differs from what the server showed this player \(hash "
                     rf"[0-9a-f]{{16}}…, the export's [0-9a-f]{{16}}…\): the history was rewritten from event "
                     rf"{first}\b", said), said  # fmt: skip


def test_receipts_and_a_rewritten_log_name_the_leaf(
    honest: Honest, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Commands relabelled outside the hash chain, the log rebuilt: the receipt's checkpoint is not extended."""
    forged, _ = bot_commands_as_player(honest)
    folder = forged.write(tmp_path / "forged", forged.log(honest.signer))
    code, said = _run(capsys, "verify", str(folder / f"{GAME}.jsonl.gz"), "--receipts", str(honest.receipts),
                      "--log", str(folder / "log.jsonl"), "--log-key", honest.signer.verifier.vkey)  # fmt: skip
    assert code == 1, said
    assert "ANCHOR FAILED: the log was rewritten before leaf" in said
    assert "does not extend the receipt of leaf" in said, said


def test_a_witness_cosignature_is_required_when_asked(
    honest: Honest, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import time as clock

    from events.tlog.note import COSIGNATURE_V1, split

    witness = Signer.generate("witness.test", COSIGNATURE_V1)
    note = honest.checkpoint.read_text()
    text, _ = split(note)
    cosigned = tmp_path / "cosigned.txt"
    cosigned.write_text(note + witness.cosignature_line(text, int(clock.time())))
    argv = ["tournament", "verify", str(honest.path), "--log-key", honest.signer.verifier.vkey,
            "--witness", witness.verifier.vkey]  # fmt: skip
    code, said = _run(capsys, *argv, "--checkpoint", str(cosigned))
    assert code == 0 and "ANCHORED: the checkpoint you hold is cosigned by witness witness.test" in said, said
    code, said = _run(capsys, *argv, "--checkpoint", str(honest.checkpoint))
    assert code == 1 and "the checkpoint you hold is not cosigned by witness witness.test" in said, said


@pytest.mark.parametrize(("tamper", "named"), TAMPERS, ids=[t.__name__ for t, _ in TAMPERS])
def test_the_tamper_suites_changes_with_a_rebuilt_log(
    honest: Honest, tamper: Any, named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The 15 changes of the tamper suite, made by a forger who rebuilds and signs the log after each: each
    still fails, naming what is wrong, and where a chain moved, the log no longer extends the checkpoint."""
    import shutil

    archives = tmp_path / "archives"
    archives.mkdir()
    for game_id, lines in honest.folder.games.items():
        (archives / f"{game_id}.jsonl.gz").write_bytes(gzip.compress(b"".join(ln + b"\n" for ln in lines)))
    lines, folder = tamper(honest.folder.tournament, archives)
    games = {p.name.removesuffix(".jsonl.gz"): [ln for ln in gzip.decompress(p.read_bytes()).splitlines() if ln.strip()]
             for p in sorted(folder.glob("*.jsonl.gz"))}  # fmt: skip
    forged = Folder(tid="tamper", tournament=lines, games=games)
    log = forged.log(honest.signer)
    path = forged.write(tmp_path / "forged", log)
    shutil.rmtree(archives)
    code, said = _run(capsys, *_held(honest, path))
    assert code == 1 and named in said, said
    if log_leaves(forged.chains()) != honest.leaves:
        assert "does not extend the checkpoint you hold" in said, said
