"""Guides: a learned policy prior and value function for the tree searches.

Network-guided search after AlphaZero (Silver et al., "A general reinforcement learning
algorithm that masters chess, shogi, and Go through self-play", Science 2018): the search
takes a policy prior for PUCT selection and a value function for its leaves in place of
rollouts.  A *guide* is anything that scores the legal actions of an observation (the
expected return of each for the player to move, as a Q(s, a) network gives it, such as the
``dmc`` network of :mod:`durak.learn`).  From one scoring of a state, :class:`Guidance` derives
both callables of :mod:`durak.search`:

* the prior ``softmax(Q / temperature)`` over the legal actions;
* the value ``max Q`` for the player to move, the others sharing its negation equally
  (the returns of Durak sum to zero), also for many states in one call (the batch
  evaluator of :class:`~durak.search.LeafBatch`).

A guide made for one rules variant (a network) is also a
:class:`~durak.agents.interface.protocol.RulesBound`: the search agent that uses it checks it when
:func:`~durak.agents.make_agent` builds it for a game, as a plain ``dmc`` agent is checked.

Guides are registered by name (``register_guide``); packages outside the core register
theirs on import, as agents do (the ``durak.agents`` entry points), so the search agents'
``prior=`` and ``value=`` options name them without this package importing them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol, runtime_checkable

import attrs

from durak.agents.base import SpecError, load_plugins
from durak.rules import Action, GameState, Observation, observe

__all__ = ["BatchGuide", "Guidance", "Guide", "guide_names", "make_guide", "register_guide"]


class Guide(Protocol):
    """Scores the legal actions of an observation."""

    def action_values(self, observation: Observation) -> Sequence[float]:
        """The expected return of each of ``observation.legal_actions`` (in that order)
        for its player, in [-1, 1]."""
        ...


@runtime_checkable
class BatchGuide(Guide, Protocol):
    """A guide that also scores many observations at once (say in one network pass)."""

    def action_values_many(self, observations: Sequence[Observation]) -> Sequence[Sequence[float]]:
        """:meth:`action_values` of each of ``observations``, in order."""
        ...


@attrs.frozen
class _GuideInfo:
    name: str
    description: str
    factory: Callable[[], Guide]


_GUIDES: dict[str, _GuideInfo] = {}


def register_guide(name: str, factory: Callable[[], Guide], description: str) -> None:
    """Make ``name`` available to :func:`make_guide`; ``factory()`` builds the guide."""
    _GUIDES[name] = _GuideInfo(name, description, factory)


def guide_names() -> dict[str, str]:
    """Every registered guide's name and description (plugins loaded)."""
    load_plugins()
    return {name: info.description for name, info in sorted(_GUIDES.items())}


def make_guide(name: str) -> Guide:
    """The guide registered as ``name``; :class:`SpecError` naming the known ones if none
    is."""
    load_plugins()
    info = _GUIDES.get(name)
    if info is None:
        known = ", ".join(sorted(_GUIDES)) or "none registered"
        raise SpecError(f"no guide named {name!r} (known: {known})")
    return info.factory()


@attrs.define
class Guidance:
    """The prior and value callables of one search, from one guide.

    Scores are cached by observation for the life of the object (one decision), so a
    state's prior and value cost one scoring between them, and the determinizations that
    give a player the same view share it.
    """

    guide: Guide
    temperature: float
    cache: dict[Observation, Sequence[float]] = attrs.field(factory=dict)

    def scores(self, state: GameState) -> Sequence[float]:
        """The guide's values of the legal actions of the player to move in ``state``."""
        view = observe(state, state.turn)
        values = self.cache.get(view)
        if values is None:
            values = self.cache[view] = self.guide.action_values(view)
        return values

    def prime(self, states: Iterable[GameState]) -> None:
        """Score the views of the players to move in ``states`` that are not cached yet,
        in one call if the guide is a :class:`BatchGuide`."""
        views = list(dict.fromkeys(observe(s, s.turn) for s in states))
        views = [v for v in views if v not in self.cache]
        if isinstance(self.guide, BatchGuide):
            self.cache.update(zip(views, self.guide.action_values_many(views), strict=True))
        else:
            for v in views:
                self.cache[v] = self.guide.action_values(v)

    def values(self, states: Sequence[GameState]) -> list[tuple[float, ...]]:
        """:meth:`value` of each of ``states``, their views scored in one call
        (:meth:`prime`): the batch evaluator of a leaf-parallel search, whose later priors
        at the same views are then cached too."""
        self.prime(states)
        return [self.value(s) for s in states]

    def prior(self, state: GameState, legal: Sequence[Action]) -> list[float]:
        """``softmax(Q / temperature)`` over ``legal`` (the legal actions of ``state``)."""
        q = self.scores(state)
        top = max(q)
        weights = [math.exp((x - top) / self.temperature) for x in q]
        total = sum(weights)
        return [w / total for w in weights]

    def value(self, state: GameState) -> tuple[float, ...]:
        """Returns for every player: ``max Q`` for the player to move, and its negation
        shared by the others."""
        v = max(self.scores(state))
        n = state.rules.players
        rest = -v / (n - 1)
        return tuple(v if p == state.turn else rest for p in range(n))
