"""The ``pomcp`` agent: a best response by search to a frozen agent (issue 62).

The other players move as the target agent does (its own choice on *their* observation
of each simulated world), the belief over the hidden cards is conditioned on the target's
moves so far, and the search (:func:`durak.search.pomcp.best_response`, POMCP after Silver
& Veness, NIPS 2010) runs over this agent's own action–observation histories.  As its
budget grows its decisions converge to a best response to the target given the belief;
it sees only its own observation, so its payoff against the target is a lower bound on
the target's exploitability (Timbers et al., IJCAI 2022, the search half of their
approximate best response).

**Belief.**  ``candidates`` worlds behind the observation, each with a past drawn
uniformly among those the record allows, weighted by the likelihood of the target's moves
in that past (:func:`~durak.agents.inference.belief.weigh_worlds`; Rebstock et al., CoG
2019).  A target that states its policy is read exactly: a deterministic one gives weight
``(epsilon / k)`` per move it would not have made, so with ``epsilon`` small the worlds
where it would have moved otherwise are dropped whenever any world fits (exact
elimination); a randomised one gives its probabilities (likelihood weights).  ``chain``
Metropolis–Hastings steps move from a weighed world towards the deals the moves make
likely (:class:`~durak.agents.inference.belief.DealChain`).

**Leaves.**  A new node is valued by ``value=dmc`` (the shipped network) where given, else
by a playout: this agent's ``simulation`` policy against the target.  With ``endgame`` > 0
and a ``value`` guide, a leaf of a two-player game with an empty talon (nothing hidden) is
valued by the exact solver within that many nodes (the value of best play by both, a lower
bound on the best response's there), by the guide where the solve does not finish.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import cast

import attrs

from durak.agents.base import Agent, SpecError, check_bound, register
from durak.agents.guides import Guidance, Guide, make_guide
from durak.agents.heuristics import evals
from durak.agents.inference.agent_model import AgentModel, model_agent
from durak.agents.inference.belief import InferredGame, is_weighable, weigh_worlds
from durak.agents.inference.record import GameLog
from durak.agents.interface.policies import PolicyAgent, checked_policy, states_policy
from durak.agents.searchers.options import C_HELP, ROLLOUTS, SECONDS_HELP, SIMULATION_HELP
from durak.agents.solver import solve_endgame
from durak.agents.specs import AGENT_SPEC, GUIDE, param
from durak.rules import Action, DurakGame, GameState, Observation, Rules, observe
from durak.search import (
    SQRT2,
    Budget,
    BudgetExhausted,
    Evaluator,
    SearchResult,
    TreeSettings,
)
from durak.search.pomcp import best_response

__all__ = ["BestResponseAgent", "TargetPolicy"]


@attrs.define
class TargetPolicy:
    """The target's move at a world where another player than the searcher moves: its
    own choice on the mover's observation (``visibility`` as the searcher's).  A stated
    policy is read once per observation and drawn from with the generator given; an
    agent without one is asked to ``act`` with it."""

    agent: Agent
    visibility: object = False
    cache: dict[Observation, tuple[Sequence[float], int]] = attrs.field(factory=dict)
    explicit: bool = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.explicit = states_policy(self.agent)

    def __call__(self, state: GameState, rng: random.Random) -> Action:
        """The target's move at ``state`` (a legal action of the player to move)."""
        view = observe(state, state.turn, self.visibility)  # type: ignore[arg-type]
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        if not self.explicit:
            return self.agent.act(view, rng)
        known = self.cache.get(view)
        if known is None:
            p = checked_policy(cast(PolicyAgent, self.agent), view, self.agent.name)
            top = max(range(len(p)), key=p.__getitem__)
            known = self.cache[view] = (p, top if p[top] >= 1.0 else -1)
        p, sure = known
        if sure >= 0:
            return legal[sure]
        x, acc = rng.random(), 0.0
        for a, q in zip(legal, p, strict=True):
            acc += q
            if x < acc:
                return a
        return legal[-1]


@attrs.frozen
class BestResponseAgent:
    """POMCP against ``target`` (an agent spec, ``;`` for ``,``) with ``limit``
    simulations per decision; the module doc says what it promises."""

    target: str = param(
        "greedy", "the frozen agent answered: any agent spec (';' for ',')", holds=AGENT_SPEC
    )
    limit: int = param(300, "simulations per decision", low=1, high=10**8)
    c: float = param(
        2 * SQRT2, C_HELP + " (2√2: payoffs span [-1, 1]; PUCT constant with a prior)",
        low=0, high=100,
    )  # fmt: skip
    bias: float = param(
        0.0, "progressive bias toward the greedy move (0: none; a bias slows convergence)",
        low=0, high=1000,
    )  # fmt: skip
    simulation: str = param(
        "greedy", SIMULATION_HELP + " of its own moves", choices=tuple(ROLLOUTS)
    )
    prior: str = param("none", "policy prior of its own moves: a guide (dmc), or none", holds=GUIDE)
    value: str = param("rollout", "leaf value: a guide (dmc), or rollout", holds=GUIDE)
    temperature: float = param(0.1, "softmax temperature of a guide's prior", low=1e-3, high=100)
    endgame: int = param(
        0, "node budget of the exact solve at an open two-player leaf (0: off)", low=0, high=10**9
    )
    candidates: int = param(
        64, "worlds weighed by the target's moves per decision", low=1, high=10**5
    )
    chain: int = param(0, "Metropolis-Hastings steps from a weighed world", low=0, high=10**5)
    epsilon: float = param(
        1e-6, "weight of a move the target would not have made (per move, over its options)",
        low=0, high=1,
    )  # fmt: skip
    draws: int = param(
        8, "act calls estimating a target without a stated policy", low=1, high=10**4
    )
    nodes: int | None = param(None, "ceiling on states visited per decision", low=1)
    seconds: float | None = param(None, SECONDS_HELP, low=0.001, high=3600)
    name: str = "pomcp"
    agent: Agent = attrs.field(init=False, eq=False, repr=False)
    guides: dict[str, Guide] = attrs.field(init=False, eq=False, repr=False, factory=dict)
    logs: dict[int, GameLog] = attrs.field(init=False, eq=False, repr=False, factory=dict)

    def __attrs_post_init__(self) -> None:
        try:
            object.__setattr__(self, "agent", model_agent(self.target))
        except SpecError as e:
            raise SpecError(f"pomcp: target: {e}") from None
        for option in (self.prior, self.value):
            if option not in ("none", "rollout") and option not in self.guides:
                self.guides[option] = make_guide(option)

    def check_rules(self, rules: Rules) -> None:
        """:class:`SpecError` unless the target and every guide can play ``rules``."""
        check_bound(self.agent, rules, "pomcp: target")
        for guide in self.guides.values():
            check_bound(guide, rules, "pomcp")

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The most visited root action of the search (a forced move at once)."""
        legal = observation.legal_actions
        if len(legal) == 1:
            return legal[0]
        return self.search(observation, rng).action

    def search(
        self, observation: Observation, rng: random.Random, log: GameLog | None = None
    ) -> SearchResult[Action]:
        """The POMCP search of ``observation``'s decision against the target, its belief
        conditioned on ``log`` (by default this agent's own record of the game: an agent
        that keeps the same record, as ``ismcts:respond=N`` does, passes its own)."""
        visibility = observation.visibility
        game: DurakGame = DurakGame(observation.rules, visibility)
        log = self.logs.get(observation.player) if log is None else log
        if log is not None and is_weighable(log, observation):
            model = AgentModel(
                self.agent, self.epsilon, self.draws, random.Random(rng.getrandbits(64)),
                visibility,
            )  # fmt: skip
            belief = weigh_worlds(log, model, self.candidates, rng, steps=self.chain)
            game = InferredGame(game.rules, visibility, belief=belief)
        guidance = {n: Guidance(g, self.temperature) for n, g in self.guides.items()}
        prior = guidance[self.prior].prior if self.prior in guidance else None
        value: Evaluator[GameState] | None = None
        if self.value in guidance:
            value = guidance[self.value].value
        if self.endgame and observation.rules.players == 2:
            value = self._solved_leaves(value, game)
        settings = TreeSettings(
            c=self.c,
            rollout=None if value is not None else ROLLOUTS[self.simulation],
            evaluate=value,
            heuristic=evals.greedy_heuristic,
            bias=self.bias,
            prior=prior,
            stop_early=True,
        )
        return best_response(
            game,
            observation,
            player=observation.player,
            respond=TargetPolicy(self.agent, visibility),
            budget=Budget(iterations=self.limit, nodes=self.nodes, seconds=self.seconds),
            rng=rng,
            settings=settings,
        )

    def _solved_leaves(
        self, value: Evaluator[GameState] | None, game: DurakGame
    ) -> Evaluator[GameState] | None:
        """``value`` with the exact solve at the leaves whose talon is empty (a leaf the
        solve does not finish within ``endgame`` nodes, and every other leaf, valued by
        ``value``); ``None`` without a ``value`` guide: the search's playouts then value
        every leaf, since an evaluator cannot hand a leaf back to them."""
        if value is None:
            return None
        inner = value
        plain = DurakGame(game.rules, game.open_world)

        def solved(state: GameState) -> Sequence[float]:
            if not state.talon:
                try:
                    r = solve_endgame(plain, state, nodes=self.endgame)
                except BudgetExhausted:
                    return inner(state)
                return tuple(r.value if p == r.player else -r.value for p in range(2))
            return inner(state)

        return solved

    def game_started(self, observation: Observation) -> None:
        """Start this seat's record of the game."""
        self.logs[observation.player] = GameLog(observation)

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        """Add the action to this seat's record."""
        log = self.logs.get(observation.player)
        if log is not None:
            log.moves.append((player, action, observation))

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        """Drop this seat's record."""
        self.logs.pop(observation.player, None)


register(
    "pomcp", BestResponseAgent, "best response by POMCP to a target agent (Silver & Veness 2010)"
)
