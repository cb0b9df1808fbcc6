"""Search bots for every game: determinized Monte Carlo search over a seat's information set.

``paired.search`` is the entry: a tree (``mcts.search``) or, for a game that gives a shortlist, a paired
comparison of its heuristic's candidates on common samples (``paired.paired_search``). Each game's
``bots.py`` gives it a ``Searcher``: how to sample the facts its seat cannot see (a determinization from
the seat's view), a rollout policy built on the game's greedy heuristic and a value of an unfinished game.
Pure: the budget is a count of iterations, and a deadline reaches it only as an injected ``stop`` callable
(the service owns the clock).
"""

from domain.search.mcts import Searcher, mostly, softmax
from domain.search.paired import search, strong_bot

__all__ = ["Searcher", "mostly", "search", "softmax", "strong_bot"]
