"""Any agent as an opponent model: the search plays against the agent's own policy.

With ``opponent=SPEC`` or ``infer=SPEC`` (an agent spec, ``;`` between its own
parameters, as ``solver:fallback=`` takes one), a searcher models the other players by
that agent: at a state where another player is to move, the policy is the agent's choice
on *that player's* observation of the state.  This is the opponent model of ISMCTS-BR
(Timbers, Bard, Lockhart, Lanctot, Schmid, Burch, Schrittwieser, Hubert & Bowling,
"Approximate Exploitability: Learning a Best Response", IJCAI 2022): a search whose other
players move as the target does approximates a best response to the target, and its
inference weighs the worlds by the target's likelihood of the moves it made.

The agent's choice is a distribution: read exactly from an agent that states it
(:class:`~durak.agents.interface.policies.PolicyAgent`: ``random``, and one-hot for the
deterministic ``greedy``, ``lowest`` and ``smart``), else estimated from ``draws`` calls
of ``act``, each with its own generator seeded from the searcher's (the same seed, the
same estimate).  ``epsilon`` of it is spread evenly over the legal actions, so no move
is impossible and inference never gives a world weight 0 for a move the agent would not
have made.  The nested agent hears no game (it is asked about states of other players'
information): an agent that infers from the game's history decides without it.
"""

from __future__ import annotations

import contextvars
import random
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import cast

import attrs

from durak.agents.base import Agent, SpecError, make_agent, parse_spec
from durak.agents.inference.opponents import slip, soften
from durak.agents.interface.policies import PolicyAgent, checked_policy, states_policy
from durak.agents.specs import nested_spec
from durak.rules import Action, GameState, Observation, Visibility, legal_actions, observe

__all__ = ["MAX_DEPTH", "REFUSED", "AgentModel", "model_agent", "nested_spec"]

#: The deepest nesting of agent models (a model's agent with an agent model of its own
#: is depth 2); deeper is refused, so that an agent that builds itself as its own model
#: is one error rather than an endless recursion.
MAX_DEPTH = 2
#: Agents that cannot be a model, and why.
REFUSED = {"human": "it asks a person at the terminal"}

_DEPTH = contextvars.ContextVar("durak_agent_model_depth", default=0)


@contextmanager
def _deeper() -> Iterator[None]:
    depth = _DEPTH.get()
    if depth >= MAX_DEPTH:
        raise SpecError(f"agent models nest more than {MAX_DEPTH} deep")
    token = _DEPTH.set(depth + 1)
    try:
        yield
    finally:
        _DEPTH.reset(token)


def model_agent(value: str) -> Agent:
    """The agent an option's ``value`` names (:func:`nested_spec`), built to serve as a
    model; :class:`SpecError` for a bad spec, an agent of :data:`REFUSED`, or models
    nested more than :data:`MAX_DEPTH` deep."""
    spec = nested_spec(value)
    name, _ = parse_spec(spec)
    if name in REFUSED:
        raise SpecError(f"{name} cannot be a model: {REFUSED[name]}")
    with _deeper():
        return make_agent(spec)


def _index(legal: Sequence[Action], action: Action, agent: Agent) -> int:
    try:
        return legal.index(action)
    except ValueError:
        raise ValueError(f"model {agent.name} chose {action}, not a legal action") from None


@attrs.define
class AgentModel:
    """The policy of ``agent`` on the mover's observation (``visibility`` as the
    searcher's), ``epsilon`` of it spread evenly; an agent without an explicit policy is
    estimated from ``draws`` calls seeded from ``rng``.  The agent's distributions are
    cached by observation for the life of the model (one decision)."""

    agent: Agent
    epsilon: float
    draws: int
    rng: random.Random
    visibility: Visibility = False
    cache: dict[Observation, Sequence[float]] = attrs.field(factory=dict)
    #: Whether the agent states its policy (a runtime protocol check is slow: asked once).
    explicit: bool = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.explicit = states_policy(self.agent)

    def choice(self, view: Observation) -> Sequence[float]:
        """The agent's own distribution over ``view.legal_actions`` (cached)."""
        p = self.cache.get(view)
        if p is None:
            p = self.cache[view] = self._estimate(view)
        return p

    def _estimate(self, view: Observation) -> Sequence[float]:
        legal = view.legal_actions
        if self.explicit:
            return checked_policy(cast(PolicyAgent, self.agent), view, self.agent.name)
        counts = [0] * len(legal)
        for _ in range(self.draws):
            a = self.agent.act(view, random.Random(self.rng.getrandbits(64)))
            counts[_index(legal, a, self.agent)] += 1
        return [c / self.draws for c in counts]

    def policy(self, state: GameState, legal: Sequence[Action]) -> list[float]:
        """``1 - epsilon`` times the agent's distribution plus ``epsilon`` spread evenly."""
        if len(legal) == 1:
            return [1.0]
        p = self.choice(observe(state, state.turn, self.visibility))
        return soften(p, self.epsilon)

    def view_policy(self, view: Observation) -> list[float]:
        """:meth:`policy` read on ``view``, the mover's observation (already made), without
        the cache: for a caller that asks each view once."""
        legal = view.legal_actions
        if len(legal) == 1:
            return [1.0]
        return soften(self._estimate(view), self.epsilon)

    def rollout(self, state: GameState, rng: random.Random) -> Action:
        """A uniform legal action with chance ``epsilon``, else the agent's own move drawn
        with ``rng`` (a draw from :meth:`policy`)."""
        legal = legal_actions(state)
        if len(legal) == 1:
            return legal[0]
        slipped = slip(self.epsilon, legal, rng)
        if slipped is not None:
            return slipped
        action = self.agent.act(observe(state, state.turn, self.visibility), rng)
        return legal[_index(legal, action, self.agent)]

    def prime(self, states: Iterable[GameState]) -> None:
        """Nothing: the agent is asked one observation at a time."""
