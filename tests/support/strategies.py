"""The shared random-simulation contract of the verification suites (OpenSpiel style).

Every variant is checked the same way: :func:`rules_strategy` draws a valid
:class:`~durak.rules.Rules`, :func:`play_random_game` plays it to the end with a seeded
uniform-random policy, and :func:`~tests.support.invariants.check_invariants` is asserted in
every state reached.  The helpers here assert; they never skip or soften a failure.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, cast

import attrs
from hypothesis import strategies as st

from durak.rules import (
    VISIBILITIES,
    Action,
    Card,
    CardSet,
    GameState,
    Observation,
    Pass,
    Place,
    Rules,
    Take,
    current_player,
    is_terminal,
    legal_actions,
    new_game,
    observe,
    places,
    sample_world,
    step,
)
from durak.rules.cards import deck_cards
from durak.rules.history import History
from tests.support.invariants import check_invariants

#: The ranks a deck may start from (52, 36, 32, 24, 20 and 12 cards).
LOWEST_RANKS: tuple[int, ...] = (2, 6, 7, 9, 10, 12)
#: The suit counts a deck may have; four (the usual decks) first, so that it is what
#: Hypothesis shrinks towards.
SUITS: tuple[int, ...] = (4, 2, 3, 1)
#: A random game that needs more steps than this is reported as non-terminating.
MAX_STEPS = 200_000


@st.composite
def rules_strategy(
    draw: st.DrawFn, players: int | None = None, transfer: bool | None = None
) -> Rules:
    """A random valid :class:`Rules`: 2-6 players, any deck of :data:`LOWEST_RANKS` in 1-4
    suits with ``players * hand_size <= deck``, hand size 1-6, caps 1-6, every throw-in,
    transfer and trump option.  ``players`` and ``transfer`` fix those options."""
    n = draw(st.integers(2, 6)) if players is None else players
    suits = draw(st.sampled_from(SUITS))
    lowest = draw(st.sampled_from([r for r in LOWEST_RANKS if suits * (15 - r) >= n]))
    deck = suits * (15 - lowest)
    hand_size = draw(st.integers(1, min(6, deck // n)))
    return Rules(
        players=n,
        lowest_rank=lowest,
        suits=suits,
        hand_size=hand_size,
        bout_cap=draw(st.integers(1, 6)),
        first_bout_cap=draw(st.none() | st.integers(1, 6)),
        throw_in=draw(st.sampled_from(("all", "neighbours"))),
        transfer=draw(st.booleans()) if transfer is None else transfer,
        trumps=draw(st.booleans()),
    )


def seeds() -> st.SearchStrategy[int]:
    """Seeds for :func:`~durak.rules.new_game` and the random policy."""
    return st.integers(0, 2**32 - 1)


def play_random_game(
    rules: Rules, seed: int, passive: float = 0.0
) -> tuple[list[GameState], list[Action]]:
    """Deal ``new_game(rules, seed)`` and play it to the end, choosing uniformly among the
    legal actions with ``random.Random(seed)``.

    With ``passive > 0`` the policy instead takes or passes with that probability whenever
    it may, which makes long stretches of takes (and draws by repetition) common.

    Returns every state (the first is the deal, the last is terminal) and the actions
    between them.  Fails if the game is not over after :data:`MAX_STEPS` steps.
    """
    rng = random.Random(seed)
    state = new_game(rules, seed)
    states = [state]
    actions: list[Action] = []
    while not is_terminal(state):
        if len(actions) >= MAX_STEPS:
            raise AssertionError(f"game not over after {MAX_STEPS} steps: {rules}, seed {seed}")
        legal = legal_actions(state)
        action = legal[rng.randrange(len(legal))]
        if passive and isinstance(legal[-1], Take | Pass) and rng.random() < passive:
            action = legal[-1]
        state = step(state, action)
        states.append(state)
        actions.append(action)
    return states, actions


def random_game(rules: Rules, seed: int) -> list[GameState]:
    """The states of :func:`play_random_game`, deal first, terminal state last."""
    return play_random_game(rules, seed)[0]


def is_bout_start(state: GameState) -> bool:
    """Whether ``state`` starts a bout: the table is empty and the game is not over."""
    return not state.table and not is_terminal(state)


def full_position(state: GameState) -> tuple[object, ...]:
    """Everything of a bout start except the repetition history."""
    return (
        state.hands,
        state.talon,
        state.discard,
        state.attacker,
        state.defender,
        state.players_out,
        state.known,
    )


def rebuild(state: GameState, **changes: object) -> GameState:
    """A new state through the positional constructor, field by field, with ``changes``."""
    values: list[Any] = []
    for f in attrs.fields(GameState):
        values.append(changes.pop(f.name) if f.name in changes else getattr(state, f.name))
    assert not changes, f"unknown fields {sorted(changes)}"
    return GameState(*values)


def plain(value: object) -> object:
    """``value`` as plain nested tuples of ints, strings and ``None``: cards become indices,
    card sets masks, frozensets sorted tuples and attrs records tuples of their fields."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, Card):
        return ("card", value.index)
    if isinstance(value, CardSet):
        return ("cards", value.mask)
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    if isinstance(value, frozenset | History):  # History: the keys it holds, not its storage
        return ("set", tuple(sorted((plain(v) for v in value), key=repr)))
    if attrs.has(type(value)):
        fields = attrs.fields(cast(Any, type(value)))
        items = tuple((f.name, plain(getattr(value, f.name))) for f in fields)
        return (type(value).__name__, items)
    raise TypeError(f"no plain form for {value!r}")


def fingerprint(state: GameState) -> object:
    """A plain-data copy of every field of ``state``, to detect any change of an object that
    claims to be immutable."""
    return (plain(state), hash(state), tuple(h.mask for h in state.hands))


def actual_place(state: GameState, card_index: int) -> Place:
    """Where the card with index ``card_index`` really is in ``state``."""
    bit = 1 << card_index
    for p, h in enumerate(state.hands):
        if h.mask & bit:
            return p
    if any(c.index == card_index for c in state.talon):
        return "talon"
    if state.table_cards().mask & bit:
        return "table"
    if state.discard.mask & bit:
        return "discard"
    raise AssertionError(f"card {card_index} is nowhere")


def check_knowledge_sound(state: GameState, obs: Observation) -> None:
    """Every card's real place in ``state`` is one of the places ``obs`` allows for it."""
    for card in deck_cards(state.rules.lowest_rank, state.rules.suits):
        place = actual_place(state, card.index)
        assert place in places(obs, card), (
            f"{card} is in {place!r}, but player {obs.player} thinks it can only be in "
            f"{sorted(map(str, places(obs, card)))}"
        )


def check_observations(state: GameState) -> None:
    """The knowledge model of every player is sound in ``state``."""
    for p in range(state.rules.players):
        check_knowledge_sound(state, observe(state, p))
        check_knowledge_sound(state, observe(state, p, open_world=True))


def hidden_slots(state: GameState, player: int) -> tuple[list[int], list[Card]]:
    """The slots of the cards ``player`` cannot see, and the cards in them: each opponent's
    unknown cards (owner = the opponent) and the talon above the face-up trump card (owner
    -1, top first)."""
    owners: list[int] = []
    cards: list[Card] = []
    known = state.known
    for q, hand in enumerate(state.hands):
        if q != player:
            for c in hand - known[q]:
                owners.append(q)
                cards.append(c)
    talon = state.talon
    face_up = bool(talon) and state.trump_card is not None
    for c in talon[:-1] if face_up else talon:
        owners.append(-1)
        cards.append(c)
    return owners, cards


def fill(state: GameState, player: int, owners: Sequence[int], cards: Sequence[Card]) -> GameState:
    """``state`` with the hidden slots of ``player`` refilled with ``cards``."""
    known = state.known
    masks = [h.mask if q == player else known[q].mask for q, h in enumerate(state.hands)]
    talon: list[Card] = []
    for owner, c in zip(owners, cards, strict=True):
        if owner < 0:
            talon.append(c)
        else:
            masks[owner] |= 1 << c.index
    if state.talon and state.trump_card is not None:
        talon.append(state.trump_card)
    return rebuild(state, hand_masks=tuple(masks), talon=tuple(talon))


def check_world(world: GameState, obs: Observation) -> None:
    """A sampled world fits the observation it was drawn from."""
    p = obs.player
    open_world = obs.visibility
    assert observe(world, p, open_world=open_world) == obs
    check_invariants(world)
    assert world.hands[p] == obs.hand
    assert world.knowledge == obs.knowledge
    for q in range(world.rules.players):
        assert not obs.known_cards(q).mask & ~world.hands[q].mask, f"known cards of {q} moved"
    for c in deck_cards(world.rules.lowest_rank, world.rules.suits):
        assert actual_place(world, c.index) in places(obs, c)
    if not open_world:
        for c in obs.hidden_cards() & obs.knowledge.from_talon:
            place = actual_place(world, c.index)
            drawn = isinstance(place, int) and len(obs.knowledge.origins[place]) > 1
            assert place == "talon" or drawn, (
                f"{c} from the talon placed in hand {place}, which holds nothing drawn"
            )
    legal = legal_actions(world)
    if legal:
        check_invariants(step(world, legal[0]))


def check_observation_invariance(state: GameState, player: int, rng: random.Random) -> None:
    """Shuffling the cards ``player`` cannot see among their slots changes nothing it
    observes (closed world)."""
    obs = observe(state, player)
    owners, cards = hidden_slots(state, player)
    assert CardSet.from_cards(cards) == obs.hidden_cards()
    for q in range(state.rules.players):
        assert obs.unknown_count(q) == owners.count(q)
    for _ in range(3):
        shuffled = list(cards)
        rng.shuffle(shuffled)
        other = fill(state, player, owners, shuffled)
        assert observe(other, player) == obs
        assert hash(observe(other, player)) == hash(obs)


def check_sampled_worlds(state: GameState, player: int, seed: int) -> None:
    """The knowledge model of ``player`` is sound in ``state``, and worlds sampled from its
    closed- and open-world observations fit them and are reproducible; with full
    information the world is the state itself."""
    for open_world in VISIBILITIES:
        obs = observe(state, player, open_world=open_world)
        check_knowledge_sound(state, obs)
        world = sample_world(obs, random.Random(seed))
        check_world(world, obs)
        assert sample_world(obs, random.Random(seed)) == world
        if open_world:
            assert world.hands == state.hands
        if open_world == "full":
            assert world == state


def random_game_observations(rules: Rules, games: int, seed: int) -> list[Observation]:
    """Every decision point's observation of ``games`` uniformly random games (game ``g``
    deals ``seed + g``)."""
    rng = random.Random(seed)
    seen = []
    for g in range(games):
        state = new_game(rules, seed + g)
        while not is_terminal(state):
            o = observe(state, current_player(state))
            seen.append(o)
            state = step(state, rng.choice(o.legal_actions))
    return seen
