"""Phase C, "Navigation": Influence card choices, market cards drawn face down, ships sent to zones."""

from __future__ import annotations

from domain.eic import data
from domain.eic import events as ev
from domain.eic.board import abilities, has_post
from domain.eic.commands import ChooseMarketCard, SendShip
from domain.eic.rules.common import require, require_step
from domain.eic.state import State
from domain.engine import Rng

INFLUENCE = {"europe": "INV_INFLUENCE_EU", "far_east": "GOV_INFLUENCE_FE"}


def deck(state: State, market: str) -> tuple[str, ...]:
    """This epoch's cards of a market still in play (used cards went back to the box)."""
    cards = data.EUROPE_CARDS if market == "europe" else data.FAR_EAST_CARDS
    wanted = data.DECK_OF_EPOCH[state.epoch]
    return tuple(c for c, (d, _, _) in cards.items() if d == wanted and c not in state.used_cards)


def influence_viewers(state: State, market: str) -> tuple[int, ...]:
    """Seated players with an envoy on the market's Influence space: they may look at the card."""
    occupants = state.occupants[data.SPACE_IDS.index(INFLUENCE[market])]
    return tuple(p for p in occupants if p != state.neutral)


def chooser(state: State, market: str) -> int:
    """The first envoy's owner on the Influence space when a seated player (else -1)."""
    occupants = state.occupants[data.SPACE_IDS.index(INFLUENCE[market])]
    return occupants[0] if occupants and occupants[0] != state.neutral else -1


def card_choices(state: State, seat: int) -> list[ChooseMarketCard]:
    """The cards a chooser may pick."""
    market = "europe" if state.step == "influence_eu" else "far_east"
    return [ChooseMarketCard(card=c) for c in deck(state, market)]


def decide_choose_market_card(state: State, seat: int, command: ChooseMarketCard) -> list[ev.EicEvent]:
    """Influence: pick this epoch's card secretly; later envoys there may look at it."""
    require(state.step in ("influence_eu", "influence_fe"), "wrong_step", "no Influence choice is due")
    require_step(state, seat, state.step)
    market = "europe" if state.step == "influence_eu" else "far_east"
    require(command.card in deck(state, market), "no_such_card", "choose a card of the current epoch's deck")
    viewers = influence_viewers(state, market)
    return [ev.MarketCardChosen(market=market, player=seat, card=command.card, viewers=viewers)]


def draw_cards(state: State, rng: Rng) -> ev.MarketCardsDrawn:
    """Cards not chosen are drawn at random, face down; later envoys on Influence may look."""
    fe = None if state.fe_card else rng.choice(deck(state, "far_east"))
    eu = None if state.eu_card else rng.choice(deck(state, "europe"))
    return ev.MarketCardsDrawn(
        fe_card=fe,
        eu_card=eu,
        fe_viewers=influence_viewers(state, "far_east") if fe else (),
        eu_viewers=influence_viewers(state, "europe") if eu else (),
    )


def travel_cost(state: State, seat: int, zone: int) -> int:
    """2 GS to zone I, 1 to zone II, none to zone III; none at all with Cartography (I and II)."""
    if abilities(state, seat, "CAP_CARTOGRAPHY"):
        return 0
    return data.ZONE_TRAVEL[zone - 1]


def in_harbour(state: State, p: int) -> tuple[str, ...]:
    """Ship ids at a dock (not in a zone of the Far East), in harbour order."""
    return tuple(s.id for s in state.players[p].ships if s.zone == 0)


def sendings(state: State, seat: int) -> list[SendShip]:
    """Every ship in the harbour to every zone one can pay for."""
    money = state.players[seat].treasury
    zones = [z for z in (1, 2, 3) if travel_cost(state, seat, z) <= money]  # once, not once a ship
    return [SendShip(ship=s, zone=z) for s in in_harbour(state, seat) for z in zones]


def decide_send_ship(state: State, seat: int, command: SendShip) -> list[ev.EicEvent]:
    """One ship face down into zone I, II or III, paying its travel cost."""
    require_step(state, seat, "navigate")
    require(command.zone in (1, 2, 3), "no_such_zone", "the Far East has zones I, II and III")
    require(command.ship in in_harbour(state, seat), "not_in_harbour", "send a ship from your own harbour")
    cost = travel_cost(state, seat, command.zone)
    require(cost <= state.players[seat].treasury, "cannot_afford", f"travel to that zone costs {cost} GS")
    return [ev.ShipSent(player=seat, ship=command.ship, zone=command.zone, cost=cost)]


def neutral_sends(state: State, rng: Rng) -> ev.ShipSent:
    """2 players: a destination card sends the neutral's leftmost ship; posts steer the post cards."""
    n = state.neutral
    pool = [c for c in data.NEUTRAL_DESTINATION_CARDS if c not in state.destinations_drawn]
    card = rng.choice(pool)
    zones = data.NEUTRAL_DESTINATION_CARDS[card]
    zone = zones[0]
    if len(zones) > 1:
        zone = next((z for z in zones if has_post(state.players[n], z)), zones[0])
    return ev.ShipSent(player=n, ship=in_harbour(state, n)[0], zone=zone, cost=0, destination=card)
