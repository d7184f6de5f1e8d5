"""The Durak rules engine: immutable states and pure transition functions.

The rules implemented, with every option and the termination argument, are in
``docs/rules.md`` (after Pagat's Podkidnoy and Perevodnoy pages).

>>> from durak.rules import Rules, new_game, legal_actions, step, is_terminal
>>> state = new_game(Rules(), seed=1)
>>> while not is_terminal(state):
...     state = step(state, legal_actions(state)[0])
>>> is_terminal(state)
True
"""

from durak.rules.actions import (
    Action,
    Attack,
    Defend,
    Pass,
    Take,
    Transfer,
    action_universe,
    parse_action,
)
from durak.rules.bout import asking_order, next_active
from durak.rules.cards import (
    CARDS,
    NUM_CARDS,
    Card,
    CardSet,
    Rank,
    Suit,
    beaters,
    beats,
    bit_indices,
    deck_cards,
    deck_mask,
    rank_mask,
    suit_mask,
)
from durak.rules.config import Rules
from durak.rules.engine import (
    current_player,
    is_terminal,
    legal_actions,
    loser,
    returns,
    step,
    step_unchecked,
)
from durak.rules.errors import IllegalActionError, RulesError
from durak.rules.game import DurakGame
from durak.rules.knowledge.observation import (
    VISIBILITIES,
    Observation,
    Place,
    Visibility,
    observe,
)
from durak.rules.knowledge.sampler import odds, places, sample_world
from durak.rules.setup import deal, new_game, position
from durak.rules.state import GameState, Knowledge

__all__ = [
    "CARDS",
    "NUM_CARDS",
    "VISIBILITIES",
    "Action",
    "Attack",
    "Card",
    "CardSet",
    "Defend",
    "DurakGame",
    "GameState",
    "IllegalActionError",
    "Knowledge",
    "Observation",
    "Pass",
    "Place",
    "Rank",
    "Rules",
    "RulesError",
    "Suit",
    "Take",
    "Transfer",
    "Visibility",
    "action_universe",
    "asking_order",
    "beaters",
    "beats",
    "bit_indices",
    "current_player",
    "deal",
    "deck_cards",
    "deck_mask",
    "is_terminal",
    "legal_actions",
    "loser",
    "new_game",
    "next_active",
    "observe",
    "odds",
    "parse_action",
    "places",
    "position",
    "rank_mask",
    "returns",
    "sample_world",
    "step",
    "step_unchecked",
    "suit_mask",
]
