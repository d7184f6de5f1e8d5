"""The league of Deep Monte-Carlo training: the ``past`` opponent, earlier copies of the
learner.

After AlphaStar's league (Vinyals et al., "Grandmaster level in StarCraft II using
multi-agent reinforcement learning", Nature 2019), which trains its agents against frozen
copies of themselves besides the current one, and PSRO (Lanctot et al., NeurIPS 2017),
whose learners answer a mixture of earlier policies: a learner that meets only its current
self can forget how to beat the play it has left behind.

Every ``past_every`` rounds, from round 0 (so the pool is never empty), the trainer copies
its network, as it plays (privileged inputs dropped), into a pool of the last
``past_keep`` copies (:class:`PastPool`).  Episode ``e`` against ``past`` plays copy
:func:`past_pick` of the pool as it stood when the round began, drawn uniformly from
``Random(derive_seed(seed, e, 5))``: the copy plays every seat but the learner's, always
its best-scored action (no exploration), and only the learner's decisions are samples.
The pool is in the checkpoint, so a resumed run draws the same copies.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import attrs

from durak.extras import needs

with needs("dmc", "dmc"):
    import numpy as np
    from numpy.typing import NDArray

from durak.seeding import derive_seed

__all__ = ["PAST", "PastPool", "Weights", "past_pick"]

#: The opponent name that means an earlier copy of the learner.
PAST = "past"

#: A network's state dict as numpy arrays.
Weights = Mapping[str, NDArray[np.float32]]


def past_pick(seed: int, episode: int, size: int) -> int:
    """The pool index of the copy that episode ``episode`` of the run with master
    ``seed`` plays against, in a pool of ``size`` copies (uniform)."""
    return random.Random(derive_seed(seed, episode, 5)).randrange(size)


@attrs.define
class PastPool:
    """The copies of the network kept for the ``past`` opponent: one every ``every``
    rounds, the last ``keep`` of them, each with the round it was taken at."""

    every: int
    keep: int
    rounds: list[int] = attrs.Factory(list)
    weights: list[Weights] = attrs.Factory(list)

    def offer(self, round_: int, take: Callable[[], Weights]) -> None:
        """At the start of round ``round_``: add ``take()`` if a copy is due (``round_`` a
        multiple of ``every``) and not already taken (a round played again after a lost
        one), dropping the oldest beyond ``keep``."""
        if round_ % self.every or (self.rounds and self.rounds[-1] == round_):
            return
        self.rounds.append(round_)
        self.weights.append(take())
        del self.rounds[: -self.keep], self.weights[: -self.keep]

    def for_episodes(self, seed: int, episodes: Iterable[int]) -> dict[int, Weights]:
        """The copies that ``episodes`` (those against ``past``) play, by pool index."""
        picks = {past_pick(seed, e, len(self.weights)) for e in episodes}
        return {i: self.weights[i] for i in sorted(picks)}

    def to_file(self, torch: Any) -> dict[str, Any]:
        """The pool as plain values and tensors, for the checkpoint."""
        return {
            "rounds": list(self.rounds),
            "weights": [{k: torch.from_numpy(v) for k, v in w.items()} for w in self.weights],
        }

    def load(self, data: Mapping[str, Any]) -> None:
        """Take the pool of :meth:`to_file`'s ``data`` (``KeyError``, ``TypeError`` or
        ``AttributeError`` for data of another shape)."""
        rounds = [int(r) for r in data["rounds"]]
        weights: list[Weights] = [{k: v.numpy() for k, v in w.items()} for w in data["weights"]]
        if len(rounds) != len(weights):
            raise TypeError("the pool's rounds and copies differ in number")
        self.rounds, self.weights = rounds, weights
