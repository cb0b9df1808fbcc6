"""Phases 4 and 5: boats to harbour or shipyard, payouts in the order A–D, the black market, game end
(S0 "Einnahmen ausschütten", "Die Versicherung zahlt", "Warenwerte ansteigen lassen", "Spielende")."""

from __future__ import annotations

from domain.engine import Outcome
from domain.manila import data
from domain.manila import events as ev
from domain.manila.evolve import evolve
from domain.manila.rules.common import at_sea, forced_loans
from domain.manila.state import State, share_value, wealth

NO_TIE_BREAK = "the rulebook names no tie-break: tied players share the place (project decision)"


def berth(state: State) -> list[ev.ManilaEvent]:
    """Boats on 13 go to the harbour unless the captain sent them to the shipyard; every other boat
    still out goes to the shipyard. Simultaneous boats fill A, B, C in boat order (S0: "beliebig")."""
    harbour: list[str] = []
    shipyard: list[str] = []
    for i in at_sea(state):
        boat = state.boats[i]
        to_harbour = boat.position == data.PIRATE_FIELD and boat.good not in state.sent_to_shipyard
        (harbour if to_harbour else shipyard).append(boat.good)
    return [ev.BoatsBerthed(harbour=tuple(harbour), shipyard=tuple(shipyard))]


def _cargo(state: State) -> list[ev.ManilaEvent]:
    """B: the accomplices aboard a boat in port split its cargo value evenly (S0 Abb. 12)."""
    out: list[ev.ManilaEvent] = []
    for boat in sorted(state.boats, key=lambda b: b.berth_index):
        aboard = [s for s in boat.seats if s is not None]
        if boat.berth == "harbour" and aboard:
            share = data.CARGO_VALUE[boat.good] // len(aboard)
            out += [ev.Payout(seat=s, reason=f"cargo_{boat.good}", amount=share) for s in aboard]
    return out


def _berthed(state: State, where: str) -> list[int]:
    return sorted(b.berth_index for b in state.boats if b.berth == where)


def _harbour(state: State) -> list[ev.ManilaEvent]:
    """C: a rented harbour field with a boat on it pays its renter (S0 Abb. 13a)."""
    out: list[ev.ManilaEvent] = []
    for i in _berthed(state, "harbour"):
        renter = state.harbour[i]
        if renter is not None:
            out.append(ev.Payout(seat=renter, reason=data.HARBOUR_FIELDS[i], amount=data.HARBOUR_PAYOUTS[i]))
    return out


def _claim(state: State, agent: int, i: int) -> list[ev.ManilaEvent]:
    """One shipyard boat: the agent pays its renter (or the office for an unrented field), pledging
    shares if short; the office pays what he still cannot (S0 "Die Versicherung zahlt")."""
    amount, renter, field = data.SHIPYARD_PAYOUTS[i], state.shipyard[i], data.SHIPYARD_FIELDS[i]
    if renter == agent:  # he pays himself: nothing changes hands (S0 Abb. 14)
        return [ev.InsuranceClaimPaid(field=field, agent=agent, to_seat=agent, by_agent=amount, by_office=0)]
    loans: list[ev.ManilaEvent] = [*forced_loans(state, agent, amount)]
    cash = state.players[agent].cash + data.LOAN_AMOUNT * len(loans)
    by_agent = min(cash, amount)
    by_office = amount - by_agent if renter is not None else 0
    claim = ev.InsuranceClaimPaid(
        field=field, agent=agent, to_seat=renter, by_agent=by_agent, by_office=by_office
    )
    return [*loans, claim]


def _shipyard(state: State) -> list[ev.ManilaEvent]:
    """D: shipyard renters, paid by the insurance agent if there is one, else by the office."""
    out: list[ev.ManilaEvent] = []
    agent = state.insurance
    for i in _berthed(state, "shipyard"):
        if agent is not None:
            events = _claim(state, agent, i)
            for e in events:
                state = evolve(state, e)
            out += events
        elif (renter := state.shipyard[i]) is not None:
            out.append(
                ev.Payout(seat=renter, reason=data.SHIPYARD_FIELDS[i], amount=data.SHIPYARD_PAYOUTS[i])
            )
    return out


def payouts(state: State) -> list[ev.ManilaEvent]:
    """Payouts B, C, D (A, the pirates, were paid at the plunder), then the black market rises."""
    out: list[ev.ManilaEvent] = [*_cargo(state), *_harbour(state)]
    for e in out:
        state = evolve(state, e)
    out += _shipyard(state)
    risen = tuple(b.good for b in state.boats if b.berth == "harbour")
    return [*out, ev.MarketRose(goods=risen)]


def _repayments(state: State) -> list[ev.ManilaEvent]:
    """Project decision (README "repaying at the end"): before scoring, loans are repaid while cash
    allows, most valuable share first; repaying never lowers wealth (it adds the share's value)."""
    out: list[ev.ManilaEvent] = []
    for seat, player in enumerate(state.players):
        cash = player.cash
        for good in sorted(player.mortgaged, key=lambda g: (-share_value(state, g), data.GOODS.index(g))):
            if cash < data.REPAY_AMOUNT:
                break
            cash -= data.REPAY_AMOUNT
            out.append(ev.LoanRepaid(seat=seat, good=good))
    return out


def final_outcome(state: State) -> Outcome:
    """Ranking by wealth; ties stay shared (no tie-break in the rulebook, manila.md §7.3)."""
    scores = tuple(wealth(state, p) for p in state.players)
    ranking = tuple(sorted(range(state.seats), key=lambda s: (-scores[s], s)))
    best = max(scores)
    winners = tuple(s for s in ranking if scores[s] == best)
    tied = len(set(scores)) < len(scores)
    return Outcome(ranking=ranking, scores=scores, winners=winners, tie_break=NO_TIE_BREAK if tied else "")


def voyage_end(state: State) -> list[ev.ManilaEvent]:
    """The game ends when a good reached 30; otherwise the next voyage opens with the last harbour master."""
    if max(state.market) < data.MARKET_END_INDEX:
        opener = state.harbour_master if state.harbour_master is not None else 0
        return [ev.VoyageStarted(voyage=state.voyage + 1, opener=opener)]
    out = _repayments(state)
    for e in out:
        state = evolve(state, e)
    hands = tuple(p.shares for p in state.players)
    mortgaged = tuple(p.mortgaged for p in state.players)
    return [*out, ev.GameEnded(outcome=final_outcome(state), hands=hands, mortgaged=mortgaged)]
