"""The search agents and their evaluation functions: legal, reproducible, leak-free play."""

from __future__ import annotations

import importlib.util
import os
import random

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from durak.agents import make_agent, solver
from durak.agents.base import Agent, Relay, Watcher, watchers_among
from durak.agents.heuristics import evals
from durak.agents.heuristics.tactics import action_card, play_key, weak_mask
from durak.agents.inference.record import GameLog, PublicRecord
from durak.agents.searchers import ismcts as ismcts_agent
from durak.agents.searchers import options, sampled_worlds
from durak.agents.solver import SolverAgent
from durak.arena.play.game import play_game
from durak.rules import (
    Action,
    Card,
    DurakGame,
    GameState,
    Observation,
    Rules,
    Suit,
    is_terminal,
    legal_actions,
    new_game,
    observe,
    sample_world,
    step,
)
from durak.search import solve as exact_solve

#: Small budgets: these tests check behaviour, not strength.
CHEAP = {
    "mcts": "mcts:limit=20,samples=2",
    "mcts-greedy": "mcts:limit=20,samples=1,simulation=greedy",
    "mcts-visits": "mcts:limit=20,samples=3,combine=visits,bias=3",
    "mcts-fixed": "mcts:limit=20,samples=2,talon=fixed",
    "minimax-playout": "minimax:depth=1,samples=1,eval=playout",
    "ismcts": "ismcts:limit=40",
    "ismcts-bias": "ismcts:limit=40,bias=5",
    "ismcts-endgame": "ismcts:limit=40,endgame=2000",
    "ismcts-nodes": "ismcts:limit=400,nodes=600",
    "minimax": "minimax:depth=2,samples=2",
    "minimax-mean": "minimax:depth=2,samples=2,combine=mean,eval=cards",
    "maxn": "maxn:depth=2,samples=2",
    "maxn-paranoid": "maxn:depth=2,samples=2,paranoid=true",
    "solver": "solver:nodes=2000,fallback=mcts:limit=10;samples=1",
    "ismcts-infer": "ismcts:limit=40,infer=greedy,candidates=6",
    "ismcts-opponent": "ismcts:limit=40,opponent=greedy,epsilon=0.2",
    "ismcts-chain": "ismcts:limit=40,infer=greedy,candidates=4,chain=30",
    "mcts-infer": "mcts:limit=20,samples=2,infer=greedy,candidates=6",
    "mcts-chain": "mcts:limit=20,samples=2,infer=greedy,candidates=2,chain=8",
    "minimax-infer": "minimax:depth=1,samples=2,infer=greedy,candidates=6,epsilon=0",
    "maxn-infer": "maxn:depth=2,samples=2,infer=greedy,candidates=6",
    "solver-infer": "solver:nodes=2000,fallback=ismcts:limit=10;infer=greedy;candidates=4",
    # ISMCTS-BR (issue 49): the target as the opponent model and the inference's.
    "ismcts-br-smart": "ismcts:limit=30,opponent=smart,infer=smart,candidates=6",
    "ismcts-br-random": "ismcts:limit=30,opponent=random,infer=random,candidates=6",
    "mcts-infer-lowest": "mcts:limit=20,samples=2,infer=lowest,candidates=6",
    "ismcts-br-search": "ismcts:limit=20,opponent=mcts:limit=5;samples=1,candidates=4,draws=2",
    # The posterior over candidate agents (issue 50), in search and in inference.
    "ismcts-auto": "ismcts:limit=30,opponent=auto",
    "ismcts-auto-infer": "ismcts:limit=20,opponent=auto,infer=auto,candidates=4,carry=true",
    "mcts-infer-auto": "mcts:limit=10,samples=2,infer=auto,candidates=4",
    # One agent while the talon lasts, another once it is empty (issue 51's diagnosis).
    "phased": "phased:opening=mcts:limit=10;samples=1,endgame=ismcts:limit=20",
    "phased-infer": "phased:opening=mcts:limit=10;samples=1;infer=greedy;candidates=4,"
    "endgame=ismcts:limit=20;infer=greedy;candidates=4,when=two",
}
# OpenSpiel's bots (durak.interop.openspiel_agents), with the extra that runs them.
if os.environ.get("DURAK_REQUIRE_EXTRAS") == "1" or importlib.util.find_spec("pyspiel"):
    CHEAP |= {
        "openspiel-ismcts": "openspiel-ismcts:simulations=20",
        "openspiel-ismcts-worlds": "openspiel-ismcts:simulations=20,worlds=3,policy=normalized",
        "openspiel-mcts": "openspiel-mcts:simulations=20",
    }
#: The specs that infer from the opponents' moves (they need the game's hooks).
INFERRING = sorted(
    name for name, spec in CHEAP.items() if "infer=" in spec or "opponent=auto" in spec
)


def _play(rules: Rules, specs: list[str], seed: int, open_world: bool, max_steps: int) -> None:
    agents = [make_agent(s) for s in specs]
    watchers = [(p, a) for p, a in enumerate(agents) if isinstance(a, Watcher)]
    rngs = [random.Random(seed * 10 + p) for p in range(rules.players)]
    state = new_game(rules, seed)
    for p, watcher in watchers:
        watcher.game_started(observe(state, p, open_world))
    for _ in range(max_steps):
        if is_terminal(state):
            return
        p = state.turn
        action = agents[p].act(observe(state, p, open_world), rngs[p])
        assert action in legal_actions(state), (specs[p], action)
        state = step(state, action)
        for q, watcher in watchers:
            watcher.action_taken(p, action, observe(state, q, open_world))


@settings(max_examples=12, deadline=None)
@given(
    name=st.sampled_from(sorted(CHEAP)),
    players=st.integers(2, 4),
    transfer=st.booleans(),
    lowest=st.sampled_from([9, 10, 12]),
    open_world=st.booleans(),
    seed=st.integers(0, 10**6),
)
def test_search_agents_play_only_legal_actions(
    name: str, players: int, transfer: bool, lowest: int, open_world: bool, seed: int
) -> None:
    hand = min(6, 4 * (15 - lowest) // players)
    rules = Rules(players=players, lowest_rank=lowest, hand_size=hand, transfer=transfer)
    specs = [CHEAP[name]] + ["random"] * (players - 1)
    _play(rules, specs, seed, open_world, max_steps=60)


@pytest.mark.parametrize("name", sorted(CHEAP))
def test_search_agents_are_reproducible_and_see_only_the_observation(name: str) -> None:
    agent = make_agent(CHEAP[name])
    rules = Rules(lowest_rank=10)  # 20 cards: 8 left in the talon after the deal
    state = new_game(rules, 3)
    obs = observe(state, state.turn)
    twin = next(w for w in (sample_world(obs, random.Random(k)) for k in range(50)) if w != state)
    assert observe(twin, state.turn) == obs
    decisions = {agent.act(observe(s, s.turn), random.Random(9)) for s in (state, twin, state)}
    assert len(decisions) == 1


@pytest.mark.parametrize("name", INFERRING)
def test_inferring_agents_are_reproducible_and_read_only_what_their_seat_heard(
    name: str,
) -> None:
    """Two deals that seat 0 cannot tell apart, played with the same public moves (its
    observation equal after every one), give the same decision when the game's hooks tell
    it each game."""
    rules = Rules(lowest_rank=10)
    rng = random.Random(4)
    state = start = new_game(rules, 8)
    log = GameLog(observe(state, 0))
    while len(log.moves) < 14 or state.turn != 0 or len(legal_actions(state)) < 2:
        mover, action = state.turn, rng.choice(legal_actions(state))
        state = step(state, action)
        log.moves.append((mover, action, observe(state, 0)))
    record = PublicRecord.of(log)
    twin = record.past(sample_world(log.latest, rng), rng)
    while twin.hand_masks == start.hand_masks:
        twin = record.past(sample_world(log.latest, rng), rng)
    twin_log = GameLog(observe(twin, 0))
    for mover, action, _ in log.moves:
        twin = step(twin, action)
        twin_log.moves.append((mover, action, observe(twin, 0)))
    assert twin_log == log
    decisions = set()
    for heard in (log, twin_log, log):
        agent = make_agent(CHEAP[name])
        assert isinstance(agent, Watcher)
        agent.game_started(heard.start)
        for mover, action, seen in heard.moves:
            agent.action_taken(mover, action, seen)
        decisions.add(agent.act(heard.latest, random.Random(9)))
    assert len(decisions) == 1


def test_forced_moves_return_at_once_without_search(monkeypatch: pytest.MonkeyPatch) -> None:
    class Exploding:
        """A fallback that fails the test if it is ever consulted."""

        name = "exploding"

        def act(self, *_: object) -> Action:
            raise AssertionError("searched a forced move")

    def no_search(*_: object, **__: object) -> object:
        raise AssertionError("searched a forced move")

    state = new_game(Rules(lowest_rank=12), 0)
    while len(legal_actions(state)) != 1:
        state = step(state, legal_actions(state)[-1])
    forced = observe(state, state.turn)
    agent = SolverAgent(Exploding(), nodes=200_000)
    # A solve would be a search too: only the forced move may come back.
    for name in ("mcts", "ismcts", "pimc", "alphabeta", "maxn"):
        monkeypatch.setattr(sampled_worlds, name, no_search)
    monkeypatch.setattr(ismcts_agent, "ismcts", no_search)
    monkeypatch.setattr(solver, "solve", no_search)
    assert agent.act(forced, random.Random(0)) == legal_actions(state)[0]
    for spec in CHEAP.values():
        assert make_agent(spec).act(forced, random.Random(0)) == legal_actions(state)[0]
    # The probe can fail: at the opening there is a choice, and the search is reached.
    opening = new_game(Rules(lowest_rank=12), 0)
    assert len(legal_actions(opening)) > 1
    with pytest.raises(AssertionError, match="searched"):
        make_agent("ismcts:limit=5").act(observe(opening, opening.turn), random.Random(0))


@pytest.mark.parametrize("talon", ["fixed", "sampled"])
def test_mcts_talon_fixes_the_hands_and_fixes_or_redraws_the_talon(
    talon: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[GameState] = []

    def spy(state: GameState, rng: random.Random) -> Action:
        seen.append(state)
        return evals.greedy_rollout(state, rng)

    monkeypatch.setitem(options.ROLLOUTS, "greedy", spy)
    state = new_game(Rules(), 4)
    while len(legal_actions(state)) < 3:
        state = step(state, legal_actions(state)[0])
    agent = make_agent(f"mcts:limit=60,samples=1,talon={talon}")
    agent.act(observe(state, state.turn), random.Random(1))
    # Before any draw every searched state is of one world: the same cards in the talon.
    undrawn = [s for s in seen if len(s.talon) == len(state.talon)]
    assert len(undrawn) > 10
    assert len({frozenset(s.talon) for s in undrawn}) == 1, "the hands must stay the world's"
    orders = {s.talon for s in undrawn}
    assert (len(orders) == 1) == (talon == "fixed")


def test_solver_plays_a_move_of_the_exact_value_once_all_is_known() -> None:
    rules = Rules(lowest_rank=12)  # every card is dealt: the talon is empty from the start
    game = DurakGame(rules)
    agent: Agent = make_agent("solver:nodes=100000000,fallback=random")
    decisive = 0  # positions where some legal move is worse than the best: a test that can fail
    for seed in range(60):
        state = new_game(rules, seed)
        for _ in range(2 + seed % 3):  # a few plies in, so each solve stays small
            state = step(state, legal_actions(state)[0])
        if is_terminal(state):
            continue
        best = exact_solve(game, state).value
        mover = state.turn

        def value_of(action: Action, state: GameState = state, mover: int = mover) -> float:
            after = step(state, action)
            return (
                game.returns(after)[mover] if is_terminal(after) else _value_for(game, after, mover)
            )

        if min(value_of(a) for a in legal_actions(state)) == best:
            continue
        assert value_of(agent.act(observe(state, state.turn), random.Random(seed))) == best
        decisive += 1
        if decisive == 4:
            break
    assert decisive == 4, f"only {decisive} positions where a wrong move would have shown"


def test_ismcts_with_endgame_plays_the_solvers_move_once_all_is_known() -> None:
    """``ismcts:endgame=N`` plays what the ``solver`` would in a known endgame (and its own
    search move elsewhere, as the shared tests check)."""
    rules = Rules(lowest_rank=12)  # every card is dealt: every position is a known endgame
    agent = make_agent("ismcts:limit=3,endgame=100000000")
    plain = make_agent("ismcts:limit=3")
    compared = differed = 0
    for seed in range(40):
        state = new_game(rules, seed)
        for _ in range(2 + seed % 3):
            state = step(state, legal_actions(state)[0])
        if is_terminal(state) or len(legal_actions(state)) == 1:
            continue
        obs = observe(state, state.turn)
        solved = solver.solved_move(obs, random.Random(seed), nodes=100_000_000)
        if solved is None:
            continue  # lost against perfect play: the search's move stands
        assert agent.act(obs, random.Random(seed)) == solved
        differed += plain.act(obs, random.Random(seed)) != solved
        compared += 1
    assert compared >= 10 and differed > 0, (compared, differed)


def _value_for(game: DurakGame, state: GameState, player: int) -> float:
    result = exact_solve(game, state)
    return result.value if state.turn == player else -result.value


@pytest.mark.parametrize("evaluate", [evals.basic, evals.card_count, evals.playout])
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.integers(2, 6), plies=st.integers(0, 80))
def test_evaluations_are_returns_shaped(
    evaluate: evals.StateEval, seed: int, players: int, plies: int
) -> None:
    rng = random.Random(seed)
    state = new_game(Rules(players=players), seed)
    for _ in range(plies):
        if is_terminal(state):
            break
        state = step(state, rng.choice(legal_actions(state)))
    values = evaluate(state)
    assert len(values) == players
    assert abs(sum(values)) < 1e-9
    assert all(-1 <= v <= 1 for v in values)
    assert evaluate is evals.playout or all(-1 < v < 1 for v in values)


def test_basic_prefers_fewer_cards_and_stronger_ones() -> None:
    state = new_game(Rules(), 5)
    v = evals.basic(state)
    assert v[0] == -v[1]
    # Give player 0 a card of player 1's: player 0 holds more cards, so it is worse off.
    moved = state.hand_masks[1] & -state.hand_masks[1]
    heavier = attrs.evolve(
        state, hand_masks=(state.hand_masks[0] | moved, state.hand_masks[1] ^ moved)
    )
    assert evals.basic(heavier)[0] < v[0]


def test_weak_mask_marks_cards_the_opponent_can_beat() -> None:
    six, ace = Card.parse("6H"), Card.parse("AH")
    seven = Card.parse("7H")
    hand = (1 << six.index) | (1 << ace.index)
    opponent = 1 << seven.index
    assert weak_mask(hand, opponent, Suit.S) == 1 << six.index
    trump_seven = Card.parse("7S")
    assert weak_mask(hand, 1 << trump_seven.index, Suit.S) == hand


class _Recorder:
    """A fallback that plays the last legal action and counts its calls."""

    name = "recorder"

    def __init__(self) -> None:
        self.calls = 0

    def act(self, observation: Observation, rng: random.Random) -> Action:
        self.calls += 1
        return observation.legal_actions[-1]


def _recording_solver(nodes: int) -> tuple[SolverAgent, _Recorder]:
    recorder = _Recorder()
    return SolverAgent(recorder, nodes=nodes), recorder


def _won_and_lost_positions() -> tuple[GameState, GameState]:
    """A position won and one lost for the player to move, every card known."""
    rules = Rules(lowest_rank=12)  # every card is dealt: the talon is empty from the start
    game = DurakGame(rules)
    found: dict[bool, GameState] = {}
    for seed in range(40):
        state = new_game(rules, seed)
        for _ in range(3):
            state = step(state, legal_actions(state)[0])
        if not is_terminal(state) and len(legal_actions(state)) > 1:
            value = exact_solve(game, state).value
            if value != 0:  # a draw is neither
                found.setdefault(value > 0, state)
    return found[True], found[False]


def test_solver_defers_to_its_fallback_before_all_is_known_or_over_budget() -> None:
    won, _ = _won_and_lost_positions()
    hidden = new_game(Rules(), 1)  # a full talon: the opponent's hand is unknown
    agent, recorder = _recording_solver(10**6)
    agent.act(observe(hidden, hidden.turn), random.Random(0))
    assert recorder.calls == 1
    agent, recorder = _recording_solver(10**8)
    agent.act(observe(won, won.turn), random.Random(0))
    assert recorder.calls == 0
    agent, recorder = _recording_solver(5)  # budget far too small
    agent.act(observe(won, won.turn), random.Random(0))
    assert recorder.calls == 1


def test_solver_plays_the_fallback_move_in_a_lost_position() -> None:
    _, lost = _won_and_lost_positions()
    agent, recorder = _recording_solver(10**8)
    action = agent.act(observe(lost, lost.turn), random.Random(0))
    assert recorder.calls == 1
    assert action == legal_actions(lost)[-1]


class _Watching(_Recorder):
    """A fallback that also records the hooks it hears."""

    def __init__(self) -> None:
        super().__init__()
        self.heard: list[str] = []

    def game_started(self, observation: Observation) -> None:
        self.heard.append("started")

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        self.heard.append(str(action))

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        self.heard.append("ended")


def test_solver_keeps_its_table_for_one_game_and_tells_its_fallback() -> None:
    rules = Rules(lowest_rank=12)  # every card known from the start: the solver plays
    watching = _Watching()
    agent = SolverAgent(watching, nodes=10**8)
    sizes: list[int] = []

    class Probe:
        name = "probe"

        def act(self, observation: Observation, rng: random.Random) -> Action:
            sizes.append(len(agent.endgame.table))
            return observation.legal_actions[0]

    record = play_game(rules, [agent, Probe()], 4)
    assert max(sizes) > 0 and len(agent.endgame.table) == 0  # kept in the game, then freed
    assert watching.heard == ["started", *map(str, record.actions), "ended"]
    again = play_game(rules, [agent, Probe()], 4)
    assert again.actions == record.actions  # a fresh table each game: the same play


def test_relay_passes_every_hook_on_to_the_watchers_among_its_agents_in_order() -> None:
    first, second = _Watching(), _Watching()
    found = watchers_among(first, make_agent("random"), second)
    assert found == (first, second)  # the random agent has no hooks

    class Both(Relay):
        name = "both"

        def __init__(self) -> None:
            self.watchers = found

        def act(self, observation: Observation, rng: random.Random) -> Action:
            return observation.legal_actions[0]

    relay = Both()
    assert isinstance(relay, Watcher)
    record = play_game(Rules(), [relay, make_agent("lowest")], 5)
    heard = ["started", *map(str, record.actions), "ended"]
    assert first.heard == heard and second.heard == heard


def test_cheap_first_orders_card_plays_by_power_then_take_or_pass() -> None:
    state = new_game(Rules(), 3)
    for _ in range(2):  # an attack, then the defender's options: Defend/Transfer and Take
        state = step(state, legal_actions(state)[0])
    legal = legal_actions(state)
    ordered = evals.cheap_first(state, legal)
    assert sorted(ordered, key=legal.index) == list(legal)
    plays = [a for a in ordered if action_card(a) is not None]
    keys = [play_key(a, state.trump_suit) for a in plays]
    assert keys == sorted(keys)
    assert all(action_card(a) is None for a in ordered[len(plays) :])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.integers(2, 5), plies=st.integers(0, 120))
def test_greedy_rollout_is_the_greedy_agent_on_full_states(
    seed: int, players: int, plies: int
) -> None:
    rng = random.Random(seed)
    state = new_game(Rules(players=players, transfer=seed % 2 == 0), seed)
    for _ in range(plies):
        if is_terminal(state):
            return
        expected = make_agent("greedy").act(observe(state, state.turn), rng)
        assert evals.greedy_rollout(state) == expected
        state = step(state, rng.choice(legal_actions(state)))
