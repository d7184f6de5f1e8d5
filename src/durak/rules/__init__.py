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
from durak.rules.cards import Card, CardSet, Rank, Suit
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
from durak.rules.knowledge import Observation, Place, observe, sample_world
from durak.rules.setup import deal, new_game, position
from durak.rules.state import GameState, Knowledge

__all__ = [
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
    "action_universe",
    "current_player",
    "deal",
    "is_terminal",
    "legal_actions",
    "loser",
    "new_game",
    "observe",
    "parse_action",
    "position",
    "returns",
    "sample_world",
    "step",
    "step_unchecked",
]
