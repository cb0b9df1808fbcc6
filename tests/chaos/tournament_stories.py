"""Each scripted tournament's story, read from its recomputed state (``tournament_checks``) and from what
the service shows: the no-show forfeited at each table and never rated, the leaver's tables, the withdrawn
player never paired again, the replacement mid-game, and the elimination finals (a tie shares the win)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain.tournament import Rating, State, TableFinished
from tests.chaos.tournament_checks import Audit
from tests.chaos.tournament_people import Organiser
from tests.chaos.tournament_plan import Plan

if TYPE_CHECKING:
    from tests.chaos.tournaments import TournamentChaosResult


def stories(
    plans: list[Plan],
    organisers: list[Organiser],
    shown: dict[str, Any],
    audits: dict[str, Audit],
    result: TournamentChaosResult,
) -> None:
    for plan, organiser in zip(plans, organisers, strict=True):
        state, results = audits[plan.tid].state, audits[plan.tid].tables
        if state is None or not (plan.people or plan.withdraw is not None):
            continue
        told: list[str] = []
        wrong: list[str] = []
        for player, person in enumerate(plan.people):
            client = organiser.people[player]
            tables = _tables_of(results, player)
            absent = [t.round for t in tables if player in t.absent]
            told.append(
                f"{person.name} moved {client.moves}, sat {len(tables)} tables, absent in rounds {absent}"
            )
            if person.moves == 0:
                _no_show(state, player, tables, absent, wrong)
            for table in tables:
                game_id = state.rounds[table.round - 1].games[table.table]
                if player in table.absent and game_id in client.games:
                    wrong.append(f"{person.name} moved in {game_id}, yet is a no-show there")
        if plan.withdraw is not None:
            told.append(_withdrawal(state, results, plan.withdraw, organiser, wrong))
        if plan.replace is not None:
            told.append(_replacement(state, plan.replace, organiser, wrong))
        if plan.tie_final:
            told.append(_final(state, results, shown[plan.tid], result, wrong))
        result.stories.append(f"{plan.tid}: " + ", ".join(told))
        result.story_problems += [f"{plan.tid}: {w}" for w in wrong]


def _tables_of(results: list[TableFinished], player: int) -> list[TableFinished]:
    return [r for r in results if player in r.ranking]


def _no_show(
    state: State, player: int, tables: list[TableFinished], absent: list[int], wrong: list[str]
) -> None:
    """Forfeited as absent at each of his tables, last there, never rated, never a winner."""
    if not tables or len(absent) != len(tables):
        wrong.append(f"the no-show is absent at {len(absent)} of his {len(tables)} tables")
    if any(t.ranking[-1] != player or player not in t.forfeits for t in tables):
        wrong.append("the no-show is not forfeited and last at each table")
    if state.ratings[player] != Rating() or player in state.winners:
        wrong.append("the no-show was rated, or won")


def _withdrawal(
    state: State, results: list[TableFinished], player: int, organiser: Organiser, wrong: list[str]
) -> str:
    later = [played.number for played in state.rounds[1:]
             if any(player in t for t in played.pairing.tables) or player in played.pairing.byes]  # fmt: skip
    if player not in state.withdrawn or later or len(state.rounds) < 2:
        wrong.append(f"player {player} withdrawn {player in state.withdrawn}, paired again in rounds {later}")
    if not _tables_of(results, player):
        wrong.append(f"player {player}'s round-1 result was not kept")
    return f"player {player} withdrawn in round {organiser.withdrawn_at}, never paired again"


def _replacement(state: State, replace: tuple[int, str], organiser: Organiser, wrong: list[str]) -> str:
    player, name = replace
    newcomer = organiser.newcomer
    moved = newcomer.moves if newcomer is not None else 0
    if state.entrants[player].name != name or not organiser.people[player].replaced or not moved:
        wrong.append(
            f"the place of player {player} is {state.entrants[player].name}'s, the newcomer moved {moved}"
        )
    if not organiser.replaced_mid_game:
        wrong.append("the replacement did not come mid-game")
    return f"{organiser.plan.people[player].name} replaced mid-game ({organiser.replaced_mid_game}) by {name}, who moved {moved}"


def _final(
    state: State,
    results: list[TableFinished],
    shown: dict[str, Any],
    result: TournamentChaosResult,
    wrong: list[str],
) -> str:
    """The final table's result: level players share first place and the win (rules 3)."""
    final = results[-1] if results else None
    if final is None:
        wrong.append("no final result")
        return "no final"
    tied = final.places[:2] == (0, 0)
    result.ties_in_finals += tied
    winners = {state.entrants[p].name for p in final.winners}
    if final.forfeits:  # a no-show in the final (his first move was too slow): the ranking decides
        return (
            f"final scores {list(final.scores)}, forfeited {list(final.forfeits)}, winners {shown['winners']}"
        )
    if set(shown["winners"]) != winners or len(winners) != (2 if tied else 1):
        wrong.append(f"final places {final.places}, winners shown {shown['winners']}")
    return f"final scores {list(final.scores)}, places {list(final.places)}, winners {sorted(winners)}"
