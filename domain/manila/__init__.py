"""Manila (Franz-Benno Delonge, Zoch 2005/2015) for 3–5 players, with the boarding variant."""

from __future__ import annotations

from domain.engine import Game
from domain.manila import data
from domain.manila.commands import ManilaCommand
from domain.manila.events import ManilaEvent
from domain.manila.evolve import evolve
from domain.manila.rules import decide, legal_commands, outcome, setup, to_act
from domain.manila.state import State
from domain.manila.views import View, redact, view

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
)
