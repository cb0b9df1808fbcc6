"""Payday and what follows it (rulebook, "Zahltag", "Nach einem Zahltag", "Spielende"; 2-player and
expansion payday rules).
"""

from __future__ import annotations

from domain.elcapitan import data
from domain.elcapitan import events as ev
from domain.elcapitan.rules.board import (
    CITY,
    is_main,
    loans_available,
    main_cities_held,
    refuse,
    repayment,
    turn_order,
)
from domain.elcapitan.rules.chain import operating, ranking, value
from domain.elcapitan.rules.emitter import Emitter
from domain.elcapitan.state import EMPTY, CityState, State, owner
from domain.engine import Outcome


def proliferation(state: State) -> tuple[int, ...]:
    """Per seat: the chart amount for the cities with an operating main-colour warehouse."""
    return tuple(data.PROLIFERATION[main_cities_held(state, s)] for s in range(state.seats))


def majority_payouts(state: State, city: CityState) -> tuple[int, ...]:
    """Per seat: what the majority in ``city`` pays.

    Main board: first rank V, second rank ⌊V/2⌋. Off the board: first V, every other owner of an
    operating warehouse ⌊V/2⌋ (ambiguity 29). With 2 players only a main colour ranked first is paid
    (on the main board nothing else; off the board the other main colour gets ⌊V/2⌋).
    """
    pay = [0] * state.seats
    ranks = ranking(city)
    if not ranks:
        return tuple(pay)
    v = value(city)
    seats = state.seats
    off_board = CITY[city.name].off_board
    if seats == 2 and not is_main(ranks[0][0], seats):
        return tuple(pay)
    pay[owner(ranks[0][0], seats)] += v
    others = ranks[1:] if off_board else ranks[1:2]
    for colour, _ in others:
        if seats == 2 and (not off_board or not is_main(colour, seats)):
            continue
        pay[owner(colour, seats)] += v // 2
    return tuple(pay)


def fortress_payouts(state: State) -> tuple[int, ...]:
    """Per seat: each fortress pays ⌊V/2⌋, or V in the city or cities with the most operating warehouses.

    Ambiguity 1: the German text stands (the illustrated city with ten warehouses pays 16, not 20).
    Ambiguity 24: the same with 2 players, all colours counted. Ambiguity 28: off-board cities follow the
    same rule and take part in the comparison.
    """
    most = max(operating(city) for city in state.cities)
    pay = [0] * state.seats
    for city in state.cities:
        v = value(city)
        amount = v if operating(city) == most else v // 2
        for seat in city.fortresses:
            if seat != EMPTY:
                pay[seat] += amount
    return tuple(pay)


def payday(state: State) -> ev.PaydayHeld:
    """The payday of the current phase (bonus cards are paid only at the third)."""
    majorities = [0] * state.seats
    for city in state.cities:
        for seat, amount in enumerate(majority_payouts(state, city)):
            majorities[seat] += amount
    final = state.phase == data.PHASES
    return ev.PaydayHeld(
        phase=state.phase,
        proliferation=proliferation(state),
        majorities=tuple(majorities),
        fortresses=fortress_payouts(state),
        bonuses=tuple(p.bonus if final else 0 for p in state.players),
    )


def hold_payday(out: Emitter) -> None:
    """Pay, then either end the game (third payday) or open the loan settlement."""
    out.emit(payday(out.state))
    if out.state.phase == data.PHASES:
        _final_repayments(out)
        out.emit(final_result(out.state))
        return
    if not out.state.settlers:
        money_check(out)


def _final_repayments(out: Emitter) -> None:
    """At the end all loans are repaid; an unpaid rest comes off the cash (ambiguity 17)."""
    for seat in turn_order(out.state):
        while out.state.players[seat].loans:
            loan = out.state.players[seat].loans[0]
            out.emit(ev.LoanRepaid(seat=seat, loan=0, amount=repayment(loan.amount, loan.extended)))


def final_result(state: State) -> ev.GameEnded:
    """The outcome: most money wins; equal money shares the place (ambiguity 19)."""
    money = tuple(p.money for p in state.players)
    ranking_ = tuple(sorted(range(state.seats), key=lambda s: (-money[s], s)))
    winners = tuple(s for s in ranking_ if money[s] == money[ranking_[0]])
    tied = len(set(money)) < len(money)
    outcome = Outcome(
        ranking=ranking_,
        scores=money,
        winners=winners,
        tie_break="equal money shares the place; listed in seat order" if tied else "",
    )
    return ev.GameEnded(
        outcome=outcome,
        destination_draw=state.destinations.draw,
        interconnection_draw=state.interconnections.draw,
    )


def wealth(state: State) -> tuple[int, ...]:
    """Kassensturz: cash minus the repayment still owed on every loan."""
    return tuple(p.money - sum(repayment(ln.amount, ln.extended) for ln in p.loans) for p in state.players)


def money_check(out: Emitter) -> None:
    """The poorest player (ties: first in turn order from the phase's start player, ambiguity 18) chooses."""
    worth = wealth(out.state)
    chooser = min(turn_order(out.state), key=lambda s: worth[s])
    out.emit(ev.MoneyChecked(wealth=worth, chooser=chooser))


def check_settlement(state: State, seat: int, loan: int) -> None:
    """A loan decision must come from the seat whose turn it is to settle, for an unsettled loan."""
    if state.stage != "loans":
        refuse("not_settling", "loans are repaid or extended only after a payday")
    if seat != state.settlers[0]:
        refuse("not_your_turn", f"seat {state.settlers[0]} settles his loans now (turn order)")
    loans = state.players[seat].loans
    if not 0 <= loan < len(loans) or loans[loan].settled:
        refuse("no_such_loan", f"loan {loan} is not an unsettled loan of seat {seat}")


def decide_repay(state: State, seat: int, loan: int) -> list[ev.ElCapitanEvent]:
    """Repay a loan; a shortfall is covered at once by new loan cards, 10s first (ambiguity 17)."""
    check_settlement(state, seat, loan)
    out = Emitter(state)
    card = state.players[seat].loans[loan]
    due = repayment(card.amount, card.extended)
    while out.state.players[seat].money < due:
        kind = next((k.amount for k in data.LOANS if loans_available(out.state, k.amount) > 0), 0)
        if kind == 0:
            break  # no cards left: the cash goes negative
        out.emit(ev.LoanTaken(seat=seat, amount=kind, cover=True))
    out.emit(ev.LoanRepaid(seat=seat, loan=loan, amount=due))
    if not out.state.settlers:
        money_check(out)
    return out.events


def decide_extend(state: State, seat: int, loan: int) -> list[ev.ElCapitanEvent]:
    """Flip a loan card: repaid after the next payday at the higher amount; only once per loan."""
    check_settlement(state, seat, loan)
    if state.players[seat].loans[loan].extended:
        refuse("already_extended", "a loan can be extended only once; it must now be repaid")
    out = Emitter(state)
    out.emit(ev.LoanExtended(seat=seat, loan=loan))
    if not out.state.settlers:
        money_check(out)
    return out.events


def decide_choose_start(state: State, seat: int, chosen: int) -> list[ev.ElCapitanEvent]:
    """The poorest player names the start player of the next phase."""
    if state.stage != "choose_start":
        refuse("not_choosing", "the start player is chosen only after the money check")
    if seat != state.chooser:
        refuse("not_your_turn", f"seat {state.chooser} (the poorest) chooses the start player")
    if not 0 <= chosen < state.seats:
        refuse("no_such_seat", f"there is no seat {chosen}")
    return [ev.PhaseStarted(phase=state.phase + 1, start_player=chosen)]
