"""Weighted worlds carried through a game: the candidates' beliefs about the hidden cards.

A particle filter (sequential importance resampling: Gordon, Salmond & Smith 1993; the
particle beliefs of POMCP, Silver & Veness, "Monte-Carlo Planning in Large POMDPs", NIPS
2010) over the worlds consistent with the observer's record.  Each particle is a full
world drawn at the game's start with :func:`~durak.rules.sample_world`; after every
public action it steps by that action, so the hidden hands it holds are *carried* from
move to move rather than redrawn.

**One set of worlds, a weight per candidate.**  Every candidate model of every opponent
shares the worlds, and keeps its own weight on each: the product of its probabilities of
that opponent's moves in that world (0 where a move was illegal there).  A candidate's
weights so come to favour the hands in which it would have played as the opponent did.
At a move of opponent ``q`` the weighted mean of candidate ``c``'s probability of the
move, before the reweighting, is ``c``'s predictive probability of the move given what
the observer has seen and ``q``'s earlier moves under ``c``: a factor of the joint
likelihood of ``q``'s moves under ``c`` (the sequential Monte Carlo estimate of the
marginal likelihood, Del Moral 2004).  Sharing the worlds (common random numbers) makes
two candidates that choose alike in every world keep equal weights, so only the worlds
where they choose differently move the ratio of their likelihoods: with separate sets
the noise of each set's estimate would swamp the rare moves that tell such candidates
apart.

**Refills.**  A stepped world draws from its own talon, which need not give the observer
the cards it really drew.  After an action that drew from the talon, each opponent keeps
the cards it held before (and those it took), and its newly drawn unknown cards are drawn
again uniformly from the cards the observer cannot place (every talon order consistent
with the record is equally likely, so the cards an opponent draws are a uniform choice
among them); a kept card the observer now places elsewhere (one it drew itself) is
replaced the same way.

**Reinvigoration.**  Where an opponent plays a card a world did not give it, the move's
factor counts that world as one where the move was illegal (a candidate whose weights
favour hands without the card pays for it), and then the world gets the card by a swap
with one of the opponent's unknown cards (:func:`swap_in`), a local transformation of
the particle as POMCP's reinvigoration does, so that the worlds do not thin out to a
few copies.  The swapped world keeps its weights, computed with the card it gave away:
an approximation where that card would have changed an earlier choice.

**Resampling.**  When the effective sample size of the proposal falls below half the
worlds, they are resampled (systematic resampling, Kitagawa 1996) from a defensive
mixture (Hesterberg 1995): half the posterior's mixture of the candidates' normalized
weights, half their plain mean, multiplied over the opponents; each candidate's weight on
a drawn world is then its normalized weight divided by the proposal's (importance
sampling), so every candidate's weighted worlds still estimate its belief.  If no world
allows a move, the set is drawn afresh from the observation before the move
(:meth:`WorldFilter.restart`), and that move's factor is the per-move predictive under
what the observer has seen alone.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import attrs

from durak.agents.heuristics.tactics import action_card
from durak.agents.inference.agent_model import AgentModel
from durak.agents.inference.opponents import OpponentModel
from durak.rules import (
    CARDS,
    Action,
    Card,
    GameState,
    Observation,
    Visibility,
    bit_indices,
    legal_actions,
    observe,
    sample_world,
    step_unchecked,
)
from durak.rules.state import table_mask

__all__ = ["WorldFilter", "refill", "swap_in"]

#: The posterior weights of the candidates of an opponent seat.
PosteriorOf = Callable[[int], Sequence[float]]


def refill(
    before: GameState, after: GameState, seen: Observation, rng: random.Random
) -> GameState | None:
    """``after`` (``before`` stepped by an action that drew from the talon) with each
    opponent's newly drawn unknown cards drawn again from the cards ``seen`` (the
    observer's observation of the real state after the action) cannot place, and the rest
    of the talon shuffled (unless ``seen`` shows its order); a card an opponent kept that
    ``seen`` places elsewhere is replaced the same way.  ``None`` if the result does not
    fit ``seen``."""
    me, n = seen.player, seen.rules.players
    hidden = seen.hidden_cards().mask
    table = table_mask(before.table)
    masks, pool = [], hidden
    for p in range(n):
        # A kept card the observer now places elsewhere (one it drew itself) is replaced,
        # as the other drawn cards are, by a uniform unknown card.  The observer's own
        # cards are never hidden: it keeps its hand, and draws none.
        kept = after.hand_masks[p] & (before.hand_masks[p] | table) & hidden
        masks.append(kept | seen.known_cards(p).mask)
        pool &= ~kept
    cards = list(bit_indices(pool))
    rng.shuffle(cards)
    for p in range(n):
        # A negative need (more cards kept than held) cannot fit ``seen``: refused below.
        need = seen.hand_sizes[p] - masks[p].bit_count()
        for c in cards[:need]:
            masks[p] |= 1 << c
        cards = cards[need:]
    talon = seen.talon_order  # full information: the talon is seen in order
    if talon is None:
        trump = seen.face_up_trump
        talon = tuple(CARDS[c] for c in cards) + (() if trump is None else (trump,))
    world = attrs.evolve(after, hand_masks=tuple(masks), talon=talon)
    return world if observe(world, me, seen.visibility) == seen else None


def swap_in(world: GameState, mover: int, card: Card, rng: random.Random) -> GameState | None:
    """``world`` with ``card`` (hidden from the observer: in the talon or another
    opponent's unknown cards) swapped with a uniformly drawn unknown card of ``mover``'s
    hand; ``None`` if ``mover`` holds no unknown card or ``card`` is not hidden there."""
    bit = 1 << card.index
    own = world.hand_masks[mover] & ~world.knowledge.exposed.mask
    if not own:
        return None
    choices = list(bit_indices(own))
    other = choices[rng.randrange(len(choices))]
    masks = list(world.hand_masks)
    masks[mover] = (own ^ (1 << other) | bit) | (world.hand_masks[mover] & ~own)
    talon = world.talon
    if card in talon:  # the face-up trump card is public: never asked to move
        j = talon.index(card)
        talon = (*talon[:j], CARDS[other], *talon[j + 1 :])
    else:
        holder = next((q for q, m in enumerate(masks) if q != mover and m & bit), None)
        if holder is None or world.knowledge.exposed.mask & bit:
            return None
        masks[holder] = masks[holder] & ~bit | 1 << other
    return attrs.evolve(world, hand_masks=tuple(masks), talon=talon)


def _probabilities(
    worlds: Sequence[GameState],
    legals: Sequence[tuple[Action, ...]],
    action: Action,
    model: OpponentModel,
    views: dict[tuple[int, Visibility], Observation],
) -> list[float]:
    """Per world, ``model``'s probability of ``action`` by the player to move there (0
    where it is illegal, 1 where it is the only action).  An agent's model reads the
    mover's view from ``views`` (by world identity: the worlds are alive for the call, and
    the models of one call share their views); a world repeated by resampling is asked
    once."""
    out, seen = [], dict[int, float]()
    for w, legal in zip(worlds, legals, strict=True):
        if action not in legal:
            out.append(0.0)
        elif len(legal) == 1:
            out.append(1.0)
        else:
            x = seen.get(id(w))
            if x is None:
                i = legal.index(action)
                if isinstance(model, AgentModel):
                    key = (id(w), model.visibility)
                    view = views.get(key)
                    if view is None:
                        view = views[key] = observe(w, w.turn, model.visibility)
                    x = model.view_policy(view)[i]
                else:
                    x = model.policy(w, legal)[i]
                seen[id(w)] = x
            out.append(x)
    return out


def _normalized(weights: Sequence[float]) -> list[float]:
    total = sum(weights)
    return [w / total for w in weights] if total > 0 else [1.0 / len(weights)] * len(weights)


@attrs.define
class WorldFilter:
    """The worlds of one game and, per opponent seat, one weight list per candidate (see
    the module docstring); ``size`` worlds after every resampling."""

    me: int
    size: int
    candidates: int
    worlds: list[GameState]
    weights: dict[int, list[list[float]]]

    @staticmethod
    def start(first: Observation, candidates: int, size: int, rng: random.Random) -> WorldFilter:
        """``size`` worlds drawn from ``first``, every weight 1."""
        f = WorldFilter(first.player, size, candidates, [], {})
        f._reset([sample_world(first, rng) for _ in range(size)])
        return f

    def _reset(self, worlds: list[GameState]) -> None:
        n = worlds[0].rules.players
        self.worlds = worlds
        self.weights = {
            q: [[1.0] * len(worlds) for _ in range(self.candidates)]
            for q in range(n)
            if q != self.me
        }

    def advance(
        self,
        mover: int,
        action: Action,
        after: Observation,
        models: Sequence[OpponentModel],
        posterior: PosteriorOf,
        rng: random.Random,
    ) -> list[float] | None:
        """Weigh the worlds by ``mover``'s ``action`` (each candidate of ``models`` by its
        probability of it where ``mover`` is an opponent; legality alone for the other
        seats' weights), step them (``after``: the observer's observation after the
        action) and resample if degenerate.  Per candidate, the move's predictive
        probability (empty for the observer's own move), or ``None`` if no world allowed
        the move (nothing is changed: :meth:`restart`)."""
        if mover == self.me:  # its own move is legal in every world
            self._step(list(range(len(self.worlds))), action, after, posterior, rng)
            return []
        allowed = [action in legal_actions(w) for w in self.worlds]
        if not any(allowed):
            return None
        self._reinvigorate(mover, action, rng)
        legals = [legal_actions(w) for w in self.worlds]
        live = [i for i, legal in enumerate(legals) if action in legal]
        factors = []
        worlds = [self.worlds[i] for i in live]
        for model in models:
            model.prime(w for i, w in zip(live, worlds, strict=True) if len(legals[i]) > 1)
        views: dict[tuple[int, Visibility], Observation] = {}
        for c, model in enumerate(models):
            row = self.weights[mover][c]
            probs = _probabilities(self.worlds, legals, action, model, views)
            total = sum(row)
            # The factor counts the move's legality in the worlds as they were; the
            # reinvigorated worlds carry on, weighed by the probability of the move there.
            mass = sum(w * x for w, x, ok in zip(row, probs, allowed, strict=True) if ok)
            factors.append(mass / total if total > 0 else 0.0)
            for i, x in enumerate(probs):
                row[i] *= x
        # The worlds where the move is illegal are dropped: every seat's weights on them go.
        self._step(live, action, after, posterior, rng)
        return factors

    def _reinvigorate(self, mover: int, action: Action, rng: random.Random) -> None:
        """Give ``mover`` the card ``action`` plays in every world where it lacks it, by
        :func:`swap_in` (a local transformation, POMCP's particle reinvigoration), so
        that its legality, the same under every candidate, does not thin the worlds."""
        card = action_card(action)
        if card is None:
            return
        bit = 1 << card.index
        for i, w in enumerate(self.worlds):
            if not w.hand_masks[mover] & bit:
                self.worlds[i] = swap_in(w, mover, card, rng) or w

    def restart(
        self,
        before: Observation,
        action: Action,
        after: Observation,
        models: Sequence[OpponentModel],
        tries: int,
        posterior: PosteriorOf,
        rng: random.Random,
    ) -> list[float] | None:
        """Draw ``tries`` worlds afresh from ``before`` (the observer's observation before
        ``action``) and advance them by the move; its factors (each candidate's mean
        probability of the move over them), or ``None`` if none allowed it (the set is
        then drawn from ``after``, every weight 1)."""
        self._reset([sample_world(before, rng) for _ in range(tries)])
        factors = self.advance(before.turn, action, after, models, posterior, rng)
        if factors is None:
            self._reset([sample_world(after, rng) for _ in range(self.size)])
        return factors

    def _step(
        self, live: list[int], action: Action, after: Observation, posterior: PosteriorOf,
        rng: random.Random,
    ) -> None:  # fmt: skip
        """Step the worlds of ``live`` by ``action``, refill them, drop the others and
        those the refill contradicts, then resample if degenerate."""
        kept, worlds = [], []
        for i in live:
            before = self.worlds[i]
            stepped = step_unchecked(before, action)
            drew = len(stepped.talon) != len(before.talon)
            world = refill(before, stepped, after, rng) if drew else stepped
            if world is not None:
                kept.append(i)
                worlds.append(world)
        if not kept:
            self._reset([sample_world(after, rng) for _ in range(self.size)])
            return
        self.worlds = worlds
        self.weights = {
            q: [[row[i] for i in kept] for row in rows] for q, rows in self.weights.items()
        }
        self._resample_if_degenerate(posterior, rng)

    def proposal(self, posterior: PosteriorOf) -> list[float]:
        """The defensive mixture the worlds are resampled from, normalized (see the
        module docstring)."""
        m = [1.0] * len(self.worlds)
        for q, rows in self.weights.items():
            post = posterior(q)
            k = len(rows)
            mix = [0.0] * len(self.worlds)
            for c, row in enumerate(rows):
                share = 0.5 * post[c] + 0.5 / k
                for i, x in enumerate(_normalized(row)):
                    mix[i] += share * x
            m = [a * b for a, b in zip(m, mix, strict=True)]
        return _normalized(m)

    def _resample_if_degenerate(self, posterior: PosteriorOf, rng: random.Random) -> None:
        m = self.proposal(posterior)
        n = self.size
        if n <= len(m) <= 2 * n and sum(x * x for x in m) * n / 2 <= 1.0:
            return
        spacing = 1.0 / n
        x = rng.random() * spacing
        acc, j, chosen = m[0], 0, []
        last = len(m) - 1
        for _ in range(n):
            while x > acc and j < last:
                j += 1
                acc += m[j]
            chosen.append(j)
            x += spacing
        normalized = {q: [_normalized(row) for row in rows] for q, rows in self.weights.items()}
        self.worlds = [self.worlds[j] for j in chosen]
        self.weights = {
            q: [[row[j] / m[j] / n for j in chosen] for row in rows]
            for q, rows in normalized.items()
        }
