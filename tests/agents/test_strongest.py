"""``strongest`` (issue 50): one name for the best agent measured within 100 ms per
decision, resolved per game's rules, its every spec in its description."""

from __future__ import annotations

import pytest

import durak.agents.strongest as strongest_module
from durak.agents import make_agent, registry
from durak.agents.optional import MissingAgentExtraError
from durak.agents.strongest import (
    GUIDED,
    MORE_PLAYERS,
    TWO_PLAYERS,
    StrongestAgent,
    network_fits,
    strongest_spec,
)
from durak.arena.play.game import play_game
from durak.rules import Rules
from tests.support.extras import require_extra


def test_its_description_names_every_spec_it_resolves_to() -> None:
    description = registry()["strongest"].description
    for spec in (GUIDED, TWO_PLAYERS, MORE_PLAYERS):
        assert spec in description


def test_the_network_guided_search_where_the_network_fits() -> None:
    require_extra("torch")
    assert network_fits(Rules())
    assert strongest_spec(Rules()) == GUIDED
    agent = make_agent("strongest", Rules())
    assert isinstance(agent, StrongestAgent) and agent.spec(Rules()) == GUIDED


@pytest.mark.parametrize(
    ("rules", "spec"),
    [
        (Rules(lowest_rank=10), TWO_PLAYERS),
        (Rules(transfer=True, lowest_rank=10), TWO_PLAYERS),
        (Rules(players=5), MORE_PLAYERS),
        (Rules(players=3, lowest_rank=9, hand_size=5), MORE_PLAYERS),
        (Rules(players=4, lowest_rank=10, hand_size=4), MORE_PLAYERS),
    ],
)
def test_a_torch_free_search_where_it_does_not(rules: Rules, spec: str) -> None:
    # Tables no network is shipped or planned for (36-card 3- and 4-player and 2-player
    # Perevodnoy networks may ship: tests/learn/test_dmc_shipped.py covers those).
    assert not network_fits(rules)
    agent = make_agent("strongest", rules)
    assert isinstance(agent, StrongestAgent) and agent.spec(rules) == spec


def test_without_the_extra_the_default_rules_get_the_torch_free_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The dmc extra missing, as a bare install sees it: building the guide says so.
    def missing(name: str) -> object:
        raise MissingAgentExtraError(f"{name} needs PyTorch: pip install 'durak-lab[dmc]'")

    monkeypatch.setattr(strongest_module, "make_guide", missing)
    assert not network_fits(Rules())
    assert strongest_spec(Rules()) == TWO_PLAYERS


def test_one_agent_plays_games_of_several_rules_each_with_its_own_resolution() -> None:
    agent = make_agent("strongest")
    assert isinstance(agent, StrongestAgent)
    small, three = Rules(lowest_rank=11, hand_size=3), Rules(players=3, lowest_rank=10)
    record = play_game(small, [agent, make_agent("greedy")], 3)
    assert record.forfeit is None and record.decisions[0] > 0
    record = play_game(three, [make_agent("random"), agent, make_agent("greedy")], 4)
    assert record.forfeit is None and record.decisions[1] > 0
    assert {r: spec for r, (spec, _, _) in agent.built.items()} == {
        small: TWO_PLAYERS,
        three: MORE_PLAYERS,
    }
