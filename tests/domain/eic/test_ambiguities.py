"""Each ambiguity of eic.md section D and each decision of our own, settled and pinned by a test.

The list with reasons is in ``domain/eic/README.md``.
"""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from domain.eic import GAME, data
from domain.eic.commands import PlaceEnvoy, PledgeStartShare, SellShares
from domain.eic.rules.envoys import placements, reachable
from domain.eic.rules.epoch_end import growth_steps
from domain.eic.rules.navigation import deck
from domain.eic.state import clamp_stock, sale
from domain.engine import RuleViolation

from .helpers import act, occupy, player, start


def test_d1_closed_trading_posts_with_two_and_three_players():
    for seats in (2, 3):
        state = start(seats)
        sites = {c.site for c in placements(state, state.actor) if c.space == "GOV_TRADING_POST"}
        assert "Bombay" not in sites and "Formosa" not in sites and "Madras" in sites


def test_d2_trade_is_free():
    state = start(4)
    seat = state.actor
    after, _ = act(state, seat, PlaceEnvoy(envoy=0, space="MER_TRADE_SILK"))
    assert after.players[seat].treasury == state.players[seat].treasury


def test_d3_trading_post_is_placed_at_once():
    state = start(4)
    seat = state.actor
    after, _ = act(state, seat, PlaceEnvoy(envoy=0, space="GOV_TRADING_POST", site="Madras"))
    assert after.players[seat].posts == ("Madras",) and after.phase == "A"


def test_d5_ships_arrive_in_epochs_1_to_4_and_decks_split_1_2_3_4_5():
    state = player(replace(start(4), epoch=3), 0, extensions=2, treasury=99)
    state = replace(state, actor=0, step="envoy")
    kinds = {c.ship for c in placements(state, 0) if c.ship}
    assert kinds == {"SH1", "SH2", "SH3", "SH4", "SH5", "SH6"}
    assert {data.DECK_OF_EPOCH[e] for e in (1, 2)} == {1}
    assert all(c.startswith("FE-II-") for c in deck(state, "far_east"))


def test_d6_track_ends_and_speed_four_is_the_fastest():
    assert clamp_stock(40) == len(data.STOCK_VALUES) - 1 and clamp_stock(-3) == 0
    assert growth_steps(0, 500) == (data.INCOME_TRACK_TOP, data.INCOME_TRACK_TOP)
    assert max(t.speed for t in data.SHIP_TYPES.values()) == 4


def test_d7_ring_governor_shipowner_investor_merchant_captain():
    owners = {data.SPACE_OWNER[s] for s in reachable("P:Investor")}
    assert owners == {"Shipowner", "Investor", "Merchant"}
    assert {data.SPACE_OWNER[s] for s in reachable("P:Captain")} == {"Merchant", "Captain", "Governor"}


def test_decision_trade_bonus_also_on_the_full_market_price():
    state = occupy(replace(start(4), europe=(0, 0, 0, 7)), "MER_TRADE_SILK", 0)
    assert sale(state, 0, (0, 0, 0, 1))[0] == data.FULL_MARKET_PRICE + 1


def test_decision_an_ability_must_be_usable_to_be_chosen():
    state = start(4)
    seat = state.actor
    maxed = player(state, seat, extensions=2)
    assert not [c for c in placements(maxed, seat) if c.space == "SHP_HARBOUR_EXT"]
    broke = player(state, seat, treasury=0)
    assert not [c for c in placements(broke, seat) if c.space in ("SHP_SHIP", "INV_SHIP", "CAP_EXPERTISE")]


def test_decision_a_parked_envoy_cannot_park_again():
    state = player(start(4), 0, envoys=("C:any", "any", "any"))
    state = replace(state, actor=0, step="envoy")
    assert not [c for c in placements(state, 0) if c.envoy == 0 and c.space == "central"]


def test_decision_share_sales_only_while_acting_pledges_at_any_time():
    state = start(4, {"pledging": True})
    idle = next(p for p in range(4) if p != state.actor)
    state = player(state, idle, shares=(0, 1, 0, 0))
    assert GAME.legal_commands(state, idle) == [PledgeStartShare()]  # no SellShares out of one's action
    with pytest.raises(RuleViolation) as err:
        act(state, idle, SellShares(company=1, count=1))
    assert err.value.code == "eic.not_your_turn"
    assert SellShares(company=1, count=1) in GAME.legal_commands(
        player(state, state.actor, shares=(0, 1, 0, 0)), state.actor
    )
