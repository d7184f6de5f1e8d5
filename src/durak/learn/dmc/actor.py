"""The actors of Deep Monte-Carlo: episodes played with the current network, as samples.

DouZero's actors (Zha et al., ICML 2021) play with a recent copy of the network, choosing
epsilon-greedily among the legal actions, and hand the learner each decision with the
return its player finally got.  Here an actor task plays a *chunk* of episodes side by
side: at each step it gathers the decision of every unfinished game, scores the legal
actions of all of them in one batched forward pass per network (inference costs about as
much for one row as for a few hundred), then moves every game on.

Episode ``e`` of a run with master seed ``s`` deals ``derive_seed(s, e)``.  Its opponent
is ``opponents[e % len(opponents)]``: ``"self"`` means the network plays every seat (and
every seat's decisions are samples); ``"past"`` an earlier copy of the network
(:mod:`durak.learn.dmc.league`) and any other agent spec play every seat but the
learner's, which rotates with ``e // len(opponents)``.  Exploration draws from
``Random(derive_seed(s, e, 1))`` and agent ``i`` from ``Random(derive_seed(s, e, 2, i))``.
A chunk's samples are therefore a function of the weights, the seed and its episode
numbers alone: the same whichever process, how many actors, or Ray, plays it.  Forced
decisions (one legal action) are played without the network and are not samples.

An opponent agent that is a :class:`~durak.agents.Watcher` (an inferring search, an
exploiter) hears its game as in :func:`~durak.arena.play_game`, and gets an instance of its
own in each episode; any other agent is taken to be stateless (as
:meth:`~durak.envs.solo.SoloTable.clone` takes it) and is built once per process.  In a
privileged run (:mod:`durak.learn.dmc.privileged`) the network's rows carry the hidden
block times the episode's coefficient.
"""

from __future__ import annotations

import copy
import functools
import random
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from durak.extras import needs

with needs("dmc", "dmc"):
    import numpy as np
    from numpy.typing import NDArray

from durak.agents.base import Agent, Watcher, make_agent
from durak.learn.dmc.features import decision_rows, row_size
from durak.learn.dmc.league import PAST, Weights, past_pick
from durak.learn.dmc.net import scores
from durak.learn.dmc.privileged import hidden_size, network_format, privileged_rows
from durak.learn.dmc.settings import fade
from durak.learn.torch_support import require_torch
from durak.rules import (
    Action,
    GameState,
    Observation,
    Rules,
    loser,
    new_game,
    observe,
    returns,
    step,
)
from durak.seeding import derive_seed

__all__ = ["PAST", "SELF", "ActorTask", "Samples", "collect", "episode_opponent"]

#: The opponent name that means self-play.
SELF = "self"


def episode_opponent(opponents: Sequence[str], episode: int) -> str:
    """The opponent spec of ``episode``."""
    return opponents[episode % len(opponents)]


@attrs.frozen(kw_only=True)
class ActorTask:
    """What an actor plays: episodes ``first .. first + count - 1`` of the run with master
    ``seed`` against ``opponents`` (specs, ``"self"`` or ``"past"``), with the network of
    ``hidden`` widths and ``weights`` (a state dict of numpy arrays), exploring with
    ``epsilon``.  Episodes before ``warm_episodes`` play the ``warm`` agent's moves in the
    network's seats (see :class:`~durak.learn.dmc.settings.DmcSettings`).  ``privileged``:
    the fade horizon of a privileged run (0: off).  ``past``: the earlier copies these
    episodes play, by index in the pool of ``past_size`` copies
    (:func:`~durak.learn.dmc.league.past_pick`).  Built by keyword only."""

    rules: Rules
    hidden: tuple[int, ...]
    weights: Mapping[str, NDArray[np.float32]] = attrs.field(repr=False)
    seed: int
    first: int
    count: int
    epsilon: float
    opponents: tuple[str, ...]
    warm: str = "greedy"
    warm_episodes: int = 0
    privileged: int = 0
    past: Mapping[int, Weights] = attrs.field(factory=dict, repr=False)
    past_size: int = 0


@attrs.frozen
class Samples:
    """A chunk's decisions: ``rows`` (float16, one per decision with a choice) and the
    ``targets`` (the deciding player's return); ``decisions`` counts every decision, forced
    ones included; ``wins`` and ``games`` count the learner's games against each fixed
    opponent (``past`` included; a win: not the durak)."""

    rows: NDArray[np.float16] = attrs.field(repr=False)
    targets: NDArray[np.float32] = attrs.field(repr=False)
    decisions: int
    wins: Mapping[str, int]
    games: Mapping[str, int]


@attrs.define
class _Episode:
    episode: int
    state: GameState
    learner: int | None  # None: self-play
    agents: dict[int, Agent]
    rngs: list[random.Random]
    explore: random.Random
    opponent: str
    guide: Agent | None  # the warm-start agent that moves for the network, if any
    past: Any = None  # the earlier copy that plays the other seats, if any
    watchers: list[tuple[int, Watcher]] = attrs.Factory(list)
    rows: list[NDArray[np.float32]] = attrs.Factory(list)
    players: list[int] = attrs.Factory(list)
    waiting: Observation | None = None  # the network's decision to make

    def learns(self, player: int) -> bool:
        """Whether ``player``'s decisions are the learner's (samples)."""
        return self.past is None or player == self.learner


@functools.lru_cache(maxsize=16)
def _built(spec: str, rules: Rules) -> Agent:
    """The agent of ``spec``, built once per process (a model file is read once)."""
    return make_agent(spec, rules)


def _agent(spec: str, rules: Rules) -> Agent:
    """An agent of ``spec`` for one episode: a copy of its own for a watcher."""
    agent = _built(spec, rules)
    return copy.deepcopy(agent) if isinstance(agent, Watcher) else agent


def _start(task: ActorTask, e: int, pasts: Mapping[int, Any]) -> _Episode:
    rules = task.rules
    n = rules.players
    opponent = episode_opponent(task.opponents, e)
    learner = None if opponent == SELF else (e // len(task.opponents)) % n
    fixed = opponent not in (SELF, PAST)
    agents = {p: _agent(opponent, rules) for p in range(n) if fixed and p != learner}
    g = _Episode(
        e,
        new_game(rules, derive_seed(task.seed, e)),
        learner,
        agents,
        [random.Random(derive_seed(task.seed, e, 2, p)) for p in range(n)],
        random.Random(derive_seed(task.seed, e, 1)),
        opponent,
        _agent(task.warm, rules) if e < task.warm_episodes else None,
        pasts[past_pick(task.seed, e, task.past_size)] if opponent == PAST else None,
    )
    g.watchers = [(p, a) for p, a in agents.items() if isinstance(a, Watcher)]
    if isinstance(g.guide, Watcher):
        g.watchers += [(p, g.guide) for p in range(n) if g.learns(p) and p not in agents]
    for p, watcher in g.watchers:
        watcher.game_started(observe(g.state, p))
    return g


def _net(rules: Rules, hidden: tuple[int, ...], weights: Weights, privileged: bool) -> Any:
    torch = require_torch()
    net = network_format(privileged).build(rules, hidden)
    net.load_state_dict({k: torch.from_numpy(np.asarray(v)) for k, v in weights.items()})
    return net.eval()


def collect(task: ActorTask) -> Samples:
    """Play ``task``'s episodes side by side and return their samples (see module doc)."""
    require_torch().set_num_threads(1)  # an actor is one core; the learner has its own
    net = _net(task.rules, task.hidden, task.weights, task.privileged > 0)
    pasts = {i: _net(task.rules, task.hidden, w, False) for i, w in task.past.items()}
    games = [_start(task, e, pasts) for e in range(task.first, task.first + task.count)]
    rows_out: list[NDArray[np.float32]] = []
    targets: list[float] = []
    wins: dict[str, int] = {}
    played: dict[str, int] = {}
    decisions = 0
    active = games
    while active:
        waiting = []
        for g in active:
            decisions += _advance(g)
            if g.waiting is not None:
                waiting.append(g)
            else:
                result = returns(g.state)
                _ended(g)
                rows_out += g.rows
                targets += [result[p] for p in g.players]
                if g.learner is not None:
                    played[g.opponent] = played.get(g.opponent, 0) + 1
                    wins[g.opponent] = wins.get(g.opponent, 0) + (result[g.learner] > 0)
        if not waiting:
            break
        decisions += _decide(task, net, waiting)
        active = waiting
    width = row_size(task.rules) + (hidden_size(task.rules) if task.privileged else 0)
    rows = np.array(rows_out, dtype=np.float16).reshape(len(rows_out), width)
    return Samples(rows, np.array(targets, dtype=np.float32), decisions, wins, played)


def _decide(task: ActorTask, net: Any, waiting: list[_Episode]) -> int:
    """Make the decision waiting in each game of ``waiting``: the learner's scored by
    ``net`` in one pass (or played by the warm agent), an earlier copy's by that copy in
    one pass of its own; the learner's decisions become samples.  The decisions made."""
    observed = [g.waiting for g in waiting if g.waiting is not None]
    blocks: list[NDArray[np.float32]] = []
    groups: dict[int, tuple[Any, list[int]]] = {}
    for i, (g, o) in enumerate(zip(waiting, observed, strict=True)):
        learns = g.learns(o.player)
        block = decision_rows(o, o.legal_actions)
        if learns and task.privileged:
            block = privileged_rows(block, g.state, o.player, fade(g.episode, task.privileged))
        blocks.append(block)
        if not learns or g.guide is None:
            scorer = net if learns else g.past
            groups.setdefault(id(scorer), (scorer, []))[1].append(i)
    values: dict[int, NDArray[np.float32]] = {}
    for scorer, members in groups.values():
        out = scores(scorer, np.concatenate([blocks[i] for i in members]))
        at = 0
        for i in members:
            values[i], at = out[at : at + len(blocks[i])], at + len(blocks[i])
    for i, (g, o) in enumerate(zip(waiting, observed, strict=True)):
        legal = o.legal_actions
        if not g.learns(o.player):
            choice = int(np.argmax(values[i]))  # a copy plays as the dmc agent: no exploring
        else:
            if g.explore.random() < task.epsilon:
                choice = g.explore.randrange(len(legal))
            elif g.guide is not None:
                choice = legal.index(g.guide.act(o, g.rngs[o.player]))
            else:
                choice = int(np.argmax(values[i]))
            g.rows.append(blocks[i][choice])
            g.players.append(o.player)
        _play(g, o.player, legal[choice])
    return len(waiting)


def _play(g: _Episode, player: int, action: Action) -> None:
    """Apply ``player``'s ``action`` to ``g`` and tell its watchers."""
    g.state = step(g.state, action)
    for q, watcher in g.watchers:
        watcher.action_taken(player, action, observe(g.state, q))


def _ended(g: _Episode) -> None:
    """Tell ``g``'s watchers that the game is over."""
    if not g.watchers:
        return
    lost = loser(g.state)
    for p, watcher in g.watchers:
        watcher.game_ended(observe(g.state, p), lost)


def _advance(g: _Episode) -> int:
    """Play the fixed agents' moves and every forced move of ``g`` until the network (the
    learner or an earlier copy) has a choice to make (then in ``g.waiting``) or the game is
    over; return the decisions played."""
    played = 0
    g.waiting = None
    while g.state.turn >= 0:
        p = g.state.turn
        o = observe(g.state, p)
        agent = g.agents.get(p)
        if agent is not None:
            action: Action = agent.act(o, g.rngs[p])
        elif len(o.legal_actions) > 1:
            g.waiting = o
            return played
        else:
            action = o.legal_actions[0]
        _play(g, p, action)
        played += 1
    return played
