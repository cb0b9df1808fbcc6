"""The turn's one action (rulebook, "Warenhaus bauen", "Festung bauen", "Wiedereröffnung", "Ein Darlehen
aufnehmen"; 2-player "Warenhaus bauen"; Lisboa's immediate payment; Porto's removals).
"""

from __future__ import annotations

from collections.abc import Callable

from domain.elcapitan import data
from domain.elcapitan import events as ev
from domain.elcapitan.commands import BuildFortress, BuildWarehouse, ElCapitanCommand, ReopenWarehouse
from domain.elcapitan.rules.board import (
    CITY,
    colour_of,
    is_main,
    loans_available,
    main_cities_held,
    refuse,
)
from domain.elcapitan.rules.chain import next_sites, ranking, row_allowed, shut_down_site, value
from domain.elcapitan.rules.emitter import Emitter
from domain.elcapitan.rules.sailing import check_turn
from domain.elcapitan.state import EMPTY, CityState, State
from domain.engine import RuleViolation


def _check_action(state: State, seat: int) -> CityState:
    """One action per turn, from a harbour space of a city; returns that city."""
    check_turn(state, seat)
    if state.turn.acted:
        refuse("already_acted", "only one action per turn")
    p = state.players[seat]
    if p.ship in ("", "bank") or p.harbour == EMPTY:
        refuse("not_in_harbour", "building needs the ship on a harbour space of the city")
    return state.cities[state.city_index(p.ship)]


def _check_site(state: State, city: CityState, site: int, colour: int) -> None:
    if site not in next_sites(city):
        allowed = next_sites(city)
        refuse("wrong_site", f"the next warehouse in {city.name} goes on site(s) {allowed}, not {site}")
    if not row_allowed(city, site, colour, state.seats):
        refuse("too_many_in_a_row", "no more than three warehouses of one colour in a row (2 players: "
                   "three of the main colour, four of main and neutral together)")  # fmt: skip


def _check_supply(state: State, seat: int, neutral: bool) -> None:
    p = state.players[seat]
    if neutral and state.seats != 2:
        refuse("no_neutral_colour", "only the 2-player game has neutral colours")
    have = p.neutral if neutral else p.warehouses
    if have <= 0:
        refuse("no_warehouse_left", "no warehouse of that colour in front of the player")
    # Ambiguity 25: the rule holds only while warehouses remain; reaching 0 + 0 is allowed.
    main_after = p.warehouses - (0 if neutral else 1)
    neutral_after = p.neutral - (1 if neutral else 0)
    if state.seats == 2 and main_after + neutral_after > 0 and main_after <= neutral_after:
        refuse("main_must_outnumber_neutral", "2 players: while warehouses remain, the main colour "
                   "supply must exceed the neutral one")  # fmt: skip


def check_build(state: State, seat: int, site: int, neutral: bool) -> int:
    """Build a warehouse at the cost of the ship's harbour space; returns the cost."""
    city = _check_action(state, seat)
    _check_supply(state, seat, neutral)
    _check_site(state, city, site, colour_of(seat, state.seats, neutral))
    cost = CITY[city.name].harbours[state.players[seat].harbour]
    if state.players[seat].money < cost:
        refuse("cannot_afford", f"a warehouse from this harbour space costs {cost} Florin")
    return cost


def _shut_down(out: Emitter, city_name: str, site: int) -> None:
    """A dark site shuts the foremost warehouse down: onto the city picture, in Porto out of the game
    for good; its site is vacated as usual and it still counts as built (ambiguity 31).

    Decision (ambiguity 12, project addition): a re-opened warehouse placed on a dark site shuts down
    like a built one, since the rule is bound to the site being occupied.
    """
    city = out.state.cities[out.state.city_index(city_name)]
    closed = shut_down_site(city, site, out.state.seats)
    if closed is None or closed == site:
        return
    colour = city.sites[closed - 1]
    out.emit(
        ev.WarehouseShutDown(city=city_name, site=closed, colour=colour, removed=city_name == data.PORTO)
    )


def _bonus(out: Emitter, seat: int) -> None:
    """First, second, third to reach nine cities take 15, 10, 5 at once (ambiguity 37: any nine)."""
    state = out.state
    if state.players[seat].bonus or not state.bonus_left:
        return
    if main_cities_held(state, seat) >= data.BONUS_CITIES_NEEDED:
        out.emit(ev.BonusCardTaken(seat=seat, amount=state.bonus_left[0]))


def lisboa_payment(state: State, seat: int, colour: int) -> int:
    """Lisboa pays at once: V with the majority after the build, else ⌊V/2⌋ (ambiguity 30).

    With 2 players a neutral warehouse earns nothing and a main one only with the first rank.
    """
    city = state.cities[state.city_index(data.LISBOA)]
    v = value(city)
    first = ranking(city)[0][0]
    if state.seats == 2:
        return v if colour == first and is_main(colour, state.seats) else 0
    return v if first == colour else v // 2


def decide_build(state: State, seat: int, site: int, neutral: bool) -> list[ev.ElCapitanEvent]:
    """Build a warehouse; shut-down, Lisboa's payment and the bonus card follow at once."""
    cost = check_build(state, seat, site, neutral)
    name = state.players[seat].ship
    colour = colour_of(seat, state.seats, neutral)
    out = Emitter(state)
    out.emit(ev.WarehouseBuilt(seat=seat, city=name, site=site, colour=colour, cost=cost))
    _shut_down(out, name, site)
    if name == data.LISBOA:
        amount = lisboa_payment(out.state, seat, colour)
        if amount:
            out.emit(ev.ImmediatePaymentReceived(seat=seat, amount=amount))
    _bonus(out, seat)
    return out.events


def check_reopen(state: State, seat: int, site: int, neutral: bool) -> None:
    """Re-open one's shut-down warehouse of this city, free, behind the last one built."""
    city = _check_action(state, seat)
    if neutral and state.seats != 2:
        refuse("no_neutral_colour", "only the 2-player game has neutral colours")
    colour = colour_of(seat, state.seats, neutral)
    if colour not in city.closed:
        refuse("nothing_to_reopen", f"no shut-down warehouse of that colour in {city.name}")
    _check_site(state, city, site, colour)


def decide_reopen(state: State, seat: int, site: int, neutral: bool) -> list[ev.ElCapitanEvent]:
    """Re-open: the turn's action; no Lisboa payment; the bonus card check runs (ambiguity 12)."""
    check_reopen(state, seat, site, neutral)
    name = state.players[seat].ship
    out = Emitter(state)
    colour = colour_of(seat, state.seats, neutral)
    out.emit(ev.WarehouseReopened(seat=seat, city=name, site=site, colour=colour))
    _shut_down(out, name, site)
    _bonus(out, seat)
    return out.events


def check_fortress(state: State, seat: int) -> tuple[int, int]:
    """One fortress per player per city, on the first free fortress site (ambiguity 10): (slot, cost)."""
    city = _check_action(state, seat)
    if state.players[seat].fortresses <= 0:
        refuse("no_fortress_left", "no fortress in front of the player")
    if seat in city.fortresses:
        refuse("one_fortress_per_city", f"seat {seat} already has a fortress in {city.name}")
    if EMPTY not in city.fortresses:
        refuse("no_fortress_site", f"every fortress site of {city.name} is taken")
    slot = city.fortresses.index(EMPTY)
    cost = CITY[city.name].fortresses[slot]
    if state.players[seat].money < cost:
        refuse("cannot_afford", f"this fortress site costs {cost} Florin")
    return slot, cost


def decide_fortress(state: State, seat: int) -> list[ev.ElCapitanEvent]:
    """Build a fortress at the price of the first free fortress site."""
    slot, cost = check_fortress(state, seat)
    name = state.players[seat].ship
    return [ev.FortressBuilt(seat=seat, city=name, slot=slot, cost=cost)]


def action_commands(state: State, seat: int) -> list[ElCapitanCommand]:
    """The build, re-open and fortress commands open to ``seat`` right now.

    Each command still goes through its ``check_*`` validator; the cheap tests before it are conditions
    that validator refuses anyway (no supply, too little money, nothing shut down, no fortress left), so
    the list is the same, without raising a refusal per site (a search lists moves at every node).
    """
    p = state.players[seat]
    if state.stage != "turn" or seat != state.current or state.turn.acted or p.harbour == EMPTY:
        return []
    if p.ship in ("", "bank"):
        return []
    city = state.cities[state.city_index(p.ship)]
    affordable = p.money >= CITY[city.name].harbours[p.harbour]
    sites = next_sites(city)
    out: list[ElCapitanCommand] = []
    for neutral in (False, True) if state.seats == 2 else (False,):
        build = affordable and (p.neutral if neutral else p.warehouses) > 0
        reopen = colour_of(seat, state.seats, neutral) in city.closed
        for site in sites:
            if build and accepts(check_build, state, seat, site, neutral):
                out.append(BuildWarehouse(site=site, neutral=neutral))
            if reopen and accepts(check_reopen, state, seat, site, neutral):
                out.append(ReopenWarehouse(site=site, neutral=neutral))
    if p.fortresses > 0 and seat not in city.fortresses and accepts(check_fortress, state, seat):
        out.append(BuildFortress())
    return out


def accepts(check: Callable[..., object], *args: object) -> bool:
    """Whether ``check(*args)`` lets the command through (the validators are the one source of truth)."""
    try:
        check(*args)
    except RuleViolation:
        return False
    return True


def check_loan(state: State, seat: int, amount: int, pirate_owed: bool) -> None:
    """A loan at the bank, not in the game's first round; after buying cards only when nothing can be
    built here (ambiguity 11: a loan turn is otherwise nothing but the free trip to the bank and a loan).
    """
    check_turn(state, seat)
    if state.turn.acted:
        refuse("already_acted", "only one action per turn")
    if state.phase == 1 and state.round == 1:
        refuse("no_loan_in_first_round", "no loan may be taken in the first round of the game")
    if amount not in tuple(k.amount for k in data.LOANS):
        refuse("no_such_loan", "loans are of 10 or 16 Florin")
    if loans_available(state, amount) <= 0:
        refuse("no_loan_card_left", f"no {amount}-Florin loan card is left")
    if pirate_owed:
        refuse("pirate_move_owed", "the free pirate move owed on arrival at Islas Canarias comes first")
    if state.turn.bought and action_commands(state, seat):
        refuse("loan_turn_buys_nothing", "a loan turn is only the trip to the bank and the loan; "
                   "after buying cards it is open only to a player who cannot build")  # fmt: skip


def take_loan(state: State, seat: int, amount: int, pirate_owed: bool) -> Emitter:
    """Sail free to the bank and take the loan; the caller ends the turn at once (``flow.end_turn``: the
    next player follows)."""
    check_loan(state, seat, amount, pirate_owed)
    out = Emitter(state)
    out.emit(ev.LoanTaken(seat=seat, amount=amount))
    return out
