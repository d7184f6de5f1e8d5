"""Any durak agent as a ``pyspiel.Bot``, so that OpenSpiel's evaluation code can play it.

OpenSpiel's bots answer ``step(state)`` with an action id and hear the others' actions
through ``inform_action`` (Lanctot et al., arXiv:1908.09453, section "Bots").  The bot here
shows its agent nothing but :func:`~durak.rules.observe` of the ``python_durak`` state, as
the arena does, and passes the :class:`~durak.agents.interface.protocol.Watcher` hooks on to an
agent that follows the game.
"""

from __future__ import annotations

import random

from durak.extras import needs

with needs("durak.interop.openspiel", "openspiel"):
    import pyspiel

from durak.agents import make_agent
from durak.agents.base import Agent, Watcher
from durak.encoding import ActionSpace
from durak.interop.openspiel.game import DurakOpenSpielState
from durak.rules import Action, GameState, Observation, Rules, RulesError, loser, observe

__all__ = ["AgentBot", "bot"]


def _checked(state: object) -> DurakOpenSpielState:
    if not isinstance(state, DurakOpenSpielState):
        raise TypeError(f"state must be a python_durak state, got {type(state).__name__}")
    return state


def _durak(state: DurakOpenSpielState) -> GameState:
    now = state.durak_state
    if now is None:
        raise RulesError("the deal is not over: no player decision yet")
    return now


class AgentBot(pyspiel.Bot):  # type: ignore[misc]  # pyspiel is untyped
    """A ``pyspiel.Bot`` playing ``agent`` as ``player`` with ``random.Random(seed)``."""

    def __init__(self, agent: Agent, player: int, seed: int) -> None:
        pyspiel.Bot.__init__(self)
        self.agent = agent
        self.player = player
        self.seed = seed
        self._rng = random.Random(seed)
        self._started = False
        self._watcher = agent if isinstance(agent, Watcher) else None

    def restart_at(self, state: object) -> None:
        """A new game from ``state``: the seed's generator starts again."""
        self._rng = random.Random(self.seed)
        self._started = False

    def step(self, state: object) -> int:
        """The agent's action id for ``player``'s observation of ``state``."""
        now = _durak(_checked(state))
        if now.turn != self.player:
            raise RulesError(f"it is player {now.turn}'s turn, not this bot's ({self.player})")
        observation = observe(now, self.player)
        self._start(observation)
        action = self.agent.act(observation, self._rng)
        if self._watcher is not None:
            self._tell(_checked(state), self.player, action)
        return ActionSpace(now.rules).encode(action)

    def inform_action(self, state: object, player: int, action: int) -> None:
        """Tells a watching agent of another player's action (chance outcomes are not
        shown: the bot joins after the deal)."""
        if self._watcher is None or player < 0:
            return
        checked = _checked(state)
        now = _durak(checked)
        self._start(observe(now, self.player))
        self._tell(checked, player, ActionSpace(now.rules).decode(action))

    def _start(self, observation: Observation) -> None:
        if self._watcher is not None and not self._started:
            self._started = True
            self._watcher.game_started(observation)

    def _tell(self, state: DurakOpenSpielState, player: int, action: Action) -> None:
        """The watcher hears ``action`` with its observation of the state it leads to."""
        if self._watcher is None:
            return
        child = state.child(ActionSpace(state.rules).encode(action))
        after = _durak(_checked(child))
        seen = observe(after, self.player)
        self._watcher.action_taken(player, action, seen)
        if after.turn < 0:
            self._watcher.game_ended(seen, loser(after))


def bot(spec: str, player: int, seed: int, rules: Rules | None = None) -> AgentBot:
    """A ``pyspiel.Bot`` playing the durak agent ``spec`` as ``player``, its randomness from
    ``seed`` (same seed, same choices).  With ``rules``, an agent made for other rules is
    refused (``SpecError``), as :func:`~durak.agents.make_agent` does."""
    if type(player) is not int or player < 0:
        raise TypeError(f"player must be a non-negative int, got {player!r}")
    if type(seed) is not int:
        raise TypeError(f"seed must be an int, got {seed!r}")
    return AgentBot(make_agent(spec, rules), player, seed)
