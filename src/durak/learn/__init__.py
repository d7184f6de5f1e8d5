"""Learning agents and their training: one package per learner, the shared code beside them.

* :mod:`durak.learn.qlearn`: Crampton's (Durham) tabular Q-learning and the ``qlearn``
  agent (core library only);
* :mod:`durak.learn.dqn`: the DQN learner and the ``dqn`` agent (needs ``durak-lab[dqn]``,
  imported lazily);
* :mod:`durak.learn.dmc`: Deep Monte-Carlo (DouZero) with its own training schedule, and
  the ``dmc`` agent, shipped trained (needs ``durak-lab[dqn]``'s torch, imported lazily);

shared by them:

* :mod:`durak.learn.online`: the ``Learner`` protocol and the online training loop of
  ``qlearn`` and ``dqn``;
* :mod:`durak.learn.rewards`: Crampton's reward scheme;
* :mod:`durak.learn.model_file`, :mod:`durak.learn.model_upgrade`: the checked network
  files of ``dqn`` and ``dmc``;
* :mod:`durak.learn.plot`: learning curves;
* :mod:`durak.learn.registry`: learners by spec (``durak train NAME``);
* :mod:`durak.learn.torch_support`: the optional PyTorch import.

Importing this package registers the learners and their agents.
"""

from durak.learn import dmc, dqn, qlearn
from durak.learn.online import IntervalStats, Learner, train
from durak.learn.qlearn.learner import QAgent, QLearner
from durak.learn.qlearn.qtable import QTable, QTableError
from durak.learn.registry import learners, make_learner
from durak.learn.rewards import RewardScheme

__all__ = [
    "IntervalStats",
    "Learner",
    "QAgent",
    "QLearner",
    "QTable",
    "QTableError",
    "RewardScheme",
    "dmc",
    "dqn",
    "learners",
    "make_learner",
    "qlearn",
    "train",
]
