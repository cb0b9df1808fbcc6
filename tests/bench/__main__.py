"""``make bench``: run every ``tests/bench/bench_*.py`` (or those named) and print their figures.

Benchmarks print; they never fail on a slow machine.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time

import tests.bench


def main(selected: list[str]) -> None:
    names = sorted(m.name for m in pkgutil.iter_modules(tests.bench.__path__) if m.name.startswith("bench_"))
    for name in names:
        if selected and not any(s in name for s in selected):
            continue
        print(f"\n=== {name} ===", flush=True)
        started = time.perf_counter()
        importlib.import_module(f"tests.bench.{name}").main()
        print(f"({name} took {time.perf_counter() - started:.1f} s)", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
