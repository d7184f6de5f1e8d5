"""Learners by name, built from spec strings like agents (``"qlearn:alpha=0.1"``).

The CLI's ``durak train NAME[:k=v,...]`` builds its learner here.  Specs are parsed with
the agents' typed :class:`~durak.agents.base.Param` machinery, so a bad spec raises the
same clear :class:`~durak.agents.SpecError`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import attrs

from durak.agents.base import Param, SpecError, parse_spec, typed_params
from durak.learn.online import Learner
from durak.learn.rewards import RewardScheme
from durak.rules import Rules

__all__ = [
    "SavableLearner",
    "TrainerInfo",
    "learner_of",
    "learners",
    "make_learner",
    "register_learner",
]


class SavableLearner(Learner, Protocol):
    """A :class:`~durak.learn.online.Learner` that writes what it learned to a file, which
    the matching agent spec (``qlearn:path=FILE``, ``dqn:path=FILE``) loads."""

    @property
    def rewards(self) -> RewardScheme:
        """The reward scheme it is trained with (its ``gamma`` is the learner's)."""
        ...

    def save(self, path: Path) -> None:
        """Write the learned policy to ``path``."""
        ...


@attrs.frozen
class TrainerInfo:
    """A registered learner: name, one-line description, typed parameters, and
    ``factory(rules, **params)`` for an online learner (trained by
    :func:`durak.learn.online.train`), or ``None`` for one that trains with a loop of its
    own (such as :mod:`durak.learn.dmc`'s schedule)."""

    name: str
    description: str
    params: tuple[Param, ...]
    factory: Callable[..., SavableLearner] | None = attrs.field(repr=False)

    @property
    def online(self) -> bool:
        """Whether :func:`make_learner` builds it for the online loop."""
        return self.factory is not None


_LEARNERS: dict[str, TrainerInfo] = {}


def register_learner(
    name: str,
    factory: Callable[..., SavableLearner] | None,
    description: str,
    params: tuple[Param, ...] = (),
) -> None:
    """Make ``name`` available to :func:`learners` and, given a ``factory``, to
    :func:`make_learner` (see :class:`TrainerInfo`)."""
    _LEARNERS[name] = TrainerInfo(name, description, params, factory)


def learners() -> dict[str, TrainerInfo]:
    """Every registered learner by name, in name order."""
    return dict(sorted(_LEARNERS.items()))


def make_learner(spec: str, rules: Rules) -> SavableLearner:
    """A fresh online learner for ``rules`` from ``spec``; :class:`SpecError` names a bad
    spec, or a learner with a loop of its own."""
    info = learner_of(spec)
    if info.factory is None:
        raise SpecError(
            f"{info.name} trains with a loop of its own, not online: durak train {spec}"
        )
    return info.factory(rules, **typed_params(info.name, info.params, parse_spec(spec)[1]))


def learner_of(spec: str) -> TrainerInfo:
    """The registered learner a spec names; :class:`SpecError` for an unknown one."""
    name, _ = parse_spec(spec)
    info = _LEARNERS.get(name)
    if info is None:
        known = ", ".join(sorted(_LEARNERS))
        raise SpecError(f"unknown learner {name!r} in spec {spec!r}; known learners: {known}")
    return info
