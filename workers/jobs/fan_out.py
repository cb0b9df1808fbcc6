"""A round's per-game Redis work, several games at a time.

Closing a 10,000-player round loads its 2,500 finished games and trims them, a few round trips a game; one
game after the other, most of the close's time on this loaded 2-core machine was spent waiting for replies
(issue 42). A few threads keep that many requests in flight, so Redis answers them together; the work per
game is the same and independent of the others' (each game is its own keys). The next round's bot turns
are enqueued 8 at a time too (``open_round``; its games are created in pipelines, ``events/create_batch.py``):
their first moves reach the fold worker as one burst of cold loads, which it folds keeping its leases
(``FoldWorker._keep_leases``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

THREADS = 8
"""Games in flight at once: enough to cover a loaded machine's round trips; a redis-py client's
connection pool gives each thread its own connection."""

T = TypeVar("T")
R = TypeVar("R")


def each(work: Callable[[T], R], items: Sequence[T], threads: int = THREADS) -> list[R]:
    """``[work(item) for item in items]``, up to ``threads`` at a time; the first exception is raised
    (after the others in flight finish), as the loop would have."""
    if len(items) <= 1 or threads <= 1:
        return [work(item) for item in items]
    with ThreadPoolExecutor(max_workers=min(threads, len(items)), thread_name_prefix="hm-fan-out") as pool:
        return list(pool.map(work, items))


def chunks(items: Sequence[T], parts: int = THREADS) -> list[Sequence[T]]:
    """``items`` in at most ``parts`` runs of consecutive items, for work that takes a list."""
    size = max(1, -(-len(items) // max(1, parts)))
    return [items[i : i + size] for i in range(0, len(items), size)]
