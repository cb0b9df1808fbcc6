"""The test levels cannot leak (issue 46): a test that asks for a Redis is marked `redis` by conftest's
collection hook whatever its file says, so `make unit` (``-m "not redis and not browser and not journey"``)
leaves it out; and a test left unmarked cannot start a Redis or reach one named by the environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from services.redis_launcher import EmbeddedRedis, RedisNotFound
from tests.conftest import NO_REDIS_SERVER

ROOT = Path(__file__).resolve().parents[2]
UNIT = "not redis and not browser and not journey"


def test_an_unmarked_test_starts_no_redis_and_reaches_none(tmp_path: Path) -> None:
    assert os.environ["HARBORMASTER_REDIS_SERVER"] == NO_REDIS_SERVER
    assert "REDIS_URL" not in os.environ and "RQ_REDIS_URL" not in os.environ
    with pytest.raises(RedisNotFound, match="not-marked-redis"):
        EmbeddedRedis(tmp_path / "redis").start()


def test_the_unit_level_leaves_out_what_asks_for_redis_and_the_journey() -> None:
    # The three that issue 46 found unmarked, a file with both kinds, and the journey (no redis in its file).
    files = [
        "tests/gateway/test_plain_transport.py",
        "tests/gateway/test_revoked_seat.py",
        "tests/bench/test_platform_probe.py",
        "tests/journey/test_readme_journey.py",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q", "-m", UNIT, *files],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    selected = {line.split("::")[1] for line in done.stdout.splitlines() if "::" in line}
    assert selected == {
        "test_a_span_overlaps_a_stall_that_meets_it_and_not_one_beside_it",
        "test_a_span_inside_a_long_stall_or_around_a_short_one_overlaps_it",
        "test_steal_share_is_the_steal_column_over_all_time_and_none_without_counters",
    }, done.stdout + done.stderr
