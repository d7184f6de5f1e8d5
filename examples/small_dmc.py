"""Train a small Deep Monte-Carlo network (DouZero's method) on a 16-card deck, then rate it.

``DmcTrainer`` plays rounds of self-play and games against ``greedy`` and fits Q(s, a) to
the returns (Zha et al., "DouZero", ICML 2021).  Its actors run on any object with a
``start`` method (the arena's process pool, Ray, or, as here, this process).  The model
file it writes is played by the spec ``dmc:path=FILE``.  Needs ``durak-lab[dmc]``.
Run: ``python examples/small_dmc.py`` (writes ``small-dmc.pt`` in the current folder).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from durak.arena import run_match
from durak.learn.dmc import DmcSettings
from durak.learn.dmc.learner import DmcTrainer
from durak.learn.dmc.net import save_model
from durak.rules import Rules


class InProcess:
    """Runs the actors' tasks one after the other in this process (one core)."""

    def start(self, fn: Callable[[Any], Any], args: Sequence[Any]) -> Callable[[], list[Any]]:
        results = [fn(a) for a in args]
        return lambda: results


if __name__ == "__main__":
    rules = Rules(lowest_rank=11, hand_size=4)  # 16 cards: J, Q, K, A of four suits
    settings = DmcSettings(round=64, chunk=16, hidden=64, layers=2, batch=256)
    trainer = DmcTrainer(rules, ["self", "greedy"], seed=1, settings=settings)
    baseline = run_match(rules, ["random", "greedy"], games=200, seed=2)
    for _ in range(25):
        trainer.round(InProcess())
    print(f"trained on {trainer.episodes} episodes, {trainer.samples} samples")
    save_model("small-dmc.pt", trainer.model())
    for opponent in ("random", "greedy"):
        result = run_match(rules, ["dmc:path=small-dmc.pt", opponent], games=200, seed=2)
        low, high = result.win_interval(0)
        print(f"vs {opponent}: {result.win_rate(0):.1%} [{low:.1%}, {high:.1%}] (98% Wilson)")
    print(f"random vs greedy on the same deals: {baseline.win_rate(0):.1%}")
