"""``ismcts:batch=N``: the guided search's leaves valued N at a time (a leaf batch).

Most tests guide the search with :class:`CountingGuide`, a cheap deterministic guide that
counts its calls (so they need no network); the last one plays the shipped network's
guided search where PyTorch is installed.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Sequence
from typing import Any

import pytest

import durak.search
from durak.agents import SpecError, make_agent
from durak.agents.guides import BatchGuide, Guidance, Guide
from durak.agents.heuristics import evals
from durak.agents.inference import inferring
from durak.agents.searchers import ismcts as ismcts_agent
from durak.agents.searchers.ismcts import IsmctsAgent
from durak.rules import Observation, Rules, is_terminal, legal_actions, new_game, observe, step
from durak.search import SearchResult, TreeSettings
from tests.support.extras import require_extra


class CountingGuide:
    """A :class:`BatchGuide` whose values are a fixed function of the view; it counts its
    one-view and many-view calls."""

    def __init__(self) -> None:
        self.single = self.many = 0

    @staticmethod
    def score(observation: Observation) -> list[float]:
        key = repr((observation.player, observation.hand, observation.table))
        return [
            zlib.crc32(f"{key}/{a}".encode()) / 2**32 * 2 - 1 for a in observation.legal_actions
        ]

    def action_values(self, observation: Observation) -> list[float]:
        self.single += 1
        return self.score(observation)

    def action_values_many(self, observations: Sequence[Observation]) -> list[list[float]]:
        self.many += 1
        return [self.score(o) for o in observations]


def positions(count: int, seed: int = 3) -> list[Observation]:
    """Decisions with a choice from greedy-vs-greedy games of the default rules."""
    greedy, rng = make_agent("greedy"), random.Random(seed)
    found: list[Observation] = []
    game = 0
    while len(found) < count:
        state = new_game(Rules(), seed + game)
        while not is_terminal(state) and len(found) < count:
            o = observe(state, state.turn)
            if len(legal_actions(state)) > 1 and rng.random() < 0.2:
                found.append(o)
            state = step(state, greedy.act(o, rng))
        game += 1
    return found


class Spy:
    """Records the settings and result of every search the agent runs."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.settings: list[TreeSettings[Any, Any]] = []
        self.results: list[SearchResult[Any]] = []
        search = durak.search.ismcts  # what the agent module calls

        def spied(*args: Any, settings: TreeSettings[Any, Any], **kwargs: Any) -> Any:
            self.settings.append(settings)
            result = search(*args, settings=settings, **kwargs)
            self.results.append(result)
            return result

        monkeypatch.setattr(ismcts_agent, "ismcts", spied)


def guided(monkeypatch: pytest.MonkeyPatch, batch: int, limit: int = 60) -> tuple[Any, Any]:
    """A guided ``ismcts`` agent on a fresh :class:`CountingGuide`, and the guide."""
    guide = CountingGuide()

    def made(name: str) -> Guide:
        assert name == "counting"
        return guide

    monkeypatch.setattr(inferring, "make_guide", made)
    agent = IsmctsAgent(
        prior="counting", value="counting", limit=limit, opponent="greedy", batch=batch
    )
    return agent, guide


def test_the_counting_guide_is_a_batch_guide() -> None:
    assert isinstance(CountingGuide(), BatchGuide)


def test_batch_one_is_the_search_one_leaf_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    spy = Spy(monkeypatch)
    agent, guide = guided(monkeypatch, batch=1)
    for i, o in enumerate(positions(4)):
        agent.act(o, random.Random(i))
    assert all(s.batch is None and s.evaluate is not None for s in spy.settings)
    assert guide.many == 0 and guide.single > 0
    # The probe can fail: at batch 8 the settings carry a leaf batch and the guide is
    # called for many views at once.
    spy = Spy(monkeypatch)
    agent, guide = guided(monkeypatch, batch=8)
    for i, o in enumerate(positions(4)):
        agent.act(o, random.Random(i))
    assert all(s.batch is not None and s.batch.size == 8 for s in spy.settings)
    assert all(s.evaluate is None for s in spy.settings)
    assert guide.many > 0


def test_batch_one_decides_as_the_unbatched_settings_do(monkeypatch: pytest.MonkeyPatch) -> None:
    # The batch option at 1 builds exactly the settings the agent built before it existed.
    agent, _ = guided(monkeypatch, batch=1)
    guidance = Guidance(CountingGuide(), 0.1)
    args: Any = (guidance.prior, guidance.value, None, evals.greedy_heuristic)
    assert agent.tree_settings(*args, guidance.values) == agent.tree_settings(*args)
    batched, _ = guided(monkeypatch, batch=4)
    assert batched.tree_settings(*args, guidance.values) != batched.tree_settings(*args)


def test_a_batched_agent_calls_the_guide_once_per_batch_and_counts_every_simulation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spy = Spy(monkeypatch)
    agent, guide = guided(monkeypatch, batch=8, limit=80)
    found = positions(5)
    for i, o in enumerate(found):
        agent.act(o, random.Random(i))
    iterations = [r.stats.iterations for r in spy.results]
    assert len(spy.results) == len(found)
    # The early stop comes between whole batches; otherwise the limit is met exactly.
    assert all(n == 80 or n % 8 == 0 for n in iterations)
    assert all(sum(n for _, n in r.visits) == r.stats.iterations for r in spy.results)
    # At most one many-view call per batch; a view first met at the root costs a single one.
    assert guide.many <= sum(-(-n // 8) for n in iterations)
    assert guide.single <= len(found) * 2


@pytest.mark.parametrize("batch", [4, 16])
def test_a_batched_agent_is_reproducible_and_legal(
    monkeypatch: pytest.MonkeyPatch, batch: int
) -> None:
    found = positions(6, seed=8)
    runs = []
    for _ in range(2):
        agent, _ = guided(monkeypatch, batch=batch)
        runs.append([agent.act(o, random.Random(10 + i)) for i, o in enumerate(found)])
    assert runs[0] == runs[1]
    assert all(a in o.legal_actions for a, o in zip(runs[0], found, strict=True))


def test_a_batch_without_a_value_guide_is_refused_in_one_line() -> None:
    with pytest.raises(SpecError, match=r"batch > 1 needs a value guide \(value=dmc\)"):
        make_agent("ismcts:limit=20,batch=4")
    with pytest.raises(SpecError, match="batch"):
        make_agent("ismcts:prior=none,value=rollout,batch=0")


def test_the_guided_search_with_the_network_batches_reproducibly() -> None:
    require_extra("torch")
    spec = "ismcts:prior=dmc,value=dmc,limit=40,opponent=greedy,batch=8"
    found = positions(3, seed=5)
    runs = [
        [make_agent(spec).act(o, random.Random(i)) for i, o in enumerate(found)] for _ in range(2)
    ]
    assert runs[0] == runs[1]
    assert all(a in o.legal_actions for a, o in zip(runs[0], found, strict=True))
