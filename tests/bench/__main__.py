"""``make bench``: run every ``tests/bench/bench_*.py`` (or those named) and print their figures.

Benchmarks print; they never fail on a slow machine.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import pkgutil
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import tests.bench


def main(selected: list[str]) -> None:
    names = sorted(m.name for m in pkgutil.iter_modules(tests.bench.__path__) if m.name.startswith("bench_"))
    with scratch():
        for name in names:
            if selected and not any(s in name for s in selected):
                continue
            print(f"\n=== {name} ===", flush=True)
            started = time.perf_counter()
            importlib.import_module(f"tests.bench.{name}").main()
            print(f"({name} took {time.perf_counter() - started:.1f} s)", flush=True)


@contextlib.contextmanager
def scratch() -> Iterator[Path]:
    """One folder for every temporary folder the benchmarks make (``tempfile``'s, their Redis servers'
    files), removed at the end even when one fails: ``make bench`` left its data folders in /tmp, a dozen
    a run (issue 43, finding 8). ``TMPDIR`` too, for the processes they start."""
    folder = Path(tempfile.mkdtemp(prefix="hm-bench-run-"))
    before, before_env = tempfile.tempdir, os.environ.get("TMPDIR")
    tempfile.tempdir, os.environ["TMPDIR"] = str(folder), str(folder)
    try:
        yield folder
    finally:
        tempfile.tempdir = before
        if before_env is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = before_env
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
