"""Manila (Franz-Benno Delonge, Zoch 2005/2015) for 3–5 players, with the boarding variant."""

from __future__ import annotations

from operator import attrgetter

from domain.engine import Game
from domain.manila import data
from domain.manila import events as ev
from domain.manila.commands import ManilaCommand
from domain.manila.events import ManilaEvent
from domain.manila.evolve import evolve
from domain.manila.rules import decide, decide_and_fold, legal_commands, outcome, to_act
from domain.manila.state import RULES, State
from domain.manila.versions import setup, setup_under
from domain.manila.views import View, redact, view
from domain.take_back import TakeBackRules

REVEALS = frozenset({ev.GameStarted, ev.SharesDealt, ev.DiceRolled, ev.GameEnded})
"""What ends a take-back window (``domain/take_back.py``): the secret deal, the dice, the hands shown at the end."""

GAME: Game[State, ManilaCommand, ManilaEvent, View] = Game(
    key=data.GAME_KEY,
    title="Manila",
    min_seats=data.MIN_PLAYERS,
    max_seats=data.MAX_PLAYERS,
    State=State,
    Command=ManilaCommand,
    Event=ManilaEvent,
    View=View,
    setup=setup,
    decide=decide,
    evolve=evolve,
    legal_commands=legal_commands,
    to_act=to_act,
    outcome=outcome,
    view=view,
    redact=redact,
    option_examples=({}, {"variant_boarding": True}, {"deal": "three_of_each"}),
    decide_folded=decide_and_fold,
    rules=RULES,
    setup_under=setup_under,
    rules_of=attrgetter("rules"),  # the version its first event names, kept in the state
)
TAKE_BACK = TakeBackRules(since=2, reveals=REVEALS)
"""How this game's moves are taken back (``domain/take_back.py``; ``domain.GAMES`` holds the game so)."""
