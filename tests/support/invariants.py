"""The invariants of a :class:`~durak.rules.GameState` as the project's suites assert them:
the shipped :func:`durak.testing.check_state` (every invariant of ``docs/rules.md``), plus
what only a test can check, the legal actions against the literal reference model of
:mod:`tests.support.rules_reference`.  They raise; they never skip or soften a failure.
"""

from __future__ import annotations

from durak.rules import GameState, legal_actions
from durak.testing import InvariantError, check_state
from tests.support.rules_reference import reference_legal_actions


def check_invariants(state: GameState) -> None:
    """:func:`~durak.testing.check_state`, and the legal actions are the reference rules'."""
    check_state(state)
    if list(legal_actions(state)) != reference_legal_actions(state):
        raise InvariantError("legal actions", "they differ from the reference rules")
