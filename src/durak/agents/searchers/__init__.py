"""Search agents: minimax, MCTS, max^n
(:mod:`~durak.agents.searchers.sampled_worlds`: a search per sampled world) and ISMCTS
(:mod:`~durak.agents.searchers.ismcts`); the exact solver is :mod:`durak.agents.solver`.

They are thin wrappers over :mod:`durak.search` (which never sees these agents):

* ``minimax`` and ``mcts`` are Zarlykov's (2023, sections 4.3 and 4.4) agents: a
  perfect-information search in each of ``samples`` worlds drawn from the observation (his
  "closed world sampling", PIMC after Long et al., AAAI 2010), combined by vote or mean;
* ``maxn`` is Van Khan's (2024) max^n agent for 3-6 players, with the same sampling;
* ``ismcts`` is Single-Observer ISMCTS (Cowling, Powley & Whitehouse, 2012);
* ``mcts`` and ``ismcts`` add a progressive bias (Chaslot et al., 2008) toward the greedy
  move (:func:`~durak.agents.heuristics.evals.greedy_heuristic`), which measured clearly stronger
  against ``greedy`` (``docs/agents.md``);
* ``mcts:talon=sampled`` fixes only the hands in each world and draws the talon order anew
  at every iteration, so future draws are chance events rather than known cards;
* ``ismcts:endgame=N`` plays the exact move of :mod:`durak.agents.solver` once every card
  is known;
* ``infer=...`` (every agent above) weighs the sampled worlds by the
  opponents' moves so far under an opponent model (:mod:`durak.agents.inference`), and
  ``ismcts:opponent=...`` models the other players by such a model at their nodes
  (:mod:`durak.agents.inference.opponents`), or by any agent given by its spec
  (:mod:`durak.agents.inference.agent_model`); with the same agent as both, ``ismcts``
  is ISMCTS-BR, an approximate best response to it (:mod:`~durak.agents.searchers.exploiter`);
* ``pomcp`` is a best response by search to a target agent that converges with its
  budget (:mod:`~durak.agents.searchers.best_response`).

Every agent sees only the :class:`~durak.rules.Observation`, answers a forced decision (one
legal action) at once, ends a tree search as soon as its decision is settled, draws
randomness only from the ``rng`` it is given, and takes an optional time budget per decision
(``seconds``); iteration and node budgets keep play reproducible.
"""

from durak.agents.searchers import (  # importing them registers the agents
    best_response,
    ismcts,
    sampled_worlds,
)

__all__ = ["best_response", "ismcts", "sampled_worlds"]
