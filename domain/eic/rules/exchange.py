"""Phase B, "Börse", share sales at one's own action, and the optional pledging of start shares.

Pledging ("Verpfänden einer Startaktie") may happen "jederzeit während des Spiels, auch während der
Börsenphase": by any seat, also out of its action; buying back happens only in phase B, as a turn action.
Share sales stay at one's own action ("bei jeder eigenen Aktion").
"""

from __future__ import annotations

from functools import cache

from domain.eic import data
from domain.eic import events as ev
from domain.eic.board import share_value
from domain.eic.commands import BuyShare, Pass, PledgeStartShare, RedeemStartShare, SellShares
from domain.eic.rules.common import may_sell_shares, require, require_step
from domain.eic.state import State
from domain.engine import Command


def buys(state: State, p: int) -> list[Command]:
    """Phase B: one share of any company left on the exchange that one can pay, redeem, or pass."""
    player = state.players[p]
    out: list[Command] = [
        BuyShare(company=c)
        for c in range(state.companies)
        if state.exchange[c] > 0 and share_value(state, c) <= player.treasury
    ]
    if state.pledging and player.pledged and share_value(state, p) <= player.treasury:
        out.append(RedeemStartShare())
    out.append(Pass())
    return out


OUT_OF_TURN = (PledgeStartShare,)
"""The commands a seat may give when it is not its action."""


def pledges(state: State, p: int) -> list[Command]:
    """Pledging rule: a start share may be pledged at any time, while one is left unpledged."""
    if state.pledging and state.players[p].pledged < data.START_SHARES:
        return [PledgeStartShare()]
    return []


def free_actions(state: State, p: int) -> list[Command]:
    """What one may do on top of one's action: sell shares (not in B) and pledge start shares."""
    out: list[Command] = list(share_sales(state.players[p].shares)) if may_sell_shares(state) else []
    return out + pledges(state, p)


@cache
def share_sales(shares: tuple[int, ...]) -> tuple[SellShares, ...]:
    """Every sale of ``shares`` held: company by company, 1 share up to all. Cached (a few hundred
    holdings occur; commands are immutable): listed at nearly every action of a search, issue 45."""
    return tuple(SellShares(company=c, count=n) for c, held in enumerate(shares) for n in range(1, held + 1))


def decide_buy_share(state: State, seat: int, command: BuyShare) -> list[ev.EicEvent]:
    """Buy one share at the track value; the money goes to the supply, the marker rises a space."""
    require_step(state, seat, "stock")
    require(0 <= command.company < state.companies, "no_such_company", "no company of that colour is in play")
    require(
        state.exchange[command.company] > 0, "sold_out", "no share of that company is left on the exchange"
    )
    price = share_value(state, command.company)
    require(price <= state.players[seat].treasury, "cannot_afford", f"a share costs {price} GS")
    return [ev.ShareBought(player=seat, company=command.company, price=price)]


def decide_pass(state: State, seat: int, command: Pass) -> list[ev.EicEvent]:
    """Pass this round; the phase ends when everybody passes in a row."""
    require_step(state, seat, "stock")
    return [ev.Passed(player=seat)]


def decide_redeem_start_share(state: State, seat: int, command: RedeemStartShare) -> list[ev.EicEvent]:
    """Pledging rule: buy back a pledged start share at the current value, in phase B only."""
    require_step(state, seat, "stock")
    require(state.pledging, "pledging_off", "pledging is an optional rule not in play")
    require(state.players[seat].pledged > 0, "nothing_pledged", "no start share of yours is pledged")
    price = share_value(state, seat)
    require(price <= state.players[seat].treasury, "cannot_afford", f"buying back costs {price} GS")
    return [ev.StartShareRedeemed(player=seat, price=price)]


def decide_sell_shares(state: State, seat: int, command: SellShares) -> list[ev.EicEvent]:
    """Sell at the current value; the marker falls one space per share after the sale."""
    require(state.actor == seat, "not_your_turn", "shares are sold only during one's own action")
    require(may_sell_shares(state), "no_share_sales", "no sales in phase B, nor after phase A of epoch 5")
    require(0 <= command.company < state.companies, "no_such_company", "no company of that colour is in play")
    held = state.players[seat].shares[command.company]
    require(1 <= command.count <= held, "not_held", "start shares are never sold; sell only shares held")
    price = share_value(state, command.company)
    return [ev.SharesSold(player=seat, company=command.company, count=command.count, price=price)]


def decide_pledge_start_share(state: State, seat: int, command: PledgeStartShare) -> list[ev.EicEvent]:
    """Pledging rule: half the current value, rounded down, at any time, also out of one's action."""
    require(state.pledging, "pledging_off", "pledging is an optional rule not in play")
    require(
        state.players[seat].pledged < data.START_SHARES, "nothing_to_pledge", "both start shares are pledged"
    )
    return [ev.StartSharePledged(player=seat, amount=share_value(state, seat) // 2)]
