"""Fold one El Capitán event into the state: total, deterministic, never draws randomness."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from domain.elcapitan import data
from domain.elcapitan import events as ev
from domain.elcapitan.data import CITY_BY_NAME as CITY
from domain.elcapitan.data import city_names
from domain.elcapitan.state import (
    EMPTY,
    HIDDEN_CARD,
    PIRATE,
    CityState,
    Deck,
    Loan,
    PlayerState,
    State,
    TurnState,
    colours,
    owner,
)


def _set(items: tuple[Any, ...], index: int, item: Any) -> tuple[Any, ...]:
    return (*items[:index], item, *items[index + 1 :])


def _player(state: State, seat: int, **changes: Any) -> State:
    players = _set(state.players, seat, replace(state.players[seat], **changes))
    return replace(state, players=players)


def _city(state: State, name: str, **changes: Any) -> State:
    index = state.city_index(name)
    return replace(state, cities=_set(state.cities, index, replace(state.cities[index], **changes)))


def _pay(state: State, seat: int, amount: int) -> State:
    return _player(state, seat, money=state.players[seat].money + amount)


def _deck(state: State, name: str) -> Deck:
    return state.destinations if name == "destination" else state.interconnections


def _with_deck(state: State, name: str, deck: Deck) -> State:
    if name == "destination":
        return replace(state, destinations=deck)
    return replace(state, interconnections=deck)


def _new_city(name: str) -> CityState:
    harbours = tuple(
        PIRATE if name == data.CANARIAS and i == data.PIRATE_START_SPACE else EMPTY
        for i in range(len(CITY[name].harbours))
    )
    fortresses = (EMPTY,) * len(CITY[name].fortresses)
    return CityState(name=name, sites=(EMPTY,) * data.SITES, fortresses=fortresses, harbours=harbours)


def _new_player(seats: int) -> PlayerState:
    return PlayerState(
        money=data.START_MONEY,
        warehouses=data.WAREHOUSES_PER_PHASE,
        neutral=data.NEUTRAL_PER_PHASE if seats == 2 else 0,
        fortresses=data.FORTRESSES_PER_PHASE,
    )


def _apply_game_started(event: ev.GameStarted) -> State:
    seats = event.seats
    pool = tuple(
        (data.WAREHOUSES_PER_COLOUR - data.WAREHOUSES_PER_PHASE)
        if c < seats
        else (data.NEUTRAL_PER_COLOUR - data.NEUTRAL_PER_PHASE)
        for c in range(colours(seats))
    )
    return State(
        seats=seats,
        expansions=event.expansions,
        cities=tuple(_new_city(name) for name in city_names(event.expansions)),
        players=tuple(_new_player(seats) for _ in range(seats)),
        destinations=Deck(),
        interconnections=Deck(),
        pool_warehouses=pool,
        pool_fortresses=(data.FORTRESSES_PER_COLOUR - data.FORTRESSES_PER_PHASE,) * seats,
        removed=(0,) * colours(seats),
        bonus_left=data.BONUS_CARDS,
        pirate=data.CANARIAS if data.CANARIAS in event.expansions else "",
        start_player=event.start_player,
        current=event.start_player,
        rules=event.rules,
    )


def _apply_deck_shuffled(state: State, event: ev.DeckShuffled) -> State:
    deck = _deck(state, event.deck)
    # A redacted shuffle hides the order, not the size: the viewer's pile holds ``size`` unknown cards,
    # so its draw count matches the table's (drawn cards are named by ``CardsRevealed``).
    order = event.order if event.order is not None else (HIDDEN_CARD,) * event.size
    discard = () if event.from_discard else deck.discard
    return _with_deck(state, event.deck, replace(deck, draw=order, discard=discard))


def _apply_cards_revealed(state: State, event: ev.CardsRevealed) -> State:
    deck = _deck(state, event.deck)
    n = len(event.cards)
    return _with_deck(
        state, event.deck, replace(deck, draw=deck.draw[n:], display=deck.display + event.cards)
    )


def _apply_card_bought(state: State, event: ev.CardBought) -> State:
    name = "destination" if event.card.startswith("D") else "interconnection"
    deck = _deck(state, name)
    display = tuple(c for c in deck.display if c != event.card)
    state = _with_deck(state, name, replace(deck, display=display))
    p = state.players[event.seat]
    state = _player(state, event.seat, money=p.money - event.cost, hand=(*p.hand, event.card))
    return replace(state, turn=replace(state.turn, bought=True))


def _discard(state: State, seat: int, card: str) -> State:
    p = state.players[seat]
    hand = list(p.hand)
    hand.remove(card)
    state = _player(state, seat, hand=tuple(hand))
    name = "destination" if card.startswith("D") else "interconnection"
    deck = _deck(state, name)
    return _with_deck(state, name, replace(deck, discard=(*deck.discard, card)))


def _leave_harbour(state: State, seat: int) -> State:
    p = state.players[seat]
    if p.harbour != EMPTY and p.ship not in ("", "bank"):
        city = state.cities[state.city_index(p.ship)]
        state = _city(state, p.ship, harbours=_set(city.harbours, p.harbour, EMPTY))
    return state


def _apply_ship_sailed(state: State, event: ev.ShipSailed) -> State:
    state = _discard(state, event.seat, event.card)
    state = _leave_harbour(state, event.seat)
    if event.harbour != EMPTY:
        city = state.cities[state.city_index(event.to)]
        state = _city(state, event.to, harbours=_set(city.harbours, event.harbour, event.seat))
    state = _player(state, event.seat, ship=event.to, harbour=event.harbour)
    arrived = event.to == data.CANARIAS and event.harbour != EMPTY and not state.turn.pirate_freed
    due = state.turn.pirate_due or arrived
    return replace(state, turn=replace(state.turn, sailed=True, pirate_due=due))


def _place(state: State, name: str, site: int, colour: int) -> State:
    city = state.cities[state.city_index(name)]
    return _city(state, name, sites=_set(city.sites, site - 1, colour), frontier=max(city.frontier, site))


def _acted(state: State) -> State:
    return replace(state, turn=replace(state.turn, acted=True), built_this_round=True)


def _apply_warehouse_built(state: State, event: ev.WarehouseBuilt) -> State:
    state = _place(state, event.city, event.site, event.colour)
    p = state.players[event.seat]
    if event.colour == event.seat:
        state = _player(state, event.seat, warehouses=p.warehouses - 1, money=p.money - event.cost)
    else:
        state = _player(state, event.seat, neutral=p.neutral - 1, money=p.money - event.cost)
    return _acted(state)


def _apply_warehouse_reopened(state: State, event: ev.WarehouseReopened) -> State:
    city = state.cities[state.city_index(event.city)]
    closed = list(city.closed)
    closed.remove(event.colour)
    state = _city(state, event.city, closed=tuple(closed))
    return _acted(_place(state, event.city, event.site, event.colour))


def _apply_warehouse_shut_down(state: State, event: ev.WarehouseShutDown) -> State:
    city = state.cities[state.city_index(event.city)]
    sites = _set(city.sites, event.site - 1, EMPTY)
    if event.removed:
        removed = _set(state.removed, event.colour, state.removed[event.colour] + 1)
        return replace(_city(state, event.city, sites=sites), removed=removed)
    closed = tuple(sorted((*city.closed, event.colour)))
    return _city(state, event.city, sites=sites, closed=closed)


def _apply_fortress_built(state: State, event: ev.FortressBuilt) -> State:
    city = state.cities[state.city_index(event.city)]
    state = _city(state, event.city, fortresses=_set(city.fortresses, event.slot, event.seat))
    p = state.players[event.seat]
    state = _player(state, event.seat, fortresses=p.fortresses - 1, money=p.money - event.cost)
    return _acted(state)


def _apply_bonus_card_taken(state: State, event: ev.BonusCardTaken) -> State:
    state = _player(state, event.seat, bonus=event.amount)
    left = list(state.bonus_left)
    left.remove(event.amount)
    return replace(state, bonus_left=tuple(left))


def _apply_pirate_moved(state: State, event: ev.PirateMoved) -> State:
    if state.pirate:
        old = state.cities[state.city_index(state.pirate)]
        harbours = tuple(EMPTY if h == PIRATE else h for h in old.harbours)
        state = _city(state, state.pirate, harbours=harbours)
    for card in event.cards:
        state = _discard(state, event.seat, card)
    city = state.cities[state.city_index(event.to)]
    harbours = _set(city.harbours, event.space, PIRATE)
    if event.displaced != EMPTY:
        harbours = _set(harbours, event.displaced_to, event.displaced)
        state = _player(state, event.displaced, harbour=event.displaced_to)
    state = _city(state, event.to, harbours=harbours)
    state = _pay(state, event.seat, -event.cost)
    if state.rules == 1:  # one pirate move a turn, the free one included
        turn = replace(state.turn, pirate_moved=True, pirate_due=False)
    elif event.free:  # rules 2: the free move is owed besides the paid one ("einmal" limits the paid one)
        turn = replace(state.turn, pirate_due=False, pirate_freed=True)
    else:
        turn = replace(state.turn, pirate_moved=True)
    return replace(state, pirate=event.to, turn=turn)


def _apply_protection_collected(state: State, event: ev.ProtectionCollected) -> State:
    for seat, amount in enumerate(event.payments):
        state = _pay(state, seat, -amount)
    return _pay(state, event.seat, sum(event.payments))


def _apply_loan_taken(state: State, event: ev.LoanTaken) -> State:
    p = state.players[event.seat]
    loans = (*p.loans, Loan(amount=event.amount, settled=event.cover))
    state = _player(state, event.seat, money=p.money + event.amount, loans=loans)
    if event.cover:
        return state
    state = _leave_harbour(state, event.seat)
    state = _player(state, event.seat, ship="bank", harbour=EMPTY)
    return replace(state, turn=replace(state.turn, acted=True))


def _apply_turn_ended(state: State, event: ev.TurnEnded) -> State:
    t = state.turn
    if t.bought or t.sailed or t.acted or t.pirate_moved or t.pirate_freed:
        state = replace(state, busy_this_round=True)
    p = state.players[event.seat]
    if p.ship not in ("", "bank") and p.harbour == EMPTY:
        state = _player(state, event.seat, ship="bank")  # a ship may not stay in a full city
    return state


def _apply_turn_started(state: State, event: ev.TurnStarted) -> State:
    same = event.round == state.round
    return replace(
        state,
        current=event.seat,
        round=event.round,
        turn=TurnState(),
        built_this_round=state.built_this_round and same,
        busy_this_round=state.busy_this_round and same,
    )


def _apply_payday_held(state: State, event: ev.PaydayHeld) -> State:
    for seat in range(state.seats):
        total = (
            event.proliferation[seat] + event.majorities[seat] + event.fortresses[seat] + event.bonuses[seat]
        )
        state = _pay(state, seat, total)
    final = event.phase == data.PHASES  # at the end every loan is repaid at once, nobody decides
    settlers = () if final else tuple(s for s in state.turn_order() if state.players[s].loans)
    return replace(state, stage="loans", settlers=settlers, turn=TurnState())


def _drop_settled(state: State) -> State:
    settlers = tuple(s for s in state.settlers if any(not ln.settled for ln in state.players[s].loans))
    return replace(state, settlers=settlers)


def _apply_loan_repaid(state: State, event: ev.LoanRepaid) -> State:
    p = state.players[event.seat]
    loans = p.loans[: event.loan] + p.loans[event.loan + 1 :]
    state = _player(state, event.seat, money=p.money - event.amount, loans=loans)
    return _drop_settled(state)


def _apply_loan_extended(state: State, event: ev.LoanExtended) -> State:
    p = state.players[event.seat]
    loans = _set(p.loans, event.loan, Loan(amount=p.loans[event.loan].amount, extended=True, settled=True))
    return _drop_settled(_player(state, event.seat, loans=loans))


def _apply_money_checked(state: State, event: ev.MoneyChecked) -> State:
    players = tuple(
        replace(p, loans=tuple(replace(ln, settled=False) for ln in p.loans)) for p in state.players
    )
    return replace(state, players=players, stage="choose_start", chooser=event.chooser, settlers=())


def _hand_out(state: State) -> State:
    """Six warehouses and one fortress to each player from the pool (2 players: two neutral too)."""
    pool, forts, players = list(state.pool_warehouses), list(state.pool_fortresses), list(state.players)
    for colour in range(len(pool)):
        seat, main = owner(colour, state.seats), colour < state.seats
        take = min(pool[colour], data.WAREHOUSES_PER_PHASE if main else data.NEUTRAL_PER_PHASE)
        pool[colour] -= take
        p = players[seat]
        players[seat] = (
            replace(p, warehouses=p.warehouses + take) if main else replace(p, neutral=p.neutral + take)
        )
    for seat in range(state.seats):
        take = min(forts[seat], data.FORTRESSES_PER_PHASE)
        forts[seat] -= take
        players[seat] = replace(players[seat], fortresses=players[seat].fortresses + take)
    return replace(state, players=tuple(players), pool_warehouses=tuple(pool), pool_fortresses=tuple(forts))


def _apply_phase_started(state: State, event: ev.PhaseStarted) -> State:
    # Ambiguity 20: ships stay where they are; the new phase's first round allows loans.
    return replace(
        _hand_out(state),
        phase=event.phase,
        round=1,
        start_player=event.start_player,
        current=event.start_player,
        stage="turn",
        turn=TurnState(),
        phase_ending=False,
        built_this_round=False,
        busy_this_round=False,
        chooser=EMPTY,
    )


_HANDLERS: dict[type, Callable[[State, Any], State]] = {
    ev.DeckShuffled: _apply_deck_shuffled,
    ev.CardsRevealed: _apply_cards_revealed,
    ev.CardBought: _apply_card_bought,
    ev.ShipSailed: _apply_ship_sailed,
    ev.WarehouseBuilt: _apply_warehouse_built,
    ev.WarehouseReopened: _apply_warehouse_reopened,
    ev.WarehouseShutDown: _apply_warehouse_shut_down,
    ev.FortressBuilt: _apply_fortress_built,
    ev.ImmediatePaymentReceived: lambda state, e: _pay(state, e.seat, e.amount),
    ev.BonusCardTaken: _apply_bonus_card_taken,
    ev.PirateMoved: _apply_pirate_moved,
    ev.ProtectionCollected: _apply_protection_collected,
    ev.LoanTaken: _apply_loan_taken,
    ev.TurnEnded: _apply_turn_ended,
    ev.TurnStarted: _apply_turn_started,
    ev.PhaseEndAnnounced: lambda state, e: replace(state, phase_ending=True),
    ev.PaydayHeld: _apply_payday_held,
    ev.LoanRepaid: _apply_loan_repaid,
    ev.LoanExtended: _apply_loan_extended,
    ev.MoneyChecked: _apply_money_checked,
    ev.PhaseStarted: _apply_phase_started,
    ev.GameEnded: lambda state, e: replace(state, stage="over", result=e.outcome, settlers=(), chooser=EMPTY),
}


def evolve(state: State | None, event: ev.ElCapitanEvent) -> State:
    """Apply one event. Total on every event ``decide`` produces; never raises on them."""
    if isinstance(event, ev.GameStarted):
        return _apply_game_started(event)
    assert state is not None, "the first event of a game is GameStarted"
    return _HANDLERS[type(event)](state, event)
