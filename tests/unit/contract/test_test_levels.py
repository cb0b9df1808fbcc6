"""The test levels cannot leak (issue 46): a test's level is its folder (``tests/README.md``). Every test outside
``tests/unit`` is marked `redis` whatever its file says, none inside is; a unit test that asks for a Redis or
starts a process is refused at collection, naming why; and a unit test cannot start a Redis through a helper
or reach one named by the environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import NO_REDIS_SERVER
from tests.support.levels import unit_breaches

ROOT = Path(__file__).resolve().parents[3]


def _collected(*args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode in (0, 5), done.stdout + done.stderr  # 5: none selected
    return {line.split("::")[1] for line in done.stdout.splitlines() if "::" in line}


def test_a_unit_test_starts_no_redis_and_reaches_none() -> None:
    assert os.environ["HARBORMASTER_REDIS_SERVER"] == NO_REDIS_SERVER
    assert "REDIS_URL" not in os.environ and "RQ_REDIS_URL" not in os.environ
    started = subprocess.run(  # a command the test runs inherits the fence
        [sys.executable, "-c", "import tempfile, pathlib; from services.redis_launcher import EmbeddedRedis; "
         "EmbeddedRedis(pathlib.Path(tempfile.mkdtemp())).start()"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert started.returncode != 0 and "not-marked-redis" in started.stderr, started.stderr


def test_the_level_is_the_folder_whatever_the_file_says() -> None:
    # A unit file and an integration file (the three tests issue 46 found unmarked were of these two kinds:
    # the gateway's plain transport, a revoked seat, the platform probe on a real Redis), and the journey.
    files = [
        "tests/unit/bench/test_platform_probe.py",
        "tests/integration/bench/test_platform_probe_on_redis.py",
        "tests/integration/gateway/test_plain_transport.py",
        "tests/integration/gateway/test_revoked_seat.py",
        "tests/journey/test_readme_journey.py",
    ]
    unit = {
        "test_a_span_overlaps_a_stall_that_meets_it_and_not_one_beside_it",
        "test_a_span_inside_a_long_stall_or_around_a_short_one_overlaps_it",
        "test_steal_share_is_the_steal_column_over_all_time_and_none_without_counters",
    }
    assert _collected("-m", "not redis", *files) == unit
    assert _collected("-m", "redis", files[0]) == set()
    assert len(_collected("-m", "redis and not journey", *files[1:])) >= 5
    assert _collected("-m", "journey", *files) == _collected(files[-1]) != set()


def test_a_unit_test_that_asks_for_redis_or_starts_a_process_is_named_with_why(tmp_path: Path) -> None:
    source = tmp_path / "test_misplaced.py"
    source.write_text(
        "import subprocess\n"
        "from tests.support.harness import running_stack\n"
        "from services import redis_launcher\n"
        "from os import fork\n"
        "def test_it():\n"
        "    subprocess.run(['true'])\n"  # a command run to its end is a unit test's to make
        "    subprocess.Popen(['sleep', '9'])\n"
    )
    assert unit_breaches(source, {"tmp_path", "redis_client", "redis_url"}, {"parametrize", "redis"}) == [
        "asks for the Redis fixture `redis_client`",
        "asks for the Redis fixture `redis_url`",
        "is marked `redis` in its file (its folder is its level)",
        "imports `tests.support.harness` (starts a process or a server)",
        "imports `services.redis_launcher` (starts a process or a server)",
        "imports `fork` (starts a process)",
        "calls `subprocess.Popen` (a process that outlives the call)",
    ]
    quiet = tmp_path / "test_pure.py"
    quiet.write_text(
        "import subprocess\nfrom domain import GAMES\ndef test_it():\n    subprocess.run(['true'])\n"
    )
    assert unit_breaches(quiet, {"tmp_path"}) == []


def test_every_unit_test_collects_and_none_is_marked_redis() -> None:
    assert _collected("-m", "redis or browser or journey", "tests/unit") == set()
