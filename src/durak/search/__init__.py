"""Generic game search: alpha-beta, max^n, MCTS, PIMC and ISMCTS.

Every algorithm is written against the small game protocol of
:mod:`durak.search.protocol` and never imports the Durak rules; ``durak.rules.DurakGame``
adapts Durak to it.  Settings are keyword-only (the tree searches' in one frozen
:class:`TreeSettings` value), evaluation is passed in as callables, all randomness comes
from an explicit ``random.Random`` or seed, and every search returns a
:class:`SearchResult` with :class:`SearchStats`.  ``docs/search.md`` describes each one.
"""

from durak.search.arguments import SearchError, as_rng
from durak.search.budget import NO_LIMIT, Budget, BudgetExhausted
from durak.search.depthfirst.maxn import maxn
from durak.search.depthfirst.minimax import TranspositionTable, alphabeta, solve
from durak.search.ismcts import ismcts
from durak.search.mcts import MCTS, mcts, playout
from durak.search.pimc import Combine, WorldSearch, pimc
from durak.search.protocol import (
    BatchEvaluator,
    Evaluator,
    Game,
    Heuristic,
    ImperfectGame,
    MoveOrder,
    Prior,
    RolloutPolicy,
)
from durak.search.result import SearchResult, SearchStats
from durak.search.settings import SQRT2, LeafBatch, TreeSettings

__all__ = [
    "MCTS",
    "NO_LIMIT",
    "SQRT2",
    "BatchEvaluator",
    "Budget",
    "BudgetExhausted",
    "Combine",
    "Evaluator",
    "Game",
    "Heuristic",
    "ImperfectGame",
    "LeafBatch",
    "MoveOrder",
    "Prior",
    "RolloutPolicy",
    "SearchError",
    "SearchResult",
    "SearchStats",
    "TranspositionTable",
    "TreeSettings",
    "WorldSearch",
    "alphabeta",
    "as_rng",
    "ismcts",
    "maxn",
    "mcts",
    "pimc",
    "playout",
    "solve",
]
