"""Environments for reinforcement learning over the pure engine.

* :mod:`durak.envs.solo`: one learner against fixed agents (``SoloTable``), core library only;
* :mod:`durak.envs.gymnasium_env`: the Gymnasium environment over it (needs ``durak-lab[rl]``);
* :mod:`durak.envs.aec`: the PettingZoo AEC environment for 2-6 players (needs ``[rl]``).

Importing this package imports neither Gymnasium nor PettingZoo.
"""

from durak.envs.solo import SoloStep, SoloTable

__all__ = ["SoloStep", "SoloTable"]
