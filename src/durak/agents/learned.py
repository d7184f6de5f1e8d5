"""Learned agents' shipped models: the name of the table (rules) a model fits, and the
refusal of a table that no shipped model fits.

A network is trained for one rules variant (DouZero, Zha et al. ICML 2021, trains one
network per game), so a learned agent without a model file of its own plays the shipped
model of the game's rules, and refuses a game without one with :class:`NoModelError`: one
line naming the tables that have one.  The learners register such agents
(:mod:`durak.learn.dmc`); the search agents that take their guide, ``strongest`` and the
web read the refusal through this module, without importing them.
"""

from __future__ import annotations

from collections.abc import Sequence

from durak.agents.specs import SpecError
from durak.rules import Rules

__all__ = ["NoModelError", "table_name"]

_DEFAULT = Rules()


def table_name(rules: Rules) -> str:
    """The table ``rules`` describe, in words: players, cards, variant and throw-in, then
    every other option that differs from the defaults, e.g. ``3 players, 36 cards,
    podkidnoy, throw-in all`` or ``2 players, 20 cards, podkidnoy, throw-in all, hand 4``."""
    words = [
        f"{rules.players} players",
        f"{rules.deck_size} cards",
        "perevodnoy" if rules.transfer else "podkidnoy",
        f"throw-in {rules.throw_in}",
    ]
    if rules.suits != _DEFAULT.suits:
        words.append(f"{rules.suits} suits")
    if rules.hand_size != _DEFAULT.hand_size:
        words.append(f"hand {rules.hand_size}")
    if rules.bout_cap != _DEFAULT.bout_cap:
        words.append(f"bout cap {rules.bout_cap}")
    if rules.first_bout_cap is not None:
        words.append(f"first bout cap {rules.first_bout_cap}")
    if not rules.trumps:
        words.append("no trumps")
    return ", ".join(words)


class NoModelError(SpecError):
    """No shipped model of ``agent`` fits ``rules``; ``shipped`` are the rules that have
    one.  Its text is one line for the command line (it names ``AGENT:path=FILE``, the way
    to give a model); :meth:`plain` is the same fact for a page, without the option."""

    def __init__(self, agent: str, rules: Rules, shipped: Sequence[Rules]) -> None:
        self.agent, self.rules, self.shipped = agent, rules, tuple(shipped)
        super().__init__(
            f"{agent}: no shipped model for {table_name(rules)} (shipped: {self.tables()}); "
            f"give {agent}:path=FILE"
        )

    def __reduce__(self) -> tuple[type[NoModelError], tuple[str, Rules, tuple[Rules, ...]]]:
        # An error raised in a worker reaches its parent whole.
        return (type(self), (self.agent, self.rules, self.shipped))

    def tables(self) -> str:
        """The tables that have a shipped model, ``; ``-separated (``none`` if none)."""
        return "; ".join(table_name(r) for r in self.shipped) or "none"

    def plain(self) -> str:
        """The refusal in a sentence for a person choosing a table."""
        table = table_name(self.rules)
        if not self.shipped:
            return f"No learned agent for {table}: {self.agent} ships no network."
        shipped = self.tables()
        return f"No learned agent for {table}: {self.agent} ships networks for {shipped} only."
