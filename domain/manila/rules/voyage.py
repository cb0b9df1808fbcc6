"""Phase 3, at sea: pilots, dice rounds, boarding after roll 2, plundering after roll 3 (S0 pp. 5–6)."""

from __future__ import annotations

from domain.engine import Rng
from domain.manila import commands as cmd
from domain.manila import data
from domain.manila import events as ev
from domain.manila.rules.common import at_sea, refuse
from domain.manila.state import State, boat_of, free_seat

SMALL_MOVES: tuple[int, ...] = (1, -1)
BIG_SINGLE: tuple[int, ...] = (1, -1, 2, -2)


def pilot_seat(state: State) -> int | None:
    """The pilot whose turn it is."""
    return state.small_pilot if state.pilot_turn == "small" else state.big_pilot


def _pilot_shape_ok(pilot: str, moves: tuple[cmd.PilotMove, ...]) -> bool:
    steps = [m.steps for m in moves]
    if pilot == "small":
        return len(steps) == 1 and steps[0] in SMALL_MOVES
    if len(steps) == 1:
        return steps[0] in BIG_SINGLE
    return len(steps) == 2 and all(s in SMALL_MOVES for s in steps)


def _move_ok(state: State, move: cmd.PilotMove) -> bool:
    """A boat in port cannot be moved; project decision (README "below field 0"): never below 0."""
    boat = boat_of(state, move.good)
    return boat is not None and not boat.berth and boat.position + move.steps >= 0


def decide_move_boats(state: State, seat: int, command: cmd.MoveBoats) -> list[ev.ManilaEvent]:
    """Small pilot: one boat one field; big pilot: one boat up to two fields or two boats one each."""
    if state.phase != "pilot":
        refuse("wrong_phase", "pilots act just before the third dice round")
    moves = tuple(command.moves)
    if not _pilot_shape_ok(state.pilot_turn, moves) or len({m.good for m in moves}) != len(moves):
        refuse("bad_pilot_move", f"not a move the {state.pilot_turn} pilot may make (S0 Abb. 11)")
    if not all(_move_ok(state, m) for m in moves):
        refuse("boat_unmovable", "boats in the harbour cannot be moved, nor below field 0")
    if state.pilot_turn == "small":
        return [ev.BoatsPiloted(seat=seat, pilot="small", moves=moves)]
    return [ev.BoatsPiloted(seat=seat, pilot="big", moves=moves)]


def decide_pass_pilot(state: State, seat: int, command: cmd.PassPilot) -> list[ev.ManilaEvent]:
    """Each pilot may decline to act (S0)."""
    if state.phase != "pilot":
        refuse("wrong_phase", "pilots act just before the third dice round")
    return [ev.PilotPassed(seat=seat, pilot="small" if state.pilot_turn == "small" else "big")]


def _pilot_legal(state: State) -> list[cmd.ManilaCommand]:
    goods = [state.boats[i].good for i in at_sea(state)]
    singles = SMALL_MOVES if state.pilot_turn == "small" else BIG_SINGLE
    options: list[tuple[cmd.PilotMove, ...]] = [
        (cmd.PilotMove(good=g, steps=s),) for g in goods for s in singles
    ]
    if state.pilot_turn == "big":
        for i, a in enumerate(goods):
            for b in goods[i + 1 :]:
                options += [
                    (cmd.PilotMove(good=a, steps=x), cmd.PilotMove(good=b, steps=y))
                    for x in SMALL_MOVES
                    for y in SMALL_MOVES
                ]
    out: list[cmd.ManilaCommand] = [
        cmd.MoveBoats(moves=m) for m in options if all(_move_ok(state, x) for x in m)
    ]
    return [*out, cmd.PassPilot()]


def deciding_pirate(state: State) -> int | None:
    """The pirate who decides now: the captain first, then the second pirate (S0 "Entern")."""
    if state.boarding_step == 0:
        return state.pirates[0]
    return state.pirates[0] if state.captain_boarded else state.pirates[1]


def boarding_options(state: State) -> list[cmd.BoardBoat]:
    """Boats a dice roll left on 13 with a free seat; in the variant also displacing an accomplice of a
    full boat, but never the captain who just boarded (S0 "Spielvariante")."""
    out: list[cmd.BoardBoat] = []
    for i in at_sea(state):
        boat = state.boats[i]
        if boat.position != data.PIRATE_FIELD:
            continue
        if free_seat(boat) is not None:
            out.append(cmd.BoardBoat(good=boat.good))
        elif state.variant_boarding:
            out += [
                cmd.BoardBoat(good=boat.good, displace=k)
                for k in range(len(boat.seats))
                if state.just_boarded != (boat.good, k)
            ]
    return out


def decide_board(state: State, seat: int, command: cmd.BoardBoat) -> list[ev.ManilaEvent]:
    """Take an empty seat (the cheapest; project decision) of a boat on 13, or displace (variant)."""
    if state.phase != "boarding":
        refuse("wrong_phase", "pirates board only after the second dice round")
    if command not in boarding_options(state):
        refuse("cannot_board", "only a boat on field 13 with a free seat (variant: any seat)")
    boat = boat_of(state, command.good)
    assert boat is not None
    if command.displace is None:
        index = free_seat(boat)
        assert index is not None
        return [ev.PirateBoarded(seat=seat, good=command.good, seat_index=index)]
    displaced = boat.seats[command.displace]
    return [ev.PirateBoarded(seat=seat, good=command.good, seat_index=command.displace, displaced=displaced)]


def decide_stay(state: State, seat: int, command: cmd.StayAboard) -> list[ev.ManilaEvent]:
    """Pirates need not board; they may wait for a plunder."""
    if state.phase != "boarding":
        refuse("wrong_phase", "pirates decide on boarding only after the second dice round")
    return [ev.PirateStayed(seat=seat)]


def decide_send(state: State, seat: int, command: cmd.SendPlunderedBoat) -> list[ev.ManilaEvent]:
    """The pirate captain sends each plundered boat to the harbour or to the shipyard (S0)."""
    if state.phase != "captain":
        refuse("wrong_phase", "only after a plunder")
    if command.good not in state.plundered or command.to not in ("harbour", "shipyard"):
        refuse("not_plundered", f"the {command.good} boat was not plundered")
    return [ev.PlunderedBoatSent(seat=seat, good=command.good, to=command.to)]


def legal(state: State, seat: int) -> list[cmd.ManilaCommand]:
    """Pilot moves, boarding choices or the captain's decisions."""
    if state.phase == "pilot":
        return _pilot_legal(state)
    if state.phase == "boarding":
        return [*boarding_options(state), cmd.StayAboard()]
    return [cmd.SendPlunderedBoat(good=g, to=t) for g in state.plundered for t in ("harbour", "shipyard")]


def roll(state: State, rng: Rng) -> list[ev.ManilaEvent]:
    """The harbour master rolls the three dice of the loaded goods."""
    values = tuple(rng.die() for _ in state.boats)
    return [ev.DiceRolled(roll=state.rolls + 1, values=values)]


def forced_stay(state: State) -> list[ev.ManilaEvent]:
    """A pirate with no boat to board stays aboard without being asked (Abb. 9, the second pirate)."""
    seat = deciding_pirate(state)
    if seat is not None and not boarding_options(state):
        return [ev.PirateStayed(seat=seat, forced=True)]
    return []


def plunder(state: State) -> list[ev.ManilaEvent]:
    """Every boat a dice roll left on 13 after roll 3 is plundered: accomplices go home unpaid, the
    pirates in the pirate boat share the cargo value equally (S0 Abb. 10)."""
    pirates = tuple(p for p in state.pirates if p is not None)
    out: list[ev.ManilaEvent] = []
    for i in at_sea(state):
        boat = state.boats[i]
        if boat.position == data.PIRATE_FIELD and pirates:
            share = data.CARGO_VALUE[boat.good] // len(pirates)
            returned = tuple(s for s in boat.seats if s is not None)
            out.append(
                ev.BoatPlundered(
                    good=boat.good, returned=returned, pirates=pirates, shares=(share,) * len(pirates)
                )
            )
    return out
