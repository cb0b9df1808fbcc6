"""Version 1 of the pairing rules: tournaments created before the rules were versioned are decided by them
to their end, so that their exports verify as they did. A new tournament is never created under them.

What version 2 (``rules``, ``formats``) changed, and why none of it is applied here:

- Round-robin at tables of 3 or more seated, round by round, the players who had met the fewest others
  first; version 2 makes the whole schedule at once (``round_robin.schedule``) so that every pair meets as
  evenly as the tables allow. Two-seat tables were and are the circle method.
- Elimination took the organiser's ``advance`` from each table whatever was left, and ended after any round
  of one table, with a bye or not; version 2 raises ``advance`` where too few would be left for a table and
  plays to a final table without byes (``formats.round_advance``).
- Elimination's ``progress`` counted the top ``advance`` of every table as going on, but nobody at a round
  of one table.

Organiser actions that came later (withdrawing a player) are kept: a withdrawn player is not paired again.
Seeds (which came later too) are not read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from domain.tournament.formats import circle_round, pair_elimination
from domain.tournament.history import History, Player, RoundPairing
from domain.tournament.pairing import choose_byes, group_tables, pair_swiss, round_rng, seat_tables
from domain.tournament.state import State
from domain.tournament.tables import plan_tables


def still_in(state: State) -> list[Player]:
    """Elimination: the top ``advance`` of each table of the last round and its byes, best first."""
    last = state.current()
    gone = set(state.withdrawn)
    if last is None:
        return [p for p in state.players if p not in gone]
    going: list[tuple[int, int, Player]] = [(0, -1, p) for p in last.pairing.byes]
    for index, result in enumerate(last.results):
        assert result is not None
        top = result.ranking[: state.settings.advance]
        going.extend((place, index, p) for place, p in enumerate(top))
    return [p for _, _, p in sorted(going) if p not in gone]


def next_pairing(state: State, total: int, scores: Mapping[Player, float]) -> RoundPairing | None:
    """The next round's pairing, or ``None`` when the tournament is over (``total``: its rounds;
    ``scores``: the points so far, for Swiss)."""
    settings, past = state.settings, [r.pairing for r in state.rounds]
    size, low, high, seed = settings.table_size, state.min_seats, state.max_seats, state.pairing_seed
    if settings.format == "elimination":
        last = state.current()
        if last is not None and (len(last.pairing.tables) <= 1 or len(still_in(state)) < low):
            return None
        return pair_elimination(still_in(state), past, size=size, min_seats=low, max_seats=high, seed=seed)
    active = state.active()
    if len(past) >= total or len(active) < low:
        return None
    if settings.format == "round_robin":
        return pair_round_robin(active, past, size=size, min_seats=low, max_seats=high, seed=seed)
    return pair_swiss(active, scores, past, size=size, min_seats=low, max_seats=high, seed=seed)


def pair_round_robin(
    players: Sequence[Player],
    rounds: Sequence[RoundPairing],
    *,
    size: int,
    min_seats: int,
    max_seats: int,
    seed: bytes,
) -> RoundPairing:
    """The next round: exact for two seats (circle method); for larger tables, the players who have met
    the fewest others seated first, with the fewest repeat meetings."""
    number = len(rounds) + 1
    history = History(rounds)
    rng = round_rng(seed, number, b"round-robin")
    if size == 2 and min_seats <= 2:
        circle = circle_round(sorted(players), number)
        return RoundPairing(tables=seat_tables(circle.tables, history, rng), byes=circle.byes)
    plan = plan_tables(len(players), size, min_seats, max_seats)
    drawn = rng.shuffled(sorted(players))
    order = sorted(drawn, key=lambda p: len(history.meetings.get(p, ())))
    byes = choose_byes(list(reversed(order)), plan.byes, history)
    sitting_out = set(byes)
    tables = group_tables([p for p in order if p not in sitting_out], plan.sizes, history)
    return RoundPairing(tables=seat_tables(tables, history, rng), byes=tuple(sorted(byes)))


def progress(state: State) -> dict[Player, int]:
    """Elimination: 100 per round survived (a bye counts) minus the place at the player's last table."""
    out: dict[Player, int] = {}
    for played in state.rounds:
        for p in played.pairing.byes:
            out[p] = 100 * played.number
        for result in played.results:
            if result is None:
                continue
            for place, p in enumerate(result.ranking):
                survived = played.number + (place < state.settings.advance and len(played.results) > 1)
                out[p] = 100 * survived - place
    return out
