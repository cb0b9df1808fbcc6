"""Hostile settings and ids on the command line (issues 31.1, 33.4, 33.5): each refused in one line on
stderr (exit 2), nothing stored, no traceback; ``tournament run --person`` refused rather than hanging."""

from __future__ import annotations

import pytest

from tests.integration.cli.test_cli import hm


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["tournament", "create", "--game", "manila", "--players", "8", "--rounds", "-3"],
         "rounds is 0 (the format's natural length) to 100, not -3"),
        (["tournament", "create", "--game", "manila", "--players", "8", "--rounds", "10000"], "to 100, not 10000"),
        (["tournament", "create", "--game", "manila", "--players", "100000"], "a tournament has 2 to 10000 players"),
        (["tournament", "create", "--game", "elcapitan", "--players", "2", "--table-size", "4"],
         "2 entrants cannot fill a table of 3 or more"),
        (["tournament", "create", "--game", "manila", "--players", "3", "--table-size", "5"],
         "3 entrants cannot fill a table of 4 or more"),
        (["tournament", "create", "--game", "manila", "--players", "8", "--bots", "zed"],
         "unknown bot 'zed'; this game's bots are greedy, random"),
        (["tournament", "create", "--game", "manila", "--players", "8", "--total-limit", "1e308"],
         "total_limit_s is seconds from 0 (off) to 604800 (a week)"),
        (["tournament", "create", "--game", "manila", "--players", "8", "--id", "../evil"],
         "a tournament id is 1 to 48 lower-case letters"),
        (["tournament", "run", "--game", "manila", "--players", "8", "--person", "zed"],
         "tournament run is for bot tournaments; to seat people use tournament create --person"),
        (["new", "manila", "--seats", "3", "--id", "a.b"], "a game id is 1 to 64 lower-case letters"),
        (["new", "manila", "--seats", "3", "--id", "cup-r1-t1"], "kept for tournaments' games"),
        (["new", "manila", "--seats", "3", "--bots", '{"1": "zed"}'], "seat 1: unknown bot 'zed'"),
        (["new", "manila", "--seats", "3", "--options", '{"x": 1}'], "unknown option(s) x; this game knows"),
    ],
)  # fmt: skip
def test_a_hostile_setting_is_refused_in_one_line(
    args: list[str], said: str, redis_url, redis_client
) -> None:
    answer = hm(*args, url=redis_url)
    err = answer.stderr.decode()
    assert answer.returncode == 2 and said in err and err.count("\n") == 1, err
    assert redis_client.zcard("hm:tournaments") == 0 and redis_client.zcard("hm:games") == 0


@pytest.mark.parametrize("verb", [["worker"], ["gateway", "--port", "0"]])
def test_an_unknown_transport_is_refused_in_one_line_at_start(
    verb: list[str], redis_url, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HARBORMASTER_TRANSPORT", "quick")
    answer = hm(*verb, url=redis_url)
    err = answer.stderr.decode()
    assert answer.returncode == 2 and "HARBORMASTER_TRANSPORT is fast or plain, not 'quick'" in err, err
    assert err.count("\n") == 1, err
