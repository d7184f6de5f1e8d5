"""A Hypothesis state machine that plays, and tries to break, one game per run.

Hypothesis chooses the variant and the deal, then interleaves legal moves (by index into
``legal_actions``) with illegal attempts from the action universe; it shrinks any failing
run to a short sequence.  After every rule the invariants of
``tests.support.invariants.check_invariants`` hold, and (for one player per step, in turn)
the knowledge model is sound, the observation ignores hidden cards and sampled worlds fit it.
"""

from __future__ import annotations

import random

from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from durak.rules import (
    Action,
    GameState,
    IllegalActionError,
    Rules,
    action_universe,
    is_terminal,
    legal_actions,
    new_game,
    step,
    step_unchecked,
)
from durak.rules.cards import deck_cards
from durak.testing.games import full_position, is_bout_start
from durak.testing.observations import check_observation_invariance, check_sampled_worlds
from durak.testing.strategies import rules as rules_strategy
from durak.testing.strategies import seeds
from durak.testing.worlds import rebuild
from tests.support.fingerprints import fingerprint
from tests.support.invariants import check_invariants
from tests.support.rules_reference import check_step_matches_reference


class DurakMachine(RuleBasedStateMachine):
    """One game: the state, its variant's action universe and the bout starts seen."""

    def __init__(self) -> None:
        super().__init__()
        self.state: GameState | None = None
        self.universe: tuple[Action, ...] = ()
        self.starts: set[tuple[object, ...]] = set()
        self.samples = 0

    @property
    def current(self) -> GameState:
        assert self.state is not None
        return self.state

    def _enter(self, state: GameState) -> None:
        self.state = state
        if is_terminal(state):
            event("game over")
        if is_bout_start(state):
            position = full_position(state)
            assert position not in self.starts, "a bout-start position repeated"
            self.starts.add(position)

    @initialize(rules=rules_strategy(), seed=seeds())
    def deal(self, rules: Rules, seed: int) -> None:
        state = new_game(rules, seed)
        assert new_game(rules, seed) == state
        self.universe = action_universe(deck_cards(rules.lowest_rank, rules.suits))
        self.samples = seed
        self._enter(state)

    def _play(self, index: int) -> None:
        s = self.current
        legal = legal_actions(s)
        action = legal[index % len(legal)]
        before = fingerprint(s)
        t = step(s, action)
        assert fingerprint(s) == before
        assert step_unchecked(s, action) == t
        check_step_matches_reference(s, action, t)
        check_invariants(t)
        self._enter(t)

    @precondition(lambda self: self.state is not None and not is_terminal(self.state))
    @rule(index=st.integers(0, 10**6))
    def play(self, index: int) -> None:
        self._play(index)

    @precondition(lambda self: self.state is not None and not is_terminal(self.state))
    @rule(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 60))
    def fast_forward(self, seed: int, count: int) -> None:
        """Up to ``count`` random legal moves at once, so that runs reach the endgame."""
        rng = random.Random(seed)
        for _ in range(count):
            if is_terminal(self.current):
                break
            self._play(rng.randrange(10**6))

    @precondition(lambda self: self.state is not None)
    @rule(index=st.integers(0, 10**6))
    def try_illegal(self, index: int) -> None:
        s = self.current
        legal = set(legal_actions(s))
        illegal = [a for a in self.universe if a not in legal]
        assert illegal, "every action of the universe is legal"
        action = illegal[index % len(illegal)]
        before = fingerprint(s)
        copy = rebuild(s)
        try:
            step(s, action)
        except IllegalActionError:
            pass
        else:
            raise AssertionError(f"illegal {action} was accepted")
        assert fingerprint(s) == before
        assert s == copy

    @invariant()
    def invariants_hold(self) -> None:
        if self.state is not None:
            check_invariants(self.state)

    @invariant()
    def observations_are_consistent(self) -> None:
        """One player per step, in turn: the knowledge model is sound, observations ignore
        hidden cards, and sampled worlds fit."""
        if self.state is None:
            return
        self.samples += 1
        p = self.samples % self.state.rules.players
        check_observation_invariance(self.state, p, random.Random(self.samples))
        check_sampled_worlds(self.state, p, self.samples, check_invariants)


_profile = settings.default
assert _profile is not None
# Each example plays up to 50 rules (a fast-forward plays up to 60 moves) and samples worlds.
DurakMachine.TestCase.settings = settings(
    max_examples=_profile.max_examples,
    stateful_step_count=50,
)
test_durak_state_machine = DurakMachine.TestCase
