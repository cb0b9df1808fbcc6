"""Single elimination by table under pairing rules 3 (issue 42.4, 42.5); ``elimination_v2`` keeps version
2 for the tournaments created under it.

- **Ties share places at every stage.** A table's places (``TableFinished.places``) are what counts, not
  the game's order among equals: players level across the cut of those going on all go on (one seat of
  the table at least is out), players level at their last table have the same ``progress``, and players
  level in the final share its place in the standings, whatever the later tie-breaks say: tied winners
  are all winners.
- **A withdrawn player's place goes to the next at his table**, and where that still leaves too few for a
  table more go on from each, then everyone not withdrawn from the last round: the tournament plays to a
  final table (one table, no byes) while a table can be filled, whatever withdrawals happen.
- **Withdrawn players rank after everyone still in**: a withdrawn player's progress stops at the last
  table he sat at, below every place at it (``WITHDRAWN``).
"""

from __future__ import annotations

from collections.abc import Collection

from domain.tournament.formats import round_advance
from domain.tournament.history import Player, RoundPairing
from domain.tournament.seeds import by_seed
from domain.tournament.standings import TableResult
from domain.tournament.state import PlayedRound, State

WITHDRAWN = 50
"""Progress a withdrawn player loses: more than any place at a table (0-4), less than a round (100)."""


def is_final(pairing: RoundPairing) -> bool:
    """A round of one table and no byes is the final: nobody goes on from it."""
    return len(pairing.tables) <= 1 and not pairing.byes


def _table_going(result: TableResult, needed: int, gone: Collection[Player], cap: int) -> list[Player]:
    """The players of one table going on: the best ``needed`` not withdrawn, with everyone sharing the
    last one's place, and at most ``cap``, in the table's order."""
    going: list[Player] = []
    last_place = -1
    for player, place in zip(result.ranking, result.place_of(), strict=True):
        if player in gone or len(going) >= cap:
            continue
        if len(going) < needed or place == last_place:
            going.append(player)
            last_place = place
    return going


def _going(played: PlayedRound, needed: int, gone: Collection[Player], keep_one_out: bool) -> list[Player]:
    """Who goes on from ``played`` with ``needed`` a table, best first: byes, then by place at their table,
    then table order (the order the next round is dealt in)."""
    ranked: list[tuple[int, int, Player]] = [(0, -1, p) for p in played.pairing.byes if p not in gone]
    for index, result in enumerate(played.results):
        if result is None:
            continue
        cap = len(result.ranking) - 1 if keep_one_out else len(result.ranking)
        going = _table_going(result, needed, gone, cap)
        ranked.extend((result.ranking.index(p), index, p) for p in going)
    return [p for _, _, p in sorted(ranked)]


def going_on(played: PlayedRound, advance: int, min_seats: int, gone: Collection[Player]) -> list[Player]:
    """Who goes on from a round that was not the final: the top ``round_advance`` of each table, raised
    where withdrawals leave fewer than a table seats; if even all but one of every table are too few,
    everyone of the round not withdrawn (fewer than ``min_seats`` then: no table can be filled)."""
    needed = round_advance(played.pairing, advance, min_seats)
    widest = max((len(t) for t in played.pairing.tables), default=0)
    for raised in range(needed, max(needed, widest) + 1):
        going = _going(played, raised, gone, keep_one_out=True)
        if len(going) >= min_seats:
            return going
    return _going(played, widest, gone, keep_one_out=False)


def still_in(state: State) -> list[Player]:
    """The players going on from the last round, best first (the first round: the field by seed)."""
    last = state.current()
    if last is None:
        return by_seed(state.active(), state.seeds)
    return going_on(last, state.settings.advance, state.min_seats, set(state.withdrawn))


def over(state: State) -> bool:
    """The last round ended the tournament: it was the final, or too few are left to fill a table."""
    last = state.current()
    return last is not None and (is_final(last.pairing) or len(still_in(state)) < state.min_seats)


def _went_on(state: State, index: int) -> set[Player]:
    """Who went on from round ``index``: the next round's field as paired (withdrawals as they stood then);
    for the last round, who goes on as things stand (nobody from the final)."""
    if index + 1 < len(state.rounds):
        later = state.rounds[index + 1].pairing
        return {*later.seated(), *later.byes}
    played = state.rounds[index]
    if is_final(played.pairing):
        return set()
    return set(going_on(played, state.settings.advance, state.min_seats, set(state.withdrawn)))


def progress(state: State) -> dict[Player, int]:
    """100 per round survived (a bye counts) minus the shared place at the player's last table; a withdrawn
    player's less ``WITHDRAWN``, below everyone who reached that table."""
    out: dict[Player, int] = {}
    for index, played in enumerate(state.rounds):
        went = _went_on(state, index)
        for p in played.pairing.byes:
            out[p] = 100 * (played.number + (p in went))
        for result in played.results:
            if result is None:
                continue
            for p, place in zip(result.ranking, result.place_of(), strict=True):
                out[p] = 100 * (played.number + (p in went)) - place
    for p in state.withdrawn:
        if p in out:
            out[p] -= WITHDRAWN
    return out


def final_places(state: State) -> dict[Player, int]:
    """The final's places of the players not withdrawn, once it is recorded (empty before): they head the
    standings, players sharing a place sharing the rank."""
    last = state.current()
    if last is None or not is_final(last.pairing) or last.results[0] is None:
        return {}
    result, gone = last.results[0], set(state.withdrawn)
    return {p: place for p, place in zip(result.ranking, result.place_of(), strict=True) if p not in gone}
