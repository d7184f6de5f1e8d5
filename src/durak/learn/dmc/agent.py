"""The ``dmc`` agent and the ``dmc`` guide: a Deep Monte-Carlo network's scores in play.

* :class:`DmcAgent`: plays the legal action its network (:mod:`durak.learn.dmc.net`)
  scores highest, first in canonical order on ties; a forced decision at once.
* :class:`DmcGuide`: the same network's scores of the legal actions, the policy prior and
  value of the search agents (:mod:`durak.agents.guides`).

Both refuse, with :class:`~durak.agents.SpecError`, an observation of other rules than the
model's (DouZero, Zha et al. ICML 2021, trains one network per game).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import attrs

from durak.agents.analysis import ActionAssessment, Analysis, forced, spec_of
from durak.agents.policies import one_hot
from durak.extras import needs

with needs("dmc", "dmc"):
    import numpy as np

from durak.learn.dmc.features import decision_rows
from durak.learn.dmc.net import DmcModel, scores
from durak.rules import Action, Observation, Rules

__all__ = ["DmcAgent", "DmcGuide"]


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
        """The network's Q of every legal action (:mod:`durak.agents.analysis`), its
        choice :meth:`act`'s; a forced decision unscored, as :meth:`act` answers it."""
        self.check_rules(observation.rules)
        spec = spec_of(self)
        legal = observation.legal_actions
        if len(legal) == 1:
            return forced(observation, spec, "network")
        values = scores(self.model.net, decision_rows(observation, legal))
        actions = tuple(ActionAssessment(a, float(v)) for a, v in zip(legal, values, strict=True))
        chosen = legal[int(np.argmax(values))]
        return Analysis(observation.player, spec, chosen, actions, "network")

    def policy(self, observation: Observation) -> list[float]:
        """One-hot on :meth:`act`'s action (it ignores ``rng``): an explicit
        :class:`~durak.agents.policies.PolicyAgent` policy."""
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
