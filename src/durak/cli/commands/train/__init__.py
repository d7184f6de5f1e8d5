"""``durak train`` and ``durak learners``.

* :mod:`durak.cli.train.command`: the commands, each learner's option group, the refusal
  of another learner's option;
* :mod:`durak.cli.train.request`: the options every learner takes;
* :mod:`durak.cli.train.online`: the online learners' training (``qlearn``, ``dqn``);
* :mod:`durak.cli.train.dmc`: Deep Monte-Carlo's options and output (its schedule is
  :mod:`durak.learn.dmc.schedule`);
* :mod:`durak.cli.train.opponents`: the opponents of ``--vs``;
* :mod:`durak.cli.train.output`: the progress bar, interval lines and CSV, and the
  evaluating ``durak match`` command.
"""

from durak.cli.train.command import learners, train

__all__ = ["learners", "train"]
