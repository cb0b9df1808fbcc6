"""Each game's standing in the middle of play: what a game ended by a vote ranks the present seats by
(``domain/seat_control.voted_outcome``; the guide's "Table clocks" says so per game).

The money each player holds when the vote passes, the one count every rulebook ranks by at the end and which
is open on the table in all three: Manila's pesos (``cash``; shares and mortgages are left out), El Capitán's
money, and the treasury of each player's company in East India Companies (the neutral company has no seat).
"""

from __future__ import annotations

from typing import Any

from domain.seat_control import Standing


def manila(state: Any) -> tuple[int, ...]:
    return tuple(int(player.cash) for player in state.players)


def elcapitan(state: Any) -> tuple[int, ...]:
    return tuple(int(player.money) for player in state.players)


def eic(state: Any) -> tuple[int, ...]:
    return tuple(int(state.players[seat].treasury) for seat in range(state.seats))


STANDINGS: dict[str, Standing] = {"manila": manila, "elcapitan": elcapitan, "eic": eic}
