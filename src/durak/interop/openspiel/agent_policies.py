"""Any durak agent as an OpenSpiel ``Policy``, so that ``exploitability`` can measure it.

OpenSpiel's best responses and exploitability (``open_spiel.python.algorithms.exploitability``;
Lanctot et al., arXiv:1908.09453, and NashConv after Lanctot et al., NeurIPS 2017) take a
policy: a distribution over the legal actions at every decision, a function of the acting
player's information state.  An agent is a function of its observation and a random
generator; its distribution at an information state is estimated here from ``samples``
decisions, each with a generator seeded from ``seed`` and the information-state string (so
the policy depends on the information state only, and the same seed gives the same policy).
With ``watch``, an agent that follows the game (a :class:`~durak.agents.Watcher`) hears
the game up to each decision first, as :func:`~durak.arena.play_game` would tell it (its
own observation after every action, from the deal on), so that it can infer from the
other players' moves.
A deterministic agent (``lowest``, ``greedy``, ``smart``) gives its one action probability 1
whatever ``samples`` is.  An agent that states its distribution, a ``policy(observation)``
method giving the probability of each of ``observation.legal_actions`` in order (the
optional protocol :class:`~durak.agents.interface.policies.PolicyAgent`), gives that
distribution exactly, with no sampling.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any, cast

from durak.extras import needs

with needs("durak.interop.openspiel", "openspiel"):
    from open_spiel.python import policy as os_policy

from durak.agents import make_agent
from durak.agents.base import Agent, Watcher
from durak.agents.interface.policies import PolicyAgent, PolicyError, checked_policy, states_policy
from durak.encoding import ActionSpace
from durak.interop.openspiel.game import DurakOpenSpielGame, DurakOpenSpielState
from durak.rules import Observation, RulesError, observe

__all__ = ["AgentPolicy"]


def _seed(seed: int, infostate: str) -> int:
    """A 64-bit seed from ``seed`` and an information-state string (stable across runs)."""
    digest = hashlib.blake2b(f"{seed}|{infostate}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


class AgentPolicy(os_policy.Policy):  # type: ignore[misc]  # open_spiel is untyped
    """The policy of the durak agent ``spec`` for every player of ``game`` (module doc)."""

    def __init__(
        self,
        game: DurakOpenSpielGame,
        spec: str,
        samples: int = 1,
        seed: int = 0,
        *,
        watch: bool = False,
    ):
        if type(samples) is not int or samples < 1:
            raise ValueError(f"samples must be a positive int, got {samples!r}")
        super().__init__(game, list(range(game.num_players())))
        self.spec = spec
        self.samples = samples
        self.seed = seed
        self._agent: Agent = make_agent(spec, game.rules)
        self._space = ActionSpace(game.rules)
        self._cache: dict[str, dict[int, float]] = {}
        self._watcher = self._agent if watch and isinstance(self._agent, Watcher) else None

    def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
        """The agent's estimated distribution over the legal action ids of the player to
        act (``player_id``, if given, must be that player: :class:`RulesError` otherwise)."""
        if not isinstance(state, DurakOpenSpielState):
            raise TypeError(f"state must be a python_durak state, got {type(state).__name__}")
        now = state.durak_state
        if now is None or now.turn < 0:
            raise RulesError("a policy is asked only at a player's decision")
        player = now.turn if player_id is None else player_id
        if player != now.turn:
            raise RulesError(
                f"a policy is asked for the player to act, player {now.turn}, not {player!r}"
            )
        key = state.information_state_string(player)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        observation = observe(now, player)
        if self._watcher is not None:
            self._tell(state, player)
        if states_policy(self._agent):
            probs = self._stated(observation)
        else:
            rng = random.Random(_seed(self.seed, key))
            counts = dict.fromkeys(state.legal_actions(player), 0)
            for _ in range(self.samples):
                counts[self._space.encode(self._agent.act(observation, rng))] += 1
            probs = {a: c / self.samples for a, c in counts.items()}
        self._cache[key] = probs
        return probs

    def _tell(self, state: DurakOpenSpielState, player: int) -> None:
        """Tell the watching agent the game from the deal up to ``state``, as ``player``
        sees it (nothing if the line was resampled and has no deal)."""
        line = state.line()
        watcher = self._watcher
        if line.prefix is not None or watcher is None:
            return
        watcher.game_started(observe(line.states[0], player))
        for (mover, action), after in zip(line.moves, line.states[1:], strict=True):
            watcher.action_taken(mover, action, observe(after, player))

    @property
    def exact(self) -> bool:
        """Whether the agent states its distribution (else it is estimated from samples)."""
        return states_policy(self._agent)

    def _stated(self, observation: Observation) -> dict[int, float]:
        """The distribution the agent states, by action id; :class:`RulesError` unless it
        is one probability per legal action, summing to 1."""
        try:
            probs = checked_policy(cast(PolicyAgent, self._agent), observation, self.spec)
        except PolicyError as e:
            raise RulesError(str(e)) from None
        legal = observation.legal_actions
        return {self._space.encode(a): float(p) for a, p in zip(legal, probs, strict=True)}
