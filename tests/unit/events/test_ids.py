"""Ids (issues 31.3, 33.4): one pattern for game and tournament ids; every rq job id and archive file
name built from any id, even one stored before ids were checked, is one rq takes and stays in its folder;
a tournament id with hyphens parses back from its games' ids."""

from __future__ import annotations

from pathlib import Path

import pytest
from rq.job import JOB_ID_PATTERN

from events.ids import (
    BadId,
    check_game_id,
    check_tournament_id,
    job_id,
    parse_tournament_game_id,
    tournament_game_id,
)
from services.archive import archive_path
from workers.jobs.archive_trigger import archive_job_id
from workers.jobs.tournament import round_job_id

HOSTILE = ["a.b", "x:y", "../evil", "../../httpevil", "a/b", "a}b", "", "-lead", "_lead", "A", "a" * 65, "é"]


@pytest.mark.parametrize("value", HOSTILE)
def test_an_id_off_the_pattern_is_refused_saying_what_an_id_is(value: str) -> None:
    with pytest.raises(BadId, match="a game id is 1 to 64 lower-case letters, digits, _ or -"):
        check_game_id(value)
    with pytest.raises(BadId, match="a tournament id is 1 to 48 lower-case letters, digits, _ or -"):
        check_tournament_id(value)


def test_ids_on_the_pattern_pass_and_a_tournament_id_leaves_room_for_its_games() -> None:
    for value in ("g", "0", "harbour-cup", "t_2026-spring", "a" * 64):
        assert check_game_id(value) == value
    check_tournament_id("a" * 48)
    with pytest.raises(BadId):
        check_tournament_id("a" * 49)
    check_game_id(tournament_game_id("a" * 48, 100, 499))  # the longest game a tournament makes


@pytest.mark.parametrize("value", [*HOSTILE[:6], "ok-id"])
def test_job_ids_and_archive_files_are_safe_for_any_id(value: str, tmp_path: Path) -> None:
    for made in (archive_job_id(value), round_job_id(value, 3), job_id("hm-x", value)):
        assert JOB_ID_PATTERN.fullmatch(made), made
    path = archive_path(tmp_path, value)
    assert path.parent == tmp_path and path.name.endswith(".jsonl.gz")
    assert archive_job_id(value) == archive_job_id(value)  # one id, one job: a second enqueue finds it


def test_distinct_unsafe_ids_get_distinct_job_ids() -> None:
    assert archive_job_id("a.b") != archive_job_id("a:b")
    assert archive_job_id("ok-id") == "hm-archive-ok-id"


@pytest.mark.parametrize(
    ("game_id", "parsed"),
    [
        ("t1-r2-t3", ("t1", 2, 2)),
        ("harbour-cup-r1-t10", ("harbour-cup", 1, 9)),
        ("a-r1-t2-r3-t4", ("a-r1-t2", 3, 3)),  # a tournament id that itself looks like a game's
        ("plain", None),
        ("t1-r0-t1", None),
        ("t1-r1-t", None),
    ],
)
def test_a_tournament_game_id_parses_back_even_with_hyphens(
    game_id: str, parsed: tuple[str, int, int] | None
) -> None:
    assert parse_tournament_game_id(game_id) == parsed
    if parsed is not None:
        assert tournament_game_id(*parsed) == game_id
