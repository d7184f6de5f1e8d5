"""Privileged information in Deep Monte-Carlo training: the hidden cards as extra inputs
that fade out.

After the oracle guiding of Suphx (Li et al., "Suphx: Mastering Mahjong with Deep
Reinforcement Learning", 2020: train with the hidden tiles as extra features, then drop
them out) and the perfect-information critic of PerfectDou (Guan et al., NeurIPS 2022).

A run with ``dmc:privileged=H`` appends to every row of
:func:`~durak.learn.dmc.features.decision_rows` the **hidden block** of the state
(:func:`hidden_block`): one card block per other player's hand (the next seat first, as
the observation's known-card blocks) and one of the talon's unseen cards (the talon but
the face-up trump), each in the rows' canonical card order, times the coefficient of the
episode (:func:`~durak.learn.dmc.settings.fade`: linear from 1 to 0 over ``H``
episodes).  The actors play and the learner learns with these rows, so the network first
sees the hidden cards and then learns to do without them.

At play time the network has no such input: :func:`playing_weights` drops the first
layer's columns of the hidden block, which leaves the output of every row whose hidden
block is zero unchanged (every row once the fade is over).  The checkpoint keeps the
whole network, so ``--resume`` goes on with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from durak.extras import needs

with needs("dmc", "dmc"):
    import numpy as np
    from numpy.typing import NDArray

from durak.learn.dmc.features import canonical_cards, row_size
from durak.learn.dmc.net import NETWORK
from durak.learn.model_file import NetworkFormat
from durak.learn.torch_support import require_torch
from durak.rules import GameState, Rules

__all__ = [
    "PRIVILEGED",
    "hidden_block",
    "hidden_size",
    "network_format",
    "playing_weights",
    "privileged_rows",
    "widened_weights",
]

#: The first layer's key in a network's state dict.
FIRST = "0.weight"


def hidden_size(rules: Rules) -> int:
    """The width of the hidden block: ``players * deck size`` (the others' hands and the
    talon)."""
    return rules.players * rules.deck_size


#: The network of a privileged run: ``row_size + hidden_size`` inputs.
PRIVILEGED = attrs.evolve(NETWORK, inputs=lambda rules: row_size(rules) + hidden_size(rules))


def network_format(privileged: bool) -> NetworkFormat:
    """The network a run trains: :data:`PRIVILEGED` or the ordinary one."""
    return PRIVILEGED if privileged else NETWORK


def hidden_block(state: GameState, player: int) -> NDArray[np.float32]:
    """What ``player`` cannot see in ``state``, as ``hidden_size(rules)`` zeros and ones:
    the hand of each other player from the next seat on, then the talon's cards but the
    face-up trump; each block in the canonical card order of ``player``'s rows."""
    rules = state.rules
    n = rules.players
    masks = [state.hand_masks[(player + s) % n] for s in range(1, n)]
    talon = 0
    for card in state.talon:
        talon |= 1 << card.index
    if state.talon and state.trump_card is not None:
        talon &= ~(1 << state.trump_card.index)  # face up: every player sees it
    masks.append(talon)
    raw = np.frombuffer(b"".join(m.to_bytes(7, "little") for m in masks), dtype=np.uint8)
    bits = np.unpackbits(raw, bitorder="little").reshape(len(masks), 56)
    order = canonical_cards(rules.lowest_rank, rules.suits, state.trump_suit)
    return bits[:, order].reshape(-1).astype(np.float32)


def privileged_rows(
    rows: NDArray[np.float32], state: GameState, player: int, coefficient: float
) -> NDArray[np.float32]:
    """``rows`` (a decision's rows for ``player``) with the hidden block of ``state``
    times ``coefficient`` appended to each."""
    extra = hidden_block(state, player) * np.float32(coefficient)
    return np.hstack([rows, np.broadcast_to(extra, (len(rows), len(extra)))])


def playing_weights(state: Mapping[str, Any], rules: Rules) -> dict[str, Any]:
    """The state dict (torch tensors) of the network that plays: ``state`` with the first
    layer's hidden-block columns dropped (a privileged network's) or as it is, each tensor
    a contiguous copy, so a model file holds no trace of the dropped columns."""
    width = row_size(rules)
    return {
        k: (v[:, :width] if k == FIRST else v).detach().clone().contiguous()
        for k, v in state.items()
    }


def widened_weights(state: Mapping[str, Any], rules: Rules) -> dict[str, Any]:
    """The state dict of an ordinary network as a privileged one: zero weights for the
    hidden block, so the widened network scores every row as the ordinary one did."""
    torch = require_torch()
    first = state[FIRST]
    zeros = torch.zeros((first.shape[0], hidden_size(rules)), dtype=first.dtype)
    return {**state, FIRST: torch.cat([first, zeros], dim=1)}
