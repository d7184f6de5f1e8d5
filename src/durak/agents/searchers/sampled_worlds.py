"""The agents that search each sampled world on its own (PIMC): minimax, MCTS and max^n.

Each decision draws ``samples`` worlds from the observation (Zarlykov's "closed world
sampling", PIMC after Long et al., AAAI 2010; :func:`durak.search.pimc`), searches each as
a perfect-information game, and combines the decisions:

* :class:`MinimaxAgent` (``minimax``) and :class:`MctsAgent` (``mcts``): Zarlykov's (2023,
  sections 4.3 and 4.4) agents, combined by vote or mean; ``mcts`` adds a progressive bias
  (Chaslot et al., 2008) toward the greedy move, and ``mcts:talon=sampled`` fixes only the
  hands in each world and draws the talon order anew at every iteration, so future draws
  are chance events rather than known cards;
* :class:`MaxnAgent` (``maxn``): Van Khan's (2024) max^n agent for 3-6 players, with the
  same sampling.

One tree over the information sets instead of one search per world is ISMCTS
(:mod:`durak.agents.searchers.ismcts`).
"""

from __future__ import annotations

import random
from collections.abc import Callable

import attrs

from durak.agents.base import register
from durak.agents.heuristics import evals
from durak.agents.inference.inferring import Inferring, inference_last
from durak.agents.searchers.options import (
    BIAS_HELP,
    C_HELP,
    ROLLOUTS,
    SECONDS_HELP,
    SIMULATION_HELP,
    searched_game,
)
from durak.agents.specs import param
from durak.rules import Action, DurakGame, GameState, Observation, observe
from durak.search import (
    SQRT2,
    Budget,
    Combine,
    SearchResult,
    TreeSettings,
    alphabeta,
    ismcts,
    maxn,
    mcts,
    pimc,
)

EVALS: dict[str, evals.StateEval] = {
    "basic": evals.basic,
    "cards": evals.card_count,
    "playout": evals.playout,
}


#: The agents' ``combine`` parameter values (checked by the registry) as PIMC's.
_COMBINE: dict[str, Combine] = {"vote": "vote", "mean": "mean", "visits": "visits"}

_EVAL = "frontier evaluation"


def _per_world(seconds: float | None, samples: int) -> float | None:
    return None if seconds is None else seconds / samples


def _sampled(
    agent: Inferring,
    observation: Observation,
    rng: random.Random,
    samples: int,
    combine: str,
    search: Callable[[GameState, random.Random], SearchResult[Action]],
) -> Action:
    """PIMC over ``samples`` worlds (drawn from the agent's inferred belief with ``infer``);
    a forced move is returned at once."""
    legal = observation.legal_actions
    if len(legal) == 1:
        return legal[0]
    belief = agent.belief(observation, rng, {})
    return pimc(
        searched_game(observation),
        observation,
        worlds=samples,
        search=search,
        combine=_COMBINE[combine],
        rng=rng,
        sample=None if belief is None else belief.sample,
    ).action


@attrs.frozen
class MctsAgent(Inferring):
    """UCT in each of ``samples`` sampled worlds (``limit`` iterations each), with a
    progressive ``bias`` toward the greedy move, combined by vote or by summed root visits;

    ``talon`` says what a world fixes (with full information the talon order is known, and
    every world fixes it).  With ``"fixed"`` (Zarlykov's determinization) the
    world fixes the hands *and* the talon order, so the tree plans with future draws it
    cannot know.  With ``"sampled"`` it fixes only the hands: the draws are chance events,
    and each iteration draws a new talon order, so the tree grows one branch per draw
    outcome it meets (UCT with sampled chance nodes; it is SO-ISMCTS of the world's
    open-hand observation, whose only hidden part is the talon).
    """

    limit: int = param(300, "iterations per world", low=1, high=10**7)
    c: float = param(SQRT2, C_HELP, low=0, high=100)
    simulation: str = param("greedy", SIMULATION_HELP, choices=tuple(ROLLOUTS))
    samples: int = param(6, "worlds sampled per decision", low=1, high=10**4)
    combine: str = param("vote", "how worlds are combined", choices=("vote", "visits"))
    bias: float = param(30.0, BIAS_HELP, low=0, high=1000)
    talon: str = param(
        "sampled",
        "a world's talon order: fixed, or drawn anew each iteration",
        choices=("fixed", "sampled"),
    )
    seconds: float | None = param(None, SECONDS_HELP, low=0.001, high=3600)
    name: str = "mcts"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The action most worlds chose (``vote``), or the most visited over all worlds."""
        game = searched_game(observation)
        budget = Budget(iterations=self.limit, seconds=_per_world(self.seconds, self.samples))
        settings: TreeSettings[GameState, Action] = TreeSettings(
            c=self.c,
            rollout=ROLLOUTS[self.simulation],
            heuristic=evals.greedy_heuristic,
            bias=self.bias,
            # Stopping a world early keeps its own choice but not its visit counts.
            stop_early=self.combine == "vote",
        )
        chance = DurakGame(observation.rules, open_world=True)  # hands seen, talon hidden

        def search(world: GameState, r: random.Random) -> SearchResult[Action]:
            if self.talon == "sampled" and observation.talon_order is None:
                return ismcts(
                    chance,
                    observe(world, observation.player, open_world=True),
                    player=observation.player,
                    budget=budget,
                    rng=r,
                    settings=settings,
                )
            return mcts(game, world, budget=budget, rng=r, settings=settings)

        return _sampled(self, observation, rng, self.samples, self.combine, search)


@attrs.frozen
class MinimaxAgent(Inferring):
    """Depth-limited alpha-beta (transposition table, iterative deepening) per world."""

    depth: int = param(4, "plies", low=1, high=64)
    eval: str = param("basic", _EVAL, choices=tuple(EVALS))
    samples: int = param(10, "worlds sampled per decision", low=1, high=10**4)
    combine: str = param("vote", "how worlds are combined", choices=("vote", "mean"))
    seconds: float | None = param(None, SECONDS_HELP, low=0.001, high=3600)
    name: str = "minimax"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The PIMC decision over ``samples`` worlds."""
        game = searched_game(observation)
        budget = Budget(seconds=_per_world(self.seconds, self.samples))
        evaluate = EVALS[self.eval]
        all_values = self.combine == "mean"

        def search(world: GameState, _: random.Random) -> SearchResult[Action]:
            return alphabeta(
                game,
                world,
                depth=self.depth,
                evaluate=evaluate,
                budget=budget,
                root_values=all_values,
            )

        return _sampled(self, observation, rng, self.samples, self.combine, search)


@attrs.frozen
class MaxnAgent(Inferring):
    """Depth-limited max^n with shallow pruning per world (Van Khan), by vote; or, with
    ``paranoid``, the paranoid reduction (Sturtevant & Korf 2000: every other player
    minimises this one's payoff), searched by alpha-beta."""

    depth: int = param(3, "plies", low=1, high=64)
    # Van Khan's card count left it the durak more often than ``lowest`` (docs/agents.md).
    eval: str = param("playout", _EVAL, choices=tuple(EVALS))
    samples: int = param(5, "worlds sampled per decision", low=1, high=10**4)
    paranoid: bool = param(False, "search the paranoid reduction instead of max^n")
    seconds: float | None = param(None, SECONDS_HELP, low=0.001, high=3600)
    name: str = "maxn"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The PIMC decision over ``samples`` worlds."""
        game = searched_game(observation)
        budget = Budget(seconds=_per_world(self.seconds, self.samples))
        evaluate = EVALS[self.eval]

        def search(world: GameState, _: random.Random) -> SearchResult[Action]:
            return maxn(
                game,
                world,
                depth=self.depth,
                evaluate=evaluate,
                budget=budget,
                bounds=game.payoff_bounds,
                paranoid=self.paranoid,
            )

        return _sampled(self, observation, rng, self.samples, "vote", search)


for _name, _cls, _text in (
    ("mcts", MctsAgent, "Zarlykov's MCTS: UCT in sampled worlds, by vote or visits"),
    ("minimax", MinimaxAgent, "Zarlykov's minimax: alpha-beta in sampled worlds"),
    ("maxn", MaxnAgent, "Van Khan's max^n with shallow pruning, in sampled worlds"),
):
    register(_name, _cls, _text, inference_last(_cls))
