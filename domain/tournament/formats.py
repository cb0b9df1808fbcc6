"""Round-robin and single elimination by table (Swiss is in ``pairing``)."""

from __future__ import annotations

from collections.abc import Sequence

from domain.tournament.history import History, Player, RoundPairing
from domain.tournament.pairing import choose_byes, group_tables, round_rng, seat_tables
from domain.tournament.tables import plan_tables


def round_robin_rounds(players: int, size: int) -> int:
    """Rounds for every player to meet every other once where tables allow it exactly: each round a
    player meets ``size - 1`` others (two seats and an odd field: one more round, for the byes)."""
    if size == 2:
        return max(1, players - 1 + players % 2)
    return max(1, -(-(players - 1) // max(1, size - 1)))


def _circle_round(players: Sequence[Player], number: int) -> RoundPairing:
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
) -> RoundPairing:
    """The next round of a round-robin: exact for two seats (circle method); for larger tables, the
    players who have met fewest others are seated first with the fewest repeat meetings (as even as
    table sizes allow; a perfect schedule exists only for some player counts)."""
    number = len(rounds) + 1
    history = History(rounds)
    rng = round_rng(seed, number, b"round-robin")
    if size == 2 and min_seats <= 2:
        circle = _circle_round(sorted(players), number)
        return RoundPairing(tables=seat_tables(circle.tables, history, rng), byes=circle.byes)
    plan = plan_tables(len(players), size, min_seats, max_seats)
    drawn = rng.shuffled(sorted(players))
    order = sorted(drawn, key=lambda p: len(history.meetings.get(p, ())))
    byes = choose_byes(list(reversed(order)), plan.byes, history)
    sitting_out = set(byes)
    tables = group_tables([p for p in order if p not in sitting_out], plan.sizes, history)
    return RoundPairing(tables=seat_tables(tables, history, rng), byes=tuple(sorted(byes)))


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
    tables: list[list[Player]] = [[] for _ in plan_sizes]
    index, step = 0, 1
    for player in seated:
        while len(tables[index]) >= plan_sizes[index]:
            index, step = _snake(index, step, len(tables))
        tables[index].append(player)
        index, step = _snake(index, step, len(tables))
    return RoundPairing(tables=seat_tables(tables, history, rng), byes=tuple(sorted(byes)))


def _snake(index: int, step: int, count: int) -> tuple[int, int]:
    nxt = index + step
    if 0 <= nxt < count:
        return nxt, step
    return index, -step


def advancing(ranking: Sequence[Player], advance: int) -> list[Player]:
    """The players of one finished elimination table who go on: its top ``advance``."""
    return list(ranking[:advance])
