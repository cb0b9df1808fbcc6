"""Set-up for 3–5 players and the harbour-master auction (S0 "Spielvorbereitung", chapter 1)."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from domain.engine import RuleViolation
from domain.manila import GAME, data
from domain.manila import commands as cmd
from domain.manila import events as ev
from domain.manila.state import Player

from .helpers import Dice, act, start, to_placement


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_setup_30_pesos_two_secret_shares_rest_open_markets_at_0(seats):
    state = start(seats)
    assert [p.cash for p in state.players] == [30] * seats
    assert all(len(p.shares) == 2 and not p.mortgaged for p in state.players)
    dealt = [g for p in state.players for g in p.shares]
    assert [state.supply[i] + dealt.count(g) for i, g in enumerate(data.GOODS)] == [5, 5, 5, 5]
    assert state.market == (0, 0, 0, 0)
    assert state.phase == "auction" and GAME.to_act(state) == frozenset({0})


@pytest.mark.parametrize(("seats", "accomplices"), [(3, 4), (4, 3), (5, 3)])
def test_setup_accomplices_3_or_4_in_the_three_player_game(seats, accomplices):
    assert data.SCHEDULE[seats].count("place") == accomplices == data.ACCOMPLICES[seats]


def test_setup_three_of_each_deal_option_deals_from_twelve():
    for seed in (b"a", b"b", b"c", b"d"):
        state = start(5, {"deal": "three_of_each"}, seed)
        dealt = [g for p in state.players for g in p.shares]
        assert all(dealt.count(g) <= 3 for g in data.GOODS)


def test_setup_refuses_a_bad_option_value():
    with pytest.raises(RuleViolation):
        GAME.setup(4, {"variant_boarding": "yes"}, b"x")


def test_auction_oldest_player_must_open_with_at_least_1():
    state = start()
    with pytest.raises(RuleViolation, match="must_open"):
        act(state, 0, cmd.PassBid())
    assert cmd.PassBid() not in GAME.legal_commands(state, 0)
    assert min(c.amount for c in GAME.legal_commands(state, 0) if isinstance(c, cmd.Bid)) == 1


def test_auction_bids_must_exceed_and_who_does_not_outbid_drops_out_for_good():
    state = start()
    state, _ = act(state, 0, cmd.Bid(amount=3))
    with pytest.raises(RuleViolation, match="bid_too_low"):
        act(state, 1, cmd.Bid(amount=3))
    state, _ = act(state, 1, cmd.PassBid())
    state, _ = act(state, 2, cmd.Bid(amount=4))
    state, _ = act(state, 3, cmd.PassBid())
    assert GAME.to_act(state) == frozenset({0})  # seat 1 dropped out and is skipped
    state, _ = act(state, 0, cmd.Bid(amount=5))
    state, events = act(state, 2, cmd.PassBid())
    assert events[-1] == ev.HarbourMasterChosen(seat=0, price=5)
    assert state.harbour_master == 0 and state.players[0].cash == 25 and state.phase == "buy_share"


def test_auction_no_one_bids_more_than_cash_plus_pledging_his_shares():
    state = start()
    limit = 30 + 12 * 2
    with pytest.raises(RuleViolation, match="cannot_afford"):
        act(state, 0, cmd.Bid(amount=limit + 1))
    assert max(c.amount for c in GAME.legal_commands(state, 0) if isinstance(c, cmd.Bid)) == limit


def test_auction_winner_short_of_cash_must_pledge_shares():
    state = start()
    state = replace(state, players=(Player(cash=5, shares=("jade", "silk")), *state.players[1:]))
    state, _ = act(state, 0, cmd.Bid(amount=20))
    for seat in (1, 2):
        state, _ = act(state, seat, cmd.PassBid())
    state, events = act(state, 3, cmd.PassBid())
    loans = [e for e in events if isinstance(e, ev.LoanTaken)]
    assert [e.forced for e in loans] == [True, True]
    assert state.players[0].cash == 5 + 24 - 20 and state.players[0].mortgaged == ("jade", "silk")


def test_auction_without_bids_keeps_the_previous_harbour_master_for_free():
    state = replace(start(), voyage=2, harbour_master=2, opener=2, bidder=2)
    before = state.players[2].cash
    for seat in (2, 3, 0):
        state, _ = act(state, seat, cmd.PassBid())
    state, events = act(state, 1, cmd.PassBid())
    assert events[-1] == ev.HarbourMasterChosen(seat=2, price=0)
    assert state.players[2].cash == before


def test_auction_later_voyages_are_opened_by_the_previous_harbour_master():
    state = to_placement()
    # the last placer of the last round passes; roll 3 ends the voyage with seat 3 as harbour master
    state = replace(state, harbour_master=3, phase="place", placer=2, placed_in_round=3, step=4, rolls=2)
    events = GAME.decide(state, 2, cmd.PassPlacement(), Dice(1, 1, 1))
    started = next(e for e in events if isinstance(e, ev.VoyageStarted))
    assert started.opener == 3


def test_auction_offers_the_lowest_200_bids_and_accepts_any_payable_one():
    """The office is unlimited, so cash is too: ``legal_commands`` offers the 200 lowest payable bids
    (a bounded list, issue 32) and ``decide`` still takes any bid the player can pay."""
    state = start(4)
    players = list(state.players)
    players[0] = replace(players[0], cash=900)
    state = replace(state, players=tuple(players))
    bids = [c.amount for c in GAME.legal_commands(state, 0) if isinstance(c, cmd.Bid)]
    assert bids == list(range(1, 201))
    state, events = act(state, 0, cmd.Bid(amount=850))
    assert events[0] == ev.BidPlaced(seat=0, amount=850)
