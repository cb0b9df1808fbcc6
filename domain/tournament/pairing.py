"""Swiss pairing for multi-seat tables, as Board Game Arena runs it.

Each round: players are ordered by score (equal scores by seed when the tournament is seeded, then in an
order drawn from the seed; a seeded first round is dealt strongest apart instead, ``seeds``), the lowest
placed players with the fewest byes so far sit out if the table plan needs byes, and the rest are seated
table by table from the top: each seat goes to the highest placed player who has met nobody at the
table yet (or, when everyone has, the one with the fewest earlier meetings). A repair pass then swaps
players between tables while that lowers the number of repeated pairs; repeats still left are removed
by an exact search in small fields and, in middling ones, by a tabu search and then a search for a split
with none at all (``conflict_free``). Seats are ordered last
(``seating``). Deterministic: the same seed, scores and history give the same round.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from domain.engine import Rng
from domain.tournament.conflict_free import conflict_free_split
from domain.tournament.history import History, Player, RoundPairing, Table, repeat_pairs
from domain.tournament.seating import seat_table
from domain.tournament.seeds import Seeds, deal, seed_of
from domain.tournament.tables import plan_tables

EXACT_FIELD = 12
"""Up to this many seated players, leftover repeats are removed by an exact search (at most 15,400 splits)."""
REPAIR_PASSES = 4
"""Swap passes over the tables with repeats; each pass either lowers the repeats or ends the repair."""
TABU_FIELD = 200
"""Up to this many seated players, repeats the repair leaves are searched for further (``_tabu``): each
step looks at every swap, so it costs the square of the field."""
TABU_STEPS = 120
TABU_PATIENCE = 25
"""Steps without a better split before the search gives up."""
TABU_TENURE = 6


def round_rng(seed: bytes, round_number: int, purpose: bytes) -> Rng:
    """The generator for one round's pairing decisions (derived from the tournament's seed alone)."""
    return Rng(
        material=b"harbormaster/tournament/" + purpose + b"\x00" + seed + round_number.to_bytes(4, "big")
    )


def score_order(
    players: Sequence[Player], scores: Mapping[Player, float], rng: Rng, seeds: Seeds = ()
) -> list[Player]:
    """Best score first; equal scores by seed (when seeded), then in an order drawn from ``rng``."""
    drawn = {p: i for i, p in enumerate(rng.shuffled(sorted(players)))}
    return sorted(players, key=lambda p: (-scores.get(p, 0), -seed_of(seeds, p), drawn[p]))


def choose_byes(order: Sequence[Player], count: int, history: History) -> list[Player]:
    """The ``count`` lowest placed players among those with the fewest byes so far."""
    from_bottom = list(reversed(order))
    ranked = sorted(range(len(from_bottom)), key=lambda i: (history.byes[from_bottom[i]], i))
    return [from_bottom[i] for i in ranked[:count]]


def _fill(order: list[Player], sizes: Sequence[int], history: History) -> list[list[Player]]:
    """Greedy seating in score order, preferring players who have met nobody at the table."""
    remaining = list(order)
    tables: list[list[Player]] = []
    for size in sizes:
        table = [remaining.pop(0)]
        while len(table) < size:
            best_index, best_conflicts = 0, -1
            for index, candidate in enumerate(remaining):
                conflicts = history.conflicts(candidate, table)
                if best_conflicts < 0 or conflicts < best_conflicts:
                    best_index, best_conflicts = index, conflicts
                if conflicts == 0:
                    break
            table.append(remaining.pop(best_index))
        tables.append(table)
    return tables


def _swap_gain(tables: list[list[Player]], a: int, i: int, b: int, j: int, history: History) -> int:
    """How many repeated pairs swapping ``tables[a][i]`` with ``tables[b][j]`` removes."""
    x, y = tables[a][i], tables[b][j]
    rest_a = [p for k, p in enumerate(tables[a]) if k != i]
    rest_b = [p for k, p in enumerate(tables[b]) if k != j]
    before = history.conflicts(x, rest_a) + history.conflicts(y, rest_b)
    after = history.conflicts(y, rest_a) + history.conflicts(x, rest_b)
    return before - after


def _repair(tables: list[list[Player]], history: History) -> None:
    """Swap players between tables while that lowers the repeats; nearest tables (closest scores) first."""
    for _ in range(REPAIR_PASSES):
        improved = False
        for a, table in enumerate(tables):
            for i, player in enumerate(table):
                if history.conflicts(player, table) == 0:
                    continue
                improved |= _swap_one(tables, a, i, history)
        if not improved:
            return


def _swap_one(tables: list[list[Player]], a: int, i: int, history: History) -> bool:
    by_distance = sorted((b for b in range(len(tables)) if b != a), key=lambda b: (abs(b - a), b))
    for b in by_distance:
        for j in range(len(tables[b])):
            if _swap_gain(tables, a, i, b, j, history) > 0:
                tables[a][i], tables[b][j] = tables[b][j], tables[a][i]
                return True
    return False


def _tabu(tables: list[list[Player]], history: History) -> None:
    """When no single swap lowers the repeats but some remain (a field too big for ``_exact``): take the
    best swap of a player with a repeat even when it does not lower them (a player moved may not move
    again for ``TABU_TENURE`` steps, so the search walks on instead of undoing itself), repair again, and
    keep the best split seen. Deterministic: the order of the tables and seats decides every tie."""
    best_repeats, best = repeat_pairs(tables, history), [list(t) for t in tables]
    moved: dict[Player, int] = {}
    last_better = 0
    for step in range(TABU_STEPS):
        if best_repeats == 0 or step - last_better > TABU_PATIENCE:
            break  # none left, or likely none avoidable: each step costs the square of the field
        swap = _best_swap(tables, history, moved, step)
        if swap is None:
            break
        a, i, b, j = swap
        tables[a][i], tables[b][j] = tables[b][j], tables[a][i]
        moved[tables[a][i]] = moved[tables[b][j]] = step + TABU_TENURE
        _repair(tables, history)
        repeats = repeat_pairs(tables, history)
        if repeats < best_repeats:
            best_repeats, best, last_better = repeats, [list(t) for t in tables], step
    tables[:] = best


def _best_swap(
    tables: list[list[Player]], history: History, moved: Mapping[Player, int], step: int
) -> tuple[int, int, int, int] | None:
    """The swap of a player with a repeat and a player of another table (neither moved lately) that
    removes the most repeats, nearest tables first among equals."""
    found: tuple[int, int, int, int, int, int] | None = None  # (-gain, distance, a, i, b, j)
    for a, table in enumerate(tables):
        for i, player in enumerate(table):
            if moved.get(player, -1) > step or history.conflicts(player, table) == 0:
                continue
            for b, other in enumerate(tables):
                for j, partner in enumerate(other):
                    if b == a or moved.get(partner, -1) > step:
                        continue
                    key = (-_swap_gain(tables, a, i, b, j, history), abs(b - a), a, i, b, j)
                    if found is None or key < found:
                        found = key
    return None if found is None else found[2:]


def _exact(order: list[Player], sizes: Sequence[int], history: History) -> list[list[Player]]:
    """The fewest repeats over every split of a small field (branch and bound); among equals, the split
    whose tables hold players closest in the score order."""
    rank = {p: i for i, p in enumerate(order)}
    best: list[tuple[int, int]] = [(1 << 30, 0)]
    found: list[list[list[Player]]] = [[]]

    def search(
        left: list[Player], sizes_left: tuple[int, ...], tables: list[list[Player]], repeats: int, spread: int
    ) -> None:
        if (repeats, spread) >= best[0]:
            return
        if not sizes_left:
            best[0], found[0] = (repeats, spread), [list(t) for t in tables]
            return
        first, rest = left[0], left[1:]
        for size in sorted(set(sizes_left), reverse=True):  # the first player may sit at any size
            others_left = list(sizes_left)
            others_left.remove(size)
            for others in itertools.combinations(rest, size - 1):
                table = [first, *others]
                added = sum(history.conflicts(p, table[i + 1 :]) for i, p in enumerate(table))
                chosen = set(others)
                remaining = [p for p in rest if p not in chosen]
                width = rank[table[-1]] - rank[first]
                search(remaining, tuple(others_left), [*tables, table], repeats + added, spread + width)

    search(order, tuple(sizes), [], 0, 0)
    return found[0]


def group_tables(order: list[Player], sizes: Sequence[int], history: History) -> list[list[Player]]:
    """Players (in the order they should be considered) into tables of ``sizes``, fewest repeats: greedy
    with a swap repair, and an exact search when repeats remain in a field small enough to search."""
    tables = _fill(order, sizes, history)
    _repair(tables, history)
    if repeat_pairs(tables, history) == 0:
        return tables
    if len(order) <= EXACT_FIELD:
        return sorted(_exact(order, sizes, history), key=lambda t: (-len(t), order.index(t[0])))
    if len(order) <= TABU_FIELD:
        _tabu(tables, history)
        if repeat_pairs(tables, history) > 0:
            tables = conflict_free_split(order, sizes, history) or tables
    return tables


def pair_swiss(
    players: Sequence[Player],
    scores: Mapping[Player, float],
    rounds: Sequence[RoundPairing],
    *,
    size: int,
    min_seats: int,
    max_seats: int,
    seed: bytes,
    seeds: Seeds = (),
) -> RoundPairing:
    """The next Swiss round (its number is ``len(rounds) + 1``). A seeded first round deals the players
    to the tables strongest apart (``deal``); later rounds group by points, seed breaking ties."""
    history = History(rounds)
    number = len(rounds) + 1
    rng = round_rng(seed, number, b"swiss")
    plan = plan_tables(len(players), size, min_seats, max_seats)
    order = score_order(players, scores, rng, seeds)
    byes = choose_byes(order, plan.byes, history)
    sitting_out = set(byes)
    seated = [p for p in order if p not in sitting_out]
    seeded_first = bool(seeds) and not rounds  # a seeded first round: strongest apart
    tables = deal(seated, plan.sizes) if seeded_first else group_tables(seated, plan.sizes, history)
    return RoundPairing(tables=seat_tables(tables, history, rng), byes=tuple(sorted(byes)))


def seat_tables(tables: Sequence[Sequence[Player]], history: History, rng: Rng) -> tuple[Table, ...]:
    return tuple(seat_table(table, history, rng) for table in tables)
