"""The engine's cheap state constructor builds exactly the frozen value ``GameState`` does."""

from __future__ import annotations

import itertools
import pickle
from collections.abc import Callable

import attrs
import pytest

from durak.rules import GameState, Knowledge, Rules
from durak.rules.bout import position_key
from durak.rules.builders import build_knowledge, build_next, build_state
from durak.rules.history import History, deferred
from durak.rules.origins import raw_origins
from durak.testing.games import random_game


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


@pytest.mark.parametrize("rules", [Rules(), Rules(players=4, transfer=True)])
def test_build_next_gives_the_value_gamestate_gives(rules: Rules) -> None:
    """``build_next`` copies the ten fields a decision within a bout keeps."""
    states = random_game(rules, 5)
    for s, t in itertools.pairwise(states):
        built = build_next(s, t.hand_masks, t.table, t.turn, t.taking, t.knowledge)
        values = [getattr(s, f.name) for f in attrs.fields(GameState)]
        values[1], values[5], values[9], values[10], values[13] = (
            t.hand_masks, t.table, t.turn, t.taking, t.knowledge,
        )  # fmt: skip
        assert type(built) is GameState and built == GameState(*values)
        assert hash(built) == hash(GameState(*values))
        assert [getattr(built, f.name) for f in attrs.fields(GameState)] == values
        assert pickle.loads(pickle.dumps(built)) == built
        if t.table and t.attacker == s.attacker:  # the same bout: the same state
            assert built == t
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


def test_a_pending_origins_record_compares_with_any_value_as_a_plain_one_does() -> None:
    """A pending record compared with a value that is not a ``Knowledge``, or with a
    knowledge without an origins record, is unequal (no error), and equal to the
    worked-out record: only the pending side is worked out."""
    states = random_game(Rules(players=3), 1)
    k = next(s.knowledge for s in states if type(s.knowledge) is not Knowledge)
    exposed, from_talon, raw = k.exposed, k.from_talon, raw_origins(k)
    others: list[object] = [None, 0, exposed, Knowledge(exposed, from_talon), Knowledge(exposed)]
    for other in others:
        pending = build_knowledge(exposed, from_talon, raw)
        assert type(pending) is not Knowledge  # a fresh pending record for each comparison
        assert (pending == other, pending != other) == (False, True)
        assert type(pending) is Knowledge
    worked_out = build_knowledge(exposed, from_talon, raw).origins
    assert build_knowledge(exposed, from_talon, raw) == Knowledge(exposed, from_talon, worked_out)


#: Every way of reading a repetition record, each given the record and an equal plain one.
_READS: dict[str, Callable[[History, History], object]] = {
    "in": lambda h, plain: [k in h for k in (*plain, (0,))],
    "iter": lambda h, plain: list(h),
    "len": lambda h, plain: (len(h), bool(h)),
    "add": lambda h, plain: list(h.add((0,))),
    "eq": lambda h, plain: (h == plain, plain == h, h != plain, h == History()),
    "order": lambda h, plain: (h <= plain, h < plain, plain <= h, History() < h),
    "hash": lambda h, plain: hash(h) == hash(plain),
    "repr": lambda h, plain: repr(h),
    "pickle": lambda h, plain: list(pickle.loads(pickle.dumps(h))),
}


@pytest.mark.parametrize("read", list(_READS))
def test_a_deferred_history_reads_as_the_worked_out_one(read: str) -> None:
    """A new epoch's repetition record leaves its key to be worked out on first use; every
    way of reading it sees ``History.single`` of the key, and the states the engine builds
    hold deferred records."""
    states = random_game(Rules(players=3), 4)
    starts = [s for s in states if not s.table and s.turn >= 0]
    assert any(type(s.history) is not History for s in states)
    for s in starts[::4]:
        args = (s.attacker, s.defender, s.hand_masks, s.knowledge.exposed.mask)
        plain = History.single(position_key(*args))
        lazy = deferred(position_key, *args)
        assert type(lazy) is not History
        assert _READS[read](lazy, plain) == _READS[read](plain, History.single(plain_key(plain)))
        assert type(lazy) is History or read == "len"  # a read of the key settles it


def plain_key(h: History) -> tuple[int, ...]:
    """The one key of ``h``."""
    (key,) = h
    return key
