"""OpenSpiel's search bots as durak agents: ``openspiel-ismcts`` and ``openspiel-mcts``.

* ``openspiel-ismcts`` is OpenSpiel's Information Set MCTS (Cowling, Powley & Whitehouse,
  IEEE TCIAIG 2012), ``open_spiel.python.algorithms.ismcts``, with random rollouts;
* ``openspiel-mcts`` is OpenSpiel's UCT (``open_spiel.python.algorithms.mcts``) in one world
  sampled from the observation (a single determinization, as in PIMC; Long et al., AAAI
  2010).

Both run on OpenSpiel's Python implementations: the C++ ``pyspiel.ISMCTSBot`` and
``pyspiel.MCTSBot`` end the whole process with a segmentation fault on any game written in
Python in open-spiel 2.0.2 (measured on OpenSpiel's own ``python_kuhn_poker`` and
``python_tic_tac_toe``), and the C++ ISMCTS bot offers no resampler to its Python binding.

An agent sees only its :class:`~durak.rules.Observation`: the bot's root state is a world
drawn from it (:meth:`~durak.interop.openspiel.game.DurakOpenSpielGame.sampled_state`),
and ISMCTS redraws a world at every simulation through ``resample_from_infostate``
(:func:`~durak.rules.sample_world`).
Every random number comes from seeds drawn from the agent's ``rng``.

This module is the entry point of both agents (the agent registry loads every plugin). It
sits beside the package :mod:`durak.interop.openspiel`, not in it, because importing that
package registers the game with ``pyspiel`` (OpenSpiel's convention): loading the plugin
imports neither open-spiel nor numpy, and a bot is built only when one is asked to act;
without open-spiel, building the agent says what to install.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import attrs

from durak.agents.base import register
from durak.agents.optional import MissingAgentExtraError, check_for_agent
from durak.agents.specs import param
from durak.extras import needs
from durak.rules import Action, Observation, Rules

__all__ = ["OpenSpielIsmctsAgent", "OpenSpielMctsAgent"]

#: ISMCTS final policies: the spec's name for each of OpenSpiel's ``ISMCTSFinalPolicyType``.
FINAL_POLICIES = {
    "visits": "MAX_VISIT_COUNT",
    "normalized": "NORMALIZED_VISITED_COUNT",
    "value": "MAX_VALUE",
}

#: OpenSpiel's bots spend their first simulation expanding the root: with one, no action
#: has been tried, and ISMCTS fails an assertion, UCT ``max()`` of no children.
_SIMULATIONS = "simulations per decision (the first only expands the root)"
_C = "UCT exploration constant"
_ROLLOUTS = "random rollouts per leaf"


def _need_openspiel(name: str) -> None:
    check_for_agent(name, "openspiel", "pyspiel", "numpy")


@functools.cache
def _lib() -> SimpleNamespace:
    """numpy, OpenSpiel's MCTS and ISMCTS, the durak game and action space: imported when a
    bot first acts (the optional extra)."""
    with needs("openspiel-ismcts and openspiel-mcts", "openspiel", MissingAgentExtraError):
        import numpy  # noqa: PLC0415
        from open_spiel.python.algorithms import ismcts, mcts  # noqa: PLC0415

        from durak.encoding import ActionSpace  # noqa: PLC0415
        from durak.interop.openspiel.game import DurakOpenSpielGame  # noqa: PLC0415
        from durak.interop.openspiel.parameters import params_of  # noqa: PLC0415

    return SimpleNamespace(
        np=numpy,
        ismcts=ismcts,
        mcts=mcts,
        ActionSpace=ActionSpace,
        Game=DurakOpenSpielGame,
        params_of=params_of,
    )


@functools.cache
def _game(rules: Rules) -> Any:
    """The ``python_durak`` game of ``rules`` (one per variant and process)."""
    lib = _lib()
    return lib.Game(lib.params_of(rules))


def _answer(observation: Observation, action_id: int) -> Action:
    """The durak action of ``action_id`` (one of the observation's legal actions)."""
    action: Action = _lib().ActionSpace(observation.rules).decode(action_id)
    if action not in observation.legal_actions:
        raise AssertionError(f"the OpenSpiel bot chose {action}, not a legal action")
    return action


def _seeds(rng: random.Random) -> tuple[int, int, int]:
    """Three 31-bit seeds from ``rng``: the world, the bot's numpy state, its resampler."""
    return rng.getrandbits(31), rng.getrandbits(31), rng.getrandbits(31)


BotMaker = Callable[[SimpleNamespace, Any, int, int], Any]


def _search(observation: Observation, rng: random.Random, make_bot: BotMaker) -> Action:
    """A forced move at once; else ``make_bot(lib, game, seed, resample_seed)``'s step from
    a world sampled from ``observation`` (the world and both seeds drawn from ``rng``)."""
    legal = observation.legal_actions
    if len(legal) == 1:
        return legal[0]
    world, bot_seed, resample_seed = _seeds(rng)
    game = _game(observation.rules)
    root = game.sampled_state(observation, random.Random(world))
    bot = make_bot(_lib(), game, bot_seed, resample_seed)
    return _answer(observation, int(bot.step(root)))


@attrs.frozen
class OpenSpielIsmctsAgent:
    """OpenSpiel's ISMCTS with random rollouts, from a world sampled from the observation."""

    simulations: int = param(200, _SIMULATIONS, low=2, high=10**7)
    c: float = param(2.0, _C, low=0.0, high=100.0)
    policy: str = param("visits", "final policy", choices=tuple(FINAL_POLICIES))
    worlds: int = param(0, "most worlds kept at the root (0: a new one per simulation)", low=0)
    rollouts: int = param(1, _ROLLOUTS, low=1, high=1000)
    name: str = "openspiel-ismcts"

    def __attrs_post_init__(self) -> None:
        _need_openspiel(self.name)

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The bot's choice; a forced move at once, without a search."""
        return _search(observation, rng, self._bot)

    def _bot(self, lib: SimpleNamespace, game: Any, seed: int, resample_seed: int) -> Any:
        np, ismcts = lib.np, lib.ismcts
        bot = ismcts.ISMCTSBot(
            game,
            lib.mcts.RandomRolloutEvaluator(self.rollouts, np.random.RandomState(seed)),
            self.c,
            self.simulations,
            max_world_samples=self.worlds or ismcts.UNLIMITED_NUM_WORLD_SAMPLES,
            random_state=np.random.RandomState(seed),
            final_policy_type=getattr(ismcts.ISMCTSFinalPolicyType, FINAL_POLICIES[self.policy]),
        )
        draw = random.Random(resample_seed).random
        bot.set_resampler(lambda state, player: state.resample_from_infostate(player, draw))
        return bot


@attrs.frozen
class OpenSpielMctsAgent:
    """OpenSpiel's UCT with random rollouts in one world sampled from the observation."""

    simulations: int = param(200, _SIMULATIONS, low=2, high=10**7)
    c: float = param(2.0, _C, low=0.0, high=100.0)
    rollouts: int = param(1, _ROLLOUTS, low=1, high=1000)
    name: str = "openspiel-mcts"

    def __attrs_post_init__(self) -> None:
        _need_openspiel(self.name)

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The bot's choice; a forced move at once, without a search."""
        return _search(observation, rng, self._bot)

    def _bot(self, lib: SimpleNamespace, game: Any, seed: int, _: int) -> Any:
        np, mcts = lib.np, lib.mcts
        return mcts.MCTSBot(
            game,
            self.c,
            self.simulations,
            mcts.RandomRolloutEvaluator(self.rollouts, np.random.RandomState(seed)),
            solve=False,
            random_state=np.random.RandomState(seed),
        )


register(
    "openspiel-ismcts",
    OpenSpielIsmctsAgent,
    "OpenSpiel's ISMCTS (Python) with random rollouts; needs the openspiel extra",
)
register(
    "openspiel-mcts",
    OpenSpielMctsAgent,
    "OpenSpiel's UCT (Python) with random rollouts in one sampled world; needs the openspiel extra",
)
