"""Search agents: minimax, MCTS, max^n and ISMCTS (the exact solver: :mod:`durak.agents.solver`).

They are thin wrappers over :mod:`durak.search` (which never sees these agents):

* ``minimax`` and ``mcts`` are Zarlykov's (2023, sections 4.3 and 4.4) agents: a
  perfect-information search in each of ``samples`` worlds drawn from the observation (his
  "closed world sampling", PIMC after Long et al., AAAI 2010), combined by vote or mean;
* ``maxn`` is Van Khan's (2024) max^n agent for 3-6 players, with the same sampling;
* ``ismcts`` is Single-Observer ISMCTS (Cowling, Powley & Whitehouse, 2012);
* ``mcts`` and ``ismcts`` add a progressive bias (Chaslot et al., 2008) toward the greedy
  move (:func:`~durak.agents.evals.greedy_heuristic`), which measured clearly stronger
  against ``greedy`` (``docs/agents.md``);
* ``mcts:talon=sampled`` fixes only the hands in each world and draws the talon order anew
  at every iteration, so future draws are chance events rather than known cards;
* ``ismcts:endgame=N`` plays the exact move of :mod:`durak.agents.solver` once every card
  is known;
* ``infer=...`` (every agent above) weighs the sampled worlds by the
  opponents' moves so far under an opponent model (:mod:`durak.agents.inference`), and
  ``ismcts:opponent=...`` models the other players by such a model at their nodes
  (:mod:`durak.agents.opponents`).

Every agent sees only the :class:`~durak.rules.Observation`, answers a forced decision (one
legal action) at once, ends a tree search as soon as its decision is settled, draws
randomness only from the ``rng`` it is given, and takes an optional time budget per decision
(``seconds``); iteration and node budgets keep play reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from functools import partial

import attrs

from durak.agents import evals
from durak.agents.base import SpecError, check_bound, register
from durak.agents.guides import Guidance
from durak.agents.inference import InferredGame
from durak.agents.inferring import GUIDED, Inferring, Scores
from durak.agents.opponents import MODELS, by_mover, most_likely
from durak.agents.solver import solved_move
from durak.agents.specs import Param, param, params_of
from durak.rules import Action, DurakGame, GameState, Observation, Rules, legal_actions, observe
from durak.search import (
    SQRT2,
    Budget,
    Combine,
    Evaluator,
    Heuristic,
    Prior,
    RolloutPolicy,
    SearchError,
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


ROLLOUTS: dict[str, RolloutPolicy[GameState, Action] | None] = {
    "random": None,  # the search's own uniform playout, which reuses each node's actions
    "greedy": evals.greedy_rollout,
}


#: The agents' ``combine`` parameter values (checked by the registry) as PIMC's.
_COMBINE: dict[str, Combine] = {"vote": "vote", "mean": "mean", "visits": "visits"}


# Help texts shared by several agents' parameters.
_C = "UCB exploration constant"
_SIMULATION = "rollout policy"
_BIAS = "progressive bias toward the greedy move"
_EVAL = "frontier evaluation"
_SECONDS = "time budget per decision (off: not reproducible)"


def _game(observation: Observation) -> DurakGame:
    return DurakGame(observation.rules, observation.visibility)


def _per_world(seconds: float | None, samples: int) -> float | None:
    return None if seconds is None else seconds / samples


def _uniform_prior(state: GameState, actions: Sequence[Action]) -> list[float]:
    """A uniform prior: stands for a guide's prior where only its presence matters."""
    return [1.0 / len(actions)] * len(actions)


def _uniform(state: GameState, rng: random.Random) -> Action:
    """A uniformly random legal action, drawn as the search's own random playout does."""
    legal = legal_actions(state)
    return legal[int(rng.random() * len(legal))]


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
        _game(observation),
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
    c: float = param(SQRT2, _C, low=0, high=100)
    simulation: str = param("greedy", _SIMULATION, choices=tuple(ROLLOUTS))
    samples: int = param(6, "worlds sampled per decision", low=1, high=10**4)
    combine: str = param("vote", "how worlds are combined", choices=("vote", "visits"))
    bias: float = param(30.0, _BIAS, low=0, high=1000)
    talon: str = param(
        "sampled",
        "a world's talon order: fixed, or drawn anew each iteration",
        choices=("fixed", "sampled"),
    )
    seconds: float | None = param(None, _SECONDS, low=0.001, high=3600)
    name: str = "mcts"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The action most worlds chose (``vote``), or the most visited over all worlds."""
        game = _game(observation)
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
class IsmctsAgent(Inferring):
    """SO-ISMCTS with ``limit`` iterations, a new determinization each, and a progressive
    ``bias`` toward the greedy move; or, with a ``prior`` guide, PUCT with that prior
    (no bias), and with a ``value`` guide, its values at the leaves in place of rollouts
    (:mod:`durak.agents.guides`).  With ``endgame`` > 0, a two-player position in which
    every card is known is played by the exact solver when it solves within that many
    nodes (:func:`solved_move`).  With ``opponent``, the other players' nodes take that
    model's prior (or its most likely move as the biased one) and rollout, the searcher's
    own nodes keep its own; with ``infer``, the determinizations are drawn from the worlds
    weighed by the opponents' moves (:class:`~durak.agents.inferring.Inferring`)."""

    limit: int = param(1000, "iterations", low=1, high=10**8)
    c: float = param(SQRT2, _C + " (PUCT constant with a prior)", low=0, high=100)
    simulation: str = param("greedy", _SIMULATION, choices=tuple(ROLLOUTS))
    bias: float | None = param(None, _BIAS + " (default 20, or 0 with a prior)", low=0, high=1000)
    prior: str = param("none", "policy prior for PUCT: a guide (dmc), or none")
    value: str = param("rollout", "leaf value: a guide (dmc), or rollout")
    temperature: float = param(0.1, "softmax temperature of a guide's prior", low=1e-3, high=100)
    endgame: int = param(0, "node budget of the exact endgame solve (0: off)", low=0, high=10**9)
    nodes: int | None = param(
        None, "ceiling on states visited per decision (reproducible, unlike seconds)", low=1
    )
    seconds: float | None = param(None, _SECONDS, low=0.001, high=3600)
    opponent: str = param(
        "self",
        "model of the other players: the prior (or biased move) and rollout at their nodes",
        choices=("self", *MODELS),
    )
    name: str = "ismcts"

    def __attrs_post_init__(self) -> None:
        # The search's own check of its settings, with a stand-in for the guide's prior.
        try:
            prior = None if self.prior == "none" else _uniform_prior
            self.tree_settings(prior, None, ROLLOUTS[self.simulation], evals.greedy_heuristic)
        except SearchError as e:
            raise SpecError(f"ismcts: {e}") from None
        super().__attrs_post_init__()

    def tree_settings(
        self,
        prior: Prior[GameState, Action] | None,
        value: Evaluator[GameState] | None,
        rollout: RolloutPolicy[GameState, Action] | None,
        heuristic: Heuristic[GameState, Action],
    ) -> TreeSettings[GameState, Action]:
        """The search's settings with these guides; the progressive bias is 20 by default,
        0 with a prior."""
        bias = (0.0 if prior is not None else 20.0) if self.bias is None else self.bias
        return TreeSettings(
            c=self.c,
            rollout=rollout,
            evaluate=value,
            heuristic=heuristic,
            bias=bias,
            prior=prior,
            stop_early=True,
        )

    def guide_names(self) -> set[str]:
        """The guides of ``prior``, ``value``, ``opponent`` and ``infer``."""
        wanted = super().guide_names() | ({self.prior, self.value} - {"none", "rollout"})
        return wanted | ({"dmc"} if self.opponent in GUIDED else set())

    def check_rules(self, rules: Rules) -> None:
        """:class:`SpecError` unless every guide can score ``rules``' games (a network
        is made for one variant), as :func:`make_agent` checks the agent it builds."""
        for guide in self.guides.values():
            check_bound(guide, rules, "ismcts")

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The most visited root action (or the solved one in a known endgame)."""
        legal = observation.legal_actions
        if len(legal) == 1:
            return legal[0]
        if self.endgame:
            solved = solved_move(observation, rng, nodes=self.endgame)
            if solved is not None:
                return solved
        budget = Budget(iterations=self.limit, nodes=self.nodes, seconds=self.seconds)
        # One cache per guide and decision: a state's prior, value, opponent model and
        # inference share one scoring.
        caches: dict[str, Scores] = {name: {} for name in self.guides}
        guidance = {
            name: Guidance(g, self.temperature, caches[name]) for name, g in self.guides.items()
        }
        prior: Prior[GameState, Action] | None = None
        if self.prior in guidance:
            prior = guidance[self.prior].prior
        value = guidance[self.value].value if self.value in guidance else None
        rollout = None if value is not None else ROLLOUTS[self.simulation]
        heuristic: Heuristic[GameState, Action] = evals.greedy_heuristic
        if self.opponent != "self":
            model = self.model(self.opponent, caches.get("dmc", {}))
            me = observation.player
            if prior is not None:
                prior = by_mover(me, prior, model.policy)
            else:
                heuristic = by_mover(me, heuristic, partial(most_likely, model))
            if value is None:
                rollout = by_mover(me, rollout or _uniform, model.rollout)
        belief = self.belief(observation, rng, caches.get("dmc", {}))
        game = _game(observation)
        if belief is not None:
            game = InferredGame(game.rules, game.open_world, belief=belief)
        return ismcts(
            game,
            observation,
            player=observation.player,
            budget=budget,
            rng=rng,
            settings=self.tree_settings(prior, value, rollout, heuristic),
        ).action


@attrs.frozen
class MinimaxAgent(Inferring):
    """Depth-limited alpha-beta (transposition table, iterative deepening) per world."""

    depth: int = param(4, "plies", low=1, high=64)
    eval: str = param("basic", _EVAL, choices=tuple(EVALS))
    samples: int = param(10, "worlds sampled per decision", low=1, high=10**4)
    combine: str = param("vote", "how worlds are combined", choices=("vote", "mean"))
    seconds: float | None = param(None, _SECONDS, low=0.001, high=3600)
    name: str = "minimax"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The PIMC decision over ``samples`` worlds."""
        game = _game(observation)
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
    seconds: float | None = param(None, _SECONDS, low=0.001, high=3600)
    name: str = "maxn"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The PIMC decision over ``samples`` worlds."""
        game = _game(observation)
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


def _inference_last(cls: type) -> tuple[Param, ...]:
    """The spec parameters of ``cls``, its own first and the inherited inference ones
    after (attrs lists a base class's fields first)."""
    shared = {p.name for p in params_of(Inferring)}
    params = params_of(cls)
    return (
        *(p for p in params if p.name not in shared),
        *(p for p in params if p.name in shared),
    )


for _name, _cls, _text in (
    ("mcts", MctsAgent, "Zarlykov's MCTS: UCT in sampled worlds, by vote or visits"),
    ("ismcts", IsmctsAgent, "single-observer ISMCTS (Cowling et al. 2012)"),
    ("minimax", MinimaxAgent, "Zarlykov's minimax: alpha-beta in sampled worlds"),
    ("maxn", MaxnAgent, "Van Khan's max^n with shallow pruning, in sampled worlds"),
):
    register(_name, _cls, _text, _inference_last(_cls))
