"""Learning agents: Crampton's (Durham) tabular Q-learning and a DQN, and their training.

* :mod:`durak.learn.train`: the ``Learner`` protocol and the training loop;
* :mod:`durak.learn.rewards`: Crampton's reward scheme;
* :mod:`durak.learn.abstraction`, :mod:`durak.learn.qtable`, :mod:`durak.learn.qlearn`:
  tabular Q-learning and the ``qlearn`` agent (core library only);
* :mod:`durak.learn.dqn`: the DQN learner and the ``dqn`` agent (needs ``durak-lab[dqn]``,
  imported lazily);
* :mod:`durak.learn.dmc`: Deep Monte-Carlo (DouZero) and the ``dmc`` agent, shipped
  trained (needs ``durak-lab[dqn]``'s torch, imported lazily);
* :mod:`durak.learn.registry`: learners by spec (``durak train NAME``).

Importing this package registers the learners and their agents.
"""

from durak.learn import dmc, dqn, qlearn
from durak.learn.qlearn import QAgent, QLearner
from durak.learn.qtable import QTable, QTableError
from durak.learn.registry import learners, make_learner
from durak.learn.rewards import RewardScheme
from durak.learn.train import IntervalStats, Learner, train

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
