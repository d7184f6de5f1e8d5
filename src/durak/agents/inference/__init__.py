"""Policy-based inference: sampled worlds weighted by the opponents' moves so far.

The package: the opponent models (:mod:`~durak.agents.inference.opponents`), the public
record and the pasts it allows (:mod:`~durak.agents.inference.record`), the weighed
worlds (:mod:`~durak.agents.inference.belief`) and the agents' ``infer=...`` options
(:mod:`~durak.agents.inference.inferring`).

After Rebstock, Solinas, Buro & Sturtevant, "Policy Based Inference in Trick-Taking Card
Games" (IEEE CoG 2019): a world that makes the opponents' observed moves likely under a
model of them (:mod:`~durak.agents.inference.opponents`) is worth more than one that makes them
unlikely.  Each decision weighs ``candidates`` worlds and the search then draws its worlds
from them in proportion to their weights (sampling importance resampling).

The method, and what it assumes:

* **Prior.**  :func:`~durak.rules.sample_world` draws the current world ``W`` with the exact
  odds of the table's knowledge: every deck order consistent with what the player has seen
  counts once (the players' choices not modelled).
* **Past.**  The likelihood needs each opponent's information state when it moved, and its
  hand then differs from its hand now.  Every action is played face up, so given ``W`` the
  past is fixed up to one thing: which of an opponent's cards it held at the start of the
  record (the deal) and which it drew at each refill.  Its cards from those sources are the
  ones it played before anyone else did, plus those in its hand in ``W`` never seen on the
  table; each must have been in hand before it was first played, and the counts it drew are
  public.  :meth:`~durak.agents.inference.record.PublicRecord.past` draws one such
  assignment uniformly (cards in order of their deadline, each to a free slot before it:
  the choices are nested, so every assignment is equally likely), and, for the trumps
  known to have been in the talon, accepts it with the weight the deal's record gives their
  number in the start hand (:mod:`durak.rules.origins`; at a deal: none).  So
  ``(W, past)`` is uniform over the deck orders consistent with the record.  The past gives
  the start state; the public actions, replayed on it by the engine, give every later
  state, and each opponent's information state is its observation of that state.
* **Likelihood.**  The product, over every opponent move of the record with a choice, of
  the model's probability of that move; the player's own moves count the same in every
  world and are left out.  The weights are this likelihood (the prior is the proposal).
  If every candidate has weight 0 (a model with ``epsilon = 0`` that never plays the
  observed moves), the candidates are weighed equally.
* **Chain.**  Weighed candidates drawn from the prior are few where the posterior is
  narrow: after a dozen opponent choices against ``greedy``, the best of 64 is often
  orders of magnitude less likely than the true deal.  With ``chain=N`` the belief is
  instead the ``N`` worlds of a Metropolis-Hastings chain over the deals
  (:class:`~durak.agents.inference.belief.DealChain`): from a candidate drawn by weight,
  each step swaps two cards whose places the observer cannot know (one of them an
  opponent's start card or a card it drew) and keeps the swap with probability
  ``min(1, L' / L)``; a deal the record rules out weighs 0.  Every deck order consistent
  with the record being equally likely, its stationary law is the same posterior.
* **Record.**  The agent hears the game through the :class:`~durak.agents.Watcher` hooks, its
  own observations only.  Without a record that ends at the observation it must decide on
  (``act`` called outside a game that told it the moves), it samples without inference.
  In the open world every hand is shown and the opponents never see the talon, so every
  world is equally likely: no inference is done there either.

The cost is one replay of the record per candidate and one model call per opponent
choice in it; the model's calls are cached per decision, and a network scores all the
candidates' choices in one pass (``benchmarks/infer_cost.py``).
"""
