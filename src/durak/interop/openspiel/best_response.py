"""Exact best responses to a durak agent, and an exploiter's exact value against it.

On a deck small enough for OpenSpiel's tree walks (``docs/openspiel.md``: 4 or 5 cards),
the value of a best response to a frozen target is known exactly: OpenSpiel's
``BestResponsePolicy`` (``open_spiel.python.algorithms.best_response``; Lanctot et al.,
arXiv:1908.09453) walks the whole tree against the target's policy in every other seat.
Summed over seats, the best response's gain is NashConv (Lanctot et al., NeurIPS 2017); in a
zero-sum game of two players the best response's mean payoff over both seats is NashConv / 2.
An approximate best response (an *exploiter*: a learner trained against the target, or a
search with the target as its model) is a legal player, so its exact mean payoff
against the target, computed here by the same walk with the exploiter's policy in one seat
(``open_spiel.python.algorithms.expected_game_score.policy_value``), is never above that
value; how far below it stays says how good the approximation is.

Both agents are OpenSpiel policies through
:class:`~durak.interop.openspiel.agent_policies.AgentPolicy`, whose distribution at an
information state is that of ``samples`` decisions seeded from ``seed`` and the
information-state string.  The figures here are exact for those policies, with no
sampling noise.  Where an agent is deterministic (``lowest``, ``greedy``, ``smart``, a
``dmc`` model) its policy is the agent itself.  Where it is randomised, the policy is an
estimate, and the figures are exact for the estimate and not for the agent: each
probability of the estimate has a standard error of ``sqrt(p (1 - p) / samples)``.
For a target, the best response and the exploiter are both measured against the same
estimate, so the comparison between them stays exact.  For an exploiter with
``samples=1``, the policy is one seeded play of the agent at each information state: a
pure policy, the one the agent plays with those seeds, rather than its average.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from durak.extras import needs

with needs("durak.interop.openspiel", "openspiel"):
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import best_response as os_best_response
    from open_spiel.python.algorithms import expected_game_score

from durak.interop.openspiel.agent_policies import AgentPolicy
from durak.interop.openspiel.game import DurakOpenSpielGame
from durak.interop.openspiel.parameters import params_of
from durak.rules import Rules

__all__ = ["BestResponseValues", "ExploitTree", "ExploiterValues", "SeesAll"]


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


@attrs.frozen
class BestResponseValues:
    """A best response's exact values against ``target`` (the other seats) and the target's
    own, per seat."""

    target: str
    #: The best response's expected payoff in each seat, the target in every other seat.
    best_response: tuple[float, ...]
    #: Each seat's expected payoff when the target plays every seat.
    on_policy: tuple[float, ...]

    @property
    def nash_conv(self) -> float:
        """NashConv: the sum over seats of what the best response gains over the target."""
        return sum(b - o for b, o in zip(self.best_response, self.on_policy, strict=True))

    @property
    def mean(self) -> float:
        """The best response's mean payoff over the seats (NashConv / 2 for two players)."""
        return _mean(self.best_response)


@attrs.frozen
class ExploiterValues:
    """An exploiter's exact expected payoff against ``target``, per seat."""

    exploiter: str
    target: str
    #: The exploiter's expected payoff in each seat, the target in every other seat.
    seats: tuple[float, ...]

    @property
    def mean(self) -> float:
        """The exploiter's mean payoff over the seats (the game's returns, +1/-1 for two)."""
        return _mean(self.seats)


class ExploitTree:
    """The game tree of ``rules`` against the frozen agent ``target`` in the other seats.

    ``samples`` and ``seed`` make the target's policy (module doc: exact for a
    deterministic agent, an estimate with its standard error for a randomised one); it is
    built once and shared by :meth:`best_response` and :meth:`exploiter`, so both are
    measured against the same policy.  Bad specs raise :class:`~durak.agents.SpecError`.
    """

    def __init__(self, rules: Rules, target: str, *, samples: int = 1, seed: int = 0) -> None:
        self.rules = rules
        self.game = DurakOpenSpielGame(params_of(rules))
        self.target = target
        self.policy = AgentPolicy(self.game, target, samples=samples, seed=seed)

    def best_response(self) -> BestResponseValues:
        """The exact best response's payoff in each seat, and the target's own payoffs."""
        root = self.game.new_initial_state()
        players = range(self.game.num_players())
        best = tuple(
            float(os_best_response.BestResponsePolicy(self.game, p, self.policy).value(root))
            for p in players
        )
        own = expected_game_score.policy_value(root, [self.policy] * len(players))
        return BestResponseValues(self.target, best, tuple(float(v) for v in own))

    def exploiter(
        self, spec: str, *, samples: int = 1, seed: int = 0, watch: bool = False
    ) -> ExploiterValues:
        """The exact expected payoff of the agent ``spec`` (an OpenSpiel policy with
        ``samples`` decisions per information state from ``seed``, module doc) in each seat
        against the target in the others; with ``watch``, an exploiter that follows the
        game hears it up to each decision (:class:`AgentPolicy`)."""
        mine = AgentPolicy(self.game, spec, samples=samples, seed=seed, watch=watch)
        return ExploiterValues(spec, self.target, self.values_of(mine))

    def values_of(self, policy: os_policy.Policy) -> tuple[float, ...]:
        """The exact expected payoff of ``policy`` in each seat, the target in the others
        (``policy`` is asked only at its own seat's decisions, as a player would be)."""
        root = self.game.new_initial_state()
        n = self.game.num_players()
        out = []
        for seat in range(n):
            policies = [policy if p == seat else self.policy for p in range(n)]
            out.append(float(expected_game_score.policy_value(root, policies)[seat]))
        return tuple(out)


class SeesAll(os_policy.Policy):  # type: ignore[misc]  # open_spiel is untyped
    """A planted cheat, not a player: at each decision of ``tree``'s game, the action of
    the best expected payoff against the target given the whole state, the hidden cards
    included.  Its value (:meth:`ExploitTree.values_of`) bounds every
    exploiter's from above and exceeds the exact best response's wherever reading the
    hidden cards pays, so a measured exploiter above the best response is caught as one.
    Each state's value is computed once (one walk of the tree below it, memoised by
    history)."""

    def __init__(self, tree: ExploitTree) -> None:
        super().__init__(tree.game, list(range(tree.game.num_players())))
        self.tree = tree
        self.memo: dict[tuple[int, str], float] = {}

    def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
        """Probability 1 on the best action for the player to move, seeing all."""
        me = state.current_player()
        legal = state.legal_actions()
        best = max(legal, key=lambda a: self.value(state.child(a), me))
        return {a: float(a == best) for a in legal}

    def value(self, state: Any, seat: int) -> float:
        """``seat``'s expected payoff at ``state``: it plays as this policy, the target
        every other seat."""
        key = (seat, state.history_str())
        found = self.memo.get(key)
        if found is not None:
            return found
        if state.is_terminal():
            value = float(state.returns()[seat])
        elif state.is_chance_node():
            value = sum(p * self.value(state.child(a), seat) for a, p in state.chance_outcomes())
        elif state.current_player() == seat:
            value = max(self.value(state.child(a), seat) for a in state.legal_actions())
        else:
            moves = self.tree.policy.action_probabilities(state).items()
            value = sum(p * self.value(state.child(a), seat) for a, p in moves if p > 0)
        self.memo[key] = value
        return value
