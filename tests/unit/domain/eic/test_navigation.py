"""Phase C, "Navigation": Influence, market cards face down, ships face down into zones I–III."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from domain.eic import GAME
from domain.eic import events as ev
from domain.eic.commands import ChooseMarketCard, SendShip
from domain.eic.rules.navigation import deck
from domain.engine import RuleViolation

from .helpers import act, occupy, run, start


def _phase_c(state):
    state, _ = run(replace(state, phase="C", cursor=-1, passes=0))
    return state


def test_influence_first_envoy_chooses_card_secretly_later_envoys_may_look():
    state = start(4)
    first, later, other = state.initiative[0], state.initiative[1], state.initiative[2]
    state = _phase_c(occupy(state, "INV_INFLUENCE_EU", first, later))
    assert state.actor == first and state.step == "influence_eu"
    assert {c.card for c in GAME.legal_commands(state, first) if isinstance(c, ChooseMarketCard)} == set(
        deck(state, "europe")
    )
    state, events = act(state, first, ChooseMarketCard(card="EU-I-3"))
    chosen = events[0]
    assert isinstance(chosen, ev.MarketCardChosen) and chosen.viewers == (first, later)
    assert state.eu_card == "EU-I-3"
    assert GAME.view(state, first).eu_card == "EU-I-3"
    assert GAME.view(state, later).eu_card == "EU-I-3"
    assert GAME.view(state, other).eu_card is None
    assert GAME.view(state, None).eu_card is None
    assert GAME.redact(chosen, other).card is None and GAME.redact(chosen, None).card is None
    assert GAME.redact(chosen, later).card == "EU-I-3"


def test_cards_drawn_face_down_then_the_ships_go_out_in_initiative_order():
    state = _phase_c(start(4))
    drawn = state.fe_card
    assert drawn in deck(state, "far_east") and state.eu_card in deck(state, "europe")
    assert all(GAME.view(state, s).fe_card is None for s in (None, 0, 1, 2, 3))
    assert state.step == "navigate" and state.actor == state.initiative[0]


def test_travel_costs_2_1_0_and_cartography_waives_zones_i_and_ii():
    state = _phase_c(start(4))
    seat = state.actor
    money = state.players[seat].treasury
    for zone, cost in ((1, 2), (2, 1), (3, 0)):
        after, _ = act(state, seat, SendShip(ship=f"{seat}:G1", zone=zone))
        assert after.players[seat].treasury == money - cost
    mapped = occupy(state, "CAP_CARTOGRAPHY", seat)
    after, _ = act(mapped, seat, SendShip(ship=f"{seat}:G1", zone=1))
    assert after.players[seat].treasury == money


def test_poor_player_can_still_send_to_zone_iii():
    state = _phase_c(start(4))
    seat = state.actor
    from .helpers import player

    poor = player(state, seat, treasury=0)
    assert {c.zone for c in GAME.legal_commands(poor, seat) if isinstance(c, SendShip)} == {3}
    with pytest.raises(RuleViolation) as err:
        act(poor, seat, SendShip(ship=f"{seat}:G1", zone=1))
    assert err.value.code == "eic.cannot_afford"


def test_every_ship_is_sent_face_down_and_hidden_from_the_others():
    state = _phase_c(start(4))
    sent = 0
    while state.phase == "C":
        seat = state.actor
        command = next(c for c in GAME.legal_commands(state, seat) if isinstance(c, SendShip) and c.zone == 3)
        state, events = act(state, seat, command)
        shipped = events[0]
        assert (
            GAME.redact(shipped, (seat + 1) % 4).ship is None
            and GAME.redact(shipped, seat).ship == command.ship
        )
        sent += 1
        if state.phase == "C":
            mine = GAME.view(state, seat).zones[2]
            theirs = GAME.view(state, None).zones[2]
            assert command.ship in mine and all(i is None for i in theirs)
    assert sent == 8  # two Galleons each
    assert state.phase == "D"


def test_stacking_order_is_kept_in_the_zone():
    state = _phase_c(start(4))
    order = []
    while state.phase == "C":
        seat = state.actor
        command = next(c for c in GAME.legal_commands(state, seat) if isinstance(c, SendShip) and c.zone == 2)
        order.append(command.ship)
        state, _ = act(state, seat, command)
    # phase D revealed zone II: same speed everywhere, so the loading order is the placing order
    revealed = state.queue if state.zone == 2 else ()
    assert revealed == tuple(order)
