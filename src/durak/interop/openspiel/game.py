"""Durak as an OpenSpiel game: ``python_durak``, registered on import.

OpenSpiel (Lanctot et al., arXiv:1908.09453) takes games written in Python as subclasses of
``pyspiel.Game`` and ``pyspiel.State`` registered with ``pyspiel.register_game``.  This
adapter keeps the durak engine as the only source of the rules:

* the deal is a sequence of explicit chance nodes, one card at a time in deck order
  (``deck[0]`` first, each card left with probability ``1 / cards left``), then, only when
  nobody holds a trump, one chance node for the first attacker (each player ``1 / n``).
  Together they draw exactly what :func:`~durak.rules.new_game` draws (a uniform deck order
  and a uniform fallback leader), and the state is :func:`~durak.rules.deal` of that deck;
* after the deal every decision is one durak decision, with the action ids of
  :class:`~durak.encoding.ActionSpace` and :func:`~durak.rules.step` as the transition;
* returns are :func:`~durak.rules.returns` (the durak -1, the others ``1/(n-1)``, a draw 0).

Strings and tensors are in :mod:`durak.interop.openspiel.observers`, built from
:func:`~durak.rules.observe` only.  ``resample_from_infostate`` draws the hidden cards with
:func:`~durak.rules.sample_world` (the exact odds of the knowledge model) and a past of
them (:mod:`durak.interop.openspiel.resampling`).  A state is written as data, the game and
its history, and read back by replaying it (:mod:`durak.interop.openspiel.serialization`).
"""

from __future__ import annotations

import functools
import random
from typing import Any

from durak.extras import needs

with needs("durak.interop.openspiel", "openspiel"):
    import pyspiel

from durak.encoding import ActionSpace, action_space_size
from durak.interop.openspiel.line import Line
from durak.interop.openspiel.observers import (
    ObservationObserver,
    describe,
    make_observer,
    observation_text,
)
from durak.interop.openspiel.parameters import DEFAULTS, params_of, rules_of
from durak.interop.openspiel.resampling import past_deal, past_start, player_of, redealt, seed_of
from durak.interop.openspiel.serialization import (
    StateStringError,
    parse_state_text,
    state_text,
    who,
)
from durak.rules import (
    Action,
    Card,
    GameState,
    IllegalActionError,
    Observation,
    Rules,
    RulesError,
    deal,
    deck_cards,
    legal_actions,
    returns,
    sample_world,
    step,
)

__all__ = ["GAME_TYPE", "MAX_GAME_LENGTH", "DurakOpenSpielGame", "DurakOpenSpielState"]

#: No useful bound on a game's length is known beyond the repetition rule's (a passive
#: 5-player game can run tens of thousands of bouts, ``docs/rules.md``, "Termination"), so
#: OpenSpiel is given the largest length it can hold.
MAX_GAME_LENGTH = 2**31 - 1

_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)

GAME_TYPE = pyspiel.GameType(
    short_name="python_durak",
    long_name="Python Durak (durak-lab)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    provides_factored_observation_string=False,
    parameter_specification=DEFAULTS,
)


@functools.cache
def _tables(rules: Rules) -> tuple[tuple[Card, ...], tuple[Action, ...], dict[Action, int]]:
    """The deck in card order, the actions by id, and the id of each action."""
    actions = ActionSpace(rules).actions
    return (
        deck_cards(rules.lowest_rank, rules.suits),
        actions,
        {a: i for i, a in enumerate(actions)},
    )


class DurakOpenSpielGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel is untyped
    """The OpenSpiel game ``python_durak`` for the :class:`Rules` of its parameters."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        rules = rules_of(params or {})
        info = pyspiel.GameInfo(
            num_distinct_actions=action_space_size(rules),
            max_chance_outcomes=rules.deck_size,  # >= players: also the leader's outcomes
            num_players=rules.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(GAME_TYPE, info, params_of(rules))
        self._rules = rules

    @property
    def rules(self) -> Rules:
        """The variant of this game's parameters."""
        try:
            return self._rules
        except AttributeError:  # an unpickled game: pyspiel rebuilds only the C++ part
            self._rules = rules_of(self.get_parameters())
            return self._rules

    def new_initial_state(self) -> DurakOpenSpielState:
        """The state before the first card is dealt."""
        return DurakOpenSpielState(self)

    def sampled_state(self, observation: Observation, rng: random.Random) -> DurakOpenSpielState:
        """A state at a world drawn by ``sample_world(observation, rng)``: where an agent
        that sees only ``observation`` can search from.  Its information state for
        ``observation.player`` starts with that observation (the earlier game is unknown
        to it); the others' start with their view of the sampled world."""
        if observation.rules != self.rules:
            raise RulesError(f"the observation is of {observation.rules}, not of {self.rules}")
        state = self.new_initial_state()
        world = sample_world(observation, rng)
        player = observation.player
        state._restart(world, player, "observed " + describe(observation), (0,) * world.num_players)
        return state

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> ObservationObserver:
        """The observer of ``iig_obs_type`` (default: the observation, without recall)."""
        return make_observer(self.rules, iig_obs_type, params)

    def deserialize_state(self, text: str) -> DurakOpenSpielState:
        """The state written by :meth:`DurakOpenSpielState.serialize`, rebuilt by replaying
        its history through the engine, which checks every action; nothing is evaluated or
        unpickled (:mod:`~durak.interop.openspiel.serialization`).  Raises
        :class:`StateStringError` (a ``SpielError``), one line, for a string of another
        game, a malformed one, or a move that is not its player's or not legal there."""
        state = self.new_initial_state()
        for k, (player, action) in enumerate(parse_state_text(self.rules, text), start=1):
            now = state.current_player()
            if player != now:
                raise StateStringError(
                    f"move {k} of the history is by {who(player)}, but {who(now)} acts there"
                )
            if action not in state.legal_actions():
                raise StateStringError(
                    f"move {k} of the history, {action} by {who(player)}, is not legal there"
                )
            state.apply_action(action)
        return state

    def _replay(self, deck: list[int], leader: int | None = None) -> DurakOpenSpielState:
        """The state after dealing the deck positions ``deck``, then drawing ``leader`` as
        the first attacker if the deal leaves it to chance."""
        state = self.new_initial_state()
        for position in deck:
            state.apply_action(position)
        if leader is not None and state.is_chance_node():
            state.apply_action(leader)
        return state


class DurakOpenSpielState(pyspiel.State):  # type: ignore[misc]  # pyspiel is untyped
    """One ``python_durak`` history: the deal so far, then a durak :class:`GameState`."""

    def __init__(self, game: DurakOpenSpielGame) -> None:
        super().__init__(game)
        self._line = Line(game.rules)
        self._player = _CHANCE  # derived from the line, kept for OpenSpiel's many calls

    # -- what the observers read -------------------------------------------------------

    @property
    def rules(self) -> Rules:
        """The variant (in the line, so that a copy of the state shares it)."""
        return self._line.rules

    @property
    def durak_state(self) -> GameState | None:
        """The durak state, or ``None`` while the deal is in progress."""
        states = self._line.states
        return states[-1] if states else None

    def dealt_cards(self) -> tuple[Card, ...]:
        """The cards dealt so far, in deal order (``deck[0]`` first)."""
        cards = _tables(self.rules)[0]
        return tuple(cards[i] for i in self._line.deck)

    def line(self) -> Line:
        """The record of this game (read by the observers; never changed by them except
        for the ``recall`` memo)."""
        return self._line

    # -- the OpenSpiel API -------------------------------------------------------------

    def current_player(self) -> int:
        """The player to act, ``CHANCE`` during the deal, or ``TERMINAL``."""
        return self._player

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The legal action ids of ``player`` (default: the player to act), sorted; the
        chance outcomes at a chance node; none for anyone else.  The same as OpenSpiel's
        own ``legal_actions``, without its round trip through C++ (a Python caller's hot
        path: about 3 times faster)."""
        now = self._player
        if player is None:
            player = now
        if player != now or now == _TERMINAL:
            return []
        if now == _CHANCE:
            return [a for a, _ in self.chance_outcomes()]
        return self._legal_actions(now)

    def _legal_actions(self, player: int) -> list[int]:
        state = self._line.states[-1]
        return list(map(_tables(self.rules)[2].__getitem__, legal_actions(state)))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The deck positions left, each ``1 / left``; or, for the leader, each player
        ``1 / n``."""
        line = self._line
        if line.states:
            raise RulesError("chance_outcomes: not a chance node (the deal is over)")
        size = self.rules.deck_size
        if len(line.deck) < size:
            p = 1.0 / (size - len(line.deck))
            dealt = line.dealt
            return [(i, p) for i in range(size) if not dealt >> i & 1]
        n = self.rules.players
        return [(i, 1.0 / n) for i in range(n)]

    def _apply_action(self, action: int) -> None:
        line = self._line
        if line.states:
            state = line.states[-1]
            actions = _tables(self.rules)[1]
            if not 0 <= action < len(actions):
                raise IllegalActionError(f"action id {action} out of range 0..{len(actions) - 1}")
            chosen = actions[action]
            after = step(state, chosen)
            line.states.append(after)
            line.moves.append((state.turn, chosen))
            self._player = after.turn if after.turn >= 0 else _TERMINAL
            return
        size = self.rules.deck_size
        if len(line.deck) < size:
            if not 0 <= action < size or line.dealt >> action & 1:
                raise RulesError(f"chance outcome {action} is not a deck position left to deal")
            line.deck.append(action)
            line.dealt |= 1 << action
            if len(line.deck) == size and not self._leader_drawn():
                self._start(0)
            return
        if not 0 <= action < self.rules.players:
            raise RulesError(f"chance outcome {action} is not a player to lead")
        self._start(action)

    def _leader_drawn(self) -> bool:
        """Whether the deal leaves the first attacker to chance: nobody holds a trump."""
        cards = self.dealt_cards()
        if not self.rules.trumps:
            return True
        suit = cards[-1].suit
        return all(c.suit != suit for c in cards[: self.rules.players * self.rules.hand_size])

    def _start(self, leader: int) -> None:
        state = deal(self.rules, list(self.dealt_cards()), leader)
        self._line.states.append(state)
        self._player = state.turn

    def _action_to_string(self, player: int, action: int) -> str:
        cards, actions, _ = _tables(self.rules)
        if player == _CHANCE:
            if len(self._line.deck) < self.rules.deck_size:
                return f"Deal {cards[_in_range(action, len(cards), 'chance outcome')]}"
            return f"Leader {_in_range(action, self.rules.players, 'chance outcome')}"
        return str(actions[_in_range(action, len(actions), "action id")])

    def serialize(self) -> str:
        """The state as data: the game's string and its history, ``player:action`` pairs
        (:mod:`~durak.interop.openspiel.serialization`), read back by
        :meth:`DurakOpenSpielGame.deserialize_state`.  A state of
        :meth:`DurakOpenSpielGame.sampled_state` starts at a world, not at a deal, so no
        history rebuilds it: it raises :class:`StateStringError`."""
        if self._line.prefix is not None:
            raise StateStringError(
                "a state drawn from an observation (sampled_state) starts at no deal: it has "
                "no history to serialize"
            )
        return state_text(self.rules, [(h.player, h.action) for h in self.full_history()])

    def is_chance_node(self) -> bool:
        """Whether chance acts (the deal); answered in Python, as :meth:`legal_actions`."""
        return self._player == _CHANCE

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self._player == _TERMINAL

    def returns(self) -> list[float]:
        """The durak's ``returns``; zeros until the game is over."""
        state = self.durak_state
        if state is None:
            return [0.0] * self.rules.players
        return list(returns(state))

    def resample_from_infostate(self, player: int, sampler: Any) -> DurakOpenSpielState:
        """A state with ``player``'s information state, drawn with the exact odds of
        :func:`~durak.rules.sample_world` (uniform over the worlds the knowledge model
        allows).  ``sampler()`` returns a uniform float in [0, 1); one call seeds the draw.

        Its history is a past of its own world, never the true one: the deal and the same
        public actions, replayed through the engine (``durak.interop.openspiel.resampling``),
        so ``history()``, ``history_str()`` and ``serialize()`` tell nothing ``player`` does
        not know.  During the deal the other players' dealt cards and the cards left are
        shuffled.  A state from :meth:`DurakOpenSpielGame.sampled_state` redraws its world
        at the observation it started from, then replays the actions since.  Raises
        ``TypeError`` or :class:`RulesError` (one line) for a player that is not one of the
        game's, and for a sampler that does not return a number in [0, 1].
        """
        player = player_of(player, self.rules)
        rng = random.Random(seed_of(sampler))
        line = self._line
        game: DurakOpenSpielGame = self.get_game()
        if not line.states:
            return game._replay(redealt(line, player, rng))
        if line.prefix is None:
            deck, world = past_deal(line, player, rng)
            other = game._replay(deck, line.states[0].attacker)
        else:
            start, world = past_start(line, player, rng)
            other = game.new_initial_state()
            other._restart(start, player, line.prefix[player], line.played)
        ids = _tables(self.rules)[2]
        for _, action in line.moves:
            other.apply_action(ids[action])
        if other.durak_state != world:
            raise RuntimeError("resample_from_infostate: the replayed past misses its world")
        return other

    def _restart(self, world: GameState, player: int, recall: str, played: tuple[int, ...]) -> None:
        """Continue from ``world``, a world of ``player``'s information state ``recall``:
        the others' recall starts from their view of ``world``."""
        line = self._line
        line.prefix = tuple(
            recall if p == player else "sampled " + observation_text(world, p)
            for p in range(self.rules.players)
        )
        line.played = played
        line.states = [world]
        line.moves = []
        line.recall = [[] for _ in range(self.rules.players)]
        self._player = world.turn if world.turn >= 0 else _TERMINAL

    def __str__(self) -> str:
        state = self.durak_state
        if state is None:
            return "deal: " + " ".join(str(c) for c in self.dealt_cards())
        hands = " | ".join(f"p{p}: {h}" for p, h in enumerate(state.hands))
        table = " ".join(f"{a}/{d or '-'}" for a, d in state.table)
        return (
            f"hands {hands}; talon {' '.join(map(str, state.talon))}; table {table}; "
            f"discard {state.discard}; attacker {state.attacker} defender {state.defender} "
            f"turn {state.turn}{' taking' if state.taking else ''}; moves {len(self._line.moves)}"
        )


def _in_range(action: int, size: int, what: str) -> int:
    """``action`` if it is ``0..size-1``, else :class:`IllegalActionError` (one line)."""
    if not 0 <= action < size:
        raise IllegalActionError(f"{what} {action} out of range 0..{size - 1}")
    return action


pyspiel.register_game(GAME_TYPE, DurakOpenSpielGame)
