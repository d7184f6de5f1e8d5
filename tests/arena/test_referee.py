"""Faulty agents: strict play raises; a refereed game is forfeited by the faulty seat."""

from __future__ import annotations

import math
import random
import signal
import threading
import time

import attrs
import pytest

from durak.agents import Agent, GreedyAgent, RandomAgent, make_agent
from durak.arena.play.game import GameRecord, play_game
from durak.arena.play.referee import (
    MAX_MOVE_TIMEOUT,
    GameStopped,
    MoveTimeout,
    Referee,
    Stop,
    time_limit,
)
from durak.rules import Action, IllegalActionError, Observation, Rules, is_terminal, legal_actions
from tests.support.faulty_agents import (
    CrashAgent,
    HangAgent,
    HookCrashAgent,
    IllegalAgent,
    InterruptAgent,
)

RULES = Rules()


def test_strict_play_raises_the_agents_errors() -> None:
    illegal: list[Agent] = [GreedyAgent(), IllegalAgent()]
    with pytest.raises(IllegalActionError, match="agent 'test-illegal' in seat 1"):
        play_game(RULES, illegal, seed=1)
    crash: list[Agent] = [CrashAgent(), GreedyAgent()]
    with pytest.raises(RuntimeError, match="faulty agent: the error"):
        play_game(RULES, crash, seed=1)


def test_a_referee_changes_nothing_when_every_agent_behaves() -> None:
    agents: list[Agent] = [RandomAgent(), GreedyAgent()]
    strict = play_game(RULES, agents, seed=9)
    refereed = play_game(RULES, agents, seed=9, referee=Referee(move_timeout=30))
    assert (refereed.actions, refereed.loser, refereed.forfeit) == (
        strict.actions,
        strict.loser,
        None,
    )


def _check_forfeit(record: GameRecord, seat: int, fault: str) -> None:
    assert record.forfeit is not None
    assert (record.loser, record.forfeit.seat, record.forfeit.fault) == (seat, seat, fault)
    state = record.replay()  # the actions before the fault were all legal
    assert not is_terminal(state) and state.turn == seat


def test_an_agent_that_raises_forfeits() -> None:
    record = play_game(RULES, [GreedyAgent(), CrashAgent(p=0.2)], seed=3, referee=Referee())
    _check_forfeit(record, 1, "error")
    assert record.forfeit is not None
    assert record.forfeit.message == "RuntimeError: faulty agent: the error it was asked to raise"
    assert record.decisions[1] >= 1


def test_an_illegal_action_forfeits_and_is_not_played() -> None:
    record = play_game(RULES, [IllegalAgent(p=0.1), RandomAgent()], seed=4, referee=Referee())
    assert len(record.actions) > 10  # a fault in mid-game
    _check_forfeit(record, 0, "illegal")
    assert record.forfeit is not None and record.forfeit.action is not None
    assert record.forfeit.action.startswith("Attack(")
    assert record.forfeit.action not in {str(a) for a in legal_actions(record.replay())}
    assert "illegal action" in record.forfeit.message


def test_a_stuck_agent_is_interrupted_by_the_move_timer() -> None:
    finished = len(HangAgent.finished)
    record = play_game(
        RULES, [GreedyAgent(), HangAgent(seconds=20)], seed=2, referee=Referee(move_timeout=0.05)
    )
    _check_forfeit(record, 1, "timeout")
    assert record.forfeit is not None
    assert record.forfeit.message == "no answer within the 0.05 s move limit"
    assert len(HangAgent.finished) == finished  # the loop never ran to its end


def _in_a_thread(agents: list[Agent], referee: Referee) -> GameRecord:
    records: list[GameRecord] = []
    thread = threading.Thread(
        target=lambda: records.append(play_game(RULES, agents, seed=2, referee=referee))
    )
    thread.start()
    thread.join()
    return records[0]


def test_off_the_main_thread_a_stuck_agent_is_interrupted_by_the_watchdog() -> None:
    finished = len(HangAgent.finished)
    record = _in_a_thread([HangAgent(seconds=60), GreedyAgent()], Referee(move_timeout=0.05))
    _check_forfeit(record, 0, "timeout")
    assert record.forfeit is not None
    assert record.forfeit.message == "no answer within the 0.05 s move limit"
    assert len(HangAgent.finished) == finished  # the loop never ran to its end


@attrs.frozen
class SleepAgent:
    """Sleeps in C code (``time.sleep``), where no watchdog can interrupt it."""

    seconds: float
    name: str = "test-sleep"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        time.sleep(self.seconds)
        return observation.legal_actions[0]


def test_off_the_main_thread_a_move_in_c_code_is_judged_when_it_returns() -> None:
    record = _in_a_thread([SleepAgent(0.15), GreedyAgent()], Referee(move_timeout=0.05))
    _check_forfeit(record, 0, "timeout")
    assert record.think_time[0] >= 0.15  # the sleep ran to its end


@attrs.frozen
class Spinner:
    """Says it has begun its move, then never ends it."""

    begun: threading.Event
    name: str = "test-spin"

    def act(self, observation: Observation, rng: random.Random) -> Action:
        self.begun.set()
        while True:
            pass


def test_a_stop_calls_the_game_off_in_the_middle_of_a_move() -> None:
    """A stop thrown from another thread interrupts the move in progress (no time limit)
    and refuses every later call; nobody forfeits."""
    stop, begun = Stop(), threading.Event()
    stopped: list[BaseException] = []

    def run() -> None:
        try:
            play_game(RULES, [Spinner(begun), GreedyAgent()], seed=2, referee=Referee(stop=stop))
        except GameStopped as e:
            stopped.append(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert begun.wait(60)
    stop.set()
    thread.join(60)
    assert not thread.is_alive() and len(stopped) == 1
    with pytest.raises(GameStopped):
        Referee(stop=stop).call(lambda: 1)


def test_untimed_seats_are_waited_for() -> None:
    record = _in_a_thread([SleepAgent(0.1), GreedyAgent()], Referee(0.05, frozenset({0})))
    assert record.forfeit is None and is_terminal(record.replay())


def test_the_move_timer_restores_the_callers_timer_and_handler() -> None:
    fired: list[int] = []

    def outer(signum: int, frame: object) -> None:
        fired.append(signum)

    previous = signal.signal(signal.SIGALRM, outer)
    try:
        signal.setitimer(signal.ITIMER_REAL, 30)
        with time_limit(5):
            pass
        assert signal.getsignal(signal.SIGALRM) is outer
        assert 25 < signal.getitimer(signal.ITIMER_REAL)[0] <= 30
        with pytest.raises(MoveTimeout), time_limit(0.01):
            while True:
                pass
        assert signal.getsignal(signal.SIGALRM) is outer and not fired
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_ctrl_c_is_never_taken_for_a_fault() -> None:
    agents: list[Agent] = [InterruptAgent(after=3), GreedyAgent()]
    with pytest.raises(KeyboardInterrupt):
        play_game(RULES, agents, seed=1, referee=Referee())


@attrs.define
class Listener:
    """A greedy watcher that records the outcome it hears."""

    name: str = "listener"
    ended: list[int | None] = attrs.Factory(list)

    def act(self, observation: Observation, rng: random.Random) -> Action:
        return GreedyAgent().act(observation, rng)

    def game_started(self, observation: Observation) -> None:
        pass

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        pass

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        self.ended.append(loser)


def test_a_faulty_watcher_forfeits_and_the_others_hear_the_end() -> None:
    listener = Listener()
    record = play_game(
        Rules(players=3), [listener, HookCrashAgent(), RandomAgent()], seed=4, referee=Referee()
    )
    assert record.forfeit is not None
    assert (record.loser, record.forfeit.fault) == (1, "error")
    assert record.forfeit.message == "ValueError: watcher failed"
    assert listener.ended == [1]
    assert len(record.actions) == 1  # the first action's hook already failed


def test_a_referee_needs_a_positive_finite_time_limit() -> None:
    for bad in (0, -1.0, math.inf, math.nan, 1e10, MAX_MOVE_TIMEOUT * 2):
        with pytest.raises(ValueError, match="move time limit must be positive seconds up to"):
            Referee(move_timeout=bad)
    assert Referee(move_timeout=MAX_MOVE_TIMEOUT).move_timeout == MAX_MOVE_TIMEOUT


def test_an_agent_that_calls_sys_exit_forfeits() -> None:
    record = play_game(
        Rules(), [make_agent("test-exits"), make_agent("random")], 1, referee=Referee()
    )
    assert record.forfeit is not None and record.forfeit.seat == 0
    assert record.forfeit.fault == "error" and record.forfeit.message == "SystemExit: 3"


def test_an_agent_that_returns_a_string_is_told_its_type_is_wrong() -> None:
    record = play_game(
        Rules(), [make_agent("test-texts"), make_agent("random")], 1, referee=Referee()
    )
    assert record.forfeit is not None and record.forfeit.fault == "illegal"
    assert "a str, not an Action" in record.forfeit.message
