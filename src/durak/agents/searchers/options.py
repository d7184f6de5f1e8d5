"""What the search agents share: the rollout policies by name, the help of their common
parameters, and the game they search (after Zarlykov 2023 and Cowling, Powley &
Whitehouse 2012; the agents: :mod:`durak.agents.searchers`).
"""

from __future__ import annotations

from durak.agents.heuristics import evals
from durak.rules import Action, DurakGame, GameState, Observation
from durak.search import RolloutPolicy

ROLLOUTS: dict[str, RolloutPolicy[GameState, Action] | None] = {
    "random": None,  # the search's own uniform playout, which reuses each node's actions
    "greedy": evals.greedy_rollout,
}


# Help texts shared by several agents' parameters.
C_HELP = "UCB exploration constant"
SIMULATION_HELP = "rollout policy"
BIAS_HELP = "progressive bias toward the greedy move"
SECONDS_HELP = "time budget per decision (off: not reproducible)"


def searched_game(observation: Observation) -> DurakGame:
    """The game a search agent searches for ``observation``: its rules, seen as it sees them."""
    return DurakGame(observation.rules, observation.visibility)
