"""The reference model of ``Knowledge.origins`` (``durak/rules/origins.py``), restated as a
Bayesian posterior rather than the engine's counts.

For each player, the chance that ``j`` of its unknown cards came from the talon.  Playing
one of ``u`` unknown cards came from the talon with chance ``j / u`` (a trump known to have
been in the talon: certainly), and the posterior is renormalised; the engine's weights,
divided by their sum, must equal it.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from durak.rules import GameState

#: ``chances[j]``: the chance that ``j`` of a player's unknown cards came from the talon.
Posterior = tuple[Fraction, ...]


def posterior(weights: Sequence[int]) -> Posterior:
    """Engine weights as chances (trailing zeros dropped)."""
    total = sum(weights)
    chances = [Fraction(w, total) for w in weights]
    while len(chances) > 1 and not chances[-1]:
        chances.pop()
    return tuple(chances)


def origins_of(s: GameState) -> tuple[Posterior, ...]:
    """The engine's origins of every player in ``s`` as posteriors (``()`` when untracked)."""
    return tuple(posterior(w) for w in s.knowledge.origins)


def after_unknown_play(chances: Posterior, unknown: int, from_talon: bool) -> Posterior:
    """Bayes: the played card was one of the ``unknown`` cards, from the talon with chance
    ``j / unknown`` (or, for a trump known to have been in the talon, certainly)."""
    joint = [Fraction(0)] * len(chances)
    for j, x in enumerate(chances):
        if j:
            joint[j - 1] += x * Fraction(j, unknown)  # it came from the talon
        if not from_talon:
            joint[j] += x * Fraction(unknown - j, unknown)  # it came from the deal
    return posterior_of_chances(joint)


def posterior_of_chances(joint: Sequence[Fraction]) -> Posterior:
    """Joint chances renormalised (trailing zeros dropped)."""
    total = sum(joint)
    chances = [x / total for x in joint]
    while len(chances) > 1 and not chances[-1]:
        chances.pop()
    return tuple(chances)
