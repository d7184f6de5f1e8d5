"""A fixed integer action space for one :class:`~durak.rules.Rules` variant.

Learning agents need a fixed, finite action set: Crampton's reinforcement-learning study of
Durak (Durham) indexes a Q-table and a DQN output layer by action, and the PettingZoo and
Gymnasium conventions give such agents a ``Discrete(n)`` space plus a boolean *action mask*
of the legal indices.  This module provides both, built on the engine's own
:func:`~durak.rules.action_universe` and :func:`~durak.rules.legal_actions`.

Layout (``D`` = deck size, ``deck[i]`` = the ``i``-th deck card in card order, i.e.
``rules.lowest_rank`` up to the ace, the first ``rules.suits`` of S, H, D, C within a rank):

=============================  ======================================  =================
indices                        action                                  count
=============================  ======================================  =================
``0 .. D-1``                   ``Attack(deck[i])``                     ``D``
``D .. D + D(D-1) - 1``        ``Defend(deck[t], deck[c])``, ``t!=c``  ``D(D-1)``
                               at ``D + t(D-1) + c - (c > t)``
next ``D``                     ``Transfer(deck[i])``                   ``D``
``size - 2``                   ``Take``                                1
``size - 1``                   ``Pass``                                1
=============================  ======================================  =================

So ``size = D(D + 1) + 2``: 1334 for 36 cards, 2758 for 52, 602 for 24, 44 for 6 (two
suits of three ranks), whatever the number of players.  Index order *is* the engine's
canonical action order, so ``legal_actions`` (sorted) maps to increasing indices.  Every
ordered pair of distinct cards has a Defend slot (not only pairs that can beat under some
trump), so the space is exactly ``action_universe(deck)`` and round-trips it; the slots
that can never be legal are simply never set in a mask.  Transfer slots exist even when
``rules.transfer`` is off (they are then never legal), so variants with the same deck share
one layout and one network shape.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

import attrs

from durak.extras import needs

with needs("durak.encoding", "rl"):
    import numpy as np
    from numpy.typing import NDArray

from durak.rules import Action, Attack, Defend, Pass, Rules, Take, Transfer
from durak.rules.actions import ATTACKS, DEFENDS, PASS, TAKE, TRANSFERS
from durak.rules.cards import NUM_CARDS, deck_cards

__all__ = ["ActionSpace", "action_space_size"]


def action_space_size(rules: Rules) -> int:
    """The number of actions of ``rules``' fixed layout: ``D * (D + 1) + 2`` for deck size D."""
    d = rules.deck_size
    return d * (d + 1) + 2


@functools.cache
def _layout(lowest_rank: int, suits: int) -> tuple[tuple[Action, ...], dict[Action, int]]:
    """The interned actions in index order, and the inverse map, for one deck."""
    deck = deck_cards(lowest_rank, suits)
    actions: list[Action] = [ATTACKS[c.index] for c in deck]
    actions += [DEFENDS[t.index * NUM_CARDS + c.index] for t in deck for c in deck if t is not c]
    actions += [TRANSFERS[c.index] for c in deck]
    actions += [TAKE, PASS]
    table = tuple(actions)
    return table, {a: i for i, a in enumerate(table)}


@attrs.frozen(slots=True)
class ActionSpace:
    """The fixed integer encoding of every action of ``rules`` (layout in the module doc).

    >>> from durak.rules import Rules, parse_action
    >>> space = ActionSpace(Rules())
    >>> space.size, space.encode(parse_action("Take")), str(space.decode(0))
    (1334, 1332, 'Attack(6♠)')
    """

    rules: Rules

    def _table(self) -> tuple[tuple[Action, ...], dict[Action, int]]:
        return _layout(self.rules.lowest_rank, self.rules.suits)

    @property
    def size(self) -> int:
        """The number of indices, ``0 .. size - 1``; ``D * (D + 1) + 2`` for deck size D."""
        return action_space_size(self.rules)

    @property
    def actions(self) -> tuple[Action, ...]:
        """Every action in index order: ``actions[i]`` is ``decode(i)``."""
        return self._table()[0]

    def encode(self, action: Action) -> int:
        """The index of ``action``; ``decode(encode(a)) == a`` for every action of the deck.

        Raises ``ValueError`` naming the action if it is not an action, uses a card outside
        this variant's deck, or defends a card with itself.
        """
        if not isinstance(action, Attack | Defend | Transfer | Take | Pass):
            raise ValueError(f"not a Durak action: {action!r}")
        index = self._table()[1].get(action)
        if index is None:
            raise ValueError(
                f"{action} is not in the action space of the {self.rules.deck_size}-card deck"
                " (a card outside the deck, or a card defending itself)"
            )
        return index

    def is_index(self, index: object) -> bool:
        """Whether ``index`` is an integer in ``0 .. size - 1`` (what :meth:`decode` takes)."""
        return (
            not isinstance(index, bool)
            and isinstance(index, int | np.integer)
            and bool(0 <= index < len(self._table()[0]))
        )

    def decode(self, index: int | np.integer[Any]) -> Action:
        """The action at ``index`` (an interned engine instance).

        Accepts a Python or numpy integer (as sampled from a ``Discrete`` space).  Raises
        ``ValueError`` naming the index if it is not an integer in ``0 .. size - 1``.
        """
        if isinstance(index, bool) or not isinstance(index, int | np.integer):
            raise ValueError(f"action index must be an int, got {index!r}")
        table = self._table()[0]
        if not 0 <= index < len(table):
            raise ValueError(f"action index {index} out of range 0..{len(table) - 1}")
        return table[int(index)]

    def encode_all(self, actions: Iterable[Action]) -> list[int]:
        """The indices of ``actions``, in the same order; errors as :meth:`encode`."""
        return [self.encode(a) for a in actions]

    def mask(self, legal_actions: Iterable[Action]) -> NDArray[np.bool_]:
        """A boolean vector of length :attr:`size`, ``True`` exactly at the indices of
        ``legal_actions`` (for example ``legal_actions(state)`` or
        ``observation.legal_actions``); errors as :meth:`encode`."""
        out = np.zeros(self.size, dtype=np.bool_)
        for a in legal_actions:
            out[self.encode(a)] = True
        return out
