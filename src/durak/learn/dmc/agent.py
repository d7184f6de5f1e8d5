"""The ``dmc`` agent and the ``dmc`` guide: a Deep Monte-Carlo network's scores in play.

* :class:`DmcAgent`: plays the legal action its network (:mod:`durak.learn.dmc.net`)
  scores highest, first in canonical order on ties; a forced decision at once.
* :class:`DmcGuide`: the same network's scores of the legal actions, the policy prior and
  value of the search agents (:mod:`durak.agents.guides`);
* :class:`ShippedDmcAgent` and :class:`ShippedDmcGuide`: the same, each game playing the
  shipped model of its rules (:mod:`durak.learn.dmc.shipped`), loaded when first needed
  and once per process.

All refuse, with :class:`~durak.agents.SpecError`, an observation of other rules than the
model's (DouZero, Zha et al. ICML 2021, trains one network per game).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from pathlib import Path

import attrs

from durak.agents.base import SpecError
from durak.agents.interface.analysis import Analysis, forced, spec_of, valued
from durak.agents.interface.policies import one_hot
from durak.agents.learned import table_name
from durak.extras import needs

with needs("dmc", "dmc"):
    import numpy as np

from durak.learn.dmc.features import decision_rows
from durak.learn.dmc.net import DmcModel, DmcModelError, load_model, scores
from durak.learn.dmc.shipped import shipped_model
from durak.rules import Action, Observation, Rules

__all__ = ["DmcAgent", "DmcGuide", "ShippedDmcAgent", "ShippedDmcGuide", "loaded"]


@attrs.frozen(eq=False)
class DmcAgent:
    """Plays the legal action the network scores highest (the first in canonical order on
    ties); never explores and ignores ``rng``.  A forced decision is answered at once."""

    model: DmcModel
    name: str = "dmc"

    def check_rules(self, rules: Rules) -> None:
        """:class:`~durak.agents.SpecError` unless the model was trained for ``rules``."""
        self.model.check_rules(rules, "dmc")

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The best-scored legal action; ``SpecError`` if the rules are not the model's."""
        self.check_rules(observation.rules)
        legal = observation.legal_actions
        if len(legal) == 1:
            return legal[0]
        values = scores(self.model.net, decision_rows(observation, legal))
        return legal[int(np.argmax(values))]

    def analyse(self, observation: Observation, rng: random.Random) -> Analysis:
        """The network's Q of every legal action (:mod:`durak.agents.interface.analysis`),
        clamped to the game's payoffs, its choice :meth:`act`'s; a forced decision
        unscored, as :meth:`act` answers it."""
        self.check_rules(observation.rules)
        spec = spec_of(self)
        legal = observation.legal_actions
        if len(legal) == 1:
            return forced(observation, spec, "network")
        values = scores(self.model.net, decision_rows(observation, legal))
        chosen = legal[int(np.argmax(values))]
        return valued(observation, spec, "network", chosen, [float(v) for v in values])

    def policy(self, observation: Observation) -> list[float]:
        """One-hot on :meth:`act`'s action (it ignores ``rng``): an explicit
        :class:`~durak.agents.interface.policies.PolicyAgent` policy."""
        return one_hot(observation.legal_actions, self.act(observation, random.Random(0)))


@attrs.frozen(eq=False)
class DmcGuide:
    """A :class:`~durak.agents.guides.Guide`: the agent's network's scores of the legal
    actions (``SpecError`` for other rules than the model's)."""

    agent: DmcAgent

    def check_rules(self, rules: Rules) -> None:
        """:class:`~durak.agents.SpecError` unless the model was trained for ``rules``."""
        self.agent.check_rules(rules)

    def action_values(self, observation: Observation) -> list[float]:
        """The network's expected return of each legal action, in their order."""
        self.agent.check_rules(observation.rules)
        rows = decision_rows(observation, observation.legal_actions)
        return [float(x) for x in scores(self.agent.model.net, rows)]

    def action_values_many(self, observations: Sequence[Observation]) -> list[list[float]]:
        """:meth:`action_values` of each observation, from one pass of the network over
        all their rows (many small passes cost mostly torch's call overhead)."""
        blocks = []
        for o in observations:
            self.agent.check_rules(o.rules)
            blocks.append(decision_rows(o, o.legal_actions))
        if not blocks:
            return []
        values = scores(self.agent.model.net, np.concatenate(blocks))
        out, i = [], 0
        for block in blocks:
            out.append([float(x) for x in values[i : i + len(block)]])
            i += len(block)
        return out


@functools.cache
def loaded(path: Path) -> DmcModel:
    """The model in ``path``, loaded once per process (it is only read: agents and guides
    share it); :class:`~durak.agents.SpecError` if the file is not a usable model."""
    try:
        return load_model(path)
    except DmcModelError as e:
        raise SpecError(f"dmc: {e}") from None


@attrs.define(eq=False)
class ShippedDmcAgent:
    """``dmc`` without a model file: a :class:`DmcAgent` of the shipped model of each game's
    rules (those of ``models``, by default the package's), resolved when the agent is
    bound to rules or first acts; :class:`~durak.agents.learned.NoModelError` under rules
    without one."""

    models: Path | None = None
    name: str = "dmc"
    built: dict[Rules, DmcAgent] = attrs.field(factory=dict, repr=False)

    def model_path(self, rules: Rules) -> Path:
        """The file of the model it plays under ``rules``."""
        return shipped_model(rules, self.models)

    def resolve(self, rules: Rules) -> DmcAgent:
        """The agent of the model for ``rules``, its model loaded on first use."""
        if rules not in self.built:
            self.built[rules] = DmcAgent(loaded(self.model_path(rules)), self.name)
        return self.built[rules]

    def check_rules(self, rules: Rules) -> None:
        """Resolve the model for ``rules`` (:class:`~durak.agents.SpecError` if none fits)."""
        self.resolve(rules)

    def resolution(self, rules: Rules) -> str:
        """The shipped model it plays under ``rules``, by file and table."""
        return f"the shipped model {self.model_path(rules).name} ({table_name(rules)})"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The resolved agent's action."""
        return self.resolve(observation.rules).act(observation, rng)

    def analyse(self, observation: Observation, rng: random.Random) -> Analysis:
        """The resolved agent's analysis: the network's Q of every legal action."""
        return self.resolve(observation.rules).analyse(observation, rng)

    def policy(self, observation: Observation) -> list[float]:
        """The resolved agent's one-hot policy."""
        return self.resolve(observation.rules).policy(observation)


@attrs.frozen(eq=False)
class ShippedDmcGuide:
    """The ``dmc`` guide: the :class:`DmcGuide` of the shipped model of each observation's
    rules (resolved as :class:`ShippedDmcAgent` resolves them)."""

    agent: ShippedDmcAgent = attrs.Factory(ShippedDmcAgent)

    def check_rules(self, rules: Rules) -> None:
        """Resolve the model for ``rules`` (:class:`~durak.agents.SpecError` if none fits)."""
        self.agent.check_rules(rules)

    def action_values(self, observation: Observation) -> list[float]:
        """The resolved network's expected return of each legal action."""
        return DmcGuide(self.agent.resolve(observation.rules)).action_values(observation)

    def action_values_many(self, observations: Sequence[Observation]) -> list[list[float]]:
        """:meth:`action_values` of each observation: one network pass per rules among them."""
        out: list[list[float]] = [[] for _ in observations]
        for rules in dict.fromkeys(o.rules for o in observations):
            chosen = [i for i, o in enumerate(observations) if o.rules == rules]
            guide = DmcGuide(self.agent.resolve(rules))
            values = guide.action_values_many([observations[i] for i in chosen])
            for i, v in zip(chosen, values, strict=True):
                out[i] = v
        return out
