"""El Capitán's rules: set-up, decide, legal commands, who acts, outcome (rulebook, all chapters).

One module per part of the rulebook: ``board`` (the board), ``chain`` (the warehouse chain),
``sailing`` (cards and sailing), ``building`` (the turn's action), ``pirate`` (Islas Canarias),
``flow`` (turn order and phase end), ``payday`` (payday, loans, start player, game end), ``steps``
(what the active player may do in a turn), ``emitter`` (the events of one decision, folded as emitted).
Imported in that order, top to bottom, with no circle (a contract in ``pyproject.toml``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.elcapitan import commands as cmd
from domain.elcapitan import data
from domain.elcapitan import events as ev
from domain.elcapitan.evolve import evolve
from domain.elcapitan.rules import building, payday, pirate, sailing
from domain.elcapitan.rules.board import DESTINATION, refuse
from domain.elcapitan.rules.emitter import Emitter
from domain.elcapitan.rules.flow import end_turn
from domain.elcapitan.rules.steps import action_within_reach, turn_steps
from domain.elcapitan.state import RULES, State
from domain.engine import Outcome, Rng, Seat, check_known_options, check_seat_count, rng_for

KEY = "elcapitan"


def _expansions(options: Mapping[str, Any]) -> tuple[str, ...]:
    raw = options.get("expansions", [])
    if not isinstance(raw, list | tuple) or not all(isinstance(x, str) for x in raw):
        refuse("bad_option", "option 'expansions' is a list of city names")
    unknown = sorted(set(raw) - set(data.EXPANSIONS))
    if unknown or len(set(raw)) != len(raw):
        refuse("bad_option", f"expansions are any of {', '.join(data.EXPANSIONS)}, each at most once")
    return tuple(name for name in data.EXPANSIONS if name in raw)


def setup(seats: int, options: Mapping[str, Any], seed: bytes, rules: int = RULES) -> list[ev.ElCapitanEvent]:
    """Opening events: seats and options, shuffled piles (order hidden), the display, the start player.

    The rulebook's start player is the youngest; the service has no ages, so it is drawn at random.
    ``rules`` is the rules version (``verify`` sets an old game up again under its own).
    """
    if not 1 <= rules <= RULES:
        refuse("unknown_rules", f"rules versions are 1 to {RULES}, not {rules}")
    check_seat_count(KEY, seats, data.MIN_PLAYERS, data.MAX_PLAYERS)
    check_known_options(KEY, options, ["expansions"])
    expansions = _expansions(options)
    rng = rng_for(seed, 1)
    start = rng.randint(0, seats - 1)
    destinations = tuple(rng.shuffled([c.id for c in data.DESTINATION_CARDS]))
    links = tuple(rng.shuffled([c.id for c in data.INTERCONNECTION_CARDS]))
    return [
        ev.GameStarted(
            seats=seats, expansions=expansions, start_player=start, data=data.DATA_CONFIDENCE, rules=rules
        ),
        ev.DeckShuffled(deck="destination", size=len(destinations), order=destinations),
        ev.DeckShuffled(deck="interconnection", size=len(links), order=links),
        ev.CardsRevealed(deck="destination", cards=destinations[: data.DESTINATION_DISPLAY]),
        ev.CardsRevealed(deck="interconnection", cards=links[: data.INTERCONNECTION_DISPLAY]),
    ]


def _may_pass(state: State, seat: Seat, steps: list[cmd.ElCapitanCommand] | None = None) -> bool:
    """A turn passes without an action only when no action or loan can be reached this turn.

    Rules 3 (issue 45): „Im weiteren Spielverlauf ist das Segeln freiwillig.“ A sailing obliges only on the
    way to an action („kann zuerst segeln und muss danach eine der drei folgenden Aktionen ausführen“):
    the pass is refused while a build, re-opening, fortress or loan is open here or in a city the hand's
    cards reach, and, for a ship not yet in the game, while it can come in („Bei Spielbeginn müssen Sie mit
    einer Zielkarte zu der Stadt segeln“). Rules 2 refused it while any sailing was possible.
    Rules 2: „Kauf von Segelkarten: Diese Aktion ist freiwillig.“ Buying never obliges, except that a ship
    not yet in the game must come in: „Bei Spielbeginn müssen Sie mindestens eine Zielkarte kaufen, um Ihr
    Schiff ins Spiel zu bringen.“ (Rules 1 counted every affordable card as a step still open.)
    Decision (ambiguities 15 and 16): moving the pirate never helps to build, so it does not oblige a
    stuck player to spend money before passing; the owed free move does block the pass.
    """
    if state.turn.acted or pirate.pirate_owed(state):
        return False
    if steps is None:  # ``legal_commands`` hands over the steps it has listed already
        steps = turn_steps(state, seat)
    if state.rules == 1:
        return not steps
    entering = not state.players[seat].ship
    if any(not isinstance(c, cmd.BuyCard) or (entering and c.card in DESTINATION) for c in steps):
        if state.rules == 2 or entering:
            return False
        if any(not isinstance(c, cmd.BuyCard | cmd.Sail) for c in steps):
            return False
        return not action_within_reach(state, seat)
    return True


def _check_end_turn(state: State, seat: Seat) -> bool:
    """Whether ending the turn passes without an action (True) or closes an acted turn (False)."""
    sailing.check_turn(state, seat)
    if pirate.pirate_owed(state):
        refuse("pirate_move_owed", "arriving at Islas Canarias obliges the free pirate move this turn")
    if state.turn.acted:
        return False
    if not _may_pass(state, seat):
        refuse("action_required", "a turn ends with one action: build, re-open, fortress or loan")
    return True


def _decide_end_turn(state: State, seat: Seat, rng: Rng) -> Emitter:
    passed = _check_end_turn(state, seat)
    out = Emitter(state)
    end_turn(out, rng, passed=passed)
    return out


def decide(state: State, seat: Seat, command: cmd.ElCapitanCommand, rng: Rng) -> list[ev.ElCapitanEvent]:
    """Validate ``command`` for ``seat`` and return the events it causes."""
    decided = _decided(state, seat, command, rng)
    return decided.events if isinstance(decided, Emitter) else decided


def decide_and_fold(
    state: State, seat: Seat, command: cmd.ElCapitanCommand, rng: Rng
) -> tuple[list[ev.ElCapitanEvent], State]:
    """``decide``, with the state its events lead to: a turn's end and a loan fold their events as they
    emit them (more than half of a game's events), so a search need not fold those a second time
    (``Game.decide_folded``, issue 45); the others are folded here."""
    decided = _decided(state, seat, command, rng)
    if isinstance(decided, Emitter):
        return decided.events, decided.state
    for event in decided:
        state = evolve(state, event)
    return decided, state


def _decided(
    state: State, seat: Seat, command: cmd.ElCapitanCommand, rng: Rng
) -> list[ev.ElCapitanEvent] | Emitter:
    """The events ``command`` causes, or the ``Emitter`` that folded them as it emitted them."""
    if state.stage == "over":
        refuse("game_over", "the game is over")
    if not 0 <= seat < state.seats:
        refuse("no_such_seat", f"there is no seat {seat}")
    match command:
        case cmd.BuyCard():
            return sailing.decide_buy(state, seat, command.card)
        case cmd.Sail():
            return sailing.decide_sail(state, seat, command.card, command.to)
        case cmd.BuildWarehouse():
            return building.decide_build(state, seat, command.site, command.neutral)
        case cmd.ReopenWarehouse():
            return building.decide_reopen(state, seat, command.site, command.neutral)
        case cmd.BuildFortress():
            return building.decide_fortress(state, seat)
        case cmd.TakeLoan():
            out = building.take_loan(state, seat, command.amount, pirate.pirate_owed(state))
            end_turn(out, rng)
            return out
        case cmd.MovePirate():
            return pirate.decide_move(state, seat, command)
        case cmd.EndTurn():
            return _decide_end_turn(state, seat, rng)
        case cmd.RepayLoan():
            return payday.decide_repay(state, seat, command.loan)
        case cmd.ExtendLoan():
            return payday.decide_extend(state, seat, command.loan)
        case cmd.ChooseStartPlayer():
            return payday.decide_choose_start(state, seat, command.seat)
    refuse("unknown_command", f"unknown command {command!r}")


def legal_commands(state: State, seat: Seat) -> list[cmd.ElCapitanCommand]:
    """Every command ``seat`` may send now, in a fixed order."""
    if seat not in to_act(state):
        return []
    if state.stage == "loans":
        out: list[cmd.ElCapitanCommand] = []
        for i, loan in enumerate(state.players[seat].loans):
            if not loan.settled:
                out.append(cmd.RepayLoan(loan=i))
                if not loan.extended:
                    out.append(cmd.ExtendLoan(loan=i))
        return out
    if state.stage == "choose_start":
        return [cmd.ChooseStartPlayer(seat=s) for s in range(state.seats)]
    steps = turn_steps(state, seat)
    others = steps + pirate.pirate_commands(state, seat)
    if (state.turn.acted and not pirate.pirate_owed(state)) or _may_pass(state, seat, steps):
        others.append(cmd.EndTurn())
    return others


def to_act(state: State) -> frozenset[Seat]:
    """The seat that must act now (one at a time), or nobody once the game is over."""
    if state.stage == "turn":
        return frozenset({state.current})
    if state.stage == "loans":
        return frozenset(state.settlers[:1])
    if state.stage == "choose_start":
        return frozenset({state.chooser})
    return frozenset()


def outcome(state: State) -> Outcome | None:
    """The final ranking by money, once the third payday is over."""
    return state.result
