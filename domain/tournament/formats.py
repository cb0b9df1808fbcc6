"""Round-robin and single elimination by table (Swiss is in ``pairing``)."""

from __future__ import annotations

from collections.abc import Sequence

from domain.tournament.history import History, Player, RoundPairing
from domain.tournament.pairing import round_rng, seat_tables
from domain.tournament.round_robin import schedule
from domain.tournament.seeds import deal
from domain.tournament.tables import plan_tables


def round_robin_rounds(players: int, size: int) -> int:
    """Rounds for every player to meet every other once where tables allow it exactly: each round a
    player meets ``size - 1`` others (two seats and an odd field: one more round, for the byes)."""
    if size == 2:
        return max(1, players - 1 + players % 2)
    return max(1, -(-(players - 1) // max(1, size - 1)))


def circle_round(players: Sequence[Player], number: int) -> RoundPairing:
    """Two-seat tables by the circle method (Berger): an exact round-robin, a bye when odd."""
    ring: list[Player | None] = list(players)
    if len(ring) % 2:
        ring.append(None)
    turns = (number - 1) % (len(ring) - 1)
    rotated = [ring[0], *(ring[1:][-turns:] + ring[1:][:-turns] if turns else ring[1:])]
    half = len(rotated) // 2
    tables: list[tuple[Player, ...]] = []
    byes: list[Player] = []
    for i in range(half):
        a, b = rotated[i], rotated[-1 - i]
        if a is None or b is None:
            byes.extend(p for p in (a, b) if p is not None)
        else:
            tables.append((a, b))
    return RoundPairing(tables=tuple(tables), byes=tuple(byes))


def pair_round_robin(
    players: Sequence[Player],
    rounds: Sequence[RoundPairing],
    *,
    size: int,
    min_seats: int,
    max_seats: int,
    seed: bytes,
    total: int,
) -> RoundPairing:
    """Round ``len(rounds) + 1`` of a round-robin of ``total`` rounds: exact for two seats (the circle
    method); for larger tables, that round's row of the whole schedule (``round_robin.schedule``: every
    pair meets as evenly as the tables allow), seats then ordered by the history."""
    number = len(rounds) + 1
    history = History(rounds)
    rng = round_rng(seed, number, b"round-robin")
    ids = sorted(players)
    if size == 2 and min_seats <= 2:
        circle = circle_round(ids, number)
        return RoundPairing(tables=seat_tables(circle.tables, history, rng), byes=circle.byes)
    row = schedule(len(ids), size, min_seats, max_seats, max(total, number), seed)[number - 1]
    tables = [[ids[p] for p in table] for table in row]
    seated = {p for table in tables for p in table}
    byes = tuple(p for p in ids if p not in seated)
    return RoundPairing(tables=seat_tables(tables, history, rng), byes=byes)


def pair_elimination(
    ranked: Sequence[Player],
    rounds: Sequence[RoundPairing],
    *,
    size: int,
    min_seats: int,
    max_seats: int,
    seed: bytes,
) -> RoundPairing:
    """One round of single elimination by table. ``ranked`` are the players still in, best seed first;
    they are dealt to the tables like cards (snake order) so top seeds meet late. A bye advances."""
    history = History(rounds)
    rng = round_rng(seed, len(rounds) + 1, b"elimination")
    if len(ranked) <= size:
        plan_sizes: tuple[int, ...] = (len(ranked),) if len(ranked) >= min_seats else ()
        byes_count = 0 if plan_sizes else len(ranked)
    else:
        plan = plan_tables(len(ranked), size, min_seats, max_seats)
        plan_sizes, byes_count = plan.sizes, plan.byes
    byes = list(ranked[:byes_count])  # the best seeds earn the byes
    seated = list(ranked[byes_count:])
    tables = deal(seated, plan_sizes)
    return RoundPairing(tables=seat_tables(tables, history, rng), byes=tuple(sorted(byes)))


def advancing(ranking: Sequence[Player], advance: int) -> list[Player]:
    """The players of one finished elimination table who go on: its top ``advance`` (one seat at least
    is eliminated at every table)."""
    return list(ranking[: min(advance, len(ranking) - 1)])


def round_advance(pairing: RoundPairing, advance: int, min_seats: int) -> int:
    """How many of each table of an elimination round go on: the organiser's ``advance``, raised where the
    round would otherwise leave fewer players than a table seats, so that the tournament always plays to
    a final table (a round of one table and no byes is the final, and nobody goes on from it).

    Always possible: every table eliminates at least one player, and with two tables or more (or one and
    a bye) keeping all but one at each leaves at least ``min_seats`` players."""
    if len(pairing.tables) <= 1 and not pairing.byes:
        return advance
    needed = advance
    while sum(min(needed, len(t) - 1) for t in pairing.tables) + len(pairing.byes) < min_seats:
        if all(needed >= len(t) - 1 for t in pairing.tables):
            break
        needed += 1
    return needed
