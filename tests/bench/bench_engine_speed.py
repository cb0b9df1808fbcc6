"""What a search pays per event: ``legal_commands`` + ``decide`` + ``evolve`` per CPU-second (issue 45).

Random-bot games at 4 seats are recorded first (every state, seat and command); then the recorded
positions are timed apart, in CPU time: ``decide`` + ``evolve`` over the trajectory (``Game.play``, as the
search steps: a game whose ``decide`` folds its events hands that state back, so each event is folded
once), and one ``legal_commands`` call per position (what a tree search lists at every node). The bots' own thinking
is not counted. Prints events per CPU-second with and without the listing, and the listing's cost a call.
Each timing is the least of ``REPEATS`` passes over the same positions: on a shared machine other work
only ever adds CPU time (caches, frequency), so the least is the closest to the engine's own cost.
"""

from __future__ import annotations

import hashlib
import importlib
import time
from typing import Any

from domain.engine import Game, Rng, decide_at, play_at, play_out
from services import move_path

GAMES = ("manila", "eic", "elcapitan")
REPEATS = 3


class Trajectory:
    """The positions of one played game, in order, with the command sent at each."""

    def __init__(self, game: Game[Any, Any, Any, Any], seed: bytes, bots: Any) -> None:
        played = play_out(game, 4, {}, seed, [bots.random_bot] * 4)
        self.seed = seed
        self.opening = game.setup(4, {}, seed)
        self.events = played.events
        self.steps: list[tuple[Any, int, Any, int]] = []  # (state, seat, command, seq)
        self._replay(game, bots)

    def _replay(self, game: Game[Any, Any, Any, Any], bots: Any) -> None:
        """Play again with the same bot stream, keeping each position (``play_out`` keeps only the end)."""
        self.steps = []
        state = game.fold(self.opening)
        events = list(self.opening)
        bot_rng = Rng(hashlib.sha256(b"harbormaster/bots\x00" + self.seed).digest())
        while game.outcome(state) is None:
            acting = sorted(game.to_act(state))
            seat = acting[0] if len(acting) == 1 else bot_rng.choice(acting)
            command = bots.random_bot(state, seat, bot_rng)
            self.steps.append((state, seat, command, len(events)))
            new = decide_at(game, state, seat, command, self.seed, len(events))
            state = game.fold(new, state)
            events.extend(new)
        assert len(events) == len(self.events)


def _time_decide(game: Game[Any, Any, Any, Any], runs: list[Trajectory]) -> float:
    """``decide`` and the state its events lead to, as a search steps (``Game.play``: a game whose
    ``decide`` folds its events anyway hands that state back instead of folding them twice)."""
    started = time.process_time()
    for run in runs:
        for state, seat, command, seq in run.steps:
            play_at(game, state, seat, command, run.seed, seq)
    return time.process_time() - started


def _time_legal(game: Game[Any, Any, Any, Any], runs: list[Trajectory]) -> tuple[float, int]:
    calls = 0
    started = time.process_time()
    for run in runs:
        for state, seat, _, _ in run.steps:
            game.legal_commands(state, seat)
            calls += 1
    return time.process_time() - started, calls


def measure(key: str, games: int = 12) -> dict[str, float]:
    """Events a CPU-second for ``games`` random-bot games of ``key`` at 4 seats."""
    game = importlib.import_module(f"domain.{key}").GAME
    bots = importlib.import_module(f"domain.{key}.bots")
    runs = [Trajectory(game, f"speed-{i}".encode(), bots) for i in range(games)]
    events = sum(len(r.events) - len(r.opening) for r in runs)
    decide = min(_time_decide(game, runs) for _ in range(REPEATS))
    legal = min(_time_legal(game, runs)[0] for _ in range(REPEATS))
    calls = sum(len(r.steps) for r in runs)
    return {
        "events": events,
        "decide_evolve": events / decide,
        "with_legal": events / (decide + legal),
        "legal_us": legal / calls * 1e6,
    }


def _form() -> str:
    """Which form of the rules ran: compiled by mypyc (``services/move_path.py``) or the sources."""
    if move_path.interpreted_because is not None:
        return f"interpreted ({move_path.interpreted_because})"
    built = move_path.compiled_form("domain.manila.rules.placement") is not None
    return "compiled (mypyc)" if built else "interpreted (not built: make compiles it)"


def main() -> None:
    print(f"rules and evolve: {_form()}; best of {REPEATS} passes")
    print("| game | decide + evolve | with `legal_commands` | `legal_commands` a call |")
    print("| --- | --- | --- | --- |")
    for key in GAMES:
        f = measure(key)
        print(f"| {key} | {f['decide_evolve']:,.0f} events/CPU-s | {f['with_legal']:,.0f} | "
              f"{f['legal_us']:.1f} µs |", flush=True)  # fmt: skip
