"""El Capitán (Kramer & Rösner, 2007) for 2–5 players, with Porto, Lisboa and Islas Canarias."""

from __future__ import annotations

from operator import attrgetter

from domain.elcapitan import data
from domain.elcapitan import events as ev
from domain.elcapitan.commands import ElCapitanCommand
from domain.elcapitan.events import ElCapitanEvent
from domain.elcapitan.evolve import evolve
from domain.elcapitan.rules import decide, decide_and_fold, legal_commands, outcome, setup, to_act
from domain.elcapitan.state import RULES, State
from domain.elcapitan.views import View, redact, view
from domain.engine import Game
from domain.take_back import TakeBackRules

REVEALS = frozenset({ev.GameStarted, ev.DeckShuffled, ev.CardsRevealed, ev.GameEnded})
"""What ends a take-back window (``domain/take_back.py``): the start player drawn, a shuffle, cards drawn into
the display, the rest of the piles shown at the end. Buying a card reveals nothing (the display is refilled
at the turn's end)."""

GAME: Game[State, ElCapitanCommand, ElCapitanEvent, View] = Game(
    key="elcapitan",
    title="El Capitán",
    min_seats=data.MIN_PLAYERS,
    max_seats=data.MAX_PLAYERS,
    State=State,
    Command=ElCapitanCommand,
    Event=ElCapitanEvent,
    View=View,
    setup=setup,
    decide=decide,
    evolve=evolve,
    legal_commands=legal_commands,
    to_act=to_act,
    outcome=outcome,
    view=view,
    redact=redact,
    option_examples=(
        {},
        {"expansions": ["porto"]},
        {"expansions": ["lisboa"]},
        {"expansions": ["canarias"]},
        {"expansions": ["porto", "canarias"]},
        {"expansions": ["porto", "lisboa", "canarias"]},
    ),
    rules=RULES,
    setup_under=setup,
    rules_of=attrgetter("rules"),  # the version its first event names, kept in the state
    decide_folded=decide_and_fold,
)
TAKE_BACK = TakeBackRules(since=5, reveals=REVEALS)
"""How this game's moves are taken back (``domain/take_back.py``; ``domain.GAMES`` holds the game so)."""
