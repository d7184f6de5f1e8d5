"""The line of one ``python_durak`` game: everything that happened in it, shared by the
state (:mod:`durak.interop.openspiel.game`) and read by its observers
(:mod:`durak.interop.openspiel.observers`), after OpenSpiel's Python games (Lanctot et al.,
arXiv:1908.09453), whose states are copied at every step of a search.
"""

from __future__ import annotations

import copy
from typing import Any

from durak.rules import Action, GameState, Rules

__all__ = ["Line"]


class Line:
    """Everything that happened in one game: cheap to copy, since states are immutable.

    ``rules``: the variant (shared by copies); ``deck``: the deck positions dealt so far;
    ``states``: the durak states since the deal (or since a resample); ``moves``:
    ``(player, action)`` between them; ``prefix``: per player, the recall before
    ``states[0]`` (``None``: the deal itself); ``played``: per player, the cards it played
    before ``states[0]``; ``recall``: per player, the recall tokens worked out so far (a
    memo of the observers).
    """

    __slots__ = ("dealt", "deck", "moves", "played", "prefix", "recall", "rules", "states")

    def __init__(self, rules: Rules) -> None:
        players = rules.players
        self.rules = rules
        self.deck: list[int] = []
        self.dealt = 0  # mask of the deck positions dealt
        self.states: list[GameState] = []
        self.moves: list[tuple[int, Action]] = []
        self.prefix: tuple[str, ...] | None = None
        self.played = (0,) * players  # per player, cards played before states[0]
        self.recall: list[list[str]] = [[] for _ in range(players)]

    def __deepcopy__(self, memo: dict[int, object]) -> Line:
        other = copy.copy(self)
        other.deck = list(self.deck)
        other.states = list(self.states)
        other.moves = list(self.moves)
        other.recall = [list(r) for r in self.recall]
        return other

    def __getstate__(self) -> dict[str, object]:
        return {k: getattr(self, k) for k in self.__slots__}

    def __setstate__(self, values: dict[str, Any]) -> None:
        for k, v in values.items():
            setattr(self, k, v)
