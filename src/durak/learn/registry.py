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
from durak.learn.rewards import RewardScheme
from durak.learn.train import Learner
from durak.rules import Rules

__all__ = ["SavableLearner", "TrainerInfo", "learners", "make_learner", "register_learner"]


class SavableLearner(Learner, Protocol):
    """A :class:`~durak.learn.train.Learner` that writes what it learned to a file, which
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
    ``factory(rules, **params)``."""

    name: str
    description: str
    params: tuple[Param, ...]
    factory: Callable[..., SavableLearner] = attrs.field(repr=False)


_LEARNERS: dict[str, TrainerInfo] = {}


def register_learner(
    name: str,
    factory: Callable[..., SavableLearner],
    description: str,
    params: tuple[Param, ...] = (),
) -> None:
    """Make ``name`` available to :func:`make_learner`."""
    _LEARNERS[name] = TrainerInfo(name, description, params, factory)


def learners() -> dict[str, TrainerInfo]:
    """Every registered learner by name, in name order."""
    return dict(sorted(_LEARNERS.items()))


def make_learner(spec: str, rules: Rules) -> SavableLearner:
    """A fresh learner for ``rules`` from ``spec``; :class:`SpecError` names a bad spec."""
    name, raw = parse_spec(spec)
    info = _LEARNERS.get(name)
    if info is None:
        known = ", ".join(sorted(_LEARNERS))
        raise SpecError(f"unknown learner {name!r} in spec {spec!r}; known learners: {known}")
    return info.factory(rules, **typed_params(name, info.params, raw))
