"""The actors of Deep Monte-Carlo: episodes played with the current network, as samples.

DouZero's actors (Zha et al., ICML 2021) play with a recent copy of the network, choosing
epsilon-greedily among the legal actions, and hand the learner each decision with the
return its player finally got.  Here an actor task plays a *chunk* of episodes side by
side: at each step it gathers the decision of every unfinished game, scores the legal
actions of all of them in one batched forward pass (inference costs about as much for
one row as for a few hundred), then moves every game on.

Episode ``e`` of a run with master seed ``s`` deals ``derive_seed(s, e)``.  Its opponent
is ``opponents[e % len(opponents)]``: ``"self"`` means the network plays every seat (and
every seat's decisions are samples), any other agent spec plays every seat but the
learner's, which rotates with ``e // len(opponents)``.  Exploration draws from
``Random(derive_seed(s, e, 1))`` and agent ``i`` from ``Random(derive_seed(s, e, 2, i))``.
A chunk's samples are therefore a function of the weights, the seed and its episode
numbers alone: the same whichever process, how many actors, or Ray, plays it.  Forced
decisions (one legal action) are played without the network and are not samples.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import attrs

from durak.extras import needs

with needs("dmc", "dmc"):
    import numpy as np
    from numpy.typing import NDArray

from durak.agents.base import Agent, make_agent
from durak.learn.dmc.features import decision_rows, row_size
from durak.learn.dmc.net import build_network, scores
from durak.learn.torch_support import require_torch
from durak.rules import Action, GameState, Observation, Rules, new_game, observe, returns, step
from durak.seeding import derive_seed

__all__ = ["SELF", "ActorTask", "Samples", "collect", "episode_opponent"]

#: The opponent name that means self-play.
SELF = "self"


def episode_opponent(opponents: Sequence[str], episode: int) -> str:
    """The opponent spec of ``episode``."""
    return opponents[episode % len(opponents)]


@attrs.frozen
class ActorTask:
    """What an actor plays: episodes ``first .. first + count - 1`` of the run with master
    ``seed`` against ``opponents`` (specs, or ``"self"``), with the network of ``hidden``
    widths and ``weights`` (a state dict of numpy arrays), exploring with ``epsilon``.
    Episodes before ``warm_episodes`` play the ``warm`` agent's moves in the network's
    seats (see :class:`~durak.learn.dmc.settings.DmcSettings`)."""

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


@attrs.frozen
class Samples:
    """A chunk's decisions: ``rows`` (float16, one per decision with a choice) and the
    ``targets`` (the deciding player's return); ``decisions`` counts every decision, forced
    ones included; ``wins`` and ``games`` count the learner's games against each fixed
    opponent (a win: not the durak)."""

    rows: NDArray[np.float16] = attrs.field(repr=False)
    targets: NDArray[np.float32] = attrs.field(repr=False)
    decisions: int
    wins: Mapping[str, int]
    games: Mapping[str, int]


@attrs.define
class _Episode:
    state: GameState
    learner: int | None  # None: self-play
    agents: dict[int, Agent]
    rngs: list[random.Random]
    explore: random.Random
    opponent: str
    guide: Agent | None  # the warm-start agent that moves for the network, if any
    rows: list[NDArray[np.float32]] = attrs.Factory(list)
    players: list[int] = attrs.Factory(list)
    waiting: Observation | None = None  # the network's decision to make


def _start(task: ActorTask, e: int) -> _Episode:
    rules = task.rules
    n = rules.players
    opponent = episode_opponent(task.opponents, e)
    learner = None if opponent == SELF else (e // len(task.opponents)) % n
    agents = {p: make_agent(opponent, rules) for p in range(n) if learner not in (None, p)}
    return _Episode(
        new_game(rules, derive_seed(task.seed, e)),
        learner,
        agents,
        [random.Random(derive_seed(task.seed, e, 2, p)) for p in range(n)],
        random.Random(derive_seed(task.seed, e, 1)),
        opponent,
        make_agent(task.warm, rules) if e < task.warm_episodes else None,
    )


def collect(task: ActorTask) -> Samples:
    """Play ``task``'s episodes side by side and return their samples (see module doc)."""
    torch = require_torch()
    torch.set_num_threads(1)  # an actor is one core; the learner has its own
    net = build_network(task.rules, task.hidden)
    net.load_state_dict({k: torch.from_numpy(np.asarray(v)) for k, v in task.weights.items()})
    net.eval()
    games = [_start(task, e) for e in range(task.first, task.first + task.count)]
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
                rows_out += g.rows
                targets += [result[p] for p in g.players]
                if g.learner is not None:
                    played[g.opponent] = played.get(g.opponent, 0) + 1
                    wins[g.opponent] = wins.get(g.opponent, 0) + (result[g.learner] > 0)
        if not waiting:
            break
        observed = [g.waiting for g in waiting if g.waiting is not None]
        blocks = [decision_rows(o, o.legal_actions) for o in observed]
        scored = [b for g, b in zip(waiting, blocks, strict=True) if g.guide is None]
        values = scores(net, np.concatenate(scored)) if scored else np.zeros(0, np.float32)
        at = 0
        for g, o, block in zip(waiting, observed, blocks, strict=True):
            k = len(block)
            legal = o.legal_actions
            if g.explore.random() < task.epsilon:
                i = g.explore.randrange(k)
            elif g.guide is not None:
                i = legal.index(g.guide.act(o, g.rngs[o.player]))
            else:
                i = int(np.argmax(values[at : at + k]))
            if g.guide is None:
                at += k
            g.rows.append(block[i])
            g.players.append(o.player)
            g.state = step(g.state, legal[i])
            decisions += 1
        active = waiting
    width = row_size(task.rules)
    rows = np.array(rows_out, dtype=np.float16).reshape(len(rows_out), width)
    return Samples(rows, np.array(targets, dtype=np.float32), decisions, wins, played)


def _advance(g: _Episode) -> int:
    """Play the fixed agents' moves and every forced move of ``g`` until the network has a
    choice to make (then in ``g.waiting``) or the game is over; return the decisions played."""
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
        g.state = step(g.state, action)
        played += 1
    return played
