"""Which ship was sent face down is the secret of phase C (issue 17, finding 9), checked on raw bytes.

Rulebook, C: "Jeder Spieler nimmt sich nun die Schiffe aus seinem Hafen. Legt nacheinander, in der
Reihenfolge der Initiative, eines eurer Schiffe verdeckt in eines der drei Navigationsgebiete." The zone
and the travel cost are public, and so is the set of a player's tiles; which tile lies in which zone is
not, until phase D reveals the zone. The neutral's ship is public: the rulebook sends its leftmost.
"""

from __future__ import annotations

from collections import defaultdict

import msgspec
import pytest

from domain.eic import GAME
from domain.eic.bots import random_bot
from domain.eic.commands import SendShip
from domain.engine import Rng, rng_for

_enc = msgspec.json.encode


def _observed(state, events, viewer) -> bytes:
    """Every byte ``viewer`` receives for ``events``: the redacted events, then its view after them."""
    frames = [_enc(seen) for seen in (GAME.redact(e, viewer) for e in events) if seen is not None]
    return b"\n".join([*frames, _enc(GAME.view(GAME.fold(events, state), viewer))])


def _sends_by_zone(state, seat) -> list[list[SendShip]]:
    """The seat's legal sends grouped by zone, where it has a choice of ship."""
    by_zone: dict[int, list[SendShip]] = defaultdict(list)
    for command in GAME.legal_commands(state, seat):
        if isinstance(command, SendShip):
            by_zone[command.zone].append(command)
    return [group for group in by_zone.values() if len(group) > 1]


def _check_sends(seats: int, seed: bytes) -> int:
    """Play a random game; at every choice of ship, all choices must look the same to the others."""
    state, events = GAME.start(seats, {}, seed)
    picker, checked = Rng(seed.ljust(32, b"\3")[:32]), 0
    while GAME.outcome(state) is None:
        seat = next(iter(GAME.to_act(state)))
        rng = rng_for(seed, len(events) + 1)
        for group in _sends_by_zone(state, seat) if state.step == "navigate" else []:
            outcomes = [GAME.decide(state, seat, c, rng_for(seed, len(events) + 1)) for c in group]
            for viewer in (None, *(s for s in range(seats) if s != seat)):
                seen = {_observed(state, out, viewer) for out in outcomes}
                assert len(seen) == 1, f"viewer {viewer} can tell which ship seat {seat} sent"
            owner_sees = {_observed(state, out, seat) for out in outcomes}
            assert len(owner_sees) == len(group)  # the owner's own bytes do name the ship
            checked += len(group)
        new = GAME.decide(state, seat, random_bot(state, seat, picker), rng)
        state = GAME.fold(new, state)
        events.extend(new)
    return checked


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_spectators_and_other_seats_cannot_tell_which_ship_was_sent_face_down(seats):
    checked = sum(_check_sends(seats, f"secret-ship-{seats}-{i}".encode()) for i in range(3))
    assert checked >= 40, checked


def test_the_harbour_no_longer_gives_the_sent_ship_away():
    """The spectator's frames named every other ship in a stable harbour order (93 of 93 sends found):
    now unseen ships are shown in their places without id, sorted by where they lie, kinds apart."""
    state, _ = GAME.start(3, {}, b"harbour-order")
    picker = Rng(b"harbour-order".ljust(32, b"\0"))
    while state.step != "navigate":
        seat = next(iter(GAME.to_act(state)))
        state = GAME.fold(GAME.decide(state, seat, random_bot(state, seat, picker), rng_for(b"h", 1)), state)
    seat = state.actor
    ship = next(c for c in GAME.legal_commands(state, seat) if isinstance(c, SendShip)).ship
    after = GAME.fold(GAME.decide(state, seat, SendShip(ship=ship, zone=3), rng_for(b"h", 2)), state)
    theirs = GAME.view(after, None).players[seat]
    assert all(s.id is None and s.kind is None for s in theirs.ships if s.zone == 0 or s.face_down)
    assert ship.split(":")[1] in theirs.unseen_kinds
    assert ship.encode() not in _enc(GAME.view(after, None))
    mine = GAME.view(after, seat).players[seat]
    assert any(s.id == ship and s.face_down for s in mine.ships)
