"""Determinized (single-observer, information-set) Monte Carlo tree search.

Each iteration samples one complete state consistent with what the searching seat sees
(``Searcher.determinize``), then walks one shared tree from the root: a node's children are the commands
tried there (keyed by the acting seat and the command), chosen by UCB1 with *availability* counts, as in
information-set MCTS (Cowling, Powley and Whitehouse, 2012): a command legal in only some samples is
judged by the visits in which it was offered, not by all of its parent's. Leaving the tree, a rollout of
a few commands by the game's heuristic policy, then ``Searcher.value`` (each seat's prospects in
``[0, 1]``) or the outcome when the game ended.

Only the searching seat's choices are nodes of the tree; the other seats play as the rollout policy
would, inside the tree too, as if they were chance. A tree over their choices as well (max^n) tried
their worst moves early: with the few hundred iterations a second buys, a Manila bid of 32 looked good
because an opponent's random over-bid in the tree paid for it (measured: 0 of 8 games won against
greedy bots, the same bid worth 0.10 of the win by rollouts alone against 0.32 for the greedy bid of 5).

The chance inside simulated commands (dice, draws) comes from the bot's own generator, never the game's
seed: the sample decides what the searching seat cannot know, so nothing of the true state but the
view reaches the search (``tests/unit/domain/search/test_no_cheating.py`` proves it per game).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from domain.engine import Bot, Game, Rng, RuleViolation, Seat

Value = Callable[[Any], Sequence[float]]


def mostly(guide: Bot, other: Bot, share: float = 0.1) -> Bot:
    """A rollout policy: ``guide`` (a game's greedy bot), and ``other`` (its random one) a ``share`` of the
    time, so that rollouts do not all follow one line."""

    def policy(state: Any, seat: Seat, rng: Rng) -> Any:
        return other(state, seat, rng) if rng.random() < share else guide(state, seat, rng)

    return policy


@dataclass(frozen=True)
class Searcher:
    """What the search needs of one game."""

    game: Game[Any, Any, Any, Any]
    determinize: Callable[[Any, Seat, Rng], Any]
    """A full state sampled from ``view(state, seat)`` alone: hidden facts drawn from ``rng``."""
    rollout: Bot
    """The policy that plays every seat after the tree (the greedy heuristic, with some noise)."""
    guide: Bot
    """The heuristic itself (the greedy bot): expanded first at every node, and the root's choice unless
    the search found a better one (``margin``)."""
    value: Value
    """Per seat, its prospects in ``[0, 1]`` of an unfinished game (summing to about 1)."""
    rollout_depth: int = 12
    """Commands played by ``rollout`` before the game is valued: deep enough to see a move's payoff,
    short enough that a budget buys many iterations."""
    horizon: Callable[[Any, Any], bool] | None = None
    """Given the rollout's first and current state, whether to stop and value it (a voyage paid out):
    a game whose money moves only at set points is valued after one, within ``rollout_depth``."""
    exploration: float = 0.7
    widening: float = 1.0
    margin: float = 0.02
    """How much better (in share of the win) another root command must do than the guide's, with at
    least as many visits, to be played instead: few iterations are noisy, and the guide is no fool."""
    shortlist: Callable[[Any, Seat, list[Any]], list[Any]] | None = None
    """The commands worth comparing with the guide's, best first (the game's heuristic ranking): when
    given, ``domain.search.paired`` compares them on common samples instead of growing a tree."""
    candidates: int = 4
    """With ``shortlist``: how many commands, the guide's included, are compared."""


class _Node:
    __slots__ = ("actor", "available", "children", "squares", "total", "visits")

    def __init__(self, actor: Seat) -> None:
        self.actor = actor
        self.visits = 0
        self.available = 0
        self.total = 0.0
        self.squares = 0.0
        self.children: dict[tuple[Seat, Any], _Node] = {}

    def mean(self) -> float:
        return self.total / self.visits

    def error(self) -> float:
        """The standard error of ``mean`` (squared): how far noise alone moves it."""
        spread = max(self.squares / self.visits - self.mean() ** 2, 0.0)
        return spread / self.visits


def _actor(game: Game[Any, Any, Any, Any], state: Any, rng: Rng) -> Seat:
    acting = sorted(game.to_act(state))
    return acting[0] if len(acting) == 1 else rng.choice(acting)


def _apply(game: Game[Any, Any, Any, Any], state: Any, seat: Seat, command: Any, rng: Rng) -> Any:
    return game.play(state, seat, command, rng)[1]


def softmax(worth: Sequence[float], scale: float) -> list[float]:
    """Shares of the win from scores: a lead of ``scale`` weighs e times as much (sums to 1)."""
    top = max(worth)
    weights = [math.exp((w - top) / scale) for w in worth]
    total = sum(weights)
    return [w / total for w in weights]


def outcome_value(game: Game[Any, Any, Any, Any], state: Any) -> list[float] | None:
    """1 shared among the winners of an ended game, else ``None``."""
    result = game.outcome(state)
    if result is None:
        return None
    share = 1.0 / len(result.winners)
    return [share if seat in result.winners else 0.0 for seat in range(len(result.scores))]


def _ucb(child: _Node, c: float) -> float:
    if child.visits == 0:
        return math.inf
    return child.total / child.visits + c * math.sqrt(math.log(max(child.available, 1)) / child.visits)


def _expand(s: Searcher, node: _Node, state: Any, seat: Seat, fresh: list[Any], rng: Rng) -> Any:
    """The command a new child is made for: the heuristic's own choice first, then any other at random."""
    guess = s.guide(state, seat, rng)
    command = guess if guess in fresh else rng.choice(fresh)
    node.children[(seat, command)] = child = _Node(seat)
    child.available += 1
    return command


def _descend(s: Searcher, root: _Node, state: Any, rng: Rng) -> tuple[list[_Node], Any]:
    """Selection and expansion in one sampled world: the path walked and the state it reached.

    Progressive widening: a node visited ``n`` times has at most ``1 + widening·√n`` children, so a
    choice among hundreds (Manila's bids, El Capitán's sailings) is searched among the heuristic's pick
    and a few others rather than spread thin over all of them.
    """
    game, node, path = s.game, root, [root]
    while game.outcome(state) is None:
        seat = root.actor if node is root else _actor(game, state, rng)
        if seat != root.actor:  # the others play as the heuristic would, like chance: see the module
            state = _apply(game, state, seat, s.rollout(state, seat, rng), rng)
            continue
        legal = game.legal_commands(state, seat)
        fresh, known = [], []
        for command in legal:
            child = node.children.get((seat, command))
            if child is None:
                fresh.append(command)
            else:
                child.available += 1
                known.append(command)
        if fresh and (not known or len(node.children) < 1 + s.widening * math.sqrt(node.visits)):
            command = _expand(s, node, state, seat, fresh, rng)
            return [*path, node.children[(seat, command)]], _apply(game, state, seat, command, rng)
        command = max(known, key=lambda cmd: _ucb(node.children[(seat, cmd)], s.exploration))
        node = node.children[(seat, command)]
        path.append(node)
        state = _apply(game, state, seat, command, rng)
    return path, state


def _rollout(s: Searcher, state: Any, rng: Rng) -> Sequence[float]:
    game, start = s.game, state
    for _ in range(s.rollout_depth):
        done = outcome_value(game, state)
        if done is not None:
            return done
        if s.horizon is not None and s.horizon(start, state):
            break
        seat = _actor(game, state, rng)
        try:
            state = _apply(game, state, seat, s.rollout(state, seat, rng), rng)
        except RuleViolation:  # a heuristic's slip in a sampled world: value the game where it stands
            break
    return outcome_value(game, state) or s.value(state)


def search(
    s: Searcher,
    state: Any,
    seat: Seat,
    rng: Rng,
    iterations: int,
    stop: Callable[[], bool] | None = None,
) -> Any:
    """The command ``seat`` plays after ``iterations`` samples (fewer once ``stop()`` says so).

    ``state`` is read only through ``s.determinize``: every sample, the root's too, is drawn from the
    seat's view. With a single legal command there is nothing to search.
    """
    first = s.determinize(state, seat, rng)
    legal = s.game.legal_commands(first, seat)
    if len(legal) == 1:
        return legal[0]
    root = _Node(seat)
    for i in range(iterations):
        if stop is not None and stop():
            break
        world = first if i == 0 else s.determinize(state, seat, rng)
        path, reached = _descend(s, root, world, rng)
        values = _rollout(s, reached, rng)
        root.visits += 1
        for node in path[1:]:
            node.visits += 1
            node.total += values[node.actor]
            node.squares += values[node.actor] ** 2
    return _choice(s, root, first, seat, legal, rng)


def _choice(s: Searcher, root: _Node, first: Any, seat: Seat, legal: list[Any], rng: Rng) -> Any:
    """The guide's command, unless another did better by more than ``margin`` plus the noise of both
    means (one standard error of their difference): a few hundred rollouts are noisy, and a deviation
    from a sound heuristic that noise alone explains loses more games than it wins."""
    anchor = s.guide(first, seat, rng)
    held = root.children.get((seat, anchor))
    if held is None or held.visits < 2:  # the guide chose otherwise this time: the most visited
        return max(legal, key=lambda c: getattr(root.children.get((seat, c)), "visits", 0))
    best, best_gain = anchor, 0.0
    for command in legal:
        node = root.children.get((seat, command))
        if node is None or node.visits < 2 or command == anchor:
            continue
        gain = node.mean() - held.mean() - s.margin - math.sqrt(node.error() + held.error())
        if gain > best_gain:
            best, best_gain = command, gain
    return best
