"""The PettingZoo AEC environment of Durak for 2-6 players (needs ``durak-lab[rl]``).

A thin adapter, in the Agent Environment Cycle API of PettingZoo (Terry et al.,
"PettingZoo: Gym for Multi-Agent Reinforcement Learning", NeurIPS 2021), over the pure,
immutable engine of :mod:`durak.rules`.  It mirrors PettingZoo's classic card games:
agents ``"player_0"`` .. ``"player_{n-1}"``, ``{"observation", "action_mask"}`` dict
observations (:func:`durak.envs.gymnasium_env.observation_space`, the same spaces as the
Gymnasium env), ``Discrete`` actions of :class:`~durak.encoding.ActionSpace`, and rewards
only at the end (:func:`~durak.rules.returns`).
"""

from __future__ import annotations

import copy
import random
from typing import Any

from durak.extras import needs

with needs("the PettingZoo environment", "rl"):
    from gymnasium import spaces
    from pettingzoo import AECEnv  # type: ignore[import-untyped]
    from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from durak.encoding import ActionSpace
from durak.envs.gymnasium_env import (
    DEFAULT_RULES,
    ActType,
    ObsDict,
    encode,
    observation_space,
    render_text,
)
from durak.rules import (
    GameState,
    IllegalActionError,
    Rules,
    Visibility,
    is_terminal,
    loser,
    new_game,
    observe,
    returns,
    step,
)
from durak.seeding import derive_seed

__all__ = ["DurakAECEnv", "env", "raw_env"]


def env(**kwargs: Any) -> Any:
    """A :class:`DurakAECEnv` of ``kwargs`` in PettingZoo's ``AssertOutOfBoundsWrapper`` and
    ``OrderEnforcingWrapper``.  Unlike the classic games it has no
    ``TerminateIllegalWrapper``: an illegal action raises, it does not end the game."""
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(raw_env(**kwargs)))


def raw_env(**kwargs: Any) -> DurakAECEnv:
    """An unwrapped :class:`DurakAECEnv` of ``kwargs``."""
    return DurakAECEnv(**kwargs)


class DurakAECEnv(AECEnv):  # type: ignore[misc]  # AECEnv is untyped
    """A game of ``rules`` between ``rules.players`` agents, one action at a time.

    ``agent_selection`` is always the engine's player to act.  Every agent terminates when
    the game ends, with its share of :func:`~durak.rules.returns` (players that went out
    earlier never get the turn again but stay among ``agents`` until then); rewards are zero
    before, and nothing truncates.  ``infos`` are empty dicts: everything an agent may know
    is in its observation.  An illegal action raises :class:`~durak.rules.IllegalActionError`
    naming the index, the action and the agent.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012
        "name": "durak_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        *,
        rules: Rules = DEFAULT_RULES,
        open_world: Visibility = False,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', got {render_mode!r}")
        self.rules = rules
        self.open_world = open_world
        self.render_mode = render_mode
        self._space = ActionSpace(rules)
        self.possible_agents = [f"player_{i}" for i in range(rules.players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.observation_spaces = {a: observation_space(rules) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self._space.size) for a in self.possible_agents}
        self.agents: list[str] = []
        self._state: GameState | None = None
        # Seeds of the resets without a seed: derive_seed(base, k) for the k-th since the last
        # explicit seed; the base comes from the OS only until a seed is first given.
        self._base_seed = random.SystemRandom().getrandbits(63)
        self._resets = 0

    def observation_space(self, agent: str) -> spaces.Dict:
        """The observation space of ``agent`` (the same object on every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        """The action space of ``agent``: ``Discrete(ActionSpace(rules).size)``."""
        return self.action_spaces[agent]

    @property
    def game_state(self) -> GameState:
        """The true, full engine state (hidden cards included); ``RuntimeError`` before
        :meth:`reset`."""
        if self._state is None:
            raise RuntimeError("call reset() before using the environment")
        return self._state

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal ``new_game(rules, seed)``; without a seed, deal the next seed of a stream
        fixed by the last explicit seed (so a seeded env stays reproducible)."""
        if seed is not None:
            self._base_seed, self._resets, deal = int(seed), 0, int(seed)
        else:
            self._resets += 1
            deal = derive_seed(self._base_seed, self._resets)
        self._state = new_game(self.rules, deal)
        self._skip_agent_selection = None  # left over if the last game's dead steps were cut
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._state.turn]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> ObsDict:
        """``agent``'s encoded observation and its action mask (all zeros unless it is
        ``agent``'s turn)."""
        o = observe(self.game_state, self._seat[agent], self.open_world)
        return encode(o, self._space)

    def step(self, action: ActType | None) -> None:
        """Apply ``agent_selection``'s action index; ``None`` for a terminated agent."""
        agent = self.agent_selection
        if not self.agents:  # every agent has left a finished game
            raise ValueError("the game is over and every agent has left; call reset()")
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must act: None is only for terminated agents")
        move = self._space.decode(action)
        try:
            state = step(self.game_state, move)
        except IllegalActionError as e:
            raise IllegalActionError(f"action index {action} ({agent}): {e}") from None
        self._state = state
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if is_terminal(state):
            for a, r in zip(self.possible_agents, returns(state), strict=True):
                self.rewards[a] = r
                self.terminations[a] = True
        else:
            self.agent_selection = self.possible_agents[state.turn]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The view of the player to act as text (the outcome once over): returned for
        ``"ansi"``, printed for ``"human"``."""
        if self._state is None or self.render_mode is None:
            return None
        s = self._state
        done = is_terminal(s)
        o = observe(s, self._seat[self.agent_selection] if done else s.turn, self.open_world)
        text = render_text(o, done, loser(s) if done else None)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        """Nothing to release."""

    def clone(self) -> DurakAECEnv:
        """An independent copy that continues exactly as this env would (O(1) in the game:
        the immutable state and the spaces are shared, the small dicts copied)."""
        twin = copy.copy(self)
        twin.agents = self.agents[:]
        for name in ("rewards", "_cumulative_rewards", "terminations", "truncations"):
            if name in self.__dict__:
                setattr(twin, name, dict(getattr(self, name)))
        if "infos" in self.__dict__:
            twin.infos = {a: dict(i) for a, i in self.infos.items()}
        return twin
