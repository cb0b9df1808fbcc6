"""S0 (after "Die Lotsen mischen mit"): "Sobald (nach der dritten Würfelrunde) alle drei Kähne auf Hafen-
und/oder Werftfeldern abgestellt worden sind, finden keine weiteren Setz- und Würfelrunden mehr statt. Nun
werden die Einnahmen ausgeschüttet."

Read as it stands: as soon as all three boats are in the harbour (or, after roll 3, the shipyard), no
further placement, pilot or dice round takes place; the payouts follow and unplaced accomplices go home.
"""

from __future__ import annotations

from typing import Any

import pytest
from msgspec.structs import replace

from domain.engine import play_out
from domain.manila import GAME
from domain.manila import commands as cmd
from domain.manila import events as ev
from domain.manila.bots import random_bot
from domain.manila.state import State

from .helpers import Dice, act, before_last_roll, boat, to_placement

# What may no longer happen once every boat is parked.
ROUNDS = (ev.AccomplicePlaced, ev.PlacementPassed, ev.BoatsPiloted, ev.PilotPassed, ev.DiceRolled,
          ev.PirateBoarded, ev.PirateStayed)  # fmt: skip


def _after(events: list[Any], kind: type, roll: int) -> list[Any]:
    index = next(i for i, e in enumerate(events) if isinstance(e, kind) and e.roll == roll)
    return events[index + 1 :]


def _pass_until_roll(state: State, roll: int, *dice: int) -> tuple[State, list[Any]]:
    """Every placer passes until dice round ``roll`` has been rolled (each roll shows ``dice``)."""
    while True:
        assert state.phase == "place" and state.placer is not None
        state, events = act(state, state.placer, cmd.PassPlacement(), Dice(*dice))
        if any(isinstance(e, ev.DiceRolled) and e.roll == roll for e in events):
            return state, events


def test_all_boats_parked_after_roll_1_no_further_placement_or_dice_round():
    # From legal start fields (at most 5) roll 1 cannot dock a boat (5 + 6 < 14): the state is constructed
    # to show that the rule holds whenever the last boat docks, not only after roll 2.
    state = replace(to_placement(), boats=(boat("jade", 8, 1), boat("nutmeg", 9), boat("ginseng", 10, 2)),
                    harbour=(3, None, None), small_pilot=0)  # fmt: skip
    state, events = _pass_until_roll(state, 1, 6, 5, 4)
    assert _after(events, ev.DiceRolled, 1) == [
        ev.Payout(seat=1, reason="cargo_jade", amount=36),
        ev.Payout(seat=2, reason="cargo_ginseng", amount=18),
        ev.Payout(seat=3, reason="harbour_a", amount=6),
        ev.MarketRose(goods=("jade", "nutmeg", "ginseng")),
        ev.VoyageStarted(voyage=2, opener=0),
    ]
    assert state.voyage == 2 and state.phase == "auction"


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_all_boats_parked_after_roll_2_no_further_placement_pilot_or_dice_round(seats: int) -> None:
    """Real play from the opening: start fields 3, 3, 3 and two rolls of sixes dock all three boats."""
    state = to_placement(seats, starts=(3, 3, 3))
    state, _ = act(state, 0, cmd.PlaceAccomplice(field="jade"))
    state, _ = act(state, 1, cmd.PlaceAccomplice(field="harbour_c"))
    state, _ = act(state, 2, cmd.PlaceAccomplice(field="insurance"))
    state, _ = _pass_until_roll(state, 1, 6, 6, 6)
    state, _ = act(state, 0, cmd.PlaceAccomplice(field="small_pilot"))
    cash = tuple(p.cash for p in state.players)
    state, events = _pass_until_roll(state, 2, 6, 6, 6)
    assert [e.values for e in events if isinstance(e, ev.DiceRolled)] == [(6, 6, 6)]
    assert _after(events, ev.DiceRolled, 2) == [
        ev.Payout(seat=0, reason="cargo_jade", amount=36),
        ev.Payout(seat=1, reason="harbour_c", amount=15),  # ginseng, the third boat, took harbour C
        ev.MarketRose(goods=("jade", "nutmeg", "ginseng")),
        ev.VoyageStarted(voyage=2, opener=0),
    ]
    # The insurance agent keeps his 10 pesos: no boat can reach the shipyard any more.
    paid = (cash[0] + 36, cash[1] + 15, *cash[2:])
    assert tuple(p.cash for p in state.players) == paid and state.phase == "auction"


def test_all_boats_parked_by_a_pilot_no_further_pilot_or_dice_round():
    docked = (replace(boat("jade", 14, 2), berth="harbour", berth_index=0),
              replace(boat("nutmeg", 14), berth="harbour", berth_index=1))  # fmt: skip
    state = before_last_roll(to_placement(), (*docked, boat("ginseng", 13, 3)), big_pilot=1)
    _, events = act(state, 0, cmd.MoveBoats(moves=(cmd.PilotMove(good="ginseng", steps=1),)), Dice(1, 1, 1))
    assert not any(
        isinstance(e, ev.DiceRolled | ev.PilotPassed) for e in events
    )  # the big pilot is not asked
    assert ev.Payout(seat=3, reason="cargo_ginseng", amount=18) in events
    assert ev.Payout(seat=2, reason="cargo_jade", amount=36) in events


def _rounds_after_parking(events: list[Any]) -> int:
    """Check one game; return how many voyages had every boat parked before roll 3."""
    state, parked, early = None, False, 0
    for event in events:
        state = GAME.evolve(state, event)
        if isinstance(event, ev.VoyageStarted | ev.GameEnded):
            parked = False
        assert not (parked and isinstance(event, ROUNDS)), f"{type(event).__name__} after all boats parked"
        if state.boats and all(b.berth for b in state.boats) and not parked:
            parked, early = True, early + (state.rolls < 3)
    return early


def test_all_boats_parked_ends_the_voyages_rounds_in_random_games():
    """In random games of every size and option, once every boat is parked only payouts and the next
    voyage (or the game end) follow. Parking before roll 3 is rare (about 1 voyage in 900 between random
    bots), so games are played until one such voyage has been seen (seed 41 with today's bots)."""
    early = 0
    for i in range(300):
        seats, options = 3 + i % 3, GAME.option_examples[i % len(GAME.option_examples)]
        played = play_out(GAME, seats, options, f"parked-{i}".encode(), [random_bot] * seats)
        early += _rounds_after_parking(played.events)
        if early and i >= 8:  # every seat count and option example checked, and the rule exercised
            break
    assert early > 0, "no random game parked every boat before roll 3: the rule went unexercised"
