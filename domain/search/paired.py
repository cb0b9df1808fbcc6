"""Paired Monte Carlo at the root: a few heuristic candidates compared on common samples.

With the budget a move has (40 to a few hundred playouts), a tree spreads its playouts over children
whose means differ less than their noise: Manila's three dice rolls a voyage, El Capitán's card draws,
an opponent's tie broken one way or the other move a playout's value more than the choice of one
command does. So the searching seat compares only its heuristic's shortlist (``Searcher.shortlist``, the
guide's command first), each *on the same samples*: one determinized world and one pair of random
streams (the game's chance, the playout policy's) per round, every candidate played from it. What differs
between two candidates' values in a round is then mostly the command itself, and the choice rests on the
mean of the paired differences and their standard error (common random numbers; Kocsis and Szepesvári's
bandits would spend the same playouts on the noise).

Playouts follow the guide (the greedy bot) for every seat, the searching seat's later moves included,
until ``Searcher.horizon`` or ``rollout_depth``; the value is ``Searcher.value`` or the outcome. The guide's
command is kept unless another beats it by ``margin`` plus one standard error of the paired difference.

Honest as the tree search: each world comes from ``Searcher.determinize`` (the seat's view), and the
random streams from the bot's own generator.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from domain.engine import Bot, Rng, RuleViolation, Seat
from domain.search import mcts
from domain.search.mcts import Searcher, outcome_value


def _playout(s: Searcher, state: Any, chance: Rng, policy: Rng) -> Sequence[float]:
    """Every seat plays the guide from ``state``: the game's draws from ``chance``, the guide's ties from
    ``policy``, so that two candidates' playouts roll the same dice in the same order."""
    game, start = s.game, state
    for _ in range(s.rollout_depth):
        done = outcome_value(game, state)
        if done is not None:
            return done
        if s.horizon is not None and s.horizon(start, state):
            break
        acting = sorted(game.to_act(state))
        seat = acting[0] if len(acting) == 1 else policy.choice(acting)
        try:
            state = game.play(state, seat, s.guide(state, seat, policy), chance)[1]
        except RuleViolation:  # a heuristic's slip in a sampled world: value the game where it stands
            break
    return outcome_value(game, state) or s.value(state)


def _round(
    s: Searcher, world: Any, seat: Seat, shortlist: list[Any], rng: Rng, stop: Callable[[], bool] | None
) -> list[float | None] | None:
    """Each candidate's value in one world, all with the same two random streams (``None`` for one the
    sample refuses); ``None`` for the round once ``stop()`` says so before a playout: a deadline is kept
    to a playout, and a round cut short is not compared."""
    key = rng.randint(0, (1 << 62) - 1).to_bytes(8, "big")
    values: list[float | None] = []
    for command in shortlist:
        if stop is not None and stop():
            return None
        chance, policy = Rng(material=b"chance" + key), Rng(material=b"policy" + key)
        try:
            after = s.game.play(world, seat, command, chance)[1]
        except RuleViolation:  # not legal in this sample (a fact the seat cannot see decides it)
            values.append(None)
            continue
        values.append(_playout(s, after, chance, policy)[seat])
    return values


def _gain(rounds: list[list[float | None]], k: int) -> tuple[float, float, int]:
    """Candidate ``k``'s paired difference to the guide's (candidate 0): mean, standard error, rounds."""
    diffs = [b - a for r in rounds if (a := r[0]) is not None and (b := r[k]) is not None]
    n = len(diffs)
    if n < 2:
        return 0.0, math.inf, n
    mean = sum(diffs) / n
    spread = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean, math.sqrt(spread / n), n


def _shortlist(s: Searcher, first: Any, seat: Seat, legal: list[Any], rng: Rng) -> list[Any]:
    assert s.shortlist is not None
    anchor = s.guide(first, seat, rng)
    ranked = [c for c in s.shortlist(first, seat, legal) if c != anchor and c in legal]
    return [anchor, *list(dict.fromkeys(ranked))[: s.candidates - 1]]


def paired_search(
    s: Searcher, state: Any, seat: Seat, rng: Rng, iterations: int, stop: Callable[[], bool] | None = None
) -> Any:
    """The command ``seat`` plays after about ``iterations`` playouts (fewer once ``stop()``, asked
    before each playout, says so), spread evenly over the shortlist, a round of samples at a time."""
    first = s.determinize(state, seat, rng)
    legal = s.game.legal_commands(first, seat)
    if len(legal) == 1:
        return legal[0]
    shortlist = _shortlist(s, first, seat, legal, rng)
    if len(shortlist) == 1:
        return shortlist[0]
    rounds: list[list[float | None]] = []
    for i in range(max(2, iterations // len(shortlist))):
        world = first if i == 0 else s.determinize(state, seat, rng)
        values = _round(s, world, seat, shortlist, rng, stop)
        if values is None:
            break
        rounds.append(values)
    best, best_gain = shortlist[0], 0.0
    for k in range(1, len(shortlist)):
        mean, error, n = _gain(rounds, k)
        if n >= 2 and mean - s.margin - error > best_gain:
            best, best_gain = shortlist[k], mean - s.margin - error
    return best


def search(
    s: Searcher, state: Any, seat: Seat, rng: Rng, iterations: int, stop: Callable[[], bool] | None = None
) -> Any:
    """The search ``s`` asks for: paired comparison of its shortlist if it has one, else the tree."""
    if s.shortlist is not None:
        return paired_search(s, state, seat, rng, iterations, stop)
    return mcts.search(s, state, seat, rng, iterations, stop)


def strong_bot(s: Searcher, iterations: int) -> Bot:
    """A ``Bot`` (``(state, seat, rng) -> command``) searching ``iterations`` playouts a move."""

    def choose(state: Any, seat: Seat, rng: Rng) -> Any:
        return search(s, state, seat, rng, iterations)

    return choose
