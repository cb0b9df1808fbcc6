"""Folding events into the state: total, deterministic, no chance (``evolve`` in docs/design-brief.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from domain.eic import data
from domain.eic import events as ev
from domain.eic.board import (
    add_goods,
    clamp_stock,
    dock_ship,
    drop_galleons,
    find_ship,
    gain_ship,
    origin,
    portrait,
    reveal_ships,
    sale,
    send_ship,
    set_item,
    update_ship,
    with_player,
)
from domain.eic.state import NO_GOODS, Player, Ship, State


def evolve(state: State | None, event: ev.EicEvent) -> State:
    """Apply one event."""
    if isinstance(event, ev.GameSetUp):
        return _apply_game_set_up(event)
    assert state is not None
    return _APPLY[type(event)](state, event)


def _apply_game_set_up(event: ev.GameSetUp) -> State:
    companies = event.seats if event.seats > 2 else 3
    side = 4 if event.seats == 4 else 3
    money = data.START_MONEY[event.seats]
    players = []
    for p in range(companies):
        position = event.initiative.index(p)
        treasury = money[position] if position < len(money) and p < event.seats else 0
        ships = tuple(Ship(id=f"{p}:{kind}", kind=kind) for kind in data.GALLEONS)
        players.append(
            Player(treasury=treasury, ships=ships, used_tiles=data.GALLEONS, shares=(0,) * companies)
        )
    prefilled = data.PREFILLED[side]
    supply = add_goods(data.GOOD_CUBES, add_goods(prefilled, prefilled), -1)
    return State(
        seats=event.seats,
        pledging=bool(event.options.get("pledging", False)),
        players=tuple(players),
        stock=(0,) * companies,
        exchange=(data.SHARES_ON_EXCHANGE[event.seats],) * companies,
        initiative=event.initiative,
        supply=supply,
        far_east=prefilled,
        europe=prefilled,
        occupants=((),) * len(data.SPACE_IDS),
        rules=event.rules,
    )


# --- helpers ---------------------------------------------------------------------------------------------


def _pay(state: State, index: int, amount: int) -> State:
    """Move money between a treasury and the supply (the neutral holds none)."""
    if index < 0 or index == state.neutral:
        return state
    return with_player(state, index, treasury=state.players[index].treasury + amount)


def _done(state: State, player: int) -> State:
    """The player's action is over; the turn order continues after them."""
    return replace(state, actor=-1, cursor=state.initiative.index(player))


def _occupy(state: State, space: str, player: int) -> State:
    index = data.SPACE_IDS.index(space)
    return replace(state, occupants=set_item(state.occupants, index, (*state.occupants[index], player)))


# --- phase A ---------------------------------------------------------------------------------------------


def _apply_epoch_began(state: State, event: ev.EpochBegan) -> State:
    state = replace(
        state,
        epoch=event.epoch,
        phase="A",
        fe_dice=event.fe_dice,
        eu_dice=event.eu_dice,
        actor=-1,
        cursor=-1,
        passes=0,
        neutral_done=False,
        fe_card=None,
        eu_card=None,
        cards_drawn=False,
        fe_revealed=False,
        eu_revealed=False,
        zone=0,
        queue=(),
    )
    if event.epoch == data.EPOCHS:  # rulebook, "Besonderheiten der Epoche 5": Galleons are discarded
        state = drop_galleons(state)
    return state


def _apply_turn_began(state: State, event: ev.TurnBegan) -> State:
    return replace(state, actor=event.player, step=event.step)


def _apply_envoy_placed(state: State, event: ev.EnvoyPlaced) -> State:
    p = event.player
    for payee in event.paid:
        state = _pay(state, payee, data.JOIN_FEE)
    state = _pay(state, p, -event.cost - data.JOIN_FEE * len(event.paid))
    player = state.players[p]
    position = player.envoys[event.envoy]
    if event.space == "central":
        new_position = f"C:{origin(position)}"
    else:
        new_position = f"S:{event.space}"
        state = _occupy(state, event.space, p)
    state = with_player(state, p, envoys=set_item(player.envoys, event.envoy, new_position))
    if event.ship:
        state = gain_ship(state, p, event.ship, event.discard)
    if event.space == "SHP_HARBOUR_EXT":
        state = with_player(state, p, extensions=state.players[p].extensions + 1)
    if event.site:
        state = with_player(state, p, posts=(*state.players[p].posts, event.site))
    return _done(state, p)


def _apply_envoy_recalled(state: State, event: ev.EnvoyRecalled) -> State:
    player = state.players[event.player]
    position = f"R:{origin(player.envoys[event.envoy])}"
    state = with_player(state, event.player, envoys=set_item(player.envoys, event.envoy, position))
    return _done(state, event.player)


def _apply_neutral_envoys_placed(state: State, event: ev.NeutralEnvoysPlaced) -> State:
    n = state.neutral
    for payee in event.rewarded:
        state = _pay(state, payee, data.JOIN_FEE)
    for space in event.spaces:
        state = _occupy(state, space, n)
    if event.ship:
        state = gain_ship(state, n, event.ship, event.discard)
    if event.extension:
        state = with_player(state, n, extensions=state.players[n].extensions + 1)
    if event.site:
        state = with_player(state, n, posts=(*state.players[n].posts, event.site))
    state = replace(
        state, neutral_done=True, used_neutral_envoy_cards=(*state.used_neutral_envoy_cards, event.card)
    )
    return _done(state, n)


def _apply_phase_began(state: State, event: ev.PhaseBegan) -> State:
    state = replace(state, phase=event.phase, actor=-1, cursor=-1, passes=0, unload_speed=0)
    if event.phase == "C" and any(p.free_docks for p in state.players):  # every ship at home sails now
        state = replace(state, players=tuple(replace(p, free_docks=()) for p in state.players))
    if event.phase == "D":  # rulebook, 2 players: destination cards reshuffled at the end of phase C
        state = replace(state, destinations_drawn=())
    return state


def _apply_initiative_changed(state: State, event: ev.InitiativeChanged) -> State:
    return replace(state, initiative=event.initiative)


# --- phase B and share sales -------------------------------------------------------------------------------


def _apply_shares_sold(state: State, event: ev.SharesSold) -> State:
    c, player = event.company, state.players[event.player]
    shares = set_item(player.shares, c, player.shares[c] - event.count)
    state = with_player(
        state, event.player, shares=shares, treasury=player.treasury + event.count * event.price
    )
    return replace(
        state,
        exchange=set_item(state.exchange, c, state.exchange[c] + event.count),
        stock=set_item(state.stock, c, clamp_stock(state.stock[c] - event.count)),
    )


def _apply_start_share_pledged(state: State, event: ev.StartSharePledged) -> State:
    player = state.players[event.player]
    return with_player(
        state, event.player, treasury=player.treasury + event.amount, pledged=player.pledged + 1
    )


def _apply_start_share_redeemed(state: State, event: ev.StartShareRedeemed) -> State:
    player = state.players[event.player]
    state = with_player(
        state, event.player, treasury=player.treasury - event.price, pledged=player.pledged - 1
    )
    return replace(_done(state, event.player), passes=0)


def _apply_share_bought(state: State, event: ev.ShareBought) -> State:
    c, player = event.company, state.players[event.player]
    shares = set_item(player.shares, c, player.shares[c] + 1)
    state = with_player(state, event.player, shares=shares, treasury=player.treasury - event.price)
    state = replace(
        state,
        exchange=set_item(state.exchange, c, state.exchange[c] - 1),
        stock=set_item(state.stock, c, clamp_stock(state.stock[c] + 1)),
    )
    return replace(_done(state, event.player), passes=0)


def _apply_passed(state: State, event: ev.Passed) -> State:
    return replace(_done(state, event.player), passes=state.passes + 1)


# --- phases C and D ----------------------------------------------------------------------------------------


def _apply_market_card_chosen(state: State, event: ev.MarketCardChosen) -> State:
    if event.market == "europe":
        return replace(state, eu_card=event.card, actor=-1)
    return replace(state, fe_card=event.card, actor=-1)


def _apply_market_cards_drawn(state: State, event: ev.MarketCardsDrawn) -> State:
    return replace(
        state,
        fe_card=event.fe_card or state.fe_card,
        eu_card=event.eu_card or state.eu_card,
        cards_drawn=True,
    )


def _apply_ship_sent(state: State, event: ev.ShipSent) -> State:
    state = send_ship(state, event.player, event.ship, event.zone)
    state = _pay(state, event.player, -event.cost)
    drawn = (*state.destinations_drawn, event.destination) if event.destination else state.destinations_drawn
    return _done(replace(state, destinations_drawn=drawn), event.player)


def _apply_far_east_supplied(state: State, event: ev.FarEastSupplied) -> State:
    return replace(
        state,
        fe_card=event.card,
        fe_revealed=True,
        far_east=add_goods(state.far_east, event.added),
        supply=add_goods(state.supply, event.added, -1),
    )


def _apply_ships_revealed(state: State, event: ev.ShipsRevealed) -> State:
    state = reveal_ships(state, event.zone, event.order)
    i = event.zone - 1
    return replace(
        state,
        zone=event.zone,
        queue=event.order,
        zones=set_item(state.zones, i, ()),
        left=set_item(state.left, i, ()),
    )


def _apply_ship_loaded(state: State, event: ev.ShipLoaded) -> State:
    state = dock_ship(state, event.ship)
    state = update_ship(state, event.ship, zone=0, cargo=event.goods)
    state = _pay(state, event.player, -event.cost)
    return replace(
        state, far_east=add_goods(state.far_east, event.goods, -1), queue=state.queue[1:], actor=-1
    )


def _apply_ship_left_in_far_east(state: State, event: ev.ShipLeftInFarEast) -> State:
    state = _pay(state, event.player, -data.LEAVE_IN_FAR_EAST_COST)
    i = state.zone - 1
    return replace(
        state, left=set_item(state.left, i, (*state.left[i], event.ship)), queue=state.queue[1:], actor=-1
    )


# --- phase E -----------------------------------------------------------------------------------------------


def _apply_europe_demanded(state: State, event: ev.EuropeDemanded) -> State:
    return replace(
        state,
        eu_card=event.card,
        eu_revealed=True,
        europe=add_goods(state.europe, event.removed, -1),
        supply=add_goods(state.supply, event.removed),
    )


def _apply_goods_sold(state: State, event: ev.GoodsSold) -> State:
    p = event.player
    income, europe, supply = sale(state, p, event.sold)
    state = replace(state, europe=europe, supply=supply)
    player = state.players[p]
    if event.ship:
        warehouse = add_goods(player.warehouse, event.stored)
        state = with_player(state, p, income=player.income + income, warehouse=warehouse)
        speed = data.SHIP_TYPES[player.ships[find_ship(player, event.ship)].kind].speed
        state = replace(update_ship(state, event.ship, cargo=NO_GOODS), unload_speed=speed)
    else:
        warehouse = add_goods(player.warehouse, event.sold, -1)
        state = with_player(state, p, income=player.income + income, warehouse=warehouse)
    return _done(state, p)


# --- phase F and the end -----------------------------------------------------------------------------------


def _apply_epoch_ended(state: State, event: ev.EpochEnded) -> State:
    stock = tuple(
        clamp_stock(clamp_stock(s + m) + g)
        for s, m, g in zip(state.stock, event.rank_moves, event.growth, strict=True)
    )
    state = replace(state, stock=stock)
    for p, player in enumerate(state.players):
        state = with_player(state, p, income=0, income_marker=event.income_markers[p])
        state = _pay(state, p, player.income)
    for payment in event.dividends:
        state = _pay(_pay(state, payment.payer, -payment.amount), payment.payee, payment.amount)
    for p, player in enumerate(state.players):
        state = with_player(state, p, envoys=tuple(portrait(e) for e in player.envoys))
    used = tuple(c for c in (state.fe_card, state.eu_card) if c)
    return replace(
        state,
        phase="epoch_over",
        occupants=((),) * len(data.SPACE_IDS),
        used_cards=(*state.used_cards, *used),
        actor=-1,
    )


def _apply_game_ended(state: State, event: ev.GameEnded) -> State:
    return replace(
        state, phase="over", actor=-1, ranking=event.ranking, scores=event.scores, tie_break=event.tie_break
    )


_APPLY: dict[type, Callable[[State, Any], State]] = {
    ev.EpochBegan: _apply_epoch_began,
    ev.TurnBegan: _apply_turn_began,
    ev.EnvoyPlaced: _apply_envoy_placed,
    ev.EnvoyRecalled: _apply_envoy_recalled,
    ev.NeutralEnvoysPlaced: _apply_neutral_envoys_placed,
    ev.PhaseBegan: _apply_phase_began,
    ev.InitiativeChanged: _apply_initiative_changed,
    ev.SharesSold: _apply_shares_sold,
    ev.StartSharePledged: _apply_start_share_pledged,
    ev.StartShareRedeemed: _apply_start_share_redeemed,
    ev.ShareBought: _apply_share_bought,
    ev.Passed: _apply_passed,
    ev.MarketCardChosen: _apply_market_card_chosen,
    ev.MarketCardsDrawn: _apply_market_cards_drawn,
    ev.ShipSent: _apply_ship_sent,
    ev.FarEastSupplied: _apply_far_east_supplied,
    ev.ShipsRevealed: _apply_ships_revealed,
    ev.ShipLoaded: _apply_ship_loaded,
    ev.ShipLeftInFarEast: _apply_ship_left_in_far_east,
    ev.EuropeDemanded: _apply_europe_demanded,
    ev.GoodsSold: _apply_goods_sold,
    ev.EpochEnded: _apply_epoch_ended,
    ev.GameEnded: _apply_game_ended,
}
