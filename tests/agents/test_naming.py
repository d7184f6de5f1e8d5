"""One canonical form of an agent spec (issue 61, item 5): ``format_spec`` is the inverse
of ``parse_spec``, and ``canonical_spec`` writes every spelling of one agent one way, for
every registered agent's parameters, nested specs included."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from durak.agents.base import AgentInfo, Param, SpecError, registry
from durak.agents.naming import canonical_spec, distinct_specs
from durak.agents.specs import (
    Content,
    format_spec,
    format_value,
    nested_spec,
    parse_spec,
    quote_nested,
)

AGENTS = registry()
#: A free text that is no spec syntax: a path, a plain string.
TEXT = st.text(alphabet="abcxyz019._-/", min_size=1, max_size=8)


def _ints(p: Param) -> st.SearchStrategy[str]:
    low = 0 if p.low is None else math.ceil(p.low)
    high = 10**9 if p.high is None else math.floor(p.high)
    n = st.integers(low, min(high, 10**9))
    return n.flatmap(
        lambda k: st.sampled_from([str(k), f"+{k}", f"00{k}" if k >= 0 else str(k), f"{k:_}"])
    )


def _floats(p: Param) -> st.SearchStrategy[str]:
    low = -1e6 if p.low is None else p.low
    high = 1e6 if p.high is None else p.high
    x = st.floats(low, high, allow_nan=False, allow_infinity=False)
    whole = st.integers(math.ceil(low), math.floor(high)).map(float)
    return st.one_of(x, whole).flatmap(
        lambda v: st.sampled_from([repr(v), f"{v:.17g}", f"{v:.17e}", f" {v!r}"])
    )


def _value(p: Param, depth: int) -> st.SearchStrategy[str]:
    """A raw value of ``p`` in one of its spellings; a nested spec as a parameter writes it."""
    content = p.holds.content
    if content is Content.AGENT_SPEC:
        return _nested(depth)
    if content is Content.OPPONENT_MODEL:
        return st.one_of(st.sampled_from(p.holds.words), _nested(depth))
    if content is Content.GUIDE:
        return st.sampled_from([str(p.default), "dmc"])
    if p.choices:
        return st.sampled_from(p.choices)
    if p.kind is bool:
        return st.sampled_from(["true", "True", "1", "yes", "false", "FALSE", "0", "no"])
    if p.kind is int:
        return _ints(p)
    if p.kind is float:
        return _floats(p)
    return TEXT


def _nested(depth: int) -> st.SearchStrategy[str]:
    """A spec as a parameter's value: ``;`` for ``,``; deeper than one level a spec can
    hold one parameter only (its ``;`` would end the outer parameter)."""
    if depth >= 3:
        return st.sampled_from(["random", "greedy", "lowest"])
    return _spec(depth + 1).map(quote_nested)


def _params(info: AgentInfo, depth: int) -> st.SearchStrategy[dict[str, str]]:
    most = len(info.params) if depth <= 1 else min(1, len(info.params))
    if not most:
        return st.just({})
    chosen = st.lists(st.sampled_from(info.params), unique=True, max_size=most)

    @st.composite
    def values(draw: st.DrawFn) -> dict[str, str]:
        return {p.name: draw(_value(p, depth)) for p in draw(chosen)}

    return values()


def _spec(depth: int = 0) -> st.SearchStrategy[str]:
    """A spec of a registered agent, its parameters in any order and spelling."""
    agent = st.sampled_from(sorted(AGENTS))

    @st.composite
    def spec(draw: st.DrawFn) -> str:
        name = draw(agent)
        raw = draw(_params(AGENTS[name], depth))
        colon = draw(st.booleans()) and not raw
        return format_spec(name, raw) + (":" if colon else "")

    return spec()


def _meaning(spec: str) -> tuple[str, dict[str, object]]:
    """What ``spec`` sets, every parameter (defaults filled in): a plain one's typed value,
    a nested spec as its canonical form (by induction on the depth), a model's name as
    itself."""
    name, raw = parse_spec(spec)
    meaning: dict[str, object] = {}
    for p in AGENTS[name].params:
        text = raw.get(p.name, p.default)
        if not isinstance(text, str):
            meaning[p.name] = text  # a default that is no text: a number, a bool, None
        elif p.nests(text):
            meaning[p.name] = ("spec", canonical_spec(nested_spec(text)))
        else:
            meaning[p.name] = p.parse(text, name)
    return name, meaning


@settings(max_examples=300, deadline=None)
@given(_spec())
def test_format_spec_inverts_parse_spec_and_the_canonical_form_is_stable(spec: str) -> None:
    parsed = parse_spec(spec)
    formatted = format_spec(*parsed)
    assert parse_spec(formatted) == parsed
    assert format_spec(*parse_spec(formatted)) == formatted
    canonical = canonical_spec(spec)
    assert canonical_spec(canonical) == canonical
    assert parse_spec(format_spec(*parse_spec(canonical))) == parse_spec(canonical)
    assert canonical_spec(formatted) == canonical


@settings(max_examples=200, deadline=None)
@given(_spec(), st.randoms(use_true_random=False))
def test_a_spelling_changes_nothing_but_the_string(spec: str, rng: random.Random) -> None:
    """Any order of the parameters gives one canonical form, which means what the spec
    means (every parameter's value, the defaults filled in), and writes no parameter at
    its default."""
    name, raw = parse_spec(spec)
    items = list(raw.items())
    rng.shuffle(items)
    canonical = canonical_spec(spec)
    assert canonical_spec(format_spec(name, dict(items))) == canonical
    assert _meaning(canonical) == _meaning(spec)
    _, default = _meaning(name)
    _, written = parse_spec(canonical)
    _, meant = _meaning(canonical)
    assert all(meant[key] != default[key] for key in written)


@pytest.mark.parametrize(
    ("spellings", "canonical"),
    [
        (["mcts:limit=5,c=1", "mcts:c=1,limit=5", "mcts:c=1.0,limit=5"], "mcts:limit=5,c=1"),
        (["random", "random:", " random: ", "random:stop_chance=.2"], "random"),
        (["ismcts:carry=yes", "ismcts:carry=TRUE,limit=1000", "ismcts:carry=1"],
         "ismcts:carry=true"),
        (["solver:fallback=mcts:c=1;limit=5", "solver:fallback=mcts:limit=5;c=1.0"],
         "solver:fallback=mcts:limit=5;c=1"),
        (["solver:fallback=mcts", "solver:fallback=mcts:limit=300", "solver:nodes=200000"],
         "solver"),
        (["phased:opening=solver:fallback=random:", "phased:opening=solver:fallback=random"],
         "phased:opening=solver:fallback=random"),
        (["faulty:sleep=1e3", "faulty:sleep=1000.0", "faulty:sleep=1_000"], "faulty:sleep=1000"),
    ],
)  # fmt: skip
def test_every_spelling_of_one_agent_is_one_string(spellings: list[str], canonical: str) -> None:
    assert {canonical_spec(s) for s in spellings} == {canonical}


def test_an_opponent_model_s_agent_stays_apart_from_the_model_of_its_name() -> None:
    assert canonical_spec("ismcts:opponent=greedy") == "ismcts:opponent=greedy"  # the model
    assert canonical_spec("ismcts:opponent=greedy:") == "ismcts:opponent=greedy:"  # the agent
    assert canonical_spec("ismcts:opponent=random:") == "ismcts:opponent=random"
    assert canonical_spec("ismcts:opponent=self,infer=none") == "ismcts"


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("nosuch", "unknown agent 'nosuch'"),
        ("mcts:limit=0", "mcts: limit must be in"),
        ("mcts:zz=1", "unknown parameter 'zz'"),
        ("solver:fallback=nosuch", "solver: fallback: unknown agent 'nosuch'"),
        ("phased:opening=mcts:limit=x", "phased: opening: mcts: limit must be an integer"),
    ],
)
def test_a_bad_spec_has_no_canonical_form(spec: str, words: str) -> None:
    with pytest.raises(SpecError, match=words):
        canonical_spec(spec)


def test_one_agent_given_twice_under_two_spellings_is_refused() -> None:
    assert distinct_specs(["random:", "greedy"]) == ["random", "greedy"]
    with pytest.raises(SpecError, match=r"'random:' is given twice \(as 'random': both"):
        distinct_specs(["random", "greedy", "random:"])
    with pytest.raises(SpecError, match=r"^agent spec 'random' is given twice$"):
        distinct_specs(["random", "random"])


def test_format_value_reads_back_to_the_value() -> None:
    for value in (0.1, 1.0, 1e-05, 1e16, 2.5e-300, -3.0, 7, True, False, "x"):
        text = format_value(value)
        assert not text.endswith(".0")
        assert type(value)(text if not isinstance(value, bool) else text == "true") == value


def test_the_semicolon_hint_names_only_a_parameter_declared_to_hold_a_spec() -> None:
    with pytest.raises(SpecError, match=r"fallback=mcts:samples=1;limit=10\)$"):
        canonical_spec("solver:fallback=mcts:samples=1,limit=10")
    with pytest.raises(SpecError) as e:
        canonical_spec("dmc:path=c:/m.pt,x=1")  # a file, not a spec, whatever its colon
    assert str(e.value) == "dmc: unknown parameter 'x'; valid parameters: path"
