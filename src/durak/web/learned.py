"""Which learned agents a table's page offers: the learned agent (``dmc``) and
``strongest`` where a shipped network fits the table's rules, and a plain sentence where
none does (:func:`~durak.agents.strongest.network_problem`: the tables that have one)."""

from __future__ import annotations

from typing import Any

from durak.agents.strongest import GUIDED, network_problem, strongest_spec
from durak.rules import Rules
from durak.web.policy import AgentPolicy

__all__ = ["LEARNED", "STRONGEST", "learned_view"]

#: The learned agent: a shipped network of the table's rules.
LEARNED = "dmc"
#: The strongest agent: it searches with that network where that was measured the stronger.
STRONGEST = "strongest"


def learned_view(rules: Rules, policy: AgentPolicy) -> dict[str, Any]:
    """What the page says of learned agents at a table of ``rules``: ``fits`` (a shipped
    network fits them), ``agents`` (the learned agent and ``strongest``, those the server
    allows, where it fits; else none), ``refused`` (the learned agent where it does not:
    seated there, it is refused) and ``note``, one sentence saying which."""
    allowed = policy.agents()
    problem = network_problem(rules)
    if problem is None:
        agents = [a for a in (LEARNED, STRONGEST) if a in allowed]
        spec = strongest_spec(rules)
        note = f"A learned network fits this table: {LEARNED} plays it, " + (
            f"{STRONGEST} searches with it."
            if spec == GUIDED
            else f"{STRONGEST} plays {spec} at this table."
        )
        return {"fits": True, "agents": agents, "refused": [], "note": note}
    refused = [LEARNED] if LEARNED in allowed else []
    return {"fits": False, "agents": [], "refused": refused, "note": problem}
