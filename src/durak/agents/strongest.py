"""``strongest``: one name for the best agent measured within 100 ms mean per decision.

It is a preset: an agent that resolves, per game's rules, to the spec of the strongest
agent measured in ``docs/agents.md`` within 100 ms mean per decision, builds that agent
for those rules and plays it (hooks included):

* :data:`GUIDED`, the network-guided search, its leaves scored eight at a time, with a
  posterior over candidate opponents (``opponent=auto``, carried across the games of a
  match) at the other players' nodes, at two players where a shipped ``dmc`` network fits
  the rules (the tables ``durak agents dmc`` lists; the ``dmc`` guide resolves its model
  per rules) and its extra (PyTorch) is installed;
* otherwise: :data:`TWO_PLAYERS` for two players and :data:`MORE_PLAYERS` for three or
  more, even where a network fits (the guided search is played only at the table sizes of
  :data:`GUIDED_PLAYERS`).

:meth:`StrongestAgent.spec` gives the spec it plays under given rules, and every spec is
in its description (``durak agents``).  Why each spec was chosen, with the measurements:
``docs/agents.md`` ("``strongest``: one name for the best agent").
"""

from __future__ import annotations

import random

import attrs

from durak.agents.base import Agent, RulesBound, SpecError, Watcher, make_agent, register
from durak.agents.guides import guide_names, make_guide
from durak.agents.interface.analysis import Analysis, analyse
from durak.agents.learned import NoModelError
from durak.rules import Action, Observation, Rules

__all__ = [
    "GUIDED",
    "GUIDED_PLAYERS",
    "MORE_PLAYERS",
    "TWO_PLAYERS",
    "StrongestAgent",
    "network_fits",
    "network_problem",
    "strongest_spec",
]

#: Where a shipped network fits the rules, at the table sizes of :data:`GUIDED_PLAYERS`:
#: the network-guided search with a posterior over the opponents.
GUIDED = "ismcts:prior=dmc,value=dmc,limit=200,batch=8,opponent=auto,carry=true"
#: Two players without the network: plain ISMCTS at the budget measured within 100 ms.
TWO_PLAYERS = "ismcts:limit=600"
#: Three or more players: ISMCTS modelling the others as ``greedy``.
MORE_PLAYERS = "ismcts:limit=300,opponent=greedy"
#: The table sizes at which :data:`GUIDED` was measured the stronger (``docs/agents.md``).
GUIDED_PLAYERS = frozenset({2})


def network_problem(rules: Rules) -> str | None:
    """``None`` where a shipped ``dmc`` network can guide a search of ``rules``' games
    (its guide registered, its extra installed, a model trained for these rules shipped);
    else why not, in one sentence for a person (:meth:`NoModelError.plain` names the
    tables that have a network)."""
    if "dmc" not in guide_names():
        return "No learned agent: the dmc guide is not registered."
    try:
        guide = make_guide("dmc")
        if isinstance(guide, RulesBound):
            guide.check_rules(rules)
    except NoModelError as e:
        return e.plain()
    except SpecError as e:  # the extra missing (MissingAgentExtraError), a bad file
        return f"No learned agent: {e}."
    return None


def network_fits(rules: Rules) -> bool:
    """Whether a shipped ``dmc`` network can guide a search of ``rules``' games
    (:func:`network_problem` finds none)."""
    return network_problem(rules) is None


def strongest_spec(rules: Rules) -> str:
    """The spec ``strongest`` plays under ``rules`` (see the module docstring)."""
    if rules.players in GUIDED_PLAYERS and network_fits(rules):
        return GUIDED
    return TWO_PLAYERS if rules.players == 2 else MORE_PLAYERS


@attrs.define(eq=False)
class StrongestAgent:
    """The agent of :func:`strongest_spec` for each game's rules, built once per rules
    (with the watcher among it, if it watches the game)."""

    built: dict[Rules, tuple[str, Agent, Watcher | None]] = attrs.field(factory=dict, repr=False)
    name: str = "strongest"

    def _resolved(self, rules: Rules) -> tuple[str, Agent, Watcher | None]:
        if rules not in self.built:
            spec = strongest_spec(rules)
            agent = make_agent(spec, rules)
            self.built[rules] = (spec, agent, agent if isinstance(agent, Watcher) else None)
        return self.built[rules]

    def spec(self, rules: Rules) -> str:
        """The spec it plays under ``rules``."""
        return self._resolved(rules)[0]

    def resolution(self, rules: Rules) -> str:
        """The spec it plays under ``rules``."""
        return self.spec(rules)

    def resolve(self, rules: Rules) -> Agent:
        """The agent for ``rules``, built (and checked against them) on first use."""
        return self._resolved(rules)[1]

    def check_rules(self, rules: Rules) -> None:
        """Resolve and build the agent for ``rules`` (:class:`SpecError` if it cannot)."""
        self._resolved(rules)

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The resolved agent's action."""
        return self.resolve(observation.rules).act(observation, rng)

    def analyse(self, observation: Observation, rng: random.Random) -> Analysis:
        """The resolved agent's analysis (:mod:`durak.agents.interface.analysis`), under the spec it
        resolved to; :class:`SpecError` if that agent cannot analyse."""
        rules = observation.rules
        found = analyse(self.resolve(rules), observation, rng)
        return attrs.evolve(found, spec=self.spec(rules))

    def game_started(self, observation: Observation) -> None:
        """Passed on to the resolved agent if it watches the game."""
        watcher = self._resolved(observation.rules)[2]
        if watcher is not None:
            watcher.game_started(observation)

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        """Passed on to the resolved agent if it watches the game."""
        watcher = self._resolved(observation.rules)[2]
        if watcher is not None:
            watcher.action_taken(player, action, observation)

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        """Passed on to the resolved agent if it watches the game."""
        watcher = self._resolved(observation.rules)[2]
        if watcher is not None:
            watcher.game_ended(observation, loser)


register(
    "strongest",
    StrongestAgent,
    f"the strongest agent measured within 100 ms per decision: {GUIDED} where a shipped "
    f"dmc network fits the 2-player rules (the tables dmc lists; needs the dmc extra), "
    f"else {TWO_PLAYERS} (2 players) or {MORE_PLAYERS} (3+)",
    (),
)
