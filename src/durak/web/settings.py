"""What a web server grants its clients (:class:`Limits`) and what a person chooses for a
game (:class:`GameSettings`), both checked when made; a request that breaks them is a
:class:`RequestError`, one line with a 4xx or 503 status (``docs/web.md``).
"""

from __future__ import annotations

from typing import Any

import attrs

from durak.arena.play.referee import check_move_timeout
from durak.rules import Rules

__all__ = ["GameSettings", "Limits", "RequestError"]


class RequestError(Exception):
    """A request that cannot be served: ``status`` (a 4xx or 503 code) and a one-line
    message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _positive(_: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if not value > 0:
        raise ValueError(f"{attribute.name} must be positive, got {value}")


def _move_timeout(_: object, __: attrs.Attribute[Any], value: float) -> None:
    check_move_timeout(value)


@attrs.frozen
class Limits:
    """What a server grants its clients: ``move_timeout`` seconds for each decision of an
    agent (over it, the agent forfeits), ``idle_seconds`` before a table nobody asks about
    is closed, ``max_tables`` tables held at once (then 503), ``max_polls`` long polls
    waiting on one table (then 429) and ``max_reviews`` reviews of finished games computed
    at once, each on a worker thread (then 503)."""

    move_timeout: float = attrs.field(default=5.0, validator=_move_timeout)
    idle_seconds: float = attrs.field(default=1800.0, validator=_positive)
    max_tables: int = attrs.field(default=1000, validator=_positive)
    max_polls: int = attrs.field(default=8, validator=_positive)
    max_reviews: int = attrs.field(default=2, validator=_positive)


@attrs.frozen
class GameSettings:
    """What a person chooses: the rules, their seat, the opponents' agent specs (in seat
    order, the person's seat left out), the seed (``game`` picks the deal) and whether
    the table gives hints (:mod:`durak.web.hints`)."""

    rules: Rules
    seat: int
    opponents: tuple[str, ...]
    seed: int
    game: int = 0
    hints: bool = True

    def __attrs_post_init__(self) -> None:
        if len(self.opponents) != self.rules.players - 1:
            raise RequestError(
                400, f"{self.rules.players} players need {self.rules.players - 1} opponents"
            )
        if not 0 <= self.seat < self.rules.players:
            raise RequestError(400, f"seat {self.seat} is not a seat of this game")

    @property
    def names(self) -> tuple[str, ...]:
        """Every seat's name: the specs, and ``human`` for the person."""
        o = self.opponents
        return (*o[: self.seat], "human", *o[self.seat :])

    def rematch(self) -> GameSettings:
        """The same deal with the seats turned one place: the person takes the next seat,
        and the opponents keep their order around the table."""
        n = self.rules.players
        names = list(self.names)
        turned = names[-1:] + names[:-1]
        seat = (self.seat + 1) % n
        others = tuple(turned[:seat] + turned[seat + 1 :])
        return GameSettings(self.rules, seat, others, self.seed, self.game, self.hints)

    def next_game(self) -> GameSettings:
        """The next deal of the same seed."""
        return attrs.evolve(self, game=self.game + 1)
