"""The engine's cheap state constructor builds exactly the frozen value ``GameState`` does."""

from __future__ import annotations

import pickle

import attrs
import pytest

from durak.rules import GameState, Knowledge, Rules
from durak.rules.state import build_knowledge, build_state
from strategies import random_game


@pytest.mark.parametrize("rules", [Rules(), Rules(players=4, transfer=True)])
def test_build_state_gives_the_value_gamestate_gives(rules: Rules) -> None:
    for state in random_game(rules, 3)[::5]:
        values = [getattr(state, f.name) for f in attrs.fields(GameState)]
        built = build_state(*values)
        assert type(built) is GameState
        assert built == GameState(*values) and hash(built) == hash(GameState(*values))
        assert [getattr(built, f.name) for f in attrs.fields(GameState)] == values
        assert pickle.loads(pickle.dumps(built)) == built
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            built.turn = 0  # type: ignore[misc]


def test_build_knowledge_gives_the_value_knowledge_gives() -> None:
    records = {s.knowledge for s in random_game(Rules(players=3), 1)}
    assert any(k.origins for k in records)
    for k in records:
        built = build_knowledge(k.exposed, k.from_talon, k.origins)
        assert type(built) is Knowledge
        assert built == k and hash(built) == hash(k) == hash(
            Knowledge(*attrs.astuple(k, recurse=False))
        )
        assert pickle.loads(pickle.dumps(built)) == built
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            built.origins = ()  # type: ignore[misc]


def test_a_pending_origins_record_reads_as_the_worked_out_one() -> None:
    """The engine leaves origins updates pending (a log); every way of reading a state
    (fields, comparison, hash, repr, pickle, evolve) sees the worked-out record."""
    states = random_game(Rules(players=3), 1)
    pending = [s for s in states if type(s.knowledge) is not Knowledge]
    assert pending  # the engine does leave updates pending
    for s in pending[::3]:
        twin = pickle.loads(pickle.dumps(s))  # settles s.knowledge on the way
        assert type(s.knowledge) is Knowledge and type(twin.knowledge) is Knowledge
        assert twin == s and hash(twin) == hash(s) and repr(twin) == repr(s)
        assert attrs.evolve(s.knowledge, origins=s.knowledge.origins) == s.knowledge
    later = [s for s in states if type(s.knowledge) is not Knowledge]
    for s in later[:20]:
        origins = s.knowledge.origins
        assert all(type(w) is tuple and w and w[-1] for w in origins)
