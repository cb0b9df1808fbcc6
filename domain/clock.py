"""What a seat plays when its move clock runs out (pure: the clock itself lives outside ``domain/``).

A timeout is an ordinary command in the game's log, decided by the game like any other and re-decided by
``verify``: the clock service submits, for the silent seat, the default move named here, under a command
id that says it was a timeout (``timeout-<seq>-<seat>``). The default, for every game alike:

1. a pass, where the rules allow one now: ``Pass`` (East India Companies), ``PassBid``, ``PassPlacement``,
   ``PassPilot``, ``SkipShare`` (Manila), ``EndTurn`` (El Capitán), ``StayAboard`` (Manila's boarding);
2. otherwise the first of the seat's legal commands in the game's own ``legal_commands`` order, leaving
   out taking a loan (a timed-out seat never borrows money it did not ask for) unless nothing else is legal.
"""

from __future__ import annotations

from typing import Any

from domain.engine import Game, Seat

PASSES = frozenset({"Pass", "PassBid", "PassPlacement", "PassPilot", "SkipShare", "EndTurn", "StayAboard"})
BORROWING = frozenset({"TakeLoan", "ExtendLoan", "PledgeStartShare"})


def default_move(game: Game[Any, Any, Any, Any], state: Any, seat: Seat) -> Any | None:
    """The command a timed-out seat plays, or ``None`` when it has nothing to play."""
    legal = game.legal_commands(state, seat)
    if not legal:
        return None
    for command in legal:
        if type(command).__name__ in PASSES:
            return command
    unforced = [c for c in legal if type(c).__name__ not in BORROWING]
    return (unforced or legal)[0]
