"""Fold one event into the state: total, deterministic, no randomness (``evolve`` in docs/design-brief.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from domain.manila import data
from domain.manila import events as ev
from domain.manila.state import HIDDEN_SHARE, Boat, Player, State, sort_goods


def _set(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*items[:index], value, *items[index + 1 :])


def _cash(state: State, seat: int, delta: int, office: int = 0) -> State:
    """Add ``delta`` to a seat's cash; ``office`` is what the office paid out (negative: received)."""
    p = state.players[seat]
    players = _set(state.players, seat, replace(p, cash=p.cash + delta))
    return replace(state, players=players, office_net=state.office_net + office)


def _next_bidder(state: State, after: int) -> int | None:
    seat = after
    for _ in range(state.seats):
        seat = (seat + 1) % state.seats
        if not state.dropped[seat]:
            return seat
    return None


def _berth(state: State, boats: tuple[Boat, ...], index: int, where: str) -> tuple[Boat, ...]:
    taken = {b.berth_index for b in boats if b.berth == where}
    slot = min(i for i in range(3) if i not in taken)
    return _set(boats, index, replace(boats[index], berth=where, berth_index=slot))


def _sail(state: State, index: int, steps: int) -> State:
    """Move boat ``index``; beyond field 13 it takes the next free harbour field at once (S0)."""
    boats = state.boats
    boat = boats[index]
    position = max(0, boat.position + steps)
    boats = _set(boats, index, replace(boat, position=min(position, data.PIRATE_FIELD + 1)))
    if position > data.PIRATE_FIELD:
        boats = _berth(state, boats, index, "harbour")
    return replace(state, boats=boats)


def _all_parked(state: State) -> bool:
    return bool(state.boats) and all(b.berth for b in state.boats)


def _to_payouts(state: State) -> State:
    """S0: "Sobald (nach der dritten Würfelrunde) alle drei Kähne auf Hafen- und/oder Werftfeldern
    abgestellt worden sind, finden keine weiteren Setz- und Würfelrunden mehr statt. Nun werden die
    Einnahmen ausgeschüttet." Read as it stands: once every boat is parked, even before roll 3, no
    further placement, pilot or dice round takes place; unplaced accomplices simply go home."""
    return replace(state, phase="payout", placer=None, pilot_turn="")


def _next_step(state: State) -> State:
    """Go on to the next entry of the voyage's schedule: a placement round or a dice roll, unless all
    three boats are parked already (then the payouts follow)."""
    if _all_parked(state):
        return _to_payouts(state)
    step = state.step + 1
    if step >= len(data.SCHEDULE[state.seats]):  # after the last roll comes the plunder/berthing
        return replace(state, step=step, phase="berth")
    if data.SCHEDULE[state.seats][step] == "place":
        return replace(state, step=step, phase="place", placer=state.harbour_master, placed_in_round=0)
    if state.rolls == data.ROLLS_PER_VOYAGE - 1:  # pilots act just before the last roll (S0 p. 6)
        if state.small_pilot is not None:
            return replace(state, step=step, phase="pilot", pilot_turn="small", placer=None)
        if state.big_pilot is not None:
            return replace(state, step=step, phase="pilot", pilot_turn="big", placer=None)
    return replace(state, step=step, phase="roll", placer=None)


def _after_placement(state: State) -> State:
    placed = state.placed_in_round + 1
    if placed < state.seats:
        assert state.placer is not None
        return replace(state, placed_in_round=placed, placer=(state.placer + 1) % state.seats)
    return _next_step(replace(state, placed_in_round=placed))


def _apply_game_started(state: State | None, e: ev.GameStarted) -> State:
    return State(
        seats=e.seats,
        variant_boarding=e.variant_boarding,
        deal=e.deal,
        players=(),
        supply=(data.SHARES_PER_GOOD,) * len(data.GOODS),
        market=(0,) * len(data.GOODS),
        rules=e.rules,
    )


def _apply_shares_dealt(state: State, e: ev.SharesDealt) -> State:
    # A redacted hand (None) is two shares of goods this viewer may not know: the count is public.
    hidden = (HIDDEN_SHARE,) * data.START_SHARES
    players = tuple(
        Player(cash=data.START_CASH, shares=sort_goods(hidden if h is None else h)) for h in e.hands
    )
    return replace(state, players=players, supply=e.supply)


def _apply_voyage_started(state: State, e: ev.VoyageStarted) -> State:
    return replace(
        state,
        voyage=e.voyage,
        phase="auction",
        opener=e.opener,
        bidder=e.opener,
        high_bid=0,
        high_bidder=None,
        dropped=(False,) * state.seats,
        boats=(),
        step=0,
        placer=None,
        placed_in_round=0,
        harbour=(None, None, None),
        shipyard=(None, None, None),
        pirates=(None, None),
        small_pilot=None,
        big_pilot=None,
        insurance=None,
        rolls=0,
        pilot_turn="",
        boarding_step=0,
        captain_boarded=False,
        just_boarded=None,
        plundered=(),
        sent_to_harbour=(),
        sent_to_shipyard=(),
    )


def _apply_bid_placed(state: State, e: ev.BidPlaced) -> State:
    state = replace(state, high_bid=e.amount, high_bidder=e.seat)
    return replace(state, bidder=_next_bidder(state, e.seat))


def _apply_bid_passed(state: State, e: ev.BidPassed) -> State:
    state = replace(state, dropped=_set(state.dropped, e.seat, True))
    return replace(state, bidder=_next_bidder(state, e.seat))


def _apply_harbour_master_chosen(state: State, e: ev.HarbourMasterChosen) -> State:
    state = _cash(state, e.seat, -e.price, -e.price)
    return replace(state, harbour_master=e.seat, phase="buy_share", bidder=None)


def _move_share(
    source: tuple[str, ...], target: tuple[str, ...], good: str | None
) -> tuple[tuple[str, ...], ...]:
    """One share from ``source`` to ``target``. Unnamed (redacted, ``None``), the viewer cannot tell which
    share moved, so what is left in ``source`` is hidden too; the counts stay exact."""
    if good is not None and good in source:
        rest = list(source)
        rest.remove(good)
        return sort_goods(rest), sort_goods([*target, good])
    left = (HIDDEN_SHARE,) * max(len(source) - 1, 0)
    return left, sort_goods([*target, HIDDEN_SHARE])


def _apply_loan_taken(state: State, e: ev.LoanTaken) -> State:
    """The 12 pesos are public even when the pledged good is not (a redacted ``good`` of None)."""
    p = state.players[e.seat]
    shares, mortgaged = _move_share(p.shares, p.mortgaged, e.good)
    player = replace(p, shares=shares, mortgaged=mortgaged)
    state = replace(state, players=_set(state.players, e.seat, player))
    return _cash(state, e.seat, data.LOAN_AMOUNT, data.LOAN_AMOUNT)


def _apply_loan_repaid(state: State, e: ev.LoanRepaid) -> State:
    """The 15 pesos are public even when the freed good is not."""
    p = state.players[e.seat]
    mortgaged, shares = _move_share(p.mortgaged, p.shares, e.good)
    player = replace(p, mortgaged=mortgaged, shares=shares)
    state = replace(state, players=_set(state.players, e.seat, player))
    return _cash(state, e.seat, -data.REPAY_AMOUNT, -data.REPAY_AMOUNT)


def _apply_share_bought(state: State, e: ev.ShareBought) -> State:
    p = state.players[e.seat]
    index = data.GOODS.index(e.good)
    player = replace(p, shares=sort_goods([*p.shares, e.good]))
    state = replace(
        state,
        players=_set(state.players, e.seat, player),
        supply=_set(state.supply, index, state.supply[index] - 1),
        phase="load",
    )
    return _cash(state, e.seat, -e.price, -e.price)


def _apply_share_skipped(state: State, e: ev.ShareSkipped) -> State:
    return replace(state, phase="load")


def _apply_boats_loaded(state: State, e: ev.BoatsLoaded) -> State:
    boats = tuple(
        Boat(good=g, position=s, seats=(None,) * len(data.SEAT_COSTS[g]))
        for g, s in zip(e.goods, e.starts, strict=False)
    )
    return replace(state, boats=boats, phase="place", step=0, placer=state.harbour_master, placed_in_round=0)


def _occupy(state: State, e: ev.AccomplicePlaced) -> State:
    field = e.field
    if field in data.GOODS:
        index = next(i for i, b in enumerate(state.boats) if b.good == field)
        boat = state.boats[index]
        seats = _set(boat.seats, e.seat_index or 0, e.seat)
        return replace(state, boats=_set(state.boats, index, replace(boat, seats=seats)))
    if field in data.HARBOUR_FIELDS:
        return replace(state, harbour=_set(state.harbour, data.HARBOUR_FIELDS.index(field), e.seat))
    if field in data.SHIPYARD_FIELDS:
        return replace(state, shipyard=_set(state.shipyard, data.SHIPYARD_FIELDS.index(field), e.seat))
    if field == "pirate":
        slot = 0 if state.pirates[0] is None else 1
        return replace(state, pirates=_set(state.pirates, slot, e.seat))
    if field == "small_pilot":
        return replace(state, small_pilot=e.seat)
    if field == "big_pilot":
        return replace(state, big_pilot=e.seat)
    return replace(state, insurance=e.seat)


def _apply_accomplice_placed(state: State, e: ev.AccomplicePlaced) -> State:
    state = _cash(state, e.seat, e.received - e.paid, e.received - e.paid)
    return _after_placement(_occupy(state, e))


def _apply_placement_passed(state: State, e: ev.PlacementPassed) -> State:
    return _after_placement(state)


def _pilot_done(state: State, pilot: str) -> State:
    if _all_parked(state):  # a pilot docked the last boat: no further pilot or dice round
        return _to_payouts(state)
    if pilot == "small" and state.big_pilot is not None:
        return replace(state, pilot_turn="big")
    return replace(state, phase="roll", pilot_turn="")


def _apply_boats_piloted(state: State, e: ev.BoatsPiloted) -> State:
    for move in e.moves:
        index = next((i for i, b in enumerate(state.boats) if b.good == move.good), None)
        if index is not None and not state.boats[index].berth:
            state = _sail(state, index, move.steps)
    return _pilot_done(state, e.pilot)


def _apply_pilot_passed(state: State, e: ev.PilotPassed) -> State:
    return _pilot_done(state, e.pilot)


def _on_pirate_field(state: State) -> bool:
    return any(not b.berth and b.position == data.PIRATE_FIELD for b in state.boats)


def _apply_dice_rolled(state: State, e: ev.DiceRolled) -> State:
    state = replace(state, rolls=e.roll)
    for index, pips in enumerate(e.values):
        if index < len(state.boats) and not state.boats[index].berth:
            state = _sail(state, index, pips)
    has_pirate = state.pirates[0] is not None
    if e.roll == data.BOARDING_ROLL and has_pirate and _on_pirate_field(state):
        return replace(state, phase="boarding", boarding_step=0, captain_boarded=False, just_boarded=None)
    if e.roll == data.PLUNDER_ROLL:
        phase = "plunder" if has_pirate and _on_pirate_field(state) else "berth"
        return replace(state, phase=phase, step=state.step + 1)
    return _next_step(state)


def _boarding_next(state: State) -> State:
    step = state.boarding_step + 1
    second = state.pirates[0] if state.captain_boarded else state.pirates[1]
    if step >= 2 or second is None:
        return _next_step(replace(state, boarding_step=step))
    return replace(state, boarding_step=step)


def _apply_pirate_boarded(state: State, e: ev.PirateBoarded) -> State:
    index = next(i for i, b in enumerate(state.boats) if b.good == e.good)
    boat = state.boats[index]
    boats = _set(state.boats, index, replace(boat, seats=_set(boat.seats, e.seat_index, e.seat)))
    if state.boarding_step == 0:  # the captain boards: the second pirate moves up (S0 Abb. 9)
        pirates: tuple[int | None, ...] = (state.pirates[1], None)
        state = replace(state, captain_boarded=True)
    else:
        pirates = (None, None) if state.captain_boarded else (state.pirates[0], None)
    state = replace(state, boats=boats, pirates=pirates, just_boarded=(e.good, e.seat_index))
    return _boarding_next(state)


def _apply_pirate_stayed(state: State, e: ev.PirateStayed) -> State:
    return _boarding_next(state)


def _apply_boat_plundered(state: State, e: ev.BoatPlundered) -> State:
    index = next(i for i, b in enumerate(state.boats) if b.good == e.good)
    boat = state.boats[index]
    boats = _set(state.boats, index, replace(boat, seats=(None,) * len(boat.seats)))
    state = replace(state, boats=boats, plundered=(*state.plundered, e.good), phase="captain")
    for seat, amount in zip(e.pirates, e.shares, strict=False):
        state = _cash(state, seat, amount, amount)
    return state


def _apply_plundered_boat_sent(state: State, e: ev.PlunderedBoatSent) -> State:
    plundered = tuple(g for g in state.plundered if g != e.good)
    if e.to == "harbour":
        state = replace(state, sent_to_harbour=(*state.sent_to_harbour, e.good))
    else:
        state = replace(state, sent_to_shipyard=(*state.sent_to_shipyard, e.good))
    return replace(state, plundered=plundered, phase="captain" if plundered else "berth")


def _apply_boats_berthed(state: State, e: ev.BoatsBerthed) -> State:
    boats = state.boats
    for where, goods in (("harbour", e.harbour), ("shipyard", e.shipyard)):
        for good in goods:
            index = next(i for i, b in enumerate(boats) if b.good == good)
            boats = _berth(state, boats, index, where)
    return replace(state, boats=boats, phase="payout")


def _apply_payout(state: State, e: ev.Payout) -> State:
    return _cash(state, e.seat, e.amount, e.amount)


def _apply_insurance_claim_paid(state: State, e: ev.InsuranceClaimPaid) -> State:
    state = _cash(state, e.agent, -e.by_agent)
    if e.to_seat is None:
        return replace(state, office_net=state.office_net - e.by_agent)
    return _cash(state, e.to_seat, e.by_agent + e.by_office, e.by_office)


def _apply_market_rose(state: State, e: ev.MarketRose) -> State:
    market = list(state.market)
    for good in e.goods:
        index = data.GOODS.index(good)
        market[index] = min(market[index] + 1, data.MARKET_END_INDEX)
    return replace(state, market=tuple(market), phase="voyage_end")


def _apply_game_ended(state: State, e: ev.GameEnded) -> State:
    """Every hand is revealed: a viewer's fold learns the goods it could not see."""
    players = tuple(
        replace(p, shares=hand, mortgaged=pledged)
        for p, hand, pledged in zip(state.players, e.hands, e.mortgaged, strict=False)
    )
    return replace(state, phase="over", result=e.outcome, bidder=None, placer=None, players=players)


_APPLY: dict[type, Callable[[Any, Any], State]] = {
    ev.GameStarted: _apply_game_started,
    ev.SharesDealt: _apply_shares_dealt,
    ev.VoyageStarted: _apply_voyage_started,
    ev.BidPlaced: _apply_bid_placed,
    ev.BidPassed: _apply_bid_passed,
    ev.HarbourMasterChosen: _apply_harbour_master_chosen,
    ev.LoanTaken: _apply_loan_taken,
    ev.LoanRepaid: _apply_loan_repaid,
    ev.ShareBought: _apply_share_bought,
    ev.ShareSkipped: _apply_share_skipped,
    ev.BoatsLoaded: _apply_boats_loaded,
    ev.AccomplicePlaced: _apply_accomplice_placed,
    ev.PlacementPassed: _apply_placement_passed,
    ev.BoatsPiloted: _apply_boats_piloted,
    ev.PilotPassed: _apply_pilot_passed,
    ev.DiceRolled: _apply_dice_rolled,
    ev.PirateBoarded: _apply_pirate_boarded,
    ev.PirateStayed: _apply_pirate_stayed,
    ev.BoatPlundered: _apply_boat_plundered,
    ev.PlunderedBoatSent: _apply_plundered_boat_sent,
    ev.BoatsBerthed: _apply_boats_berthed,
    ev.Payout: _apply_payout,
    ev.InsuranceClaimPaid: _apply_insurance_claim_paid,
    ev.MarketRose: _apply_market_rose,
    ev.GameEnded: _apply_game_ended,
}


def evolve(state: State | None, event: ev.ManilaEvent) -> State:
    """Apply one event. ``GameStarted`` opens the game; every other event needs a state."""
    if isinstance(event, ev.GameStarted) or state is None:
        return _apply_game_started(state, event)  # type: ignore[arg-type]
    return _APPLY[type(event)](state, event)
