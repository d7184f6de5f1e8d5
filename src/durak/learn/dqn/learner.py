"""The DQN learner and its experience replay (needs PyTorch and numpy).

The method is in :mod:`durak.learn.dqn`.  A run is a function of its seeds: the network's
initial weights come from ``torch.manual_seed(seed)`` (in a forked generator, so torch's
global stream is left alone), minibatches from ``numpy.random.default_rng(seed)``, and
exploration from the ``random.Random`` that :func:`~durak.learn.online.train` hands to
:meth:`DqnLearner.explore`.  The module imports without PyTorch; building a learner
without it raises :class:`~durak.learn.torch_support.TorchMissingError`.
"""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import attrs

from durak.extras import needs

with needs("dqn", "dqn"):
    import numpy as np
    from numpy.typing import NDArray

from durak.agents.base import SpecError
from durak.encoding import ActionSpace, encode_observation, observation_size
from durak.envs.solo import SoloStep
from durak.learn.dqn.agent import DqnAgent
from durak.learn.dqn.net import DqnModel, build_network, greedy_action, save_model
from durak.learn.dqn.settings import DqnSettings
from durak.learn.online import Epsilon
from durak.learn.rewards import RewardScheme
from durak.learn.torch_support import require_torch
from durak.rules import Action, Observation, Rules

__all__ = ["DqnLearner", "ReplayBuffer", "td_targets"]


class ReplayBuffer:
    """The last ``capacity`` transitions in numpy arrays, overwritten oldest first.

    Next-state legal masks are stored bit-packed (1334 actions take 167 bytes), so a
    50,000-transition buffer of the 36-card game needs about 120 MB, mostly observations.
    """

    def __init__(self, capacity: int, obs_size: int, actions: int) -> None:
        self.capacity, self.actions = capacity, actions
        self.obs = np.zeros((capacity, obs_size), dtype=np.float32)
        self.next_obs = np.zeros((capacity, obs_size), dtype=np.float32)
        self.action = np.zeros(capacity, dtype=np.int64)
        self.reward = np.zeros(capacity, dtype=np.float32)
        self.done = np.zeros(capacity, dtype=np.bool_)
        self.next_mask = np.zeros((capacity, (actions + 7) // 8), dtype=np.uint8)
        self.size = self._next = 0

    def add(
        self,
        obs: NDArray[np.float32],
        action: int,
        reward: float,
        next_obs: NDArray[np.float32],
        next_mask: NDArray[np.bool_],
        done: bool,
    ) -> None:
        """Store one transition (``next_mask``: the legal actions after it, all False when
        ``done``)."""
        i = self._next
        self.obs[i], self.action[i], self.reward[i] = obs, action, reward
        self.next_obs[i], self.done[i] = next_obs, done
        self.next_mask[i] = np.packbits(next_mask)
        self._next = (i + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)

    def sample(self, rng: np.random.Generator, n: int) -> tuple[NDArray[Any], ...]:
        """``n`` stored transitions drawn uniformly with replacement: ``(obs, action,
        reward, next_obs, next_mask, done)`` arrays of first dimension ``n``."""
        i = rng.integers(0, self.size, n)
        mask = np.unpackbits(self.next_mask[i], axis=1, count=self.actions).astype(np.bool_)
        return self.obs[i], self.action[i], self.reward[i], self.next_obs[i], mask, self.done[i]


def td_targets(
    reward: Any, next_q: Any, next_mask: Any, done: Any, gamma: float, chooser: Any = None
) -> Any:
    """The DQN targets ``reward + gamma * V(s')`` of a batch (1-d tensors but the ``(batch,
    actions)`` ``next_q``, ``next_mask`` and ``chooser``).

    ``V(s')`` is the max of ``next_q`` over the legal actions (``next_mask``; the others
    count as ``-inf``), or with ``chooser`` (double DQN) ``next_q`` at the legal argmax of
    ``chooser``; it is 0 where ``done`` (a final state has no legal action).
    """
    torch = require_torch()
    masked = next_q.masked_fill(~next_mask, -torch.inf)
    if chooser is None:
        value = masked.max(1).values
    else:
        best = chooser.masked_fill(~next_mask, -torch.inf).argmax(1, keepdim=True)
        value = next_q.gather(1, best).squeeze(1)
    return reward + gamma * torch.where(done, torch.zeros_like(value), value)


class DqnLearner:
    """An epsilon-greedy DQN learner (implements :class:`~durak.learn.registry.SavableLearner`).

    Settings (keyword-only) are those of :class:`~durak.learn.dqn.settings.DqnSettings`;
    a bad one raises :class:`~durak.agents.SpecError` naming it.
    """

    def __init__(self, rules: Rules, **settings: Any) -> None:
        torch = require_torch()
        # A small network learns fastest on one thread; on a busy machine torch's default
        # pool made training 23 times slower (300 games: 452 s against 19.9 s).
        torch.set_num_threads(1)
        try:
            s = DqnSettings(**settings)
        except SpecError as e:
            raise SpecError(f"dqn: {e}") from None
        self.exploration = Epsilon(s.eps_start, s.eps_end, s.eps_decay, owner="dqn")
        self.settings = attrs.asdict(s)
        self.rules, self.space, self.hidden = rules, ActionSpace(rules), s.widths
        self.gamma, self.batch, self.double = s.gamma, s.batch, s.double
        self.learn_start, self.train_every = s.learn_start, s.train_every
        self.target_every = s.target_every
        self._rewards = RewardScheme(
            shaping=s.shaping, defence_penalty=s.defence_penalty, gamma=s.gamma
        )
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(s.seed)
            self.net = build_network(rules, self.hidden)
        self.target = copy.deepcopy(self.net).requires_grad_(False)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=s.lr)
        self.memory = ReplayBuffer(s.buffer, observation_size(rules), self.space.size)
        self._batches = np.random.default_rng(s.seed)
        self.steps = self.updates = self.episodes = 0
        self.last_loss = float("nan")
        # The last observation encoded: `update`'s next state is the next `explore`'s state,
        # so each decision point is encoded once.
        self._encoded: tuple[Observation, NDArray[np.float32]] | None = None

    @property
    def rewards(self) -> RewardScheme:
        """The reward scheme to train with (shares ``gamma``)."""
        return self._rewards

    def explore(self, observation: Observation, rng: random.Random) -> Action:
        """With probability epsilon a uniformly random legal action (drawn from ``rng``),
        else the network's masked argmax."""
        legal = observation.legal_actions
        if self.exploration.explores(rng):
            return legal[int(rng.random() * len(legal))]
        return greedy_action(self.net, observation, self._encode(observation))

    def update(
        self, observation: Observation, action: Action, reward: float, after: SoloStep
    ) -> None:
        """Store the transition; every ``train_every`` decisions (once ``learn_start`` are
        stored) take a gradient step, and every ``target_every`` sync the target network."""
        nxt = after.observation
        legal = self.space.mask(() if after.done else nxt.legal_actions)
        self.memory.add(
            self._encode(observation),
            self.space.encode(action),
            reward,
            self._encode(nxt),
            legal,
            after.done,
        )
        self.steps += 1
        if self.memory.size >= self.learn_start and self.steps % self.train_every == 0:
            self._learn()
        if self.steps % self.target_every == 0:
            self.target.load_state_dict(self.net.state_dict())

    def _encode(self, observation: Observation) -> NDArray[np.float32]:
        if self._encoded is None or self._encoded[0] is not observation:
            self._encoded = (observation, encode_observation(observation))
        return self._encoded[1]

    def _learn(self) -> None:
        """One Huber-loss Adam step on a minibatch toward :func:`td_targets`."""
        torch = require_torch()
        obs, action, reward, next_obs, mask, done = (
            torch.from_numpy(a) for a in self.memory.sample(self._batches, self.batch)
        )
        q = self.net(obs).gather(1, action.unsqueeze(1)).squeeze(1)
        with torch.no_grad():
            chooser = self.net(next_obs) if self.double else None
            y = td_targets(reward, self.target(next_obs), mask, done, self.gamma, chooser)
        loss = torch.nn.functional.smooth_l1_loss(q, y)
        self.optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.net.parameters(), 10.0)
        self.optimizer.step()
        self.updates += 1
        self.last_loss = float(loss.item())

    def end_episode(self) -> None:
        """Count the game and decay epsilon."""
        self.episodes += 1
        self.exploration.step()

    def model(self) -> DqnModel:
        """The current network (a copy) with its rules, widths and training record."""
        meta = {
            "settings": dict(self.settings),
            "episodes": self.episodes,
            "steps": self.steps,
            "updates": self.updates,
        }
        return DqnModel(copy.deepcopy(self.net).eval(), self.rules, self.hidden, meta)

    def policy(self) -> DqnAgent:
        """The greedy agent of a snapshot of the current network (later learning does not
        change it)."""
        return DqnAgent(self.model())

    def save(self, path: Path) -> None:
        """Write the network to ``path`` (see :mod:`durak.learn.dqn.net`)."""
        save_model(path, self.model())
