"""Issue 43, finding 8 (the rest): with ``HARBORMASTER_PUBLIC_URL`` set, ``new`` and ``tournament link``
print links a person can open as they are (they printed paths); and the standings show the number each
player has for ``withdraw`` (they showed the rank only) and mark who withdrew."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.support.pipeline import TEST_PLUGINS

PUBLIC = "https://play.example.org"


def cli(redis_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REDIS_URL": redis_url, "HARBORMASTER_GAME_PLUGINS": TEST_PLUGINS,
           "HARBORMASTER_LOG_LEVEL": "warning", "HARBORMASTER_PUBLIC_URL": PUBLIC + "/", "COLUMNS": "200"}  # fmt: skip
    return subprocess.run([sys.executable, "-m", "services.cli", *args], env=env, capture_output=True,
                          text=True, timeout=60)  # fmt: skip


def test_new_prints_an_absolute_watch_link(redis_url: str, redis_client: object) -> None:
    made = cli(redis_url, "new", "race", "--seats", "2")
    assert made.returncode == 0, made.stderr
    created = json.loads(made.stdout)
    assert created["watch"] == f"{PUBLIC}/games/{created['game_id']}"


def test_link_is_absolute_and_standings_number_players_as_withdraw_does(
    redis_url: str, redis_client: object
) -> None:
    made = cli(redis_url, "tournament", "create", "--game", "race", "--person", "ann", "--players", "3",
               "--bots", "random", "--table-size", "3", "--rounds", "1", "--id", "tnum")  # fmt: skip
    assert made.returncode == 0, made.stderr
    key = json.loads(made.stdout.splitlines()[1])["key"]
    assert cli(redis_url, "tournament", "start", "tnum").returncode == 0
    link = json.loads(cli(redis_url, "tournament", "link", "tnum", "--key", key).stdout)
    assert link["game_id"].startswith("tnum-r1-t")  # whichever table the pairing gave her
    assert link["link"] == f"{PUBLIC}/games/{link['game_id']}#token={key}"
    withdrawn = cli(redis_url, "tournament", "withdraw", "tnum", "2", "--reason", "left")
    assert withdrawn.returncode == 0, withdrawn.stderr
    standings = cli(redis_url, "tournament", "standings", "tnum").stdout
    rows = [line for line in standings.splitlines() if line.startswith("│")]
    numbers = {line.split("│")[2].strip(): line for line in rows}
    assert set(numbers) == {"0", "1", "2", "3"}, standings  # the numbers withdraw takes
    assert [n for n, line in numbers.items() if "(withdrawn)" in line] == ["2"]
    assert "ann" in numbers["0"]
