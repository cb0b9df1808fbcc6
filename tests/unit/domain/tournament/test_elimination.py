"""Single elimination always plays to a final table (issue 33.6): over every game, table size, advance
and field from one table to 40 players, the last round is one table with no byes, and nobody was left
out of it while a table could still be filled."""

from __future__ import annotations

import pytest

from domain import GAMES
from domain.engine import Rng
from domain.tournament import (
    Entrant,
    State,
    TableFinished,
    TournamentSettings,
    current_standings,
    default_tie_breaks,
    fold,
    rules,
)
from domain.tournament.formats import round_advance

CONFIGS = [
    (game, size, advance)
    for game, rules_of in sorted(GAMES.items())
    for size in range(rules_of.min_seats, rules_of.max_seats + 1)
    for advance in range(1, rules_of.min_seats)
    if size > advance
]


def _play(game: str, size: int, advance: int, players: int) -> State:
    spec = GAMES[game]
    settings = TournamentSettings(game=game, format="elimination", table_size=size, advance=advance,
                        tie_breaks=default_tie_breaks("elimination"))  # fmt: skip
    entrants = [Entrant(name=f"p{i}", bot="random") for i in range(players)]
    created = rules.create("t", settings, entrants, min_seats=spec.min_seats, max_seats=spec.max_seats,
                           pairing_seed=b"seed")  # fmt: skip
    state = fold(created)
    state = fold(rules.start(state), state)
    rng = Rng(b"results")
    while state.status != "finished":
        current = state.current()
        assert current is not None and len(state.rounds) <= players, "elimination does not end"
        finished = []
        for table, seated in enumerate(current.pairing.tables):
            ranking = tuple(rng.shuffled(seated))
            finished.append(TableFinished(round=current.number, table=table, ranking=ranking,
                                          scores=tuple(range(len(ranking), 0, -1)), winners=ranking[:1],
                                          final_hash="h"))  # fmt: skip
        state = fold(rules.record_tables(state, finished), state)
    return state


@pytest.mark.parametrize(("game", "size", "advance"), CONFIGS, ids=[f"{g}-{s}-adv{a}" for g, s, a in CONFIGS])
def test_every_field_plays_to_a_final_table(game: str, size: int, advance: int) -> None:
    low = GAMES[game].min_seats
    for players in range(low, 41):
        state = _play(game, size, advance, players)
        final = state.rounds[-1]
        assert len(final.pairing.tables) == 1 and not final.pairing.byes, (players, state.rounds)
        for earlier in state.rounds[:-1]:  # every earlier round left enough players for a table
            going = round_advance(earlier.pairing, advance, low)
            assert (
                sum(min(going, len(t) - 1) for t in earlier.pairing.tables) + len(earlier.pairing.byes) >= low
            )
        result = final.results[0]
        assert result is not None
        assert current_standings(state)[0].player == result.ranking[0] == state.winners[0]


def test_a_round_that_would_leave_too_few_advances_more() -> None:
    """Manila (3-5 seats), 6 players at tables of 3, one going on from each: two tables would leave 2 for
    a game of 3, so two go on from each and 4 play on (then a table of 3 and a bye, then the final)."""
    state = _play("manila", 3, 1, 6)
    assert len(state.rounds[0].pairing.tables) == 2
    second = state.rounds[1]
    assert len(second.pairing.seated()) + len(second.pairing.byes) == 4
