"""Variant options of Durak (``docs/rules.md``, section "Options").

Defaults are classic two-player Podkidnoy ("fool with throwing in") with a 36-card deck,
as described by Pagat (https://www.pagat.com/beating/podkidnoy_durak.html); ``transfer=True``
gives Perevodnoy (https://www.pagat.com/beating/perevodnoy_durak.html).
"""

from __future__ import annotations

from typing import Literal

import attrs

from durak.rules.errors import RulesError

ThrowIn = Literal["all", "neighbours"]
THROW_IN_CHOICES: tuple[ThrowIn, ...] = ("all", "neighbours")


@attrs.frozen(slots=True, cache_hash=True)
class Rules:
    """The options of one Durak variant.  Construction validates them all.

    Fields and their invariants:

    * ``players``: 2..6 players.
    * ``lowest_rank``: 2..14; the deck holds every rank from it to the ace
      (in four suits, 2, 6, 7 and 9 give 52, 36, 32 and 24 cards).
    * ``suits``: 1..4; the deck holds the first this many suits (S, H, D, C order), so
      ``suits=2, lowest_rank=12`` is the six cards Q, K, A of spades and hearts.  The trump
      card is drawn among them like any other.
    * ``hand_size``: cards dealt and refilled to, at least 1; ``players * hand_size`` must not
      exceed the deck.
    * ``bout_cap``: at most this many attack cards in a bout (also capped by the defender's
      hand at the bout start), at least 1.
    * ``first_bout_cap``: ``None``, or a cap (at least 1) that replaces ``bout_cap`` while the
      discard pile is empty, i.e. until the first successful defence.
    * ``throw_in``: ``"all"`` non-defenders may throw in, or only the defender's two
      ``"neighbours"``.
    * ``transfer``: Perevodnoy; the defender may pass the attack on with a card of its rank.
    * ``trumps``: ``False`` plays without a trump suit.

    Raises :class:`RulesError` naming the first inconsistent option.
    """

    players: int = 2
    lowest_rank: int = 6
    suits: int = 4
    hand_size: int = 6
    bout_cap: int = 6
    first_bout_cap: int | None = None
    throw_in: ThrowIn = "all"
    transfer: bool = False
    trumps: bool = True

    def __attrs_post_init__(self) -> None:
        def need_int(name: str, value: object) -> None:
            if not isinstance(value, int) or isinstance(value, bool):
                raise RulesError(f"Rules.{name} must be an int, got {value!r}")

        for name in ("players", "lowest_rank", "suits", "hand_size", "bout_cap"):
            need_int(name, getattr(self, name))
        if not 2 <= self.players <= 6:
            raise RulesError(f"Rules.players must be 2..6, got {self.players}")
        if not 2 <= self.lowest_rank <= 14:
            raise RulesError(f"Rules.lowest_rank must be 2..14, got {self.lowest_rank}")
        if not 1 <= self.suits <= 4:
            raise RulesError(f"Rules.suits must be 1..4, got {self.suits}")
        if self.hand_size < 1:
            raise RulesError(f"Rules.hand_size must be at least 1, got {self.hand_size}")
        if self.players * self.hand_size > self.deck_size:
            raise RulesError(
                f"{self.players} players × hand_size {self.hand_size} = "
                f"{self.players * self.hand_size} cards, more than the {self.deck_size}-card deck "
                f"(lowest_rank={self.lowest_rank}, suits={self.suits})"
            )
        if self.bout_cap < 1:
            raise RulesError(f"Rules.bout_cap must be at least 1, got {self.bout_cap}")
        if self.first_bout_cap is not None:
            need_int("first_bout_cap", self.first_bout_cap)
            if self.first_bout_cap < 1:
                raise RulesError(
                    f"Rules.first_bout_cap must be None or at least 1, got {self.first_bout_cap}"
                )
        if self.throw_in not in THROW_IN_CHOICES:
            raise RulesError(
                f"Rules.throw_in must be one of {', '.join(THROW_IN_CHOICES)}, "
                f"got {self.throw_in!r}"
            )
        for name in ("transfer", "trumps"):
            if not isinstance(getattr(self, name), bool):
                raise RulesError(f"Rules.{name} must be a bool, got {getattr(self, name)!r}")

    @property
    def can_repeat(self) -> bool:
        """Whether a bout-start position can repeat: with 3+ players or transfer only.

        With two players and no transfer a potential falls with every bout
        (``docs/rules.md``, "Termination"), so no repetition record is needed.
        """
        return self.players > 2 or self.transfer

    @property
    def deck_size(self) -> int:
        """The number of cards in the deck: ``suits * (15 - lowest_rank)``."""
        return self.suits * (15 - self.lowest_rank)
