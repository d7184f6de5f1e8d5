"""Game logs: written as games finish, read strictly, replayed through the engine, resumed."""

from __future__ import annotations

import json
import re
import signal
import threading
from contextlib import closing
from pathlib import Path
from typing import Any

import attrs
import pytest

import tests.support.faulty_agents  # noqa: F401  (registers the test agents)
from durak.arena.experiments.report import match_report
from durak.arena.gamelog.entry import LogEntry, LogError, entry_for, parse_entry
from durak.arena.gamelog.files import encode, logged_seed, read_log
from durak.arena.gamelog.replay import replay_entry
from durak.arena.play.match import GameOutcome, MatchPlan
from durak.arena.play.referee import Referee
from durak.arena.runs.pool import LocalPool
from durak.arena.runs.run import Run
from durak.arena.runs.signals import Terminated, hold_interrupts, sigterm_interrupts
from durak.arena.scores.result import MatchResult
from durak.rules import Rules

PLAN = MatchPlan(Rules(players=3, transfer=True), ("random", "greedy", "lowest"), 7, 12)


def untimed(result: MatchResult) -> dict[str, Any]:
    """The statistics without the machine-dependent figures."""
    report = match_report(result, 0.98)
    del report["timing"]
    return report


def no_times(outcome: GameOutcome) -> GameOutcome:
    """The outcome without its thinking times (the log keeps them to the microsecond)."""
    return attrs.evolve(outcome, think_time=(), max_think=())


def full_run(plan: MatchPlan = PLAN, jobs: int = 1) -> MatchResult:
    run = Run([plan])
    for _ in run.play(LocalPool(jobs)):
        pass
    return run.results()[0]


def test_each_game_is_logged_as_it_finishes_and_replays(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    run = Run([PLAN], log=log)
    with closing(run.play()) as games:
        for k, (_, played) in enumerate(games, 1):
            lines = log.read_text(encoding="utf-8").splitlines()
            assert len(lines) == k  # on disk before the caller hears of the game
            assert json.loads(lines[-1])["actions"] == list(played.actions)
    entries = read_log(log).entries
    assert [e.line for e in entries] == list(range(1, 13))
    result = run.results()[0]
    assert [no_times(e.outcome()) for e in entries] == [no_times(o) for o in result.outcomes]
    assert all(
        e.outcome().think_time == pytest.approx(o.think_time, abs=1e-6)
        for e, o in zip(entries, result.outcomes, strict=True)
    )
    for entry in entries:
        game = replay_entry(entry, log)
        assert len(game.states) == len(entry.actions) + 1
    assert logged_seed(log) == 7 and logged_seed(tmp_path / "missing.jsonl") is None


def test_a_log_line_holds_the_whole_game(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    plan = attrs.evolve(PLAN, referee=Referee(move_timeout=9.5), open_world=True, games=3)
    Run([plan], log=log).play().__next__()
    obj = json.loads(log.read_text(encoding="utf-8"))
    assert obj["rules"] == attrs.asdict(plan.rules) and obj["specs"] == list(plan.specs)
    assert (obj["seed"], obj["game"], obj["open_world"], obj["move_timeout"]) == (7, 0, True, 9.5)
    assert obj["deal_seed"] == plan.deal_seed(0) and obj["seats"] == [0, 1, 2]
    assert obj["end"] in ("finished", "forfeit") and len(obj["think_time"]) == 3
    assert set(obj) == {
        "format",
        "kind",
        "rules",
        "specs",
        "seed",
        "open_world",
        "move_timeout",
        "game",
        "deal_seed",
        "seats",
        "actions",
        "end",
        "durak",
        "bouts",
        "decisions",
        "think_time",
        "max_think",
        "forfeit",
    }


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_stopped_run_resumes_to_the_same_statistics(tmp_path: Path, jobs: int) -> None:
    log = tmp_path / "run.jsonl"
    first = Run([PLAN], log=log)
    seen = set()
    with pytest.raises(KeyboardInterrupt), closing(first.play(LocalPool(jobs))) as games:
        for k, (_, game) in enumerate(games, 1):
            seen.add(game.outcome.game)
            if k == 5:
                raise KeyboardInterrupt  # as Ctrl-C in the middle of the run
    kept = read_log(log).entries
    # Every game seen is kept; so are the rest of its batch, finished with it.
    assert seen <= {e.game for e in kept} and len(kept) == first.results()[0].games < 12
    second = Run([PLAN], log=log, resume=True)
    assert second.resumed == len(kept) and len(list(second.pending())) == 12 - len(kept)
    played = [g.outcome.game for _, g in second.play(LocalPool(jobs))]
    assert sorted(played) == sorted(set(range(12)) - {e.game for e in kept})
    assert sorted(e.game for e in read_log(log).entries) == list(range(12))  # no duplicate
    assert untimed(second.results()[0]) == untimed(full_run())


def test_a_cut_off_last_line_is_reported_and_replayed(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    run = Run([PLAN], log=log)
    for _ in run.play():
        pass
    data = log.read_bytes()
    log.write_bytes(data[:-30])  # killed while writing the last game
    with pytest.raises(LogError, match=r"line 12: cut off: the file ends inside this entry"):
        read_log(log)
    assert read_log(log, allow_truncated=True).truncated is not None
    resumed = Run([PLAN], log=log, resume=True)
    assert resumed.notes == [
        f"{log} line 12 was cut off mid-write; dropped it, and its game will be played again"
    ]
    assert list(resumed.pending()) == [(0, 11)]
    for _ in resumed.play():
        pass

    def untimed_lines(data: bytes) -> list[dict[str, Any]]:
        rows = [json.loads(line) for line in data.decode("utf-8").splitlines()]
        return [
            {k: v for k, v in row.items() if k not in ("think_time", "max_think")} for row in rows
        ]

    assert log.read_bytes().endswith(b"\n")
    assert untimed_lines(log.read_bytes()) == untimed_lines(data)  # the same log as in full
    assert untimed(resumed.results()[0]) == untimed(full_run())


def test_resuming_refuses_a_log_of_another_run(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    Run([PLAN], log=log).play().__next__()
    cases = [
        (attrs.evolve(PLAN, seed=8), "line 1: the log has seed 7, the command 8"),
        (
            attrs.evolve(PLAN, rules=Rules(players=3)),
            "rules differ: transfer=True (command: False)",
        ),
        (attrs.evolve(PLAN, specs=("random", "greedy", "smart")), "the log has specs"),
        (
            attrs.evolve(PLAN, referee=Referee(1.0)),
            "the log has move_timeout None, the command 1.0",
        ),
        (attrs.evolve(PLAN, open_world=True), "the log has open_world False"),
    ]
    for plan, message in cases:
        with pytest.raises(LogError, match=re.escape(message) + ".*refusing to resume"):
            Run([plan], log=log, resume=True)
    with pytest.raises(LogError, match="already holds games"):
        Run([PLAN], log=log)


def test_a_log_of_an_older_spelling_resumes_with_its_games_counted(tmp_path: Path) -> None:
    """Issue 61: agents are named by their canonical specs; a log written under another
    spelling of the same agents holds this run's games (none lost, none played again),
    and a log of another agent is still refused."""
    log = tmp_path / "run.jsonl"
    old = attrs.evolve(PLAN, specs=("random:stop_chance=0.00", "greedy:", "lowest"), games=3)
    Run([old], log=log).play().__next__()
    logged = log.read_bytes()
    same = attrs.evolve(old, specs=("random:stop_chance=0", "greedy", "lowest"))
    resumed = Run([same], log=log, resume=True)
    assert resumed.resumed == 1 and list(resumed.pending()) == [(0, 1), (0, 2)]
    resumed.close()
    assert log.read_bytes() == logged
    other = attrs.evolve(old, specs=("random:stop_chance=0.5", "greedy", "lowest"))
    with pytest.raises(LogError, match="the log has specs"):
        Run([other], log=log, resume=True)


def test_resuming_refuses_a_game_logged_twice(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    Run([PLAN], log=log).play().__next__()
    line = log.read_text(encoding="utf-8")
    log.write_text(line + line, encoding="utf-8")
    with pytest.raises(
        LogError, match="line 2: game 0 of random vs greedy vs lowest is already logged at line 1"
    ):
        Run([PLAN], log=log, resume=True)


def _entry() -> tuple[LogEntry, dict[str, Any]]:
    run = Run([attrs.evolve(PLAN, games=1)])
    _, played = next(run.play())
    entry = entry_for(run.plans[0], played)
    return entry, json.loads(encode(entry))


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda o: o.pop("actions"), "field 'actions' is missing"),
        (lambda o: o.update(format=2), "unknown log format 2"),
        (lambda o: o.update(seed="7"), "field 'seed' has the wrong type: '7'"),
        (lambda o: o.update(bouts=True), "field 'bouts' must not be true/false"),
        (lambda o: o["rules"].update(players=9), "bad rules: Rules.players must be 2..6"),
        (lambda o: o.update(specs=["random"]), "field 'specs' must have 3 items, got 1"),
        (lambda o: o.update(seats=[0, 0, 1]), "seats [0, 0, 1] are not a seating of 3"),
        (lambda o: o.update(deal_seed=1), "deal seed 1 does not follow from seed 7 and game 0"),
        (lambda o: o.update(durak=3), "durak 3 is not an agent of this game"),
        (lambda o: o.update(end="won"), "unknown end 'won'"),
        (lambda o: o.update(end="forfeit"), "a forfeit must be recorded exactly when"),
        (lambda o: o.update(actions=["Attack(6♠)", 5]), "holds a value of the wrong type: 5"),
    ],
)
def test_reading_names_the_bad_field(change: Any, reason: str) -> None:
    _, obj = _entry()
    change(obj)
    with pytest.raises(LogError) as info:
        parse_entry(obj, "x.jsonl", 4)
    assert str(info.value).startswith("x.jsonl line 4: ")
    assert reason in str(info.value)


def test_replay_checks_every_action_and_the_outcome() -> None:
    entry, _ = _entry()
    assert entry.end == "finished" and entry.durak is not None
    first = entry.actions[0]
    cases = [
        (
            attrs.evolve(entry, actions=("Atack(6♠)", *entry.actions[1:])),
            "action 1 'Atack(6♠)' is not an action",
        ),
        (attrs.evolve(entry, actions=(*entry.actions, "Pass")), "comes after the end of the game"),
        (attrs.evolve(entry, actions=entry.actions[:-1]), "the game is not over after"),
        (attrs.evolve(entry, durak=(entry.durak + 1) % 3), "the log says the durak is agent"),
        (attrs.evolve(entry, bouts=entry.bouts + 1), f"the log counts {entry.bouts + 1} bouts"),
        (
            attrs.evolve(entry, actions=(first, first, *entry.actions[2:])),
            f"action 2 {first} is illegal: illegal action",
        ),
        (attrs.evolve(entry, end="interrupted", durak=None), "was interrupted, but it was over"),
    ]
    replay_entry(entry)
    for bad, reason in cases:
        with pytest.raises(LogError, match=reason.replace("(", r"\(").replace(")", r"\)")):
            replay_entry(attrs.evolve(bad, line=3), "x.jsonl")


def test_replay_checks_a_forfeit() -> None:
    plan = MatchPlan(Rules(), ("test-illegal:p=0.2", "greedy"), 3, 1, referee=Referee())
    run = Run([plan])
    _, played = next(run.play())
    entry = entry_for(plan, played)
    assert entry.forfeit is not None and entry.forfeit.action is not None
    replay_entry(entry)
    legal = replay_entry(attrs.evolve(entry, actions=entry.actions[:-1]))  # one move earlier
    assert legal.final.turn >= 0
    with pytest.raises(LogError, match="is not the forfeiting agent"):
        replay_entry(attrs.evolve(entry, durak=1))
    played_action = entry.actions[0]
    forfeit = attrs.evolve(entry.forfeit, action=played_action)
    with pytest.raises(LogError, match=r"the forfeited action .* is legal"):
        replay_entry(attrs.evolve(entry, actions=(), forfeit=forfeit))


@pytest.mark.parametrize(
    ("signum", "raised"), [(signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, Terminated)]
)
def test_a_stop_signal_waits_until_a_game_is_recorded(
    signum: signal.Signals, raised: type[BaseException]
) -> None:
    reached: list[str] = []
    with pytest.raises(raised), sigterm_interrupts(), hold_interrupts():
        # Sent to this (the main) thread, the signal's handler has run when this returns.
        signal.pthread_kill(threading.main_thread().ident or 0, signum)
        reached.append("the end of the block")
    assert reached == ["the end of the block"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


def test_a_run_played_twice_logs_both_parts(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    run = Run([PLAN], log=log)
    with closing(run.play()) as games:
        for k, _ in enumerate(games, 1):
            if k == 4:
                break  # stopped early, as a caller may
    for _ in run.play():  # the rest of the games, still logged
        pass
    assert sorted(e.game for e in read_log(log).entries) == list(range(PLAN.games))
