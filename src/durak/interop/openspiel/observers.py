"""What a ``python_durak`` player is shown: observation and information-state strings and
tensors, built from :func:`~durak.rules.observe` only.

OpenSpiel separates the *observation* (what a player sees now) from the *information state*
(everything it has seen: its perfect-recall history; Lanctot et al., arXiv:1908.09453,
section "Observations").  Here:

* the observation string renders one :class:`~durak.rules.Observation` (own hand, table,
  trump, talon size, discard, hand sizes, publicly known cards, roles, turn, cap, players
  out, public knowledge and repetition record); the observation tensor is
  :func:`~durak.encoding.encode_observation` of it;
* the information-state string is the observation right after the deal, then one token per
  decision: who played what (every action is played face up) and the cards that appeared in
  the player's own hand with it (draws and takes).  Every later observation is a function
  of these, and these of the observations, so two histories share an information state
  exactly when the player saw the same sequence of observations; only the order in which
  its own cards arrived within one deal or one refill is dropped (it changes nothing later);
* the information-state tensor is the observation tensor followed by a fixed-size summary of
  the past: the trump card, the cards each seat has played, and the cards the player has
  held.  It is not injective on information states (the string is); it is what a network
  that needs a fixed shape can use.

During the deal a player sees the cards dealt to it so far (and the trump card once dealt).
"""

from __future__ import annotations

from typing import Any, Protocol

from durak.extras import needs

with needs("durak.interop.openspiel", "openspiel"):
    import numpy as np
    import pyspiel
    from numpy.typing import NDArray

from durak.encoding import card_bits, encode_observation, observation_size
from durak.interop.openspiel.line import Line
from durak.rules import (
    Attack,
    Card,
    CardSet,
    Defend,
    GameState,
    Observation,
    Rules,
    Transfer,
    observe,
)

__all__ = [
    "InformationStateObserver",
    "ObservationObserver",
    "ObservedState",
    "information_state_size",
    "make_observer",
    "observation_text",
    "played_masks",
    "recall_text",
]


class ObservedState(Protocol):
    """What an observer reads of a ``python_durak`` state: the game module's state has it,
    and builds its observers, so they name only this (no import of the game module)."""

    @property
    def rules(self) -> Rules:
        """The variant."""

    @property
    def durak_state(self) -> GameState | None:
        """The durak state, or ``None`` while the deal is in progress."""

    def dealt_cards(self) -> tuple[Card, ...]:
        """The cards dealt so far, in deal order."""

    def line(self) -> Line:
        """The record of the game (the observers write only its ``recall`` memo)."""


def describe(o: Observation) -> str:
    """One line with every field of ``o`` that two observations can differ in."""
    n = o.rules.players
    table = " ".join(f"{a}/{d or '-'}" for a, d in o.table) or "-"
    known = " ".join(f"{p}:[{o.known_cards(p)}]" for p in range(n) if p != o.player)
    k = o.knowledge
    record = " ".join(",".join(map(str, key)) for key in sorted(o.history))
    return (
        f"p{o.player} hand [{o.hand}] trump {o.trump_suit or '-'}/{o.trump_card or '-'} "
        f"talon {o.talon_size} table {table} discard [{o.discard}] "
        f"sizes {' '.join(map(str, o.hand_sizes))} known {known} "
        f"attacker {o.attacker} defender {o.defender} turn {o.turn} "
        f"taking {int(o.taking)} cap {o.cap} out {sorted(o.players_out)} "
        f"from_talon [{k.from_talon}] origins {k.origins} record {record}"
    )


def observation_text(state: GameState, player: int) -> str:
    """The observation string of ``player`` in ``state``."""
    return describe(observe(state, player))


def _dealing_text(os_state: ObservedState, player: int) -> str:
    rules = os_state.rules
    cards = os_state.dealt_cards()
    n, dealt = rules.players, rules.players * rules.hand_size
    mine = CardSet.from_cards([c for i, c in enumerate(cards[:dealt]) if i % n == player])
    trump = cards[-1] if len(cards) == rules.deck_size and rules.trumps else None
    return f"p{player} dealing [{mine}] trump {trump or '-'}"


def recall_text(os_state: ObservedState, player: int) -> str:
    """The information-state string of ``player`` (module doc); memoised in the state."""
    line = os_state.line()
    if not line.states:
        return _dealing_text(os_state, player)
    tokens = line.recall[player]
    if not tokens:
        first = (
            line.prefix[player]
            if line.prefix
            else "deal " + observation_text(line.states[0], player)
        )
        tokens.append(first)
    for i in range(len(tokens) - 1, len(line.moves)):
        actor, action = line.moves[i]
        before = observe(line.states[i], player).hand.mask
        after = observe(line.states[i + 1], player).hand.mask
        new = after & ~before
        tokens.append(f"{actor}:{action}" + (f" +[{CardSet(new)}]" if new else ""))
    return " | ".join(tokens)


def played_masks(os_state: ObservedState) -> tuple[int, ...]:
    """Per player, the cards it has played (attack, defence or transfer) in this game."""
    line = os_state.line()
    played = list(line.played)
    for actor, action in line.moves:
        if isinstance(action, Attack | Defend | Transfer):
            played[actor] |= 1 << action.card.index
    return tuple(played)


def information_state_size(rules: Rules) -> int:
    """The length of the information-state tensor: the observation, then the trump card
    (D), the cards each seat has played (N·D) and the cards the player has held (D)."""
    d = rules.deck_size
    return observation_size(rules) + (rules.players + 2) * d


class ObservationObserver:
    """The observation (no recall): ``string_from`` and ``set_from`` (module doc)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.tensor: NDArray[np.float32] = np.zeros(self._size(), np.float32)
        self.dict: dict[str, NDArray[np.float32]] = {"observation": self.tensor}

    def _size(self) -> int:
        return observation_size(self.rules)

    def set_from(self, state: ObservedState, player: int) -> None:
        """Writes ``player``'s observation of ``state`` into :attr:`tensor`."""
        self.tensor.fill(0.0)
        now = state.durak_state
        d = self.rules.deck_size
        if now is None:  # during the deal: the own-hand block only
            rules = self.rules
            n, dealt = rules.players, rules.players * rules.hand_size
            cards = state.dealt_cards()[:dealt]
            mine = sum(1 << c.index for i, c in enumerate(cards) if i % n == player)
            self.tensor[:d] = card_bits(mine, rules)
            return
        self.tensor[: observation_size(self.rules)] = encode_observation(observe(now, player))

    def string_from(self, state: ObservedState, player: int) -> str:
        """``player``'s observation of ``state`` as one line."""
        now = state.durak_state
        if now is None:
            return _dealing_text(state, player)
        return observation_text(now, player)


class InformationStateObserver(ObservationObserver):
    """The information state (perfect recall): ``string_from`` and ``set_from``."""

    def _size(self) -> int:
        return information_state_size(self.rules)

    def set_from(self, state: ObservedState, player: int) -> None:
        """Writes ``player``'s information-state tensor of ``state`` into :attr:`tensor`."""
        super().set_from(state, player)
        now = state.durak_state
        if now is None:
            return
        rules = self.rules
        d, n = rules.deck_size, rules.players
        at = observation_size(rules)
        o = observe(now, player)
        trump = 0 if o.trump_card is None else 1 << o.trump_card.index
        played = played_masks(state)
        blocks = [trump, *[played[(player + s) % n] for s in range(n)]]
        blocks.append(o.hand.mask | played[player])
        for i, mask in enumerate(blocks):
            self.tensor[at + i * d : at + (i + 1) * d] = card_bits(mask, rules)

    def string_from(self, state: ObservedState, player: int) -> str:
        """``player``'s information state of ``state`` (module doc)."""
        return recall_text(state, player)


def make_observer(
    rules: Rules, iig_obs_type: Any = None, params: dict[str, Any] | None = None
) -> ObservationObserver:
    """The observer for ``iig_obs_type``: the information state when it asks for perfect
    recall, else the observation.  Only the player's own view is offered (public and its
    own private information); other types, and any ``params``, raise ``ValueError``."""
    if params:
        raise ValueError(f"python_durak observers take no parameters, got {params}")
    if iig_obs_type is None:
        return ObservationObserver(rules)
    if not iig_obs_type.public_info or (
        iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
    ):
        raise ValueError(
            "python_durak offers only a player's own view (public_info=True, "
            f"private_info=SINGLE_PLAYER), not {iig_obs_type}"
        )
    if iig_obs_type.perfect_recall:
        return InformationStateObserver(rules)
    return ObservationObserver(rules)
