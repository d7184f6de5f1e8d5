"""The Gymnasium environment: one learner against fixed agents (needs ``durak-lab[rl]``).

A thin adapter, in the API of Gymnasium (Towers et al., "Gymnasium: A Standard Interface for
Reinforcement Learning Environments", 2024), over :class:`~durak.envs.solo.SoloTable`, which
holds all the game-play logic.  Observations are ``{"observation", "action_mask"}`` dicts, as
in PettingZoo's classic card games (Terry et al., NeurIPS 2021), built with
:func:`~durak.encoding.encode_observation` and :class:`~durak.encoding.ActionSpace`.
Importing this module registers ``"Durak-v0"`` for :func:`gymnasium.make`.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, Literal, TypeAlias

import attrs

from durak.extras import needs

with needs("the Gymnasium environment", "rl"):
    import gymnasium
    import numpy as np
    from gymnasium import spaces
    from numpy.typing import NDArray

from durak.agents import make_agent
from durak.agents.human import describe
from durak.encoding import ActionSpace, encode_observation, observation_size
from durak.envs.solo import SoloStep, SoloTable
from durak.rules import IllegalActionError, Observation, Rules, Visibility

__all__ = ["DurakEnv", "ObsDict", "encode", "observation_space", "render_text"]

#: ``{"observation": float32 vector, "action_mask": int8 vector}``.
ObsDict: TypeAlias = dict[str, NDArray[Any]]
ActType: TypeAlias = int | np.integer[Any]

DEFAULT_RULES = Rules()

#: Fresh deals tried by :meth:`DurakEnv.reset` before giving up (see its docstring).
MAX_DEALS = 1000


def observation_space(rules: Rules) -> spaces.Dict:
    """A new ``Dict`` space of the observations of ``rules``: ``"observation"`` is a float32
    ``Box(0, 1)`` of length :func:`~durak.encoding.observation_size`, ``"action_mask"`` an
    int8 ``Box(0, 1)`` of length ``ActionSpace(rules).size``."""
    size = ActionSpace(rules).size
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, 1.0, (observation_size(rules),), np.float32),
            "action_mask": spaces.Box(0, 1, (size,), np.int8),
        }
    )


def encode(observation: Observation, space: ActionSpace) -> ObsDict:
    """The dict of ``observation``: its encoding, and the int8 mask of its own legal actions
    (all zeros when it is not the observer's turn)."""
    return {
        "observation": encode_observation(observation),
        "action_mask": space.mask(observation.legal_actions).astype(np.int8),
    }


def render_text(observation: Observation, done: bool, loser: int | None) -> str:
    """What a person reads of ``observation`` (:func:`durak.agents.human.describe`), or the
    outcome once the episode is ``done``."""
    if not done:
        return describe(observation)
    outcome = "a draw" if loser is None else f"player {loser} is the durak"
    return f"--- game over: {outcome} ---"


# Env's ObsType is dict[str, Any]: gymnasium types a Dict space's elements as spaces.
class DurakEnv(gymnasium.Env[dict[str, Any], ActType]):
    """One learner against ``opponents``, agent specs for :func:`~durak.agents.make_agent`
    (one per other seat, in seat order skipping the learner).

    Spaces: :func:`observation_space` and ``Discrete(ActionSpace(rules).size)``.  The reward
    is zero until the end, then the learner's share of :func:`~durak.rules.returns`.  The
    learner's seat is ``learner_seat``, or drawn per deal when ``None``; ``info`` carries
    ``"action_mask"``, ``"seat"`` and, at the end, ``"loser"`` (``None`` for a draw).
    Episodes never truncate: the engine guarantees that every game ends.

    ``illegal_action="raise"`` (the default) raises on an illegal action; ``"lose"`` ends
    the episode instead with reward -1 and ``info["illegal_action"] = True``, as PettingZoo's
    ``TerminateIllegalWrapper`` does, for tools that step unmasked actions (Gymnasium's
    ``check_env``).
    """

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        *,
        rules: Rules = DEFAULT_RULES,
        opponents: Sequence[str] = ("random",),
        learner_seat: int | None = None,
        open_world: Visibility = False,
        render_mode: str | None = None,
        illegal_action: Literal["raise", "lose"] = "raise",
    ) -> None:
        if isinstance(opponents, str):  # a str is a Sequence[str]: catch "random" early
            raise ValueError(f"opponents must be a sequence of agent specs, got {opponents!r}")
        if len(opponents) != rules.players - 1:
            raise ValueError(
                f"{rules.players} players need {rules.players - 1} opponent specs, got "
                f"{len(opponents)}: {list(opponents)}"
            )
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', got {render_mode!r}")
        if illegal_action not in ("raise", "lose"):
            raise ValueError(f"illegal_action must be 'raise' or 'lose', got {illegal_action!r}")
        self.rules = rules
        self.opponents = tuple(opponents)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self._table = SoloTable(
            rules,
            [make_agent(s, rules) for s in opponents],
            learner_seat=learner_seat,
            open_world=open_world,
        )
        self._space = ActionSpace(rules)
        self.observation_space = observation_space(rules)
        self.action_space = spaces.Discrete(self._space.size)
        self._last: SoloStep | None = None

    @property
    def table(self) -> SoloTable:
        """The underlying table (its ``state`` is the true, full game state)."""
        return self._table

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsDict, dict[str, Any]]:
        """Deal a game whose seed comes from ``self.np_random`` (seeded by ``seed`` as in
        Gymnasium) and play the opponents until the learner must act.

        With three or more players a game may end before the learner ever acts; such deals
        are skipped and the next seed of the same generator is dealt, so the result is still
        a function of ``seed``.  ``RuntimeError`` if :data:`MAX_DEALS` deals in a row do so.
        """
        super().reset(seed=seed)
        for _ in range(MAX_DEALS):
            deal = int(self.np_random.integers(0, 2**63 - 1))
            result = self._table.reset(deal)
            if not result.done:
                return self._show(result)
        raise RuntimeError(
            f"{MAX_DEALS} deals of {self.rules} in a row ended before the learner could act"
        )

    def step(self, action: ActType) -> tuple[ObsDict, float, bool, bool, dict[str, Any]]:
        """Play the learner's action index and the opponents until the learner must act again
        or the game ends; returns ``(obs, reward, terminated, False, info)``.

        Raises ``ValueError`` for a non-index (with ``illegal_action="lose"`` it loses, like
        any action that is not legal); for an illegal action (see the class doc)
        :class:`~durak.rules.IllegalActionError` naming the index, the action and the
        learner's seat (the game is then unchanged); ``RuntimeError`` before :meth:`reset`
        or after the end.
        """
        if self._last is None or self._last.done:
            raise RuntimeError("call reset() first: no game in progress")
        in_range = self._space.is_index(action)
        move = self._space.decode(action) if in_range or self.illegal_action == "raise" else None
        if self.illegal_action == "lose" and (
            move is None or move not in self._last.observation.legal_actions
        ):
            lost = attrs.evolve(self._last, reward=-1.0, done=True, loser=self._table.learner)
            obs, info = self._show(lost)
            return obs, lost.reward, True, False, {**info, "illegal_action": True}
        assert move is not None  # "raise" decoded it (or raised)
        try:
            result = self._table.step(move)
        except IllegalActionError as e:
            raise IllegalActionError(f"action index {action} (learner): {e}") from None
        obs, info = self._show(result)
        return obs, result.reward, result.done, False, info

    def action_masks(self) -> NDArray[np.bool_]:
        """The legal action indices now, as a boolean vector (all false before
        :meth:`reset` and once the episode is over).  sb3-contrib's ``MaskablePPO`` calls
        this method by name, so it trains on the env unchanged."""
        if self._last is None or self._last.done:
            return np.zeros(self._space.size, dtype=np.bool_)
        return self._space.mask(self._last.observation.legal_actions)

    def render(self) -> str | None:
        """The learner's view as text: returned for ``"ansi"``, printed for ``"human"``."""
        if self._last is None or self.render_mode is None:
            return None
        text = render_text(self._last.observation, self._last.done, self._last.loser)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def clone(self) -> DurakEnv:
        """An independent copy that continues exactly as this env would, including later
        resets (O(1) in the game: the table is cloned, the generator copied, spaces shared)."""
        twin = copy.copy(self)
        twin._table = self._table.clone()
        twin._np_random = copy.deepcopy(self._np_random)
        return twin

    def _show(self, result: SoloStep) -> tuple[ObsDict, dict[str, Any]]:
        """Record ``result`` as the current step; its observation and info."""
        self._last = result
        if self.render_mode == "human":
            self.render()
        obs = encode(result.observation, self._space)
        if result.done:  # no action is legal once the episode is over
            obs["action_mask"][:] = 0
        # A copy, so that a caller editing one of the two cannot change the other.
        info: dict[str, Any] = {
            "action_mask": obs["action_mask"].copy(),
            "seat": self._table.learner,
        }
        if result.done:
            info["loser"] = result.loser
        return obs, info


if "Durak-v0" not in gymnasium.registry:
    gymnasium.register(id="Durak-v0", entry_point="durak.envs.gymnasium_env:DurakEnv")
