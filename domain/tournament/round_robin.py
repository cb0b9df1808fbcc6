"""Round-robin schedules for tables of three seats or more: every pair meets as evenly as the tables allow.

A round of tables of ``k`` seats gives each player ``k - 1`` meetings, so over the tournament's rounds
the pairs share a fixed number of meetings; the schedule spreads them as evenly as that number allows:
every pair meets ``q`` or ``q + 1`` times (``q`` = meetings // pairs) wherever such a schedule is found.
With 8 players at tables of 4 over 3 rounds, all 28 pairs meet (8 of them twice); 9 players at tables
of 3 over 4 rounds, or 16 at tables of 4 over 5, meet everyone exactly once (resolvable designs, the
"social golfer" schedules).

The whole schedule is made at once, from the number of players, the tables, the number of rounds and the
tournament's public seed alone, and each round's pairing is its row: so every round (and an auditor
re-deciding it) gets the same schedule. How: the byes go round the field in turn; a start (each round
seated as Swiss seats one, fewest repeats first; or drawn at random) is improved by threshold accepting: a swap
of two players of one round, drawn at random, is kept if it raises the cost (the sum over pairs of their
meetings squared, plus ``UNMET`` for a pair that never meets where every pair can) by no more than a
threshold that falls to zero; the best schedule seen is kept. Random numbers come from the seed through
integer arithmetic alone (xorshift), so every machine makes the same schedule. It stops at the even
spread or after ``SWAPS`` tries.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from domain.engine import Rng
from domain.tournament.history import History, RoundPairing
from domain.tournament.pairing import group_tables
from domain.tournament.tables import plan_tables

SWAPS = 400_000
"""Swaps the search tries in all (at most about 1.5 s here, once per process: the schedule is cached),
shared by its starts."""
ATTEMPTS = 8
"""Starts of the search: the rounds seated as Swiss seats them, then random ones, each with its share of ``SWAPS`` (a
needle such as 8 players at tables of 4 is found from some starts and not from others)."""
SWISS_FIELD = 200
"""Above this many players the starts are all random (Swiss's seating searches more than a start is worth)."""
THRESHOLD = 6
"""The rise in cost a swap may bring at first; it falls to zero over each start's swaps."""

Schedule = tuple[tuple[tuple[int, ...], ...], ...]
"""Rounds, each a tuple of tables of player indexes (``0 … players-1``); byes are the players not seated."""


UNMET = 64
"""What a pair that never meets costs on top of its square, where the meetings suffice for every pair:
meeting everyone comes first, evenness second (8 players at tables of 4 over 3 rounds have 36 meetings for
28 pairs: every pair meets, a few twice or three times)."""


def pair_cost(meetings: int, unmet: int) -> int:
    return meetings * meetings + (unmet if meetings == 0 else 0)


def even_cost(players: int, meetings: int) -> int:
    """The lowest cost: each pair meets ``q`` or ``q + 1`` times."""
    pairs = players * (players - 1) // 2
    q, rem = divmod(meetings, pairs) if pairs else (0, 0)
    unmet = UNMET if meetings >= pairs else 0
    return (pairs - rem) * pair_cost(q, unmet) + rem * pair_cost(q + 1, unmet)


@lru_cache(maxsize=32)
def schedule(players: int, size: int, min_seats: int, max_seats: int, rounds: int, seed: bytes) -> Schedule:
    """The whole round-robin (pure: cached by its arguments, which decide it): the first even schedule
    the starts of the search reach, or the best of them."""
    rng = Rng(material=b"harbormaster/tournament/round-robin-schedule\x00" + seed)
    plan = plan_tables(players, size, min_seats, max_seats)
    order = rng.shuffled(list(range(players)))
    byes = [_byes(order, plan.byes, number) for number in range(rounds)]
    best: tuple[int, list[list[list[int]]]] | None = None
    for attempt in range(ATTEMPTS):
        rows, met = _start(order, byes, plan.sizes, rng, swiss=attempt == 0 and players <= SWISS_FIELD)
        meetings = sum(map(sum, met)) // 2
        unmet = UNMET if meetings >= players * (players - 1) // 2 else 0
        floor = even_cost(players, meetings)
        search = _Search(rows, met, rng, unmet)
        cost = search.run(floor, SWAPS // ATTEMPTS)
        if best is None or cost < best[0]:
            best = (cost, rows)
        if cost <= floor:
            break
    assert best is not None
    return tuple(tuple(tuple(table) for table in row) for row in best[1])


def _byes(order: list[int], count: int, number: int) -> set[int]:
    """Round ``number``'s byes: the next ``count`` players of the drawn order, round the field in turn."""
    start = (number * count) % len(order) if order else 0
    return {order[(start + i) % len(order)] for i in range(count)}


def _start(
    order: list[int], byes: list[set[int]], sizes: Sequence[int], rng: Rng, swiss: bool
) -> tuple[list[list[list[int]]], list[list[int]]]:
    """A first schedule: round by round as Swiss seats a round (``swiss``; ``group_tables``: players who
    met fewest first, equals in a drawn order, fewest repeats), or each round's players drawn at random
    into the tables."""
    met = [[0] * len(order) for _ in order]
    rows: list[list[list[int]]] = []
    history = History()
    for sitting_out in byes:
        seated = [p for p in order if p not in sitting_out]
        if swiss:
            seated = sorted(rng.shuffled(seated), key=lambda p: len(history.meetings.get(p, ())))
            tables = group_tables(seated, sizes, history)
            history.add(RoundPairing(tables=tuple(tuple(t) for t in tables)))
        else:
            drawn = rng.shuffled(seated)
            cuts = [sum(sizes[:t]) for t in range(len(sizes) + 1)]
            tables = [drawn[cuts[t] : cuts[t + 1]] for t in range(len(sizes))]
        for table in tables:
            _meet(met, table, 1)
        rows.append(tables)
    return rows, met


def _meet(met: list[list[int]], table: Sequence[int], by: int) -> None:
    for i, a in enumerate(table):
        for b in table[i + 1 :]:
            met[a][b] += by
            met[b][a] += by


class _Search:
    """Threshold accepting over swaps of two players of one round (see the module's doc): a swap drawn at
    random is kept when it raises the cost by no more than a threshold that falls to zero."""

    def __init__(self, rows: list[list[list[int]]], met: list[list[int]], rng: Rng, unmet: int) -> None:
        self.rows, self.met = rows, met
        self.state = int.from_bytes(rng.sample(range(256), 8), "big") | 1  # xorshift64: never all zero
        most = len(rows) + 2
        # A pair's cost change when it meets once more / once less (``pair_cost``), looked up by meetings.
        self.up = [pair_cost(m + 1, unmet) - pair_cost(m, unmet) for m in range(most)]
        self.down = [pair_cost(m - 1, unmet) - pair_cost(m, unmet) if m else 0 for m in range(most)]
        self.unmet = unmet
        self.swaps = [
            (r, t, u) for r, row in enumerate(rows) for t in range(len(row)) for u in range(t + 1, len(row))
        ]

    def _next(self, below: int) -> int:
        """A number in ``0 … below-1`` from xorshift64 (integers only: the same on every machine)."""
        x = self.state
        x ^= (x << 13) & 0xFFFFFFFFFFFFFFFF
        x ^= x >> 7
        x ^= (x << 17) & 0xFFFFFFFFFFFFFFFF
        self.state = x
        return x % below

    def cost(self) -> int:
        met = self.met
        return sum(pair_cost(met[a][b], self.unmet) for a in range(len(met)) for b in range(a + 1, len(met)))

    def run(self, floor: int, work: int) -> int:
        """``work`` swaps tried (fewer if the cost reaches ``floor``); keeps the best rows, returns its cost."""
        cost = best = self.cost()
        kept = [[list(t) for t in row] for row in self.rows]
        if not self.swaps:
            return best
        for step in range(work):
            if cost <= floor:
                break
            threshold = THRESHOLD * (work - step) // work
            r, t, u = self.swaps[self._next(len(self.swaps))]
            row = self.rows[r]
            i, j = self._next(len(row[t])), self._next(len(row[u]))
            delta = self._delta(row[t], i, row[u], j)
            if delta <= threshold:
                self._swap(r, t, i, u, j)
                cost += delta
                if cost < best:
                    best, kept = cost, [[list(t) for t in row] for row in self.rows]
        self.rows[:] = kept
        return best

    def _delta(self, a_table: list[int], i: int, b_table: list[int], j: int) -> int:
        """The change in cost if ``a_table[i]`` and ``b_table[j]`` swap tables."""
        met, up, down, x, y = self.met, self.up, self.down, a_table[i], b_table[j]
        delta = 0
        for a in a_table:
            if a != x:
                delta += down[met[x][a]] + up[met[y][a]]
        for b in b_table:
            if b != y:
                delta += down[met[y][b]] + up[met[x][b]]
        return delta

    def _swap(self, r: int, t: int, i: int, u: int, j: int) -> None:
        row = self.rows[r]
        _meet(self.met, row[t], -1)
        _meet(self.met, row[u], -1)
        row[t][i], row[u][j] = row[u][j], row[t][i]
        _meet(self.met, row[t], 1)
        _meet(self.met, row[u], 1)
