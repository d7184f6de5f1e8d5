"""The agent contract of ``docs/agents.md``, as one check: :func:`check_agent`.

An agent is anything with a ``name`` and ``act(observation, rng)``; it sees an
:class:`~durak.rules.Observation`, never the state, and draws all its randomness from the
``rng`` it is handed (OpenSpiel's ``Bot.step`` contract, Lanctot et al. 2019).
:func:`check_agent` plays seeded games with the agent in one seat and uniformly random
players in the others, and raises :class:`AgentContractError` at the first breach of one
of four parts:

* ``legal actions``: every answer is one of the observation's legal actions (an answer
  that raises, in ``act`` or a watcher hook, is a breach too);
* ``same seed, same decisions``: the game replayed with a fresh agent and the same seeds
  gives the same decisions;
* ``time limit``: every ``act`` returns within ``time_limit`` seconds, when one is given;
* ``sees only its observation``: at sampled decisions, a twin world, dealt differently
  but observed by the agent exactly as the real one after every action so far
  (:func:`~durak.testing.worlds.twin_game`), gives the same decisions under the same
  seed, the game's hooks (:class:`~durak.agents.Watcher`) included.

Every failure names the agent, the game, the seeds, the decision and the world (both
worlds, for the last part).
"""

from __future__ import annotations

import copy
import random
import time
from collections.abc import Callable, Sequence

import attrs

from durak.agents import Agent, Watcher, make_agent
from durak.agents.interface.protocol import check_bound
from durak.rules import (
    Action,
    GameState,
    Rules,
    is_terminal,
    legal_actions,
    loser,
    new_game,
    observe,
    step,
)
from durak.seeding import derive_seed
from durak.testing.games import MAX_STEPS
from durak.testing.worlds import describe, twin_game

__all__ = ["AgentContractError", "AgentReport", "check_agent"]

#: The four parts of the contract, as the errors name them.
LEGAL = "legal actions"
REPEAT = "same seed, same decisions"
TIME = "time limit"
HIDDEN = "sees only its observation"


class AgentContractError(AssertionError):
    """An agent that breaks its contract: ``part`` names the part (one of ``legal
    actions``, ``same seed, same decisions``, ``time limit``, ``sees only its
    observation``), the message the decision, the seeds and the world(s)."""

    def __init__(self, part: str, detail: str) -> None:
        super().__init__(f"{part}: {detail}")
        self.part = part
        self.detail = detail


@attrs.frozen
class AgentReport:
    """What :func:`check_agent` covered: ``games`` played, the agent's ``decisions`` in
    them (first runs), the ``twins`` (twin worlds it was checked in) and the ``slowest``
    decision's seconds."""

    games: int
    decisions: int
    twins: int
    slowest: float


def check_agent(
    agent: Agent | str,
    rules: Rules | None = None,
    *,
    games: int = 2,
    seed: int = 0,
    time_limit: float | None = None,
    twins: int = 2,
) -> AgentReport:
    """Check the agent contract (see the module docstring) on ``games`` games of ``rules``
    (``Rules()`` if not given) and raise :class:`AgentContractError` at the first breach.

    ``agent`` is an agent object, copied (``copy.deepcopy``) before every game so that each
    starts from the agent as given, or a spec string, built afresh for every game with
    :func:`~durak.agents.make_agent`.  Game ``g`` deals ``derive_seed(seed, g)`` and seats
    the agent at ``g % players``; each seat draws from ``Random(derive_seed(deal, seat))``
    (as :func:`~durak.arena.play_game`).  ``twins`` decisions with a choice are drawn per
    game for the twin-world part.  ``ValueError`` for a bad count or limit;
    :class:`~durak.agents.SpecError` for a spec that does not build for ``rules``.
    """
    rules = Rules() if rules is None else rules
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be an int >= 1, got {games!r}")
    if isinstance(twins, bool) or not isinstance(twins, int) or twins < 0:
        raise ValueError(f"twins must be an int >= 0, got {twins!r}")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be a number of seconds > 0, got {time_limit!r}")
    fresh = _maker(agent, rules)
    name = str(getattr(fresh(), "name", "?"))
    decisions = checked = 0
    slowest = 0.0
    for g in range(games):
        deal = derive_seed(seed, g)
        seat = g % rules.players
        at = _Where(name, g, seed, deal, seat)
        first = _run(fresh(), new_game(rules, deal), at, time_limit)
        again = _run(fresh(), new_game(rules, deal), at, time_limit, first.actions)
        if again.differ is not None:
            k, answer = again.differ
            raise AgentContractError(
                REPEAT,
                f"{at.decision(k, first)}: played {first.actions[k]}, then {answer} "
                f"in the same game replayed; world {describe(first.states[k])}",
            )
        decisions += len(first.mine)
        slowest = max(slowest, first.slowest, again.slowest)
        checked += _check_twins(fresh, rules, first, at, time_limit, twins)
    return AgentReport(games, decisions, checked, slowest)


def _maker(agent: Agent | str, rules: Rules) -> Callable[[], Agent]:
    """A maker of fresh copies of ``agent`` for ``rules``."""
    if isinstance(agent, str):
        make_agent(agent, rules)  # a bad spec fails here, once
        return lambda: make_agent(agent, rules)
    if not callable(getattr(agent, "act", None)):
        raise TypeError(f"an agent needs act(observation, rng): {agent!r}")
    check_bound(agent, rules, str(getattr(agent, "name", agent)))
    try:
        pristine = copy.deepcopy(agent)
    except Exception as e:
        raise TypeError(f"the agent cannot be copied ({e}); pass its spec instead") from e
    return lambda: copy.deepcopy(pristine)


@attrs.frozen
class _Where:
    """The game being checked, to name it in an error."""

    name: str
    game: int
    seed: int
    deal: int
    seat: int

    def decision(self, k: int, run: _Run) -> str:
        """Where the agent's decision at action ``k`` of ``run`` was."""
        number = run.mine.index(k) if k in run.mine else len(run.mine)
        return (
            f"{self.name}, game {self.game} (check seed {self.seed}, deal seed {self.deal}), "
            f"seat {self.seat}, decision {number} (action {k} of the game)"
        )


@attrs.define
class _Run:
    """One game as the agent played it: the states, the actions, the action indices of the
    agent's decisions (``mine``) and of those with a choice (``choices``), the slowest
    decision, and where a replay first differed (the action index and the agent's answer)."""

    states: list[GameState]
    actions: list[Action] = attrs.Factory(list)
    mine: list[int] = attrs.Factory(list)
    choices: list[int] = attrs.Factory(list)
    slowest: float = 0.0
    differ: tuple[int, Action] | None = None


def _run(
    agent: Agent,
    start: GameState,
    at: _Where,
    limit: float | None,
    follow: Sequence[Action] | None = None,
    until: int = MAX_STEPS,
) -> _Run:
    """Play from ``start`` with ``agent`` in ``at.seat``: the others play uniformly at
    random, or, with ``follow``, the actions of ``follow``, and the run stops at the first
    decision of the agent that differs from ``follow``'s (or after ``until`` actions)."""
    seat = at.seat
    rngs = [random.Random(derive_seed(at.deal, p)) for p in range(start.rules.players)]
    hooks = agent if isinstance(agent, Watcher) else None
    run = _Run([start])
    state = start
    if hooks is not None:
        _hook(at, run, hooks.game_started, observe(state, seat))
    while not is_terminal(state) and len(run.actions) < until:
        k, p, legal = len(run.actions), state.turn, legal_actions(state)
        if p == seat:
            action = _decide(agent, state, legal, rngs[p], at, run, limit)
            if follow is not None and action != follow[k]:
                run.differ = (k, action)
                return run
            run.mine.append(k)
            if len(legal) > 1:
                run.choices.append(k)
        elif follow is not None:
            action = follow[k]
        else:
            action = legal[rngs[p].randrange(len(legal))]
        state = step(state, action)
        run.states.append(state)
        run.actions.append(action)
        if hooks is not None:
            _hook(at, run, hooks.action_taken, p, action, observe(state, seat))
    if hooks is not None and is_terminal(state):
        _hook(at, run, hooks.game_ended, observe(state, seat), loser(state))
    return run


def _decide(
    agent: Agent,
    state: GameState,
    legal: tuple[Action, ...],
    rng: random.Random,
    at: _Where,
    run: _Run,
    limit: float | None,
) -> Action:
    """The agent's answer in ``state``, checked for legality and time."""
    k = len(run.actions)
    observation = observe(state, at.seat)
    began = time.perf_counter()
    try:
        action = agent.act(observation, rng)
    except Exception as e:
        raise AgentContractError(
            LEGAL, f"{at.decision(k, run)}: act raised {type(e).__name__}: {e}"
        ) from e
    took = time.perf_counter() - began
    run.slowest = max(run.slowest, took)
    try:
        legal_answer = action in legal
    except Exception:  # an answer that cannot even be compared with an action
        legal_answer = False
    if not legal_answer:
        raise AgentContractError(
            LEGAL,
            f"{at.decision(k, run)}: played {action!r}, not one of "
            f"{', '.join(map(str, legal))}; world {describe(state)}",
        )
    if limit is not None and took > limit:
        raise AgentContractError(
            TIME, f"{at.decision(k, run)}: took {took:.3f} s, the limit is {limit} s"
        )
    return action


def _hook(at: _Where, run: _Run, hook: Callable[..., object], *args: object) -> None:
    """A watcher hook of the agent's; what it raises is a breach."""
    try:
        hook(*args)
    except Exception as e:
        raise AgentContractError(
            LEGAL,
            f"{at.name}, game {at.game} (check seed {at.seed}, deal seed {at.deal}), "
            f"seat {at.seat}, after action {len(run.actions)}: "
            f"{getattr(hook, '__name__', 'a hook')} raised {type(e).__name__}: {e}",
        ) from e


def _check_twins(
    fresh: Callable[[], Agent],
    rules: Rules,
    real: _Run,
    at: _Where,
    limit: float | None,
    count: int,
) -> int:
    """Replay the agent in a twin world at up to ``count`` decisions with a choice of
    ``real``, drawn with a seeded generator (of ``3 * count`` at most: a decision where
    nothing is hidden has no twin); the number of twins checked."""
    draw = random.Random(derive_seed(at.seed, at.game, 1))
    order = draw.sample(real.choices, len(real.choices))
    checked = 0
    for t in order[: 3 * count]:  # a late decision may hide nothing: try a few more
        if checked == count:
            break
        twin_seed = draw.getrandbits(64)
        deal = twin_game(rules, at.deal, real.actions[:t], at.seat, random.Random(twin_seed))
        if deal is None:
            continue
        twin = _run(fresh(), deal, at, limit, real.actions, until=t + 1)
        if twin.differ is not None:
            k, answer = twin.differ
            raise AgentContractError(
                HIDDEN,
                f"{at.decision(k, real)}: played {real.actions[k]} in the real world but "
                f"{answer} in a twin world it observes the same (twin drawn by "
                f"Random({twin_seed})); real world {describe(real.states[k])}; twin world "
                f"{describe(twin.states[k])}",
            )
        checked += 1
    return checked
