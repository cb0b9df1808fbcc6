"""The log's signing key: made once in the data folder (0600) even by processes starting together, read back the
same, named by a setting, refused when a named file is missing, and rotated with the old vkey kept as retired."""

from __future__ import annotations

import multiprocessing
import stat
from pathlib import Path

import msgspec
import pytest

from events.tlog import note
from services import log_key
from services.config import Settings
from services.log_settings import LogSettings


def settings_in(folder: Path, **log: object) -> Settings:
    return Settings(redis_url=None, data_dir=folder, log=msgspec.structs.replace(LogSettings(), **log))


def _load_vkey(folder: str) -> str:
    return log_key.load(settings_in(Path(folder))).vkey


def test_the_key_is_made_once_private_and_read_back_the_same(tmp_path: Path) -> None:
    with multiprocessing.get_context("spawn").Pool(6) as pool:
        vkeys = pool.map(_load_vkey, [str(tmp_path)] * 12)
    assert len(set(vkeys)) == 1
    path = tmp_path / log_key.KEY_FILE_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == [log_key.KEY_FILE_NAME]  # no partial file left
    key = log_key.load(settings_in(tmp_path))
    assert key.vkey == vkeys[0] and key.origin.startswith("harbormaster.local/") and key.retired == []
    assert note.Verifier.from_vkey(key.vkey).name == key.origin


def test_an_origin_setting_names_a_new_log_and_a_named_missing_file_is_refused(tmp_path: Path) -> None:
    key = log_key.load(settings_in(tmp_path, origin="games.example/log"))
    assert key.origin == "games.example/log"
    assert log_key.load(settings_in(tmp_path)).origin == "games.example/log"  # kept with the key
    with pytest.raises(log_key.LogKeyError, match="no log signing key"):
        log_key.load(settings_in(tmp_path, key_file=tmp_path / "typo.key"))
    (tmp_path / "bad.key").write_text("hello\n")
    with pytest.raises(log_key.LogKeyError, match="not a log signing key"):
        log_key.load(settings_in(tmp_path, key_file=tmp_path / "bad.key"))


def test_rotation_keeps_the_name_and_lists_the_old_key(tmp_path: Path) -> None:
    first = log_key.load(settings_in(tmp_path))
    second = log_key.rotate(settings_in(tmp_path))
    third = log_key.rotate(settings_in(tmp_path))
    assert len({first.vkey, second.vkey, third.vkey}) == 3
    assert third.origin == first.origin and third.retired == [first.vkey, second.vkey]
    signed = note.sign("old\n", first.signer)  # what the old key signed still verifies with its vkey
    assert note.open_note(signed, [note.Verifier.from_vkey(third.retired[0])])[0] == "old\n"
