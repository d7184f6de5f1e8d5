"""``durak.testing.check_agent``: every registered agent keeps the agent contract, and each
planted breach of it (an illegal action, unseeded randomness, a decision past the time
limit, a hidden card read through a side channel, a hook that raises) fails on its part.

Budgets are small (20- or 12-card decks, two games, a few iterations per decision): these
tests check the contract, not strength.  The whole file takes about 20 s of CPU (70 s on
the two-core development machine shared with other jobs); the OpenSpiel bots, ``dmc`` and
``strongest`` (which has no budget to lower) take half of it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import durak.testing.agent_contract as contract
from durak.agents import SpecError, make_agent
from durak.agents.base import registry
from durak.agents.heuristics.simple import greedy_action
from durak.rules import Action, GameState, Observation, Rules, Take
from durak.rules import observe as observe_state
from durak.testing import AgentContractError, check_agent
from tests.support.extras import require_extra

#: 20 cards, two players: short games with a talon and hidden cards.
SMALL = Rules(lowest_rank=10, hand_size=3)
THREE = Rules(players=3, lowest_rank=10, hand_size=3)

#: Per registered agent: a cheap spec of it (``{folder}`` is a folder for model files),
#: the rules it is checked on and its number of games.
CHECKED: dict[str, tuple[str, Rules, int]] = {
    "random": ("random", THREE, 3),
    "greedy": ("greedy", SMALL, 2),
    "lowest": ("lowest", THREE, 3),
    "smart": ("smart", SMALL, 2),
    "mcts": ("mcts:limit=20,samples=2", SMALL, 2),
    "ismcts": ("ismcts:limit=40", SMALL, 2),
    "minimax": ("minimax:depth=2,samples=2", SMALL, 2),
    "maxn": ("maxn:depth=2,samples=2", THREE, 2),
    "solver": ("solver:nodes=2000,fallback=greedy", SMALL, 2),
    "phased": ("phased:opening=greedy,endgame=ismcts:limit=20", SMALL, 2),
    "pomcp": ("pomcp:target=greedy,limit=20", SMALL, 2),
    "strongest": ("strongest", Rules(players=3, lowest_rank=12, hand_size=2), 1),
    "dmc": ("dmc", Rules(), 2),  # the shipped model of 36 cards
    "dqn": ("dqn:path={folder}/dqn.pt", SMALL, 2),
    "qlearn": ("qlearn:path={folder}/q.json", SMALL, 2),
    "openspiel-ismcts": ("openspiel-ismcts:simulations=20", SMALL, 2),
    "openspiel-mcts": ("openspiel-mcts:simulations=20", SMALL, 2),
}
#: Specs whose decisions rest on the game's hooks (inference, posteriors, a carried
#: belief): the twin worlds replay the hooks too.
WATCHING = {
    "ismcts-infer": ("ismcts:limit=30,infer=greedy,candidates=6", SMALL),
    "ismcts-auto": ("ismcts:limit=20,opponent=auto,infer=auto,candidates=4,carry=true", SMALL),
    "mcts-infer": ("mcts:limit=10,samples=2,infer=greedy,candidates=4", THREE),
}
#: Registered agents not checked here, and why (the ``test-*`` agents of
#: ``tests/support/faulty_agents.py`` break the contract on purpose, as ``faulty`` does,
#: which is checked to fail below).
LEFT_OUT = {"human": "reads the terminal", "faulty": "breaks the contract on purpose"}
NEEDS = {"dmc": "torch", "dqn": "torch", "openspiel-ismcts": "pyspiel", "openspiel-mcts": "pyspiel"}


def _models(folder: Path) -> None:
    """A small dqn model and Q-table for :data:`SMALL` in ``folder``."""
    torch = require_extra("torch")
    from durak.learn.dqn.net import DqnModel, build_network, save_model  # noqa: PLC0415
    from durak.learn.qlearn import QTable  # noqa: PLC0415

    torch.manual_seed(0)
    save_model(folder / "dqn.pt", DqnModel(build_network(SMALL, (8,)), SMALL, (8,)))
    QTable(SMALL, "crampton").save(folder / "q.json")


def test_every_registered_agent_is_checked() -> None:
    names = {n for n, info in registry().items() if not info.source.startswith("tests.")}
    assert names - set(LEFT_OUT) == set(CHECKED)


@pytest.mark.parametrize("name", sorted(CHECKED))
def test_every_registered_agent_keeps_the_contract(name: str, tmp_path: Path) -> None:
    if name in NEEDS:
        require_extra(NEEDS[name])
    if name in ("dqn", "qlearn"):
        _models(tmp_path)
    spec, rules, games = CHECKED[name]
    report = check_agent(spec.format(folder=tmp_path), rules, games=games, seed=5)
    assert report.games == games
    assert report.decisions >= 5 * games
    assert report.twins >= 1


@pytest.mark.parametrize("name", sorted(WATCHING))
def test_agents_that_follow_the_game_keep_the_contract_in_twin_worlds(name: str) -> None:
    spec, rules = WATCHING[name]
    assert check_agent(spec, rules, seed=2, twins=3).twins >= 3


# -- planted faults ------------------------------------------------------------------------


class Illegal:
    """Plays greedily, but takes when it attacks (never legal on an empty table)."""

    name = "illegal"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        return Take() if not observation.table else greedy_action(observation)


class Unseeded:
    """Draws from the ``random`` module, not the generator it is handed."""

    name = "unseeded"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        return random.choice(observation.legal_actions)


class Sleeper:
    """Sleeps past any small limit before each decision."""

    name = "sleeper"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        time.sleep(0.05)
        return greedy_action(observation)


class Channel:
    """The side channel a test gives an agent: the last state observed for it."""

    state: GameState | None = None


class Peeker:
    """Reads the opponents' hands through :class:`Channel` and lets them choose its move."""

    name = "peeker"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        assert Channel.state is not None
        hidden = sum(h.mask for p, h in enumerate(Channel.state.hands) if p != observation.player)
        legal = observation.legal_actions
        return legal[hidden % 1_000_003 % len(legal)]


class LoudWatcher:
    """Plays greedily; its ``action_taken`` hook raises."""

    name = "loud"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        return greedy_action(observation)

    def game_started(self, observation: Observation) -> None:
        pass

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        raise RuntimeError("the hook broke")

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        pass


def _fails(part: str, agent: object, **options: object) -> str:
    """``check_agent(agent, SMALL, **options)``'s error, which must name ``part``."""
    with pytest.raises(AgentContractError) as caught:
        check_agent(agent, SMALL, **options)  # type: ignore[arg-type]
    assert caught.value.part == part, caught.value
    message = str(caught.value)
    assert message.startswith(f"{part}: ") and "\n" not in message
    return message


def test_an_illegal_action_fails_naming_the_decision_and_the_seed() -> None:
    message = _fails("legal actions", Illegal(), seed=8)
    assert "illegal, game 0 (check seed 8, deal seed " in message
    assert "decision 0 (action 0 of the game)" in message and "Take()" in message
    assert "world hands 0: " in message


def test_faulty_fails_on_its_fault() -> None:
    assert "act raised" in _fails("legal actions", "faulty:fault=error")
    assert "played Take()" in _fails("legal actions", "faulty:fault=illegal")
    _fails("time limit", "faulty:fault=timeout,sleep=0.2", time_limit=0.05)


@pytest.fixture
def global_random() -> Iterator[None]:
    """The ``random`` module seeded, so that the unseeded agent's draws (and so the test)
    are the same in every run; its state is put back after."""
    saved = random.getstate()
    random.seed(20260)
    yield
    random.setstate(saved)


@pytest.mark.usefixtures("global_random")
def test_unseeded_randomness_fails_the_replay() -> None:
    message = _fails("same seed, same decisions", Unseeded(), seed=3)
    assert "in the same game replayed" in message and "check seed 3" in message


def test_a_decision_past_the_limit_fails() -> None:
    message = _fails("time limit", Sleeper(), time_limit=0.01)
    assert "the limit is 0.01 s" in message and "decision 0" in message
    tiny = Rules(lowest_rank=12, hand_size=1)
    assert check_agent(Sleeper(), tiny, games=1, twins=0).slowest >= 0.05  # no limit: passes


def test_a_hidden_card_read_through_a_side_channel_fails_in_a_twin_world(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_observe = observe_state

    def observe(state: GameState, player: int) -> Observation:
        Channel.state = state
        return real_observe(state, player)

    monkeypatch.setattr(contract, "observe", observe)
    message = _fails("sees only its observation", Peeker(), seed=1)
    assert "in the real world but" in message and "in a twin world it observes the same" in message
    real, twin = message.split("; real world ")[1].split("; twin world ")
    assert real.startswith("hands ") and twin.startswith("hands ") and real != twin


def test_a_hook_that_raises_fails() -> None:
    assert "action_taken raised RuntimeError: the hook broke" in _fails(
        "legal actions", LoudWatcher()
    )


def test_bad_arguments_are_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match="games must be an int >= 1"):
        check_agent("greedy", games=0)
    with pytest.raises(ValueError, match="time_limit must be"):
        check_agent("greedy", time_limit=0)
    with pytest.raises(SpecError, match="unknown agent"):
        check_agent("no-such-agent")
    with pytest.raises(TypeError, match="act"):
        check_agent(object())  # type: ignore[arg-type]


def test_an_agent_object_is_copied_for_every_game() -> None:
    agent = make_agent("ismcts:limit=10")
    before = repr(agent)
    check_agent(agent, SMALL, games=1)
    assert repr(agent) == before
