"""Phase F, "Ende der Epoche", and the final scoring ("Schlusswertung")."""

from __future__ import annotations

import itertools

from domain.eic import data
from domain.eic import events as ev
from domain.eic.board import clamp_stock, share_value
from domain.eic.state import State


def income_ranking(state: State) -> tuple[int, ...]:
    """Most income first; ties go to the higher initiative (rulebook, F, Hinweis)."""
    return tuple(
        sorted(range(state.companies), key=lambda p: (-state.players[p].income, state.initiative.index(p)))
    )


def growth_steps(old_marker: int, income: int) -> tuple[int, int]:
    """(new income marker, steps): the marker goes to the income rounded down to tens; the share marker
    moves the same number of fields, forward or back (rulebook, F: 20+ and 43 GS → +2)."""
    new = min(income // 10, data.INCOME_TRACK_TOP)
    return new, new - old_marker


def end_epoch(state: State) -> list[ev.EicEvent]:
    """Share values by rank and growth, the reversed initiative, income to treasuries, then dividends."""
    ranking = income_ranking(state)
    scheme = data.RANK_MOVES[4 if state.companies == 4 else 3]
    moves = [0] * state.companies
    for rank, p in enumerate(ranking):
        moves[p] = scheme[rank]
    markers, growth = [], []
    for player in state.players:
        marker, steps = growth_steps(player.income_marker, player.income)
        markers.append(marker)
        growth.append(steps)
    stock = [clamp_stock(clamp_stock(s + m) + g) for s, m, g in zip(state.stock, moves, growth, strict=True)]
    initiative = tuple(reversed(ranking))
    dividends = _dividends(state, initiative, stock)
    return [
        ev.InitiativeChanged(initiative=initiative),
        ev.EpochEnded(
            epoch=state.epoch,
            ranking=ranking,
            rank_moves=tuple(moves),
            income_markers=tuple(markers),
            growth=tuple(growth),
            dividends=dividends,
        ),
    ]


def _dividends(state: State, initiative: tuple[int, ...], stock: list[int]) -> tuple[ev.Payment, ...]:
    """In the new initiative order each owner pays every other holder the dividend per share.

    An owner short of money pays what the treasury holds (decision: no debts in this game); the
    neutral's dividends come from the supply (rulebook, 2 players, F).
    """
    money = [p.treasury + p.income if i != state.neutral else 0 for i, p in enumerate(state.players)]
    payments = []
    for owner in initiative:
        per_share = data.DIVIDENDS[stock[owner]]
        for holder in initiative:
            held = state.players[holder].shares[owner]
            if holder == owner or not held or not per_share:
                continue
            amount = per_share * held
            payer = -1 if owner == state.neutral else owner
            if payer >= 0:
                amount = min(amount, money[owner])
                money[owner] -= amount
            if amount:
                money[holder] += amount
                payments.append(ev.Payment(payer=payer, payee=holder, amount=amount))
    return tuple(payments)


def wealth(state: State, seat: int) -> int:
    """Start shares not pledged and all shares held, at their values, plus the treasury."""
    player = state.players[seat]
    own = (data.START_SHARES - player.pledged) * share_value(state, seat)
    held = sum(n * share_value(state, c) for c, n in enumerate(player.shares))
    return own + held + player.treasury


def final_scoring(state: State) -> ev.GameEnded:
    """Wealth ranks; ties: own company's share value, then treasury, then initiative (rulebook)."""
    seats = range(state.seats)
    scores = tuple(wealth(state, s) for s in seats)

    def key(s: int) -> tuple[int, int, int, int]:
        return (-scores[s], -share_value(state, s), -state.players[s].treasury, state.initiative.index(s))

    ranking = tuple(sorted(seats, key=key))
    notes = []
    for a, b in itertools.pairwise(ranking):
        ka, kb = key(a), key(b)
        if ka[0] == kb[0]:
            level = next(i for i in (1, 2, 3) if ka[i] != kb[i])
            reason = ("company value", "treasury", "initiative")[level - 1]
            notes.append(f"seat {a} before seat {b} on {reason}")
    return ev.GameEnded(ranking=ranking, scores=scores, tie_break="; ".join(notes))
