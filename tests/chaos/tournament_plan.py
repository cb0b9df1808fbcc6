"""What the tournament chaos run plays: every format with every game, bot fields, and a few tournaments with
scripted people and an organiser (a no-show, a leaver, a withdrawal between rounds, a replacement mid-game,
an elimination final of two people who play the clock's default moves, where a tie is likely but not forced).

Why the tie is not forced: a tournament game's seed is a fresh secret drawn by the server, so no seed can be
searched for offline, and nothing a client sends decides the dice. An El Capitán game of default moves ends
level about one time in three (measured offline on 30 seeds: 10 ties), so the run has several such finals
and reports how many tied; ``tournament_checks`` then proves each tie was scored as rules 3 say.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

FORMATS = ("swiss", "round_robin", "elimination")
GAMES = ("eic", "elcapitan", "manila")
BOTS = ["greedy", "random"]


@dataclass(frozen=True)
class Person:
    """A person entrant as the run plays them: ``moves`` moves in all (``None``: every move of every table,
    ``0``: never one, a no-show), each a random legal move or the one the clock would play (``default``)."""

    name: str
    moves: int | None = None
    default: bool = False


@dataclass(frozen=True)
class Plan:
    tid: str
    game: str
    format: str
    spec: dict[str, Any]
    """The body of ``POST /api/tournaments``."""
    people: list[Person] = field(default_factory=list)
    """Entrants 0.. in this order; the bots follow."""
    withdraw: int | None = None
    """The player the organiser withdraws once round 1's games have ended (the tournament paused till then)."""
    replace: tuple[int, str] | None = None
    """(player, new name): the organiser gives that person's place to a newcomer mid-game."""
    tie_final: bool = False
    """An elimination whose only table is the final, played by two people with default moves."""


def _size(game: str) -> int:
    return 3 if game == "manila" else 2


def _field(game: str, fmt: str) -> dict[str, Any]:
    """Small fields that still deal several tables: 4 players at 2 seats, 6 at Manila's 3 (a round-robin of
    Manila: 3, one table a round); two rounds (elimination: as many as it takes)."""
    size = _size(game)
    players = 3 if (game == "manila" and fmt == "round_robin") else 2 * size
    rounds = 0 if fmt == "elimination" else 2
    return {"game": game, "format": fmt, "table_size": size, "players": players, "rounds": rounds}


def _bots(tid: str, game: str, fmt: str) -> Plan:
    spec = _field(game, fmt) | {"id": tid, "bots": BOTS}
    return Plan(tid=tid, game=game, format=fmt, spec=spec)


def _with_people(tid: str, game: str, fmt: str, people: list[Person], **clock: float) -> dict[str, Any]:
    spec = _field(game, fmt) | {"id": tid, "bots": BOTS} | clock
    spec["entrants"] = [{"name": p.name} for p in people]
    spec["players"] -= len(people)
    return spec


def _tie(tid: str, names: tuple[str, str]) -> Plan:
    """Two people and no bot: the only table is the final. Each plays one default move himself (so he is
    no no-show: 5 s for it, room for a loaded machine) and the clock plays the rest, at once once his 10 s
    in all are used."""
    pair = [Person(name, moves=1, default=True) for name in names]
    spec = _with_people(tid, "elcapitan", "elimination", pair, move_limit_s=5.0, total_limit_s=10.0)
    spec["players"] = 0
    return Plan(tid, "elcapitan", "elimination", spec, pair, tie_final=True)


def scripted(prefix: str) -> list[Plan]:
    """The tournaments with people, in the order the short run takes them (it keeps all five)."""
    plans = []
    ann = [Person("ann", moves=0)]
    tid = f"{prefix}-noshow"
    plans.append(
        Plan(
            tid, "eic", "swiss", _with_people(tid, "eic", "swiss", ann, move_limit_s=1.5, no_show_s=1.5), ann
        )
    )
    plans.append(_tie(f"{prefix}-tie", ("tia", "tom")))
    lea = [Person("lea", moves=5)]
    tid = f"{prefix}-leaver"
    spec = _with_people(tid, "eic", "round_robin", lea, move_limit_s=1.5, total_limit_s=30.0)
    plans.append(Plan(tid, "eic", "round_robin", spec, lea))
    tid = f"{prefix}-withdraw"
    plans.append(Plan(tid, "manila", "swiss", _bots(tid, "manila", "swiss").spec, withdraw=1))
    rex = [Person("rex")]
    tid = f"{prefix}-replace"
    spec = _with_people(tid, "eic", "swiss", rex, move_limit_s=5.0)
    plans.append(Plan(tid, "eic", "swiss", spec, rex, replace=(0, "ray")))
    return plans


def build(count: int, seed: int) -> list[Plan]:
    """``count`` tournaments: the scripted ones, two more tie-seeking finals when there is room (10 or more),
    then bot fields cycling through every format and game."""
    prefix = f"c{seed}"
    plans = scripted(prefix)[:count]
    if count >= 10:
        plans += [_tie(f"{prefix}-tie{n}", (f"tia{n}", f"tom{n}")) for n in (2, 3)]
    combos = [(f, g) for f in FORMATS for g in GAMES]
    n = 0
    while len(plans) < count:
        fmt, game = combos[n % len(combos)]
        plans.append(_bots(f"{prefix}-{n:02d}-{fmt.replace('_', '')}-{game}", game, fmt))
        n += 1
    return plans
