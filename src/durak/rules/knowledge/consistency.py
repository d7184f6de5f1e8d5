"""What every observation :func:`~durak.rules.knowledge.observation.observe` gives
satisfies, checked before a world is drawn from one (``docs/rules.md``, "Knowledge" and "A
bout is a sequence of single decisions").

A hand-built observation may break facts that no play of the rules breaks: a player out
who holds cards, the opening attack asked of the defender, an open-world hand short of its
size, a known card nobody exposed.  A world drawn from it would then not give the
observation back, or would break the engine (a game with every player out never ends).
The sampler (:func:`~durak.rules.knowledge.sampler.sample_world`) and the odds refuse such
an observation with one :class:`~durak.rules.errors.RulesError` line naming the fact.
"""

from __future__ import annotations

from math import gcd
from typing import TYPE_CHECKING

from durak.rules.bout import asking_order, base_cap, next_active
from durak.rules.cards import Card, CardSet, Suit, beats, deck_mask, rank_mask, suit_mask
from durak.rules.engine import legal_actions
from durak.rules.errors import RulesError
from durak.rules.history import History
from durak.rules.state import GameState, Knowledge, table_mask

if TYPE_CHECKING:
    from durak.rules.knowledge.observation import Observation


def inconsistent(why: str) -> RulesError:
    """The error for an observation no world fits, saying why."""
    return RulesError(f"inconsistent observation: {why}")


def check_types(o: Observation) -> None:
    """Every field of ``o`` past ``rules`` and the seats has the type ``observe`` gives it
    (checked before any is used)."""
    cardsets: list[tuple[str, object]] = [("hand", o.hand), ("discard", o.discard)]
    cardsets += [(f"known cards of player {p}", k) for p, k in enumerate(_tuple(o.known, "known"))]
    if o.hands is not None:
        cardsets += [(f"hand of player {p}", h) for p, h in enumerate(_tuple(o.hands, "hands"))]
    for name, value in cardsets:
        if not isinstance(value, CardSet):
            raise inconsistent(f"the {name} must be a CardSet, got {type(value).__name__}")
    for size in _tuple(o.hand_sizes, "hand_sizes"):
        if type(size) is not int:
            raise inconsistent(f"hand sizes must be ints, got {size!r}")
    numbers: tuple[tuple[str, object], ...] = (("talon_size", o.talon_size), ("cap", o.cap))
    for name, value in numbers:
        if type(value) is not int:
            raise inconsistent(f"{name} must be an int, got {value!r}")
    if type(o.taking) is not bool:
        raise inconsistent(f"taking must be a bool, got {o.taking!r}")
    for pair in _tuple(o.table, "table"):
        if not (isinstance(pair, tuple) and len(pair) == 2 and type(pair[0]) is Card
                and (pair[1] is None or type(pair[1]) is Card)):  # fmt: skip
            raise inconsistent(
                f"a table entry must be an (attack card, card or None), not {pair!r}"
            )
    if o.talon_order is not None and not all(
        type(c) is Card for c in _tuple(o.talon_order, "talon_order")
    ):
        raise inconsistent("the talon order must hold only cards")
    if not (o.trump_card is None or type(o.trump_card) is Card) or not (
        o.trump_suit is None or isinstance(o.trump_suit, Suit)
    ):
        raise inconsistent(
            f"the trump must be a Card and a Suit (or None), got {o.trump_card!r}, {o.trump_suit!r}"
        )
    if not isinstance(o.players_out, frozenset):
        raise inconsistent(f"players_out must be a frozenset, got {type(o.players_out).__name__}")
    k = o.knowledge
    if not (
        isinstance(k, Knowledge)
        and isinstance(k.exposed, CardSet)
        and isinstance(k.from_talon, CardSet)
    ):
        raise inconsistent("knowledge must be a Knowledge of two CardSets")
    for w in _tuple(k.origins, "origins"):
        if not (isinstance(w, tuple) and w and all(type(x) is int and x >= 0 for x in w)
                and w[-1] and gcd(*w) == 1):  # fmt: skip
            raise inconsistent(
                f"origin weights must be ints >= 0 in lowest terms ending above 0, not {w!r}"
            )
    if not isinstance(o.history, History):
        raise inconsistent(f"history must be a History, got {type(o.history).__name__}")
    _tuple(o.legal_actions, "legal_actions")


def _tuple(value: object, name: str) -> tuple[object, ...]:
    if not isinstance(value, tuple):
        raise inconsistent(f"{name} must be a tuple, got {type(value).__name__}")
    return value


def check_facts(o: Observation) -> None:
    """The facts no play breaks: players out, trumps, knowledge, open-world hands, and the
    roles, turn, cap and table of the phase (``o``'s shape and places already checked)."""
    _check_players_out(o)
    _check_trumps(o)
    _check_knowledge(o)
    if o.hands is not None:
        _check_open_world(o)
    if o.turn < 0:
        _check_finished(o)
    else:
        _check_roles(o)
        if o.table:
            _check_bout(o)
        elif o.turn != o.attacker:
            raise inconsistent(f"the attacker {o.attacker} leads a bout, not player {o.turn}")
        elif o.taking:
            raise inconsistent("nobody takes at a bout start")


def _check_players_out(o: Observation) -> None:
    for p in sorted(o.players_out):
        if o.hand_sizes[p]:
            raise inconsistent(f"player {p} is out but holds {o.hand_sizes[p]} cards")
    if o.players_out and o.talon_size:
        raise inconsistent("a player is out although the talon is not empty")
    if not o.table:
        # Between bouts whoever holds no cards has left (the talon being empty, as above).
        for p in range(o.rules.players):
            if not o.hand_sizes[p] and p not in o.players_out:
                raise inconsistent(f"player {p} holds no cards between bouts but is not out")


def _check_trumps(o: Observation) -> None:
    if not o.rules.trumps:
        if o.trump_suit is not None or o.trump_card is not None:
            raise inconsistent("a game without trumps has no trump suit or card")
        return
    if o.trump_suit is None:
        raise inconsistent("a game with trumps needs a trump suit")
    if o.trump_suit >= o.rules.suits:
        raise inconsistent(
            f"the trump suit {o.trump_suit} is not in the {o.rules.deck_size}-card deck"
        )
    if o.trump_card is None:
        if o.talon_size:
            raise inconsistent("a talon needs a face-up trump card")
    elif not deck_mask(o.rules.lowest_rank, o.rules.suits) >> o.trump_card.index & 1:
        raise inconsistent(
            f"the trump card {o.trump_card} is not in the {o.rules.deck_size}-card deck"
        )


def _check_knowledge(o: Observation) -> None:
    """Known cards are exactly the exposed cards of each hand; an exposed card is in a hand,
    on the table or face up under the talon; a trump known to have come from the talon is
    a trump never exposed, discarded or face up; origins only while there is such a trump."""
    k = o.knowledge
    exposed, from_talon = k.exposed.mask, k.from_talon.mask
    if o.known[o.player] != CardSet(exposed & o.hand.mask):
        raise inconsistent("the player's known cards must be the exposed cards of its hand")
    placed = table_mask(o.table) | (1 << o.face_up_trump.index if o.face_up_trump else 0)
    for p in range(o.rules.players):
        known = o.known[p].mask
        if known & ~exposed:
            raise inconsistent(
                f"{CardSet(known & ~exposed)} known in player {p}'s hand but not exposed"
            )
        placed |= o.known_cards(p).mask  # the whole hand for the player itself
    if exposed & ~placed:
        raise inconsistent(
            f"exposed {CardSet(exposed & ~placed)} is in no hand, not on the table, not face up"
        )
    # The trump card is shown at the deal and stays exposed until it is discarded.
    trump = o.trump_card
    if trump is not None and not (exposed | o.discard.mask) >> trump.index & 1:
        raise inconsistent(f"the trump card {trump} must be exposed unless discarded")
    if from_talon:
        _check_from_talon(o, from_talon, exposed)
    elif k.origins:
        raise inconsistent(
            "origins are recorded only while a trump is known to have been in the talon"
        )
    for p, w in enumerate(k.origins):
        if len(w) > o.hand_sizes[p] - len(o.known[p]) + 1:
            raise inconsistent(f"player {p}'s origins list more cards than it holds")


def _check_from_talon(o: Observation, from_talon: int, exposed: int) -> None:
    trumps = suit_mask(o.trump_suit) if o.trump_suit is not None else 0
    if from_talon & ~trumps:
        raise inconsistent(
            f"{CardSet(from_talon & ~trumps)} known to have been in the talon is not a trump"
        )
    seen = from_talon & (exposed | o.discard.mask)
    if seen:
        raise inconsistent(f"{CardSet(seen)} known to have been in the talon has been seen since")


def _check_open_world(o: Observation) -> None:
    assert o.hands is not None
    if o.hands[o.player] != o.hand:
        raise inconsistent("the player's hand differs from its entry in hands")
    for p, h in enumerate(o.hands):
        if len(h) != o.hand_sizes[p]:
            raise inconsistent(
                f"player {p}'s shown hand has {len(h)} cards; its size says {o.hand_sizes[p]}"
            )
        if o.known[p] != CardSet(h.mask & o.knowledge.exposed.mask):
            raise inconsistent(f"player {p}'s known cards must be the exposed cards of its hand")


def _check_finished(o: Observation) -> None:
    if o.table or o.taking or o.cap or o.legal_actions:
        raise inconsistent("a finished game has no table, take, cap or legal action")
    # Out players hold no cards, and none is out while the talon lasts (checked above).
    holding = o.rules.players - len(o.players_out)
    if not o.rules.can_repeat and holding > 1:
        raise inconsistent(
            "a game without repetition ends only when at most one player holds cards"
        )


def _check_roles(o: Observation) -> None:
    """A game in play: the roles are active players, the defender next after the
    attacker, the player to act holds cards, and the cap is the bout's."""
    n, out = o.rules.players, o.players_out
    if n - len(out) < 2:
        raise inconsistent("a game in play needs two players still in")
    for name, p in (("attacker", o.attacker), ("defender", o.defender), ("turn", o.turn)):
        if p in out:
            raise inconsistent(f"the {name} {p} is out")
    if o.defender != next_active(o.attacker, n, out):
        raise inconsistent(
            f"the defender {o.defender} is not the next player in after the attacker {o.attacker}"
        )
    if not o.hand_sizes[o.turn]:
        raise inconsistent(f"player {o.turn} is to act but holds no cards")
    if not o.hand_sizes[o.defender]:
        # It holds cards at a bout start, and a bout ends once it has beaten everything.
        raise inconsistent(f"the defender {o.defender} holds no cards")
    # The cap was fixed at the bout start (or the transfer) from the defender's hand, which
    # has lost only the cards it beat with since.
    defended = sum(d is not None for _, d in o.table)
    cap = min(base_cap(o.rules, o.discard), o.hand_sizes[o.defender] + defended)
    if o.cap != cap:
        raise inconsistent(f"the cap is {o.cap}; the bout's is {cap}")
    if len(o.table) > o.cap:
        raise inconsistent(f"{len(o.table)} attack cards exceed the cap {o.cap}")


def _check_bout(o: Observation) -> None:
    """A bout under way: each defence beats its card, each throw-in matches a rank on the
    table, and the player to act is the defender exactly while cards are unbeaten and
    nobody has taken."""
    ranks = 0
    for a, d in o.table:
        if ranks and not ranks & rank_mask(a.rank):
            raise inconsistent(f"the attack card {a} matches no rank on the table before it")
        ranks |= rank_mask(a.rank)
        if d is not None:
            if not beats(d, a, o.trump_suit):
                raise inconsistent(f"{d} does not beat {a}")
            ranks |= rank_mask(d.rank)
    # The cap (checked above) bounds the unbeaten cards by the defender's hand, and leaves
    # an attacker asked only while the defender holds cards.
    unbeaten = sum(d is None for _, d in o.table)
    if not o.taking and unbeaten:
        if o.turn != o.defender:
            raise inconsistent(
                f"player {o.turn} is asked while the defender {o.defender} has cards to beat"
            )
        return
    if o.taking and not unbeaten:
        raise inconsistent("the defender took with every card beaten")
    r = o.rules
    order = asking_order(
        r.players, r.throw_in == "neighbours", o.attacker, o.defender, o.players_out
    )
    if o.turn not in order:
        raise inconsistent(f"player {o.turn} is not an attacker who may throw in")
    if len(o.table) >= o.cap:
        raise inconsistent(f"an attacker is asked with the cap {o.cap} reached")


def check_world(o: Observation, world: GameState) -> None:
    """The legal actions of the player to act, read off a world drawn from ``o``, and the
    repetition record, kept only where a position can repeat."""
    own = legal_actions(world) if o.turn == o.player else ()
    if o.legal_actions != own:
        raise inconsistent("the legal actions are not those of the player's hand")
    if o.history and not o.rules.can_repeat:
        raise inconsistent("a game in which no position can repeat keeps no record")
