"""Checks for researchers' own suites: the invariants of the Durak rules as functions, the
agent contract, and (with the ``testing`` extra) hypothesis strategies.

What the project's own suites check, shipped so that a new agent, rules variant or search
is checked the same way (after pgx's ``api_test`` and OpenSpiel's ``random_sim_test``):

* :func:`check_state`, :func:`check_transition` and :func:`check_random_game` raise
  :class:`InvariantError` naming the broken invariant of ``docs/rules.md``;
* :func:`check_observation`: what a player observes is sound, hides what it should, and
  the worlds sampled from it fit it;
* :func:`check_agent` raises :class:`AgentContractError` naming the broken part of the
  agent contract (legal, reproducible, in time, seeing only its observation);
* :mod:`durak.testing.strategies` (``pip install 'durak-lab[testing]'``): ``rules()``,
  ``states()``, ``observations()``, ``actions(state)``.

None of the checks needs hypothesis.  A game plugged into :mod:`durak.search` is checked
by :func:`durak.search.testing.check_game` instead (the search protocol's contract).
``docs/testing.md`` has a complete example suite and says what each check does not prove.
"""

from durak.testing.agent_contract import AgentContractError, AgentReport, check_agent
from durak.testing.games import GameReport, check_random_game, play_random_game
from durak.testing.invariants import InvariantError, check_state
from durak.testing.observations import check_observation
from durak.testing.transitions import check_transition

__all__ = [
    "AgentContractError",
    "AgentReport",
    "GameReport",
    "InvariantError",
    "check_agent",
    "check_observation",
    "check_random_game",
    "check_state",
    "check_transition",
    "play_random_game",
]
