"""East India Companies (Pascal Ribrault, 2022) for 2–4 players, with the optional pledging rule."""

from __future__ import annotations

from operator import attrgetter

from domain.eic import data
from domain.eic import events as ev
from domain.eic.commands import EicCommand
from domain.eic.events import EicEvent
from domain.eic.evolve import evolve
from domain.eic.rules import decide, decide_and_fold, legal_commands, outcome, setup, to_act
from domain.eic.state import RULES, State
from domain.eic.views import View, redact, view
from domain.engine import Command, Game
from domain.take_back import TakeBackRules

REVEALS = frozenset({
    ev.GameSetUp, ev.EpochBegan, ev.NeutralEnvoysPlaced, ev.MarketCardsDrawn, ev.FarEastSupplied,
    ev.ShipsRevealed, ev.EuropeDemanded, ev.GameEnded,
})  # fmt: skip
"""What ends a take-back window (``domain/take_back.py``): the initiative drawn, the forecast dice, the
neutral's envoy card, market cards drawn face down, the market cards and the face-down ships turned up, the
final scoring."""


def _neutral_sent(sent: ev.ShipSent) -> bool:
    """The neutral's ship is sent by a destination card drawn at random; a player's is that player's secret."""
    return bool(sent.destination)


GAME: Game[State, Command, EicEvent, View] = Game(
    key="eic",
    title="East India Companies",
    min_seats=data.MIN_PLAYERS,
    max_seats=data.MAX_PLAYERS,
    State=State,
    Command=EicCommand,
    Event=EicEvent,
    View=View,
    setup=setup,
    decide=decide,
    evolve=evolve,
    legal_commands=legal_commands,
    to_act=to_act,
    outcome=outcome,
    view=view,
    redact=redact,
    option_examples=({}, {"pledging": True}),
    rules=RULES,
    setup_under=setup,
    rules_of=attrgetter("rules"),  # the version its first event names, kept in the state
    decide_folded=decide_and_fold,
)
TAKE_BACK = TakeBackRules(since=3, reveals=REVEALS, sometimes={ev.ShipSent: _neutral_sent})
"""How this game's moves are taken back (``domain/take_back.py``; ``domain.GAMES`` holds the game so)."""
