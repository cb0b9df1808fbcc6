"""The project decisions on points the rulebook leaves open (domain/manila/README.md, "Decisions")."""

from __future__ import annotations

from msgspec.structs import replace

from domain.manila import GAME, data
from domain.manila import commands as cmd
from domain.manila import events as ev
from domain.manila.state import Player

from .helpers import act, before_last_roll, boat, last_roll, start, to_placement, with_players


def test_decision_deal_default_shuffles_all_twenty_shares():
    seen_four = False
    for i in range(60):
        state = start(5, seed=f"deal-{i}".encode())
        dealt = [g for p in state.players for g in p.shares]
        seen_four |= any(dealt.count(g) > 3 for g in data.GOODS)
    assert seen_four  # impossible with the 2005 pile of three of each
    assert GAME.setup(3, {}, b"x")[0] == ev.GameStarted(
        seats=3, variant_boarding=False, deal="all_twenty", rules=2
    )


def test_decision_boarding_variant_is_off_by_default():
    assert start().variant_boarding is False and start(options={"variant_boarding": True}).variant_boarding


def test_decision_forced_pledging_takes_the_cheapest_share_first():
    state = replace(to_placement(), market=(3, 0, 1, 0))  # jade 20, nutmeg 5
    state = with_players(state, Player(cash=0, shares=("jade", "nutmeg")), *state.players[1:])
    _, events = act(state, 0, cmd.PlaceAccomplice(field="big_pilot"))
    assert events[0] == ev.LoanTaken(seat=0, good="nutmeg", forced=True)


def test_decision_the_share_purchase_may_be_financed_by_pledging():
    state = replace(start(), phase="buy_share", harbour_master=0)
    state = with_players(state, Player(cash=2, shares=("silk",)), *state.players[1:])
    after, events = act(state, 0, cmd.BuyShare(good="jade"))
    assert isinstance(events[0], ev.LoanTaken) and after.players[0].cash == 2 + 12 - 5


def test_decision_a_plundered_boat_sent_to_port_pays_its_harbour_renter_and_raises_its_good():
    boats = (boat("jade", 12, 2), boat("nutmeg", 1), boat("ginseng", 1))
    state = before_last_roll(to_placement(), boats, pirates=(1, None), harbour=(3, None, None))
    state, _ = last_roll(state, 1, 1, 1)
    _, events = act(state, 1, cmd.SendPlunderedBoat(good="jade", to="harbour"))
    assert ev.Payout(seat=3, reason="harbour_a", amount=6) in events
    assert not any(isinstance(e, ev.Payout) and e.reason == "cargo_jade" for e in events)
    assert ev.MarketRose(goods=("jade",)) in events


def test_decision_loans_are_open_to_every_seat_and_only_loans_out_of_turn():
    state = start()
    assert GAME.to_act(state) == frozenset({0})
    for seat in (1, 2, 3):
        offered = GAME.legal_commands(state, seat)
        assert offered and all(isinstance(c, cmd.TakeLoan | cmd.RepayLoan) for c in offered)
    assert any(isinstance(c, cmd.Bid) for c in GAME.legal_commands(state, 0))
