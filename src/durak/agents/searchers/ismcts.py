"""The ``ismcts`` agent: Single-Observer ISMCTS (Cowling, Powley & Whitehouse, IEEE TCIAIG
2012), with a progressive bias (Chaslot et al., 2008) toward the greedy move, or guided by
a network (``prior=``, ``value=``, after AlphaZero; ``batch=N`` values N leaves per network
call, :class:`~durak.search.LeafBatch`), an exact endgame (``endgame=N``: the
move of :mod:`durak.agents.solver` once every card is known) and a model of the other
players at their nodes (``opponent=...``, :mod:`durak.agents.inference.opponents`, or any
agent by its spec, :mod:`durak.agents.inference.agent_model`: ISMCTS-BR,
:mod:`durak.agents.searchers.exploiter`).  With ``opponent=auto,respond=N``, once the
posterior over the candidate agents is sure of each opponent, the best response by search
to that candidate (``pomcp``, :mod:`durak.agents.searchers.best_response`) decides instead.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import partial

import attrs

from durak.agents.base import SpecError, register
from durak.agents.guides import Guidance
from durak.agents.heuristics import evals
from durak.agents.inference.belief import InferredGame
from durak.agents.inference.inferring import (
    GUIDED,
    MODEL_HELP,
    Inferring,
    Scores,
    inference_last,
)
from durak.agents.inference.opponents import MODELS, by_mover, most_likely
from durak.agents.interface.analysis import Analysis, AnalysisKind, forced, searched, spec_of
from durak.agents.searchers.best_response import BestResponseAgent
from durak.agents.searchers.options import (
    BIAS_HELP,
    C_HELP,
    ROLLOUTS,
    SECONDS_HELP,
    SIMULATION_HELP,
    searched_game,
)
from durak.agents.solver import solved_result
from durak.agents.specs import GUIDE, model_or_spec, param
from durak.rules import Action, GameState, Observation, legal_actions
from durak.search import (
    SQRT2,
    BatchEvaluator,
    Budget,
    Evaluator,
    Heuristic,
    LeafBatch,
    Prior,
    RolloutPolicy,
    SearchError,
    SearchResult,
    TreeSettings,
    ismcts,
)


def _uniform_prior(state: GameState, actions: Sequence[Action]) -> list[float]:
    """A uniform prior: stands for a guide's prior where only its presence matters."""
    return [1.0 / len(actions)] * len(actions)


def _uniform(state: GameState, rng: random.Random) -> Action:
    """A uniformly random legal action, drawn as the search's own random playout does."""
    legal = legal_actions(state)
    return legal[int(rng.random() * len(legal))]


#: What ``opponent`` holds: ``self`` (no model of its own), a model's name or an agent spec.
_OPPONENT = model_or_spec("self", MODELS)


@attrs.frozen
class IsmctsAgent(Inferring):
    """SO-ISMCTS with ``limit`` iterations, a new determinization each, and a progressive
    ``bias`` toward the greedy move; or, with a ``prior`` guide, PUCT with that prior
    (no bias), and with a ``value`` guide, its values at the leaves in place of rollouts
    (:mod:`durak.agents.guides`).  With ``endgame`` > 0, a position in which every card is
    known and only two players hold cards (any number at the table) is played by the exact
    solver when it solves within that many nodes
    (:func:`~durak.agents.solver.solved_result`).  With ``opponent``, the other
    players' nodes take that model's prior (or its most likely move as the biased one)
    and rollout, the searcher's own nodes keep its own; with ``infer``, the
    determinizations are drawn from the worlds weighed by the opponents' moves
    (:class:`~durak.agents.inference.inferring.Inferring`).  With ``batch`` > 1 (and a
    ``value`` guide), the search runs that many simulations at a time with a virtual loss
    and values their leaves in one call of the guide (:class:`~durak.search.LeafBatch`); 1
    is the one-at-a-time search."""

    limit: int = param(1000, "iterations", low=1, high=10**8)
    c: float = param(SQRT2, C_HELP + " (PUCT constant with a prior)", low=0, high=100)
    simulation: str = param("greedy", SIMULATION_HELP, choices=tuple(ROLLOUTS))
    bias: float | None = param(
        None, BIAS_HELP + " (default 20, or 0 with a prior)", low=0, high=1000
    )
    prior: str = param("none", "policy prior for PUCT: a guide (dmc), or none", holds=GUIDE)
    value: str = param("rollout", "leaf value: a guide (dmc), or rollout", holds=GUIDE)
    temperature: float = param(0.1, "softmax temperature of a guide's prior", low=1e-3, high=100)
    endgame: int = param(0, "node budget of the exact endgame solve (0: off)", low=0, high=10**9)
    nodes: int | None = param(
        None, "ceiling on states visited per decision (reproducible, unlike seconds)", low=1
    )
    seconds: float | None = param(None, SECONDS_HELP, low=0.001, high=3600)
    opponent: str = param(
        "self",
        "model of the other players, the prior (or biased move) and rollout at their nodes: "
        "self, " + MODEL_HELP,
        holds=_OPPONENT,
    )
    batch: int = param(
        1,
        "simulations whose leaves a value guide scores in one call (1: one at a time)",
        low=1,
        high=256,
    )
    respond: int = param(
        0,
        "with auto: once each opponent's posterior is sure of one scripted candidate, "
        "play pomcp's best response to it at this many simulations (0: off)",
        low=0,
        high=10**8,
    )
    name: str = "ismcts"
    #: The best responses of ``respond``, by candidate (built at first use).
    responders: dict[str, BestResponseAgent] = attrs.field(
        init=False, eq=False, repr=False, factory=dict
    )

    def __attrs_post_init__(self) -> None:
        if self.batch > 1 and self.value == "rollout":
            raise SpecError(
                "ismcts: batch > 1 needs a value guide (value=dmc): rollouts are not batched"
            )
        if self.respond and not self.auto():
            raise SpecError("ismcts: respond needs opponent=auto or infer=auto")
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
        values: BatchEvaluator[GameState] | None = None,
    ) -> TreeSettings[GameState, Action]:
        """The search's settings with these guides; the progressive bias is 20 by default,
        0 with a prior.  With ``batch`` > 1, ``values`` (the value guide over many states)
        values the leaves in batches in place of ``value``."""
        bias = (0.0 if prior is not None else 20.0) if self.bias is None else self.bias
        batch = None
        if self.batch > 1 and values is not None:
            batch, value = LeafBatch(size=self.batch, evaluate=values), None
        return TreeSettings(
            c=self.c,
            rollout=rollout,
            evaluate=value,
            heuristic=heuristic,
            bias=bias,
            prior=prior,
            stop_early=True,
            batch=batch,
        )

    def guide_names(self) -> set[str]:
        """The guides of ``prior``, ``value``, ``opponent`` and ``infer``."""
        wanted = super().guide_names() | ({self.prior, self.value} - {"none", "rollout"})
        return wanted | ({"dmc"} if self.opponent in GUIDED else set())

    def auto(self) -> bool:
        """Whether ``opponent`` or ``infer`` names the ``auto`` model."""
        return self.opponent == "auto" or super().auto()

    def model_options(self) -> dict[str, str]:
        """The options whose value is an agent spec: ``opponent`` and ``infer``."""
        own = {"opponent": self.opponent} if _OPPONENT.is_spec(self.opponent) else {}
        return {**own, **super().model_options()}

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The most visited root action (or the solved one in a known endgame)."""
        legal = observation.legal_actions
        if len(legal) == 1:
            return legal[0]
        return self.decide(observation, rng)[1].action

    def analyse(self, observation: Observation, rng: random.Random) -> Analysis:
        """The search behind :meth:`act` (the same action for an equal ``rng``): each root
        action's visit share and mean return, or, in a solved endgame, the exact value of
        the solved move (:mod:`durak.agents.interface.analysis`)."""
        spec = spec_of(self)
        if len(observation.legal_actions) == 1:
            return forced(observation, spec, "search")
        kind, result = self.decide(observation, rng)
        return searched(observation, spec, kind, result)

    def decide(
        self, observation: Observation, rng: random.Random
    ) -> tuple[AnalysisKind, SearchResult[Action]]:
        """The exact solve of a known endgame (``endgame`` > 0), else the search, of a
        decision with a choice; and which it was."""
        if self.endgame:
            solved = solved_result(observation, rng, nodes=self.endgame)
            if solved is not None:
                return "solve", solved
        target = self.sure_opponent(observation, rng) if self.respond else None
        if target is not None:
            log = self.logs[observation.player]
            return "search", self.responder(target).search(observation, rng, log)
        return "search", self.search(observation, rng)

    def responder(self, target: str) -> BestResponseAgent:
        """The best response of ``respond`` to the candidate ``target``, with this agent's
        guides and budget limits."""
        if target not in self.responders:
            self.responders[target] = BestResponseAgent(
                target=target,
                limit=self.respond,
                prior=self.prior,
                value=self.value,
                temperature=self.temperature,
                nodes=self.nodes,
                seconds=self.seconds,
            )
        return self.responders[target]

    def search(self, observation: Observation, rng: random.Random) -> SearchResult[Action]:
        """The SO-ISMCTS search of ``observation``'s decision with this agent's settings."""
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
        values = guidance[self.value].values if self.value in guidance else None
        rollout = None if value is not None else ROLLOUTS[self.simulation]
        heuristic: Heuristic[GameState, Action] = evals.greedy_heuristic
        if self.opponent != "self":
            model = self.model(self.opponent, caches.get("dmc", {}), rng, observation)
            me = observation.player
            if prior is not None:
                prior = by_mover(me, prior, model.policy)
            else:
                heuristic = by_mover(me, heuristic, partial(most_likely, model))
            if value is None:
                rollout = by_mover(me, rollout or _uniform, model.rollout)
        belief = self.belief(observation, rng, caches.get("dmc", {}))
        game = searched_game(observation)
        if belief is not None:
            game = InferredGame(game.rules, game.open_world, belief=belief)
        return ismcts(
            game,
            observation,
            player=observation.player,
            budget=budget,
            rng=rng,
            settings=self.tree_settings(prior, value, rollout, heuristic, values),
        )


register(
    "ismcts",
    IsmctsAgent,
    "single-observer ISMCTS (Cowling et al. 2012)",
    inference_last(IsmctsAgent),
)
