"""Each ambiguity of eic.md section D and each decision of our own, settled and pinned by a test.

The list with reasons is in ``domain/eic/README.md``.
"""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from domain.eic import GAME, data
from domain.eic import events as ev
from domain.eic.board import clamp_stock, sale
from domain.eic.commands import PlaceEnvoy, PledgeStartShare, SellShares
from domain.eic.rules.envoys import placements, reachable
from domain.eic.rules.epoch_end import growth_steps
from domain.eic.rules.flow import _expertise
from domain.eic.rules.navigation import deck
from domain.engine import RuleViolation

from .helpers import act, occupy, player, run, start


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


def test_reading_the_first_in_income_raises_its_share_value_by_two_without_being_asked():
    """„Der Spieler, der am meisten Geld in dieser Epoche verdient hat, darf den Wert seiner Gesellschaft
    um zwei Felder auf der Börsenleiste erhöhen.“ Reading: „darf“ grants, as „darf … nicht verändern“ and
    „muss … senken“ of the places below settle the rest of the scheme; phase F asks nobody and the rise is
    always made (README, "Readings")."""
    state = replace(start(3), initiative=(0, 1, 2), stock=(5, 5, 5), phase="F", actor=-1)
    for p, income in enumerate((9, 30, 4)):
        state = player(state, p, income=income)
    after, events = run(state)
    ended_at = next(i for i, e in enumerate(events) if isinstance(e, ev.EpochEnded))
    assert not [e for e in events[:ended_at] if isinstance(e, ev.TurnBegan)]  # nobody was asked
    ended = next(e for e in events if isinstance(e, ev.EpochEnded))
    assert ended.ranking == (1, 0, 2) and ended.rank_moves == (1, 2, 0)
    assert after.stock[1] == clamp_stock(clamp_stock(5 + 2) + ended.growth[1])


def test_reading_a_neutral_first_on_expertise_takes_no_slot_the_first_human_takes_slot_one():
    """„Der erste platzierte Gesandte kommt auf Feld 1, der zweite auf Feld 2 der Initiative-Leiste usw.
    Initiativemarker von Spielern, die diese Fähigkeit nicht genutzt haben, werden nach unten geschoben.“
    and, 2 players: „Die Fähigkeiten werden dadurch nicht aktiviert.“ The neutral's envoy does not use
    Expertise, so it takes no slot, and the first human envoy there takes slot 1 (README, "Readings")."""
    state = replace(start(2), initiative=(1, 2, 0))
    state = occupy(state, "CAP_EXPERTISE", 2, 0)  # the neutral first, then seat 0
    (changed,) = _expertise(state)
    assert isinstance(changed, ev.InitiativeChanged) and changed.initiative == (0, 1, 2)
    assert _expertise(occupy(state, "CAP_EXPERTISE", 2)) == []  # the neutral alone: nothing changes
