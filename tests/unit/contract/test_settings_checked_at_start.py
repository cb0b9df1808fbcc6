"""A setting a process cannot use is refused when it starts, in one line naming it (issue 43, finding 5):
before, ``HARBORMASTER_LOG_LEVEL=loud`` crash-looped the rq worker, ``PARTITIONS=0`` the fold worker (and
``send`` said "submitted"), ``PARTITIONS=abc`` printed a traceback, ``LOG_FORMAT=xml`` fell back silently
and ``SNAPSHOT_EVERY=-5`` was taken."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from services.config import Settings
from services.setting_values import SettingError

BAD = [
    ("HARBORMASTER_LOG_LEVEL", "loud", "one of critical, debug, error, info, warning"),
    ("HARBORMASTER_PARTITIONS", "0", "from 1 to 4096"),
    ("HARBORMASTER_PARTITIONS", "abc", "a whole number"),
    ("HARBORMASTER_LOG_FORMAT", "xml", "one of console, json"),
    ("HARBORMASTER_SNAPSHOT_EVERY", "-5", "at least 1"),
    ("HARBORMASTER_WS_STALL_SECONDS", "nan", "finite number"),
    ("HARBORMASTER_IDLE_TIMEOUT", "-1", "at least 0"),
    ("HARBORMASTER_TABLES_PER_ACCOUNT", "0", "from 1 to 1000"),
    ("HARBORMASTER_TABLES_PER_ADDRESS", "many", "a whole number"),
    ("HARBORMASTER_TABLE_GAMES_PER_ACCOUNT", "-3", "from 1 to 10000"),
    ("HARBORMASTER_TABLE_GAMES_PER_ADDRESS", "0", "from 1 to 100000"),
    ("HARBORMASTER_TABLE_OPEN_MINUTES", "1e9", "a whole number"),
    ("HARBORMASTER_TABLE_GAME_IDLE_HOURS", "0", "from 1 to 8760"),
    ("HARBORMASTER_TABLE_STAND_IN", "deep-blue", "must be one of greedy, random, strong"),
    ("HARBORMASTER_CHAT_PER_ADDRESS", "-1", "at least 0"),
    ("HARBORMASTER_SIGNIN_FAILURES_PER_NAME", "-1", "from 0 to 1000000"),
    ("HARBORMASTER_HASHING_QUEUE", "lots", "a whole number"),
    ("HARBORMASTER_WS_OPENS_PER_ADDRESS", "inf", "finite number"),
    ("HARBORMASTER_READS_PER_ADDRESS", "-2", "at least 0"),
    ("HARBORMASTER_TRUSTED_PROXIES", "10.0.0.1,proxy.example", "addresses or networks"),
]


@pytest.mark.parametrize(("name", "value", "says"), BAD, ids=[f"{n}={v}" for n, v, _ in BAD])
def test_a_bad_setting_is_refused_by_settings(monkeypatch, name: str, value: str, says: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingError, match=name) as refused:
        Settings.from_env()
    assert says in str(refused.value)


@pytest.mark.parametrize("verb", [["serve"], ["worker"], ["rq-worker"], ["gateway"], ["games"]])
def test_every_verb_refuses_a_bad_setting_in_one_line_before_it_starts(verb: list[str], tmp_path) -> None:
    env = {**os.environ, "HARBORMASTER_PARTITIONS": "0", "HARBORMASTER_DATA": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "services.cli", *verb], env=env, capture_output=True,
                          text=True, timeout=60, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "HARBORMASTER_PARTITIONS must be from 1 to 4096, not 0" in lines[0], (
        done.stderr
    )
    assert not any(tmp_path.iterdir())  # nothing started, nothing written


def test_names_in_any_case_are_taken(monkeypatch) -> None:
    monkeypatch.setenv("HARBORMASTER_LOG_LEVEL", "WARNING")
    assert Settings.from_env().log_level == "warning"
