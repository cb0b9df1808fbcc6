"""Phase B, "Börse": buying rounds, prices, share sales, start shares and the pledging rule."""

from __future__ import annotations

import msgspec
import pytest
from msgspec.structs import replace

from domain.eic import GAME, data
from domain.eic import events as ev
from domain.eic.board import share_value
from domain.eic.bots import random_bot
from domain.eic.commands import BuyShare, Pass, PledgeStartShare, RedeemStartShare, SellShares
from domain.engine import Rng, RuleViolation, rng_for

from .helpers import act, player, run, shares_total, start


def _phase_b(seats=4, options=None):
    state = start(seats, options)
    state, _ = run(replace(state, phase="B", cursor=-1, passes=0))
    assert state.step == "stock"
    return state


def test_example_share_price_5_to_6():
    """The French company (blue) costs 5 GS; after the purchase its share is worth 6 GS."""
    state = _phase_b()
    seat = state.actor
    blue = (seat + 1) % 4
    state = replace(state, stock=tuple(1 if c == blue else 0 for c in range(4)))
    assert share_value(state, blue) == 5
    after, events = act(state, seat, BuyShare(company=blue))
    assert events[0].price == 5
    assert after.players[seat].treasury == state.players[seat].treasury - 5
    assert share_value(after, blue) == 6
    assert after.players[seat].shares[blue] == 1 and after.exchange[blue] == 6


def test_rounds_of_one_share_or_pass_until_everybody_passes_in_a_row():
    state = _phase_b(3)
    order = state.initiative
    state, _ = act(state, order[0], Pass())
    state, _ = act(state, order[1], BuyShare(company=order[1]))
    state, _ = act(state, order[2], Pass())
    assert state.phase == "B" and state.actor == order[0]  # a passer may buy again
    state, _ = act(state, order[0], Pass())
    assert state.phase == "B"
    state, _ = act(state, order[1], Pass())  # three passes in a row: order[2], order[0], order[1]
    assert state.phase == "C"


def test_sold_out_company_cannot_be_bought():
    state = _phase_b()
    seat = state.actor
    state = replace(state, exchange=(0, 7, 7, 7))
    assert BuyShare(company=0) not in GAME.legal_commands(state, seat)
    with pytest.raises(RuleViolation) as err:
        act(state, seat, BuyShare(company=0))
    assert err.value.code == "eic.sold_out"


def test_no_share_sales_in_phase_b():
    state = _phase_b()
    seat = state.actor
    state = player(state, seat, shares=(1, 1, 0, 0))
    assert not [c for c in GAME.legal_commands(state, seat) if isinstance(c, SellShares)]
    with pytest.raises(RuleViolation) as err:
        act(state, seat, SellShares(company=0, count=1))
    assert err.value.code == "eic.no_share_sales"


def test_selling_at_value_then_minus_one_step_per_share():
    state = start(4)
    seat = state.actor
    state = replace(player(state, seat, shares=(0, 3, 0, 0)), stock=(0, 5, 0, 0), exchange=(7, 4, 7, 7))
    after, events = act(state, seat, SellShares(company=1, count=2))
    assert events[0].price == data.STOCK_VALUES[5]
    assert after.players[seat].treasury == state.players[seat].treasury + 2 * data.STOCK_VALUES[5]
    assert after.stock[1] == 3 and after.exchange[1] == 6
    assert shares_total(after) == shares_total(state)
    assert after.actor == seat  # a sale is part of one's own action, not a turn


def test_start_shares_are_never_sold():
    state = start(4)
    seat = state.actor
    assert not [c for c in GAME.legal_commands(state, seat) if isinstance(c, SellShares)]
    with pytest.raises(RuleViolation):
        act(state, seat, SellShares(company=seat, count=1))


def test_epoch_five_sales_only_in_phase_a():
    state = start(4)
    seat = state.actor
    state = replace(player(state, seat, shares=(1, 0, 0, 0)), epoch=5)
    assert SellShares(company=0, count=1) in GAME.legal_commands(state, seat)
    later = replace(state, phase="C", step="navigate")
    assert SellShares(company=0, count=1) not in GAME.legal_commands(later, seat)
    with pytest.raises(RuleViolation):
        act(later, seat, SellShares(company=0, count=1))


def test_pledging_half_the_value_rounded_down_and_redeem_in_phase_b_only():
    state = start(4, {"pledging": True})
    seat = state.actor
    state = replace(state, stock=tuple(3 if c == seat else 0 for c in range(4)))
    after, events = act(state, seat, PledgeStartShare())
    assert events[0].amount == 3  # half of 7, rounded down
    assert after.players[seat].pledged == 1
    assert RedeemStartShare() not in GAME.legal_commands(after, seat)  # not in phase A
    b = _phase_b(4, {"pledging": True})
    s = b.actor
    b = player(b, s, pledged=1, treasury=10)
    assert RedeemStartShare() in GAME.legal_commands(b, s)
    redeemed, events = act(b, s, RedeemStartShare())
    assert redeemed.players[s].pledged == 0 and redeemed.players[s].treasury == 10 - share_value(b, s)


def test_pledging_is_off_without_the_option():
    state = start(4)
    seat = state.actor
    assert PledgeStartShare() not in GAME.legal_commands(state, seat)
    with pytest.raises(RuleViolation) as err:
        act(state, seat, PledgeStartShare())
    assert err.value.code == "eic.pledging_off"


def test_pledging_a_start_share_at_any_time_also_out_of_turn():
    """ "Dies könnt ihr jederzeit während des Spiels machen, auch während der Börsenphase." """
    for state in (start(4, {"pledging": True}), _phase_b(4, {"pledging": True})):
        actor = state.actor
        idle = next(p for p in state.initiative if p != actor)
        assert GAME.legal_commands(state, idle) == [PledgeStartShare()]
        value = share_value(state, idle)
        after, events = act(state, idle, PledgeStartShare())
        assert [type(e).__name__ for e in events] == ["StartSharePledged"]
        assert events[0].player == idle and events[0].amount == value // 2
        assert after.players[idle].pledged == 1
        assert after.players[idle].treasury == state.players[idle].treasury + value // 2
        # Whose action it is does not change, nor what the acting seat may do.
        assert GAME.to_act(after) == GAME.to_act(state) == frozenset({actor})
        assert (after.actor, after.step, after.passes) == (state.actor, state.step, state.passes)
        assert GAME.legal_commands(after, actor) == GAME.legal_commands(state, actor)
        # Views and events are open: every viewer sees the pledge.
        assert GAME.view(after, None).players[idle].pledged == 1
        assert GAME.view(after, actor).players[idle].treasury == after.players[idle].treasury
        assert GAME.redact(events[0], None) == events[0]
        twice, _ = act(after, idle, PledgeStartShare())
        assert GAME.legal_commands(twice, idle) == []  # both start shares pledged
        with pytest.raises(RuleViolation) as err:
            act(twice, idle, PledgeStartShare())
        assert err.value.code == "eic.nothing_to_pledge"


def test_pledging_out_of_turn_only_with_the_option_and_never_after_the_game():
    state = start(4)
    idle = next(p for p in range(4) if p != state.actor)
    assert GAME.legal_commands(state, idle) == []
    with pytest.raises(RuleViolation) as err:
        act(state, idle, PledgeStartShare())
    assert err.value.code == "eic.pledging_off"
    over = replace(start(4, {"pledging": True}), phase="over")
    assert GAME.legal_commands(over, idle) == []
    with pytest.raises(RuleViolation) as err:
        act(over, idle, PledgeStartShare())
    assert err.value.code == "eic.game_over"


def test_pledging_out_of_turn_games_still_finish():
    """Random games where idle seats pledge between actions end with every share accounted for."""
    state, events = GAME.start(3, {"pledging": True}, b"pledge-out-of-turn")
    picker = Rng(b"\x07" * 32)
    pledges = 0
    while GAME.outcome(state) is None:
        for idle in range(3):
            if (
                idle not in GAME.to_act(state)
                and GAME.legal_commands(state, idle)
                and picker.randint(0, 3) == 0
            ):
                new = GAME.decide(state, idle, PledgeStartShare(), rng_for(b"p", len(events) + 1))
                state, pledges = GAME.fold(new, state), pledges + 1
                events.extend(new)
        seat = next(iter(GAME.to_act(state)))
        new = GAME.decide(state, seat, random_bot(state, seat, picker), rng_for(b"p", len(events) + 1))
        state = GAME.fold(new, state)
        events.extend(new)
    assert pledges > 0
    for seat in range(3):  # every pledge, in turn or not, and every buy-back is in the record
        made = len([e for e in events if isinstance(e, ev.StartSharePledged) and e.player == seat])
        back = len([e for e in events if isinstance(e, ev.StartShareRedeemed) and e.player == seat])
        assert state.players[seat].pledged == made - back
    assert shares_total(state) == (data.SHARES_ON_EXCHANGE[3],) * state.companies
    assert msgspec.msgpack.encode(GAME.fold(events)) == msgspec.msgpack.encode(state)  # replay
