"""The sampler's odds are exact: checked against every deck order on small decks.

An observer knows its own dealt cards and the bottom card; every order of the other cards
that, dealt and played with the same public moves, gives the same observation counts once.
Counting where each hidden card lies over those orders gives the exact odds, which
``odds`` must equal and ``sample_world`` must reproduce.
"""

from __future__ import annotations

import hashlib
import itertools
import random
from collections import Counter
from fractions import Fraction

import attrs
import pytest

from durak.rules import (
    Action,
    Card,
    GameState,
    IllegalActionError,
    Observation,
    Place,
    Rules,
    RulesError,
    deal,
    legal_actions,
    new_game,
    observe,
    odds,
    sample_world,
    step,
)
from durak.rules.cards import deck_cards
from durak.rules.origins import DEALT, after_draw, after_play, sample_split, split_means
from durak.testing.games import play_random_game, random_game

ISSUE_DECK = ["QS", "KH", "KS", "KD", "AS", "AD", "QC", "KC", "QH", "QD", "AC", "AH"]


def place_of(state: GameState, card: Card) -> Place:
    for p, hand in enumerate(state.hands):
        if card in hand:
            return p
    if card in state.talon:
        return "talon"
    if card in state.discard:
        return "discard"
    return "table"


def replay(rules: Rules, deck: list[Card], moves: list[Action]) -> GameState | None:
    """The state after ``moves`` from this deck, or ``None`` if one of them is illegal."""
    s = deal(rules, deck)
    for a in moves:
        try:
            s = step(s, a)
        except IllegalActionError:
            return None
    return s


def exact_odds(
    rules: Rules, deck: list[Card], moves: list[Action], player: int
) -> dict[Card, dict[Place, Fraction]]:
    """Where each card the observer cannot see lies, over every consistent deck order."""
    target = replay(rules, deck, moves)
    assert target is not None
    seen = observe(target, player)
    dealt = rules.players * rules.hand_size
    fixed = {i for i in range(dealt) if i % rules.players == player} | {len(deck) - 1}
    free = [i for i in range(len(deck)) if i not in fixed]
    hidden = list(seen.hidden_cards())
    counts: dict[Card, Counter[Place]] = {c: Counter() for c in hidden}
    total = 0
    for order in itertools.permutations([deck[i] for i in free]):
        candidate = list(deck)
        for i, c in zip(free, order, strict=True):
            candidate[i] = c
        s = replay(rules, candidate, moves)
        if s is None or observe(s, player) != seen:
            continue
        total += 1
        for c in hidden:
            counts[c][place_of(s, c)] += 1
    return {c: {p: Fraction(n, total) for p, n in counts[c].items()} for c in hidden}


def random_line(rules: Rules, seed: int, length: int) -> tuple[list[Card], list[Action]]:
    """A random deck and up to ``length`` random legal moves from it."""
    rng = random.Random(seed)
    deck = list(deck_cards(rules.lowest_rank, rules.suits))
    rng.shuffle(deck)
    s = deal(rules, deck)
    moves: list[Action] = []
    while len(moves) < length and legal_actions(s):
        a = rng.choice(legal_actions(s))
        moves.append(a)
        s = step(s, a)
    return deck, moves


def odds_of(o: Observation) -> dict[Card, dict[Place, Fraction]]:
    return {c: {p: x for p, x in odds(o, c).items() if x} for c in o.hidden_cards()}


def test_the_issue_example_q_hearts_is_in_the_drawn_card_one_time_in_three() -> None:
    """Issue 22: player 1 shows K♥, so Q♥ was in the talon; player 1 then draws one card.
    The uniform per-card model said 0.60; every deck order says 1/3."""
    rules = Rules(players=2, lowest_rank=12, hand_size=4)
    deck = [Card.parse(c) for c in ISSUE_DECK]
    s = deal(rules, deck)
    moves = [
        next(a for a in legal_actions(s) if str(a) == "Attack(K♣)"),
    ]
    s = step(s, moves[0])
    moves.append(legal_actions(s)[-1])  # Take
    s = step(s, moves[1])
    moves.append(next(a for a in legal_actions(s) if str(a) == "Pass"))
    s = step(s, moves[2])
    qh = Card.parse("QH")
    o = observe(s, 0)
    assert odds(o, qh) == {1: Fraction(1, 3), "talon": Fraction(2, 3)}
    assert exact_odds(rules, deck, moves, 0)[qh] == odds(o, qh)
    rng = random.Random(5)
    draws = 6000
    held = sum(qh in sample_world(o, rng).hands[1] for _ in range(draws))
    # 1/3 of 6,000 is 2,000 with a standard deviation of 36.5; the old 0.60 is 100 away.
    assert abs(held - draws / 3) < 6 * 36.5


TWO = Rules(players=2, lowest_rank=12, hand_size=4)
THREE = Rules(players=3, lowest_rank=12, hand_size=3)
#: Lines whose final position the per-card model gets wrong for some observer (found by a
#: scan of seeds); then two ordinary longer lines.
UNEVEN = [(TWO, seed, 6) for seed in (6, 26, 30, 43, 49, 50)] + [
    (THREE, seed, 6) for seed in (6, 21, 23)
]
LINES = [*UNEVEN, (TWO, 2, 9), (TWO, 5, 14)]


def per_card_model_differs(o: Observation) -> bool:
    """Whether some restricted hidden card's odds are not those of the per-card model
    (every slot it may be in equally likely)."""

    def slots(place: Place) -> int:
        assert isinstance(place, int) or place == "talon"
        return o.unknown_count(place) if isinstance(place, int) else o.talon_size - o.trump_in_talon

    for c in o.hidden_cards() & o.knowledge.from_talon:
        chances = odds(o, c)
        total = sum(slots(p) for p in chances)
        if any(x != Fraction(slots(p), total) for p, x in chances.items()):
            return True
    return False


@pytest.mark.parametrize(("rules", "seed", "length"), LINES)
def test_odds_equal_the_count_over_every_deck_order(rules: Rules, seed: int, length: int) -> None:
    deck, moves = random_line(rules, seed, length)
    s = replay(rules, deck, moves)
    assert s is not None
    for player in range(rules.players):
        o = observe(s, player)
        assert odds_of(o) == exact_odds(rules, deck, moves, player), (player, moves)


@pytest.mark.parametrize(("rules", "seed", "length"), UNEVEN)
def test_the_lines_include_positions_the_per_card_model_gets_wrong(
    rules: Rules, seed: int, length: int
) -> None:
    """So the test above has power."""
    deck, moves = random_line(rules, seed, length)
    s = replay(rules, deck, moves)
    assert s is not None
    assert any(per_card_model_differs(observe(s, p)) for p in range(rules.players))


def test_sample_world_follows_the_odds() -> None:
    deck, moves = random_line(THREE, 21, 6)
    s = replay(THREE, deck, moves)
    assert s is not None
    o = next(o for o in (observe(s, p) for p in range(3)) if per_card_model_differs(o))
    chances = odds_of(o)
    rng = random.Random(9)
    draws = 4000
    counts = {c: Counter[Place]() for c in chances}
    for _ in range(draws):
        world = sample_world(o, rng)
        for c in chances:
            counts[c][place_of(world, c)] += 1
    for c, places in chances.items():
        assert set(counts[c]) == set(places), c
        for place, chance in places.items():
            sd = (float(chance) * (1 - float(chance)) / draws) ** 0.5
            assert abs(counts[c][place] / draws - float(chance)) <= 6 * sd + 1e-9, (c, place)


def test_full_information_shows_the_talon_order_and_nothing_is_hidden() -> None:
    deck, moves = random_line(TWO, 5, 1)
    s = replay(TWO, deck, moves)
    assert s is not None and len(s.talon) >= 3
    full = observe(s, 0, open_world="full")
    assert full.talon_order == s.talon and full.hands == s.hands
    assert full.visibility == "full" and observe(s, 0, open_world=True).visibility is True
    assert not full.hidden_cards()
    assert all(odds(full, c) == {"talon": 1} for c in s.talon)
    assert sample_world(full, random.Random(0)) == s
    # Another talon order is another observation: the order is what full information adds.
    other = attrs.evolve(s, talon=(*reversed(s.talon[:-1]), s.talon[-1]))
    assert observe(other, 0, open_world=True) == observe(s, 0, open_world=True)
    assert observe(other, 0, open_world="full") != full


@pytest.mark.parametrize("bad", ["half", 2, None])
def test_a_bad_visibility_is_refused(bad: object) -> None:
    s = deal(TWO, [Card.parse(c) for c in ISSUE_DECK])
    with pytest.raises(RulesError, match="open_world must be False, True or 'full'"):
        observe(s, 0, open_world=bad)  # type: ignore[arg-type]


def test_origin_weights_follow_plays_and_draws() -> None:
    """``origins`` by hand: weights over how many unknown cards came from the talon."""
    assert after_play(DEALT, 5, restricted=False) == DEALT  # only dealt cards to play
    assert after_draw(DEALT, 2) == (0, 0, 1)  # two drawn, none played
    assert after_draw((1, 2), 0) == (1, 2)
    # One of three unknown cards came from the talon; a non-trump is played: it was that
    # one in 1 way (none left from the talon), a dealt one in 2 ways (one left).
    assert after_play((0, 1), 3, restricted=False) == (1, 2)
    # A trump known to have been in the talon can only be the drawn card.
    assert after_play((0, 1), 3, restricted=True) == (1,)
    assert after_play((1, 1), 2, restricted=True) == (1,)
    # Two drawn among four, then a non-trump played: a drawn one (2 ways, one drawn left)
    # or a dealt one (2 ways, two left): (0, 2, 2), kept in lowest terms.
    assert after_play((0, 0, 1), 4, restricted=False) == (0, 1, 1)
    assert after_play((0, 0, 1), 3, restricted=False) == (0, 2, 1)
    # Mixed weights: j=1 gives 1 way to 0 and 2 ways to 1; j=2 gives 2 ways to 1, 1 to 2.
    assert after_play((0, 1, 1), 3, restricted=False) == (1, 4, 1)


def test_the_split_of_restricted_cards_by_hand() -> None:
    # Issue 22's example: one hidden trump from the talon; the opponent holds 3 unknown
    # cards of which 1 was drawn; the talon hides 2.  C(1,1)C(2,0) : C(1,0)C(2,1) = 1 : 2.
    one = (((0, 1), 3),)
    assert split_means(one, 2, 1) == (Fraction(1, 3), Fraction(2, 3))
    # Nothing drawn and no talon: no place for it.
    assert split_means((((1,), 3),), 0, 1) is None
    assert sample_split((((1,), 3),), 0, 1, random.Random(0)) is None
    # Two opponents: one drew both its cards, the other nothing; two such trumps, a talon of 1.
    two = (((0, 0, 1), 2), ((1,), 2))
    means = split_means(two, 1, 2)
    assert means is not None and means[1] == 0 and sum(means) == 2
    # (k1, kt) = (2, 0): C(2,2) = 1; (1, 1): C(2,1) C(1,1) = 2.  E[k1] = (2 + 2) / 3.
    assert means[0] == Fraction(4, 3)
    draws = Counter(sample_split(two, 1, 2, random.Random(s)) for s in range(3000))
    assert set(draws) == {(2, 0, 0), (1, 0, 1)}
    assert abs(draws[(1, 0, 1)] / 3000 - 2 / 3) < 0.04


def test_a_record_leaving_no_place_for_the_talons_trumps_is_refused_naming_them() -> None:
    # A genuine observation in which an opponent drew such a trump, forged so that every
    # player's origins say no unknown card came from the talon: the trumps outnumber the
    # hidden talon, so no split fits.
    rules = Rules(lowest_rank=9, hand_size=4)
    found = None
    for seed in range(200):
        rng = random.Random(seed)
        state = new_game(rules, seed)
        while found is None and state.turn >= 0:
            o = observe(state, state.turn)
            restricted = len(o.knowledge.from_talon & o.hidden_cards())
            if restricted > o.talon_size - o.trump_in_talon:
                found = o
            state = step(state, rng.choice(legal_actions(state)))
        if found is not None:
            break
    assert found is not None, "no observation with the talon's trumps in a hand was found"
    sample_world(found, random.Random(0))  # the genuine record is accepted
    origins = (DEALT,) * rules.players
    forged = attrs.evolve(found, knowledge=attrs.evolve(found.knowledge, origins=origins))
    message = r"^inconsistent observation: no place for the trumps known to have been in the talon$"
    with pytest.raises(RulesError, match=message):
        sample_world(forged, random.Random(0))
    card = next(iter(found.knowledge.from_talon & found.hidden_cards()))
    with pytest.raises(RulesError, match=message):
        odds(forged, card)


# --- the seeds' streams ----------------------------------------------------------------
# A published figure is reproduced from its seed, so the deal a seed gives and the world a
# sampler's seed gives must not change between versions, even to another draw from the
# same distribution.  The digests were taken when the sampler was checked exact (above);
# a deliberate change of stream updates them and says so in docs/rules.md.

STREAM_RULES = [
    Rules(),
    Rules(players=3, transfer=True),
    Rules(players=4, lowest_rank=9, hand_size=4),
]
STREAM_DIGESTS = ["029aec643bbaeaab", "a4ff7608b6504ee3", "8a16a6d52eb3eba6"]


def _stream_text(rules: Rules) -> str:
    lines = []
    for seed in range(6):
        states, _ = play_random_game(rules, seed)
        lines.append(f"deal {seed}: {states[0].hands} {states[0].talon}")
        for i, state in enumerate(states[:-1:7]):
            for visibility in (False, True):
                o = observe(state, state.turn, open_world=visibility)
                world = sample_world(o, random.Random(1000 * seed + i))
                lines.append(f"world {seed} {i} {visibility}: {world.hands} {world.talon}")
    return "\n".join(lines)


@pytest.mark.parametrize(("rules", "digest"), list(zip(STREAM_RULES, STREAM_DIGESTS, strict=True)))
def test_a_seed_gives_the_same_deals_and_worlds_as_before(rules: Rules, digest: str) -> None:
    text = _stream_text(rules)
    assert hashlib.sha256(text.encode()).hexdigest()[:16] == digest, text[:400]


def test_a_card_seen_in_one_place_is_there_with_certainty() -> None:
    rules = Rules(lowest_rank=9, hand_size=4)
    checked: Counter[str] = Counter()
    for state in random_game(rules, 5)[:-1]:
        o = observe(state, state.turn)
        for card in deck_cards(rules.lowest_rank, rules.suits):
            chances = odds(o, card)
            assert sum(chances.values()) == 1, (card, chances)
            where = (
                "discard" if card in o.discard
                else "table" if any(card in pair for pair in o.table)
                else "known" if any(card in o.known_cards(p) for p in range(rules.players))
                else "trump" if o.trump_in_talon and card == o.trump_card
                else None
            )  # fmt: skip
            if where is not None:
                assert chances == {place_of(state, card): 1}, (card, chances)
                checked[where] += 1
    assert set(checked) == {"discard", "table", "known", "trump"}, checked


def test_a_search_drawing_many_worlds_from_one_observation_checks_it_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from durak.rules.knowledge import sampler  # noqa: PLC0415

    calls = Counter[int]()
    split_of = sampler._Split.of

    def counted(o: Observation) -> object:
        calls[id(o)] += 1
        return split_of(o)

    monkeypatch.setattr(sampler._Split, "of", staticmethod(counted))
    state = random_game(Rules(), 3)[12]
    o = observe(state, state.turn)
    twin = attrs.evolve(o)  # equal, another object
    worlds = [sample_world(x, random.Random(9)) for x in (o, o, o, twin, o)]
    assert worlds[0] == worlds[1] == worlds[3] == worlds[4]  # the cache changes no world
    assert calls[id(o)] == 2 and calls[id(twin)] == 1  # o, o, o: one split; o again: one
    # A forged observation right after a good one is checked in full, not served the
    # good one's split.
    forged = attrs.evolve(o, talon_size=o.talon_size + 1)
    with pytest.raises(RulesError):
        sample_world(forged, random.Random(9))
    assert sample_world(o, random.Random(9)) == worlds[0]
