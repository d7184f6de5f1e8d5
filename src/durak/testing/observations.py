"""The invariants of observations (``docs/rules.md``, "Knowledge" and "Sampling"): what a
player is told is sound, hides exactly the cards it cannot see, and the worlds sampled
from it fit it.  Each check raises :class:`~durak.testing.invariants.InvariantError`.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from durak.rules import (
    VISIBILITIES,
    CardSet,
    GameState,
    Observation,
    Place,
    legal_actions,
    observe,
    places,
    sample_world,
    step,
)
from durak.rules.cards import deck_cards
from durak.testing.invariants import InvariantError, check_state
from durak.testing.worlds import fill, hidden_slots

__all__ = [
    "actual_place",
    "check_knowledge_sound",
    "check_observation",
    "check_observation_invariance",
    "check_observations",
    "check_sampled_worlds",
    "check_world",
]

#: A check of a whole state (:func:`~durak.testing.invariants.check_state`, or a stronger
#: one of the caller's).
StateCheck = Callable[[GameState], None]


def check_observation(state: GameState, player: int, seed: int = 0) -> None:
    """Every observation invariant of ``player`` in ``state``: its knowledge is sound
    (:func:`check_knowledge_sound`), shuffling the cards it cannot see changes nothing it
    observes (:func:`check_observation_invariance`), and worlds sampled from each of its
    observations fit them and are reproducible (:func:`check_sampled_worlds`); ``seed``
    draws the shuffles and worlds."""
    check_observation_invariance(state, player, random.Random(seed))
    check_sampled_worlds(state, player, seed)


def actual_place(state: GameState, card_index: int) -> Place:
    """Where the card with index ``card_index`` really is in ``state`` (a hand's player,
    ``"talon"``, ``"table"`` or ``"discard"``)."""
    bit = 1 << card_index
    for p, h in enumerate(state.hand_masks):
        if h & bit:
            return p
    if any(c.index == card_index for c in state.talon):
        return "talon"
    if state.table_cards().mask & bit:
        return "table"
    if state.discard.mask & bit:
        return "discard"
    raise InvariantError("cards conserved", f"card {card_index} is nowhere")


def check_knowledge_sound(state: GameState, obs: Observation) -> None:
    """Every card's real place in ``state`` is one of the places ``obs`` allows for it."""
    for card in deck_cards(state.rules.lowest_rank, state.rules.suits):
        place = actual_place(state, card.index)
        allowed = places(obs, card)
        if place not in allowed:
            raise InvariantError(
                "knowledge sound",
                f"{card} is in {place!r}, but player {obs.player} thinks it can only be in "
                f"{sorted(map(str, allowed))}",
            )


def check_observations(state: GameState) -> None:
    """The knowledge of every player is sound in ``state``, closed and open world."""
    for p in range(state.rules.players):
        check_knowledge_sound(state, observe(state, p))
        check_knowledge_sound(state, observe(state, p, open_world=True))


def check_world(world: GameState, obs: Observation, check: StateCheck = check_state) -> None:
    """A world sampled from ``obs`` fits it: it gives ``obs`` back, keeps ``check``, holds
    the player's hand and every known card where ``obs`` says, puts a card from the talon
    only where a drawn card can be, and its first legal action steps to a state that keeps
    ``check``."""
    what = "sampled world"
    p = obs.player
    if observe(world, p, open_world=obs.visibility) != obs:
        raise InvariantError(what, f"a world sampled for player {p} gives another observation")
    check(world)
    if world.hands[p] != obs.hand or world.knowledge != obs.knowledge:
        raise InvariantError(what, f"a world sampled for player {p} changed its hand or knowledge")
    for q in range(world.rules.players):
        if obs.known_cards(q).mask & ~world.hand_masks[q]:
            raise InvariantError(what, f"known cards of player {q} moved")
    for c in deck_cards(world.rules.lowest_rank, world.rules.suits):
        if actual_place(world, c.index) not in places(obs, c):
            raise InvariantError(what, f"{c} placed where player {p}'s observation rules out")
    if not obs.visibility:
        for c in obs.hidden_cards() & obs.knowledge.from_talon:
            place = actual_place(world, c.index)
            drawn = isinstance(place, int) and len(obs.knowledge.origins[place]) > 1
            if place != "talon" and not drawn:
                raise InvariantError(
                    what, f"{c} from the talon placed in hand {place}, which holds nothing drawn"
                )
    legal = legal_actions(world)
    if legal:
        check(step(world, legal[0]))


def check_observation_invariance(state: GameState, player: int, rng: random.Random) -> None:
    """Shuffling the cards ``player`` cannot see among their slots changes nothing it
    observes (closed world), and its observation counts exactly those hidden cards."""
    what = "observation hides"
    obs = observe(state, player)
    owners, cards = hidden_slots(state, player)
    if CardSet.from_cards(cards) != obs.hidden_cards():
        raise InvariantError(what, f"player {player} is told of other hidden cards than it lacks")
    for q in range(state.rules.players):
        if obs.unknown_count(q) != owners.count(q):
            raise InvariantError(what, f"player {player} miscounts player {q}'s unknown cards")
    for _ in range(3):
        shuffled = list(cards)
        rng.shuffle(shuffled)
        other = observe(fill(state, player, owners, shuffled), player)
        if other != obs or hash(other) != hash(obs):
            raise InvariantError(
                what, f"player {player}'s observation changes when hidden cards are shuffled"
            )


def check_sampled_worlds(
    state: GameState, player: int, seed: int, check: StateCheck = check_state
) -> None:
    """The knowledge of ``player`` is sound in ``state``, and worlds sampled from its
    closed- and open-world observations fit them (:func:`check_world`) and are
    reproducible; with full information the world is the state itself."""
    for open_world in VISIBILITIES:
        obs = observe(state, player, open_world=open_world)
        check_knowledge_sound(state, obs)
        world = sample_world(obs, random.Random(seed))
        check_world(world, obs, check)
        if sample_world(obs, random.Random(seed)) != world:
            raise InvariantError("sampled world", "the same generator gave another world")
        if open_world and world.hands != state.hands:
            raise InvariantError("sampled world", "an open-world sample changed the hands")
        if open_world == "full" and world != state:
            raise InvariantError("sampled world", "a full-information sample is not the state")
