"""The seat policies (issue 61, item 2): who may sit at a table that plays unattended,
checked at any depth of a spec through the parameters the registry declares, plugins'
included, and nothing built."""

from __future__ import annotations

import random

import attrs
import pytest

from durak.agents import base
from durak.agents.base import SpecError, register
from durak.agents.seats import NO_FAULTS, UNATTENDED, UNATTENDED_NO_FAULTS, SeatPolicy
from durak.agents.specs import AGENT_SPEC, param
from durak.rules import Action, Observation

HUMAN = "human asks a person at the terminal"


@pytest.mark.parametrize(
    ("spec", "place"),
    [
        ("human", "human: "),
        ("solver:fallback=human", "solver:fallback=human: fallback: "),
        ("phased:opening=human", "phased:opening=human: opening: "),
        ("phased:endgame=human:x=1", "phased:endgame=human:x=1: endgame: "),
        (
            "solver:fallback=phased:opening=human",
            "solver:fallback=phased:opening=human: fallback: opening: ",
        ),
        ("phased:opening=greedy,endgame=solver:fallback=human", "endgame: fallback: "),
        ("ismcts:opponent=human", "opponent: "),
        ("mcts:infer=ismcts:opponent=human", "infer: opponent: "),
    ],
)
def test_unattended_play_refuses_human_at_any_depth_in_one_line(spec: str, place: str) -> None:
    with pytest.raises(SpecError) as e:
        UNATTENDED.check(spec)
    line = str(e.value)
    assert "\n" not in line and place + HUMAN in line, line
    assert line.startswith(spec), line


@pytest.mark.parametrize(
    "spec",
    [
        "random",
        "solver:fallback=mcts:limit=5;samples=1",
        "phased:opening=greedy,endgame=ismcts:limit=3",
        "ismcts:opponent=greedy,infer=mix",
        "ismcts:opponent=random:stop_chance=0.1",
        "faulty:fault=illegal",
        # Parameters that hold no spec are not read as one, whatever they say.
        "dmc:path=human",
        "faulty:fault=human",
        # An unknown agent is left to make_agent, which names it.
        "nosuch:fallback=human",
    ],
)
def test_unattended_play_lets_every_other_spec_through(spec: str) -> None:
    UNATTENDED.check(spec)


def test_training_and_exploit_refuse_faulty_too_at_any_depth() -> None:
    for spec in ("faulty", "solver:fallback=faulty:fault=timeout", "phased:endgame=faulty"):
        NO_FAULTS.check("random")
        with pytest.raises(SpecError, match="faulty breaks on purpose"):
            UNATTENDED_NO_FAULTS.check(spec)
        with pytest.raises(SpecError, match="faulty breaks on purpose"):
            NO_FAULTS.check(spec)
    with pytest.raises(SpecError, match=HUMAN):
        UNATTENDED_NO_FAULTS.check("solver:fallback=human")
    NO_FAULTS.check("solver:fallback=human")  # a person may teach an online learner
    assert UNATTENDED_NO_FAULTS.names() == {"human", "faulty"}


def test_check_all_raises_the_first_refusal_and_a_malformed_spec_is_refused() -> None:
    UNATTENDED.check_all(["random", "greedy"])
    with pytest.raises(SpecError, match=r"^solver:fallback=human: fallback: "):
        UNATTENDED.check_all(["random", "solver:fallback=human", "human"])
    with pytest.raises(SpecError, match="bad parameter"):
        UNATTENDED.check("solver:fallback")


def test_a_policy_names_each_agent_once_with_a_one_line_reason() -> None:
    with pytest.raises(ValueError, match="twice"):
        SeatPolicy((("human", "a"), ("human", "b")))
    with pytest.raises(ValueError, match="one non-empty line"):
        SeatPolicy((("human", "two\nlines"),))
    assert (UNATTENDED | UNATTENDED) == UNATTENDED
    assert UNATTENDED.reason("random") is None


@attrs.frozen
class _Duo:
    """A plugin's agent that plays the agent of its spec-valued parameter ``inner``."""

    inner: str = param("greedy", "the agent it plays, ';' for ','", holds=AGENT_SPEC)
    note: str = param("", "a note (no spec)")
    name: str = "test-duo"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        return observation.legal_actions[0]


@pytest.fixture
def duo(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
    register("test-duo", _Duo, "a plugin's agent with a spec parameter")
    return "test-duo"


def test_a_plugin_s_spec_parameter_is_checked_like_a_built_in_s(duo: str) -> None:
    with pytest.raises(SpecError, match=f"^{duo}:inner=human: inner: {HUMAN}"):
        UNATTENDED.check(f"{duo}:inner=human")
    deep = f"solver:fallback={duo}:inner=phased:opening=human"
    with pytest.raises(SpecError, match="fallback: inner: opening: " + HUMAN):
        UNATTENDED.check(deep)
    UNATTENDED.check(f"{duo}:note=human,inner=random")
