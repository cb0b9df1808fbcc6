"""Search bots for every game: determinized Monte Carlo tree search over a seat's information set.

``mcts.search`` is the one algorithm; each game's ``bots.py`` gives it a ``Searcher``: how to sample the
facts its seat cannot see (a determinization from the seat's view), a rollout policy built on the game's
greedy heuristic and a value of an unfinished game. Pure: the budget is a count of iterations, and a
deadline reaches it only as an injected ``stop`` callable (the service owns the clock).
"""

from domain.search.mcts import Searcher, mostly, search, softmax, strong_bot

__all__ = ["Searcher", "mostly", "search", "softmax", "strong_bot"]
