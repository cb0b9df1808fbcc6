"""``make bench`` leaves no data folder behind (issue 43, finding 8): every temporary folder a benchmark
makes is inside one scratch folder, removed at the end, also when a benchmark fails."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from tests.bench.__main__ import scratch


def test_a_benchmarks_folders_are_gone_after_the_run_even_when_it_fails() -> None:
    made: list[Path] = []
    with pytest.raises(RuntimeError), scratch() as folder:
        made.append(Path(tempfile.mkdtemp(prefix="hm-bench-gw-")))  # as bench_gateway makes its Redis's
        (made[0] / "appendonly.aof").write_text("x")
        assert made[0].parent == folder and os.environ["TMPDIR"] == str(folder)
        raise RuntimeError("a benchmark failed")
    assert not folder.exists() and not made[0].exists()
    assert os.environ.get("TMPDIR") != str(folder) and tempfile.gettempdir() != str(folder)
