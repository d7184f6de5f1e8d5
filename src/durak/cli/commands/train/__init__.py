"""``durak train`` and ``durak learners``.

* :mod:`durak.cli.commands.train.command`: the commands, each learner's option group, the
  refusal of another learner's option;
* :mod:`durak.cli.commands.train.request`: the option group every learner takes;
* :mod:`durak.cli.commands.train.online`: the online learners' training (``qlearn``,
  ``dqn``);
* :mod:`durak.cli.commands.train.dmc`: Deep Monte-Carlo's options and output (its schedule
  is :mod:`durak.learn.dmc.schedule`);
* :mod:`durak.cli.commands.train.opponents`: the opponents of ``--vs``;
* :mod:`durak.cli.commands.train.output`: the progress bar, interval lines and CSV, the
  learning curve, and the evaluating ``durak match`` command.
"""

from durak.cli.commands.train.command import learners, train

__all__ = ["learners", "train"]
