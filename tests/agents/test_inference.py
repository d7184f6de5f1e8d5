"""Policy-based inference: the weighted worlds follow the exact posterior.

On a 12-card deck every deck order can be enumerated.  The exact posterior of the current
world, under a fixed opponent model, weighs every deck order consistent with what the
observer saw (its observation after every move) by the model's probability of the
opponents' moves in it.  The sampler's candidates, kept with probability weight / bound
(rejection sampling), must then be draws from that posterior: a chi-square test at a fixed
seed, whose power is shown by the unweighted candidates failing it.  The Metropolis-Hastings
chain over deals (``chain=``) must reach the same posterior from any start: the last worlds
of independent chains, each started from one unweighted candidate, pass the same test.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from statistics import NormalDist
from typing import Any

import attrs
import pytest

import durak.agents.inference.record as record_module
import durak.search
from durak.agents import make_agent
from durak.agents.inference.belief import Belief, DealChain, weigh_worlds
from durak.agents.inference.inferring import Inferring
from durak.agents.inference.opponents import GreedyModel, OpponentModel
from durak.agents.inference.record import GameLog, PublicRecord
from durak.agents.searchers import ismcts as ismcts_agent
from durak.agents.searchers import sampled_worlds
from durak.rules import (
    CARDS,
    Action,
    Card,
    CardSet,
    GameState,
    IllegalActionError,
    Rules,
    bit_indices,
    deal,
    legal_actions,
    observe,
    sample_world,
    step,
)
from durak.rules.cards import deck_cards

#: The fixed opponent model of the tests: greedy, with a uniform move 40% of the time.
MODEL = GreedyModel(0.4)
#: Lines found by a scan of seeds: several opponent choices, refills the opponents drew
#: from, and trumps known to have been in the talon (the restricted cards of the past).
LINES = [(2, 24, 11), (2, 6, 6), (3, 26, 11)]

WorldKey = tuple[int, ...]


def line(players: int, seed: int, length: int) -> tuple[Rules, list[Card], list[Action]]:
    """A random deck of the 12-card game and ``length`` random legal moves from it."""
    rules = Rules(players=players, lowest_rank=12, hand_size=3)
    rng = random.Random(seed)
    deck = list(deck_cards(12))
    rng.shuffle(deck)
    s = deal(rules, deck)
    moves = []
    for _ in range(length):
        a = rng.choice(legal_actions(s))
        moves.append(a)
        s = step(s, a)
    return rules, deck, moves


def log_of(rules: Rules, deck: list[Card], moves: list[Action], player: int) -> GameLog:
    """What ``player`` hears of the line, as the watcher hooks tell it."""
    s = deal(rules, deck)
    log = GameLog(observe(s, player))
    for a in moves:
        mover = s.turn
        s = step(s, a)
        log.moves.append((mover, a, observe(s, player)))
    return log


def key(world: GameState) -> WorldKey:
    """A world by its hands (given them, the talon's order is uniform in both)."""
    return world.hand_masks


def exact_posterior(
    rules: Rules, deck: list[Card], log: GameLog, model: OpponentModel
) -> tuple[dict[WorldKey, float], float]:
    """The posterior of the world's hands over every deck order, and the largest
    likelihood of any consistent order (a bound for rejection sampling)."""
    me = log.start.player
    dealt = rules.players * rules.hand_size
    fixed = {i for i in range(dealt) if i % rules.players == me} | {len(deck) - 1}
    free = [i for i in range(len(deck)) if i not in fixed]
    posterior: dict[WorldKey, float] = {}
    bound = 0.0
    for order in itertools.permutations([deck[i] for i in free]):
        candidate = list(deck)
        for i, c in zip(free, order, strict=True):
            candidate[i] = c
        # Count each deal once: the cards of an opponent's hand in increasing order.
        hands = [candidate[p : dealt : rules.players] for p in range(rules.players)]
        if any(h != sorted(h, key=lambda c: c.index) for p, h in enumerate(hands) if p != me):
            continue
        s = deal(rules, candidate)
        if observe(s, me) != log.start:
            continue
        likelihood = 1.0
        for mover, a, seen in log.moves:
            legal = legal_actions(s)
            if mover != me and a in legal:
                likelihood *= model.policy(s, legal)[legal.index(a)]
            try:
                s = step(s, a)
            except IllegalActionError:
                break
            if observe(s, me) != seen:
                break
        else:
            posterior[key(s)] = posterior.get(key(s), 0.0) + likelihood
            bound = max(bound, likelihood)
    total = sum(posterior.values())
    return {k: v / total for k, v in posterior.items()}, bound


def chi_square(counts: Counter[WorldKey], posterior: dict[WorldKey, float]) -> tuple[float, int]:
    """Pearson's statistic of ``counts`` against ``posterior`` (categories expected fewer
    than 5 times pooled into one) and its degrees of freedom."""
    n = sum(counts.values())
    stat, pooled_seen, pooled_expected, cells = 0.0, 0, 0.0, 0
    for k, p in posterior.items():
        if n * p >= 5:
            stat += (counts[k] - n * p) ** 2 / (n * p)
            cells += 1
        else:
            pooled_seen += counts[k]
            pooled_expected += n * p
    pooled_seen += sum(v for k, v in counts.items() if k not in posterior)
    if pooled_expected > 0:
        stat += (pooled_seen - pooled_expected) ** 2 / pooled_expected
        cells += 1
    elif pooled_seen:
        stat = float("inf")  # a world the posterior rules out
    return stat, cells - 1


def critical(df: int, level: float = 0.999) -> float:
    """The chi-square quantile (Wilson & Hilferty's approximation)."""
    z = NormalDist().inv_cdf(level)
    h = 2 / (9 * df)
    return float(df * (1 - h + z * h**0.5) ** 3)


@pytest.mark.parametrize(("players", "seed", "length"), LINES)
def test_weighted_worlds_follow_the_exact_posterior(players: int, seed: int, length: int) -> None:
    rules, deck, moves = line(players, seed, length)
    log = log_of(rules, deck, moves, 0)
    posterior, bound = exact_posterior(rules, deck, log, MODEL)
    belief = weigh_worlds(log, MODEL, 6000, random.Random(seed))
    assert all(observe(w, 0) == log.latest for w in belief.worlds)
    keep = random.Random(1)
    kept = Counter(
        key(w) for w, x in zip(belief.worlds, belief.weights, strict=True)
        if keep.random() * bound < x
    )  # fmt: skip
    assert sum(kept.values()) >= 500
    stat, df = chi_square(kept, posterior)
    assert stat < critical(df), (stat, df)
    # The power of the test: the prior's worlds (weights ignored) fail it.
    prior = Counter(key(w) for w in belief.worlds[: sum(kept.values())])
    stat, df = chi_square(prior, posterior)
    assert stat > critical(df), (stat, df)


#: Independent chains per line and steps per chain: 40 steps pass, 5 do not.
CHAINS, STEPS = 1500, 60


def chain_ends(rules: Rules, deck: list[Card], moves: list[Action], seed: int) -> list[GameState]:
    """The last world of each of :data:`CHAINS` chains, every one of its worlds checked
    against the observer's observation."""
    log = log_of(rules, deck, moves, 0)
    rng = random.Random(seed)
    ends = []
    for _ in range(CHAINS):
        belief = weigh_worlds(log, MODEL, 1, rng, steps=STEPS)
        assert len(belief.worlds) == STEPS
        assert all(observe(w, 0) == log.latest for w in belief.worlds)
        ends.append(belief.worlds[-1])
    return ends


@pytest.mark.parametrize(("players", "seed", "length"), LINES)
def test_the_deal_chain_reaches_the_exact_posterior(players: int, seed: int, length: int) -> None:
    rules, deck, moves = line(players, seed, length)
    posterior, _ = exact_posterior(rules, deck, log_of(rules, deck, moves, 0), MODEL)
    stat, df = chi_square(Counter(map(key, chain_ends(rules, deck, moves, seed))), posterior)
    assert stat < critical(df), (stat, df)


def test_a_deal_chain_that_deals_a_trump_known_in_the_talon_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The power of the test above: without the check that no trump known to have been in
    the talon is dealt into a hand, the chain's worlds look as consistent but miss."""
    rules, deck, moves = line(2, 6, 6)
    posterior, _ = exact_posterior(rules, deck, log_of(rules, deck, moves, 0), MODEL)
    real = DealChain._deal

    def careless(chain: DealChain, cards: list[int]) -> GameState | None:
        knowledge = chain.record.start.knowledge
        blind = attrs.evolve(knowledge, from_talon=CardSet.of())
        record = attrs.evolve(chain.record, start=attrs.evolve(chain.record.start, knowledge=blind))
        return real(attrs.evolve(chain, record=record), cards)

    monkeypatch.setattr(DealChain, "_deal", careless)
    stat, df = chi_square(Counter(map(key, chain_ends(rules, deck, moves, 6))), posterior)
    assert stat > critical(df), (stat, df)


def test_without_a_deals_prior_the_belief_is_the_weighed_candidates() -> None:
    """A record whose start may hold a trump known to have been in the talon (origins
    other than a deal's) has no uniform prior over its starts: the belief is then the
    weighed candidates, as without ``steps``."""
    rules, deck, moves = line(2, 24, 11)
    log = log_of(rules, deck, moves, 0)
    assert DealChain.applies(PublicRecord.of(log))
    later = GameLog(log.moves[2][2], log.moves[3:])
    assert later.start.knowledge.origins == ((1,), (0, 1))
    assert not DealChain.applies(PublicRecord.of(later))
    weighed = weigh_worlds(later, MODEL, 5, random.Random(2))
    chained = weigh_worlds(later, MODEL, 5, random.Random(2), steps=40)
    assert chained == weighed


def test_a_replay_from_a_deal_where_an_opponent_lacks_a_card_it_played_is_none() -> None:
    """The chain's deals are checked by the replay: an opponent's played card moved to
    the undrawn talon makes its move impossible."""
    rules, deck, moves = line(2, 24, 11)
    log = log_of(rules, deck, moves, 0)
    record = PublicRecord.of(log)
    past = record.past(sample_world(log.latest, random.Random(0)), random.Random(0))
    assert record.replay(past) is not None
    played = next(c for c in bit_indices(record.played_first[1]) if past.hand_masks[1] >> c & 1)
    hands = list(past.hand_masks)
    talon = list(past.talon)
    hands[1] ^= 1 << played | 1 << talon[-2].index
    talon[-2] = CARDS[played]
    assert record.replay(attrs.evolve(past, hand_masks=tuple(hands), talon=tuple(talon))) is None


def test_the_lines_have_choices_refills_and_restricted_trumps() -> None:
    """So the test above covers every part of the past it reconstructs."""
    for players, seed, length in LINES:
        rules, deck, moves = line(players, seed, length)
        log = log_of(rules, deck, moves, 0)
        record = PublicRecord.of(log)
        assert log.start.knowledge.from_talon
        assert any(q != 0 for r in record.refills for q, _ in r.draws)
        s, choices = deal(rules, deck), 0
        for a in moves:
            choices += s.turn != 0 and len(legal_actions(s)) > 1
            s = step(s, a)
        assert choices >= 3


def test_a_belief_draws_its_worlds_in_proportion_to_their_weights() -> None:
    rules, deck, moves = line(2, 24, 11)
    root = log_of(rules, deck, moves, 0).latest
    rng = random.Random(3)
    worlds: list[GameState] = []
    while len(worlds) < 3:
        w = sample_world(root, rng)
        if w not in worlds:
            worlds.append(w)
    belief = Belief(root, tuple(worlds), (1.0, 0.0, 3.0))
    draws = Counter(worlds.index(belief.sample(root, rng)) for _ in range(4000))
    assert draws[1] == 0
    sd = (4000 * 0.25 * 0.75) ** 0.5
    assert abs(draws[0] - 1000) < 6 * sd
    # No weight at all: every world alike.
    flat = Belief(root, tuple(worlds), (0.0, 0.0, 0.0))
    assert set(Counter(flat.sample(root, rng) for _ in range(300))) == set(worlds)


@pytest.mark.parametrize(
    ("spec", "search"),
    [
        ("ismcts:limit=20,infer=greedy,candidates=3", "ismcts"),
        ("mcts:limit=10,samples=4,infer=greedy,candidates=3", "pimc"),
        ("minimax:depth=1,samples=4,infer=greedy,candidates=3", "pimc"),
    ],
)
def test_the_searches_draw_their_worlds_from_the_weighed_candidates(
    spec: str, search: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a record of the game, every world a search draws is one of the decision's
    candidates (the searches get the belief's sampler); without one, worlds are fresh."""
    rules, deck, moves = line(2, 6, 6)
    log = log_of(rules, deck, moves, 0)
    drawn: list[GameState] = []
    real = getattr(durak.search, search)

    def spying(game: Any, observation: Any, **kwargs: Any) -> Any:
        sample = kwargs.get("sample") or game.sample_world
        rng = random.Random(0)
        drawn.extend(sample(observation, rng) for _ in range(50))
        return real(game, observation, **kwargs)

    monkeypatch.setattr(ismcts_agent if search == "ismcts" else sampled_worlds, search, spying)
    agent = make_agent(spec)
    assert isinstance(agent, Inferring)
    agent.act(log.latest, random.Random(1))  # no record: sample_world
    assert len(set(drawn)) > 3
    drawn.clear()
    agent.game_started(log.start)
    for mover, action, seen in log.moves:
        agent.action_taken(mover, action, seen)
    agent.act(log.latest, random.Random(1))
    assert 1 <= len(set(drawn)) <= 3
    assert all(observe(w, 0) == log.latest for w in drawn)


class _Fixed(random.Random):
    """A generator whose ``random()`` is always 0.75 (its other draws are its seed's)."""

    def random(self) -> float:
        return 0.75


def test_a_past_is_accepted_by_its_restricted_trumps_weight_over_the_largest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # In this world player 1's start holds one restricted trump: a try is accepted when
    # 0.75 (the uniform) times the largest weight is below the weight of 1.
    rules, deck, moves = line(2, 6, 6)
    log = log_of(rules, deck, moves, 0)
    later = PublicRecord.of(GameLog(log.moves[2][2], log.moves[3:]))
    world = sample_world(log.latest, random.Random(0))
    monkeypatch.setattr(record_module, "MAX_TRIES", 50)
    monkeypatch.setattr(record_module, "_start_weights", lambda o, q: [1, 2, 2, 2])
    start, _ = later._sources(1, world, _Fixed(0))
    assert (start & later.start.knowledge.from_talon.mask).bit_count() == 1
    monkeypatch.setattr(record_module, "_start_weights", lambda o, q: [2, 1, 1, 1])
    with pytest.raises(RuntimeError, match=r"^inference: no past of player 1 accepted in 50"):
        later._sources(1, world, _Fixed(0))


def test_a_starts_weights_sum_its_origins_and_without_them_count_the_hands() -> None:
    # sum_j origins[j] * C(j, k) per k; without origins every hand of u unknown cards
    # counts once: C(u, k) of them hold k restricted trumps.
    rules, deck, moves = line(2, 6, 6)
    log = log_of(rules, deck, moves, 0)
    start = GameLog(log.moves[2][2], log.moves[3:]).start
    assert start.knowledge.origins[1] == (0, 1)
    u = start.unknown_count(1)
    assert record_module._start_weights(start, 1) == [1, 1, 0, 0][: u + 1]
    bare = attrs.evolve(start, knowledge=attrs.evolve(start.knowledge, origins=()))
    assert record_module._start_weights(bare, 1) == [math.comb(u, k) for k in range(u + 1)]
