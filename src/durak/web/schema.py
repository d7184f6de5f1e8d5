"""The schema of the web API's answers: what its OpenAPI description (``/openapi.json``)
says the routes send.

The models here describe what the routes of :mod:`durak.web.server` send: the table view
of :func:`~durak.web.views.table_view`, the hint of :func:`~durak.web.hints.hint_view`,
the agent list, and the one-line error
``{"detail": "..."}`` of every 4xx and 503 answer.  They document the answers and are not
used to build them, so ``tests/web/test_schema.py`` checks with schemathesis that every
answer fits its description, that every status a route can answer is declared, and follows
the links declared here from a new game to its view, its actions, its hint, its rematch and
its next deal.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

__all__ = [
    "AgentInfo",
    "HintView",
    "LearnedView",
    "Problem",
    "ReviewState",
    "TableView",
    "answers",
]

_CLOSED = ConfigDict(extra="forbid")


class Problem(BaseModel):
    """A refused request: one line saying why."""

    model_config = _CLOSED

    detail: str


class AgentInfo(BaseModel):
    """An agent a client may seat: its name and what it does."""

    model_config = _CLOSED

    name: str
    description: str


class LearnedView(BaseModel):
    """The learned agents at a table (:func:`~durak.web.learned.learned_view`): whether a
    shipped network fits its rules, the agents that play it there, the agents refused
    there for want of one, and one sentence saying which."""

    model_config = _CLOSED

    fits: bool
    agents: list[str]
    refused: list[str]
    note: str


class RulesView(BaseModel):
    """The game's rules (:class:`~durak.rules.Rules`)."""

    model_config = _CLOSED

    players: int
    lowest_rank: int
    suits: int
    hand_size: int
    bout_cap: int
    first_bout_cap: int | None
    throw_in: Literal["all", "neighbours"]
    transfer: bool
    trumps: bool


class SeatView(BaseModel):
    """A seat: its name, whether it is the person's, its hand size, the cards of its hand
    everyone has seen, its role in the bout and whether it is out."""

    model_config = _CLOSED

    seat: int
    name: str
    you: bool
    cards: int
    known: list[str]
    role: Literal["attacker", "defender", ""]
    out: bool


class HandCard(BaseModel):
    """A card of the person's hand."""

    model_config = _CLOSED

    card: str
    trump: bool


class Pair(BaseModel):
    """An attack on the table and its defence (``null`` while it stands)."""

    model_config = _CLOSED

    attack: str
    defence: str | None


class TrumpView(BaseModel):
    """The trump suit and the trump card under the talon (``null`` without trumps)."""

    model_config = _CLOSED

    suit: str | None
    card: str | None


class Choice(BaseModel):
    """A legal action of the person: its number, its text (what ``actions`` takes) and the
    cards it plays."""

    model_config = _CLOSED

    key: int
    text: str
    cards: list[str]


class Played(BaseModel):
    """A public action: the seat that took it, its name and the action."""

    model_config = _CLOSED

    seat: int
    name: str
    action: str


class ResultView(BaseModel):
    """How the game ended: the durak's seat (``null``: a draw), a forfeit's reason and the
    seed, which gives the deal and so is sent only now."""

    model_config = _CLOSED

    durak: int | None
    draw: bool
    forfeit: str | None
    seed: int


class TableView(BaseModel):
    """The person's table (``docs/web.md``): ``version`` grows with every change; an
    action is chosen from ``actions`` on the view of its version; ``hints``: whether the
    table gives hints."""

    model_config = _CLOSED

    game: str
    version: int
    rules: RulesView
    you: int
    seats: list[SeatView]
    hand: list[HandCard]
    table: list[Pair]
    trump: TrumpView
    talon: int
    discard: int
    attacker: int
    defender: int
    turn: int
    taking: bool
    thinking: bool
    actions: list[Choice]
    moves: int
    history: list[Played]
    over: bool
    hints: bool
    result: ResultView | None


class Assessment(BaseModel):
    """A legal action as the analysing agent sees it: its value (``null``: not valued),
    the share and number of the search's visits (``null`` for a network or a solve)."""

    model_config = _CLOSED

    action: str
    value: float | None
    share: float | None
    visits: int | None


class Position(BaseModel):
    """What the person saw at a decision: the fields of the table view that show a
    position."""

    model_config = _CLOSED

    seats: list[SeatView]
    hand: list[HandCard]
    table: list[Pair]
    trump: TrumpView
    talon: int
    discard: int
    attacker: int
    defender: int


class ReviewedDecision(BaseModel):
    """A decision of the person: its step (the action's number in the game), the action
    played and the one the analyst preferred, their values and the value lost (``null``
    where unknown; 0 when forced), how the values were found and every legal action best
    first (empty when forced: not analysed), and the position."""

    model_config = _CLOSED

    step: int
    seat: int
    played: str
    chosen: str
    forced: bool
    played_value: float | None
    chosen_value: float | None
    loss: float | None
    kind: Literal["search", "solve", "network"] | None
    actions: list[Assessment]
    position: Position


class ReviewResult(BaseModel):
    """Who lost the reviewed game (``null``: a draw)."""

    model_config = _CLOSED

    durak: int | None
    draw: bool


class ReviewView(BaseModel):
    """The review of the person's seat: every public move, each decision of theirs, the
    steps of the mistakes (the largest loss first) and the total loss."""

    model_config = _CLOSED

    seat: int
    names: list[str]
    analyst: str
    moves: list[Played]
    decisions: list[ReviewedDecision]
    mistakes: list[int]
    total_loss: float
    result: ReviewResult


class ReviewState(BaseModel):
    """A review being made: ``done`` of ``total`` decisions, then the ``review`` (or,
    ``failed``, the ``detail`` why)."""

    model_config = _CLOSED

    game: str
    state: Literal["running", "done", "failed"]
    done: int
    total: int
    detail: str | None
    review: ReviewView | None


class HintChoice(BaseModel):
    """A legal action as the hint's analyst sees it: its number and text (as the table
    view's ``actions`` list it), its value (the person's expected return; ``null``: not
    valued), its share of a search's visits and their count (``null`` for a network) and
    whether it is the suggested action."""

    model_config = _CLOSED

    key: int
    text: str
    value: float | None
    share: float | None
    visits: int | None
    suggested: bool


class HintView(BaseModel):
    """A hint (``docs/web.md``): the analyst's view of the person's decision on the table
    view of ``version``: its spec, how it valued the actions, the action it would play,
    and every legal action."""

    model_config = _CLOSED

    game: str
    version: int
    agent: str
    kind: Literal["search", "solve", "network"]
    suggested: str
    actions: list[HintChoice]


#: Why each error status is answered (the body is always a :class:`Problem`).
_WHY = {
    400: "The request cannot be served: an agent the server does not allow or cannot "
    "build, rules that cannot be played, or a body that cannot be read.",
    403: "The game's table was made with hints off.",
    404: "No such game (it may have been closed after idling), or no review of it started.",
    409: "The game has moved on since the view the action was chosen on, it is over, or "
    "it is not the person's turn (to act, or to be given a hint); a review: the game is "
    "not over.",
    413: "The request body is over the server's limit.",
    422: "The request does not fit its schema (the field and why), or the action is not "
    "a legal one.",
    429: "Too many long polls wait on this game already, or a hint of it is being computed.",
    503: "The server holds as many games, or makes as many reviews, as it may, or the "
    "hint's analyst ran past the move time limit; try later.",
}

#: Where a table view leads: the operation ids of the routes that take its game.
_LINKS: dict[str, dict[str, Any]] = {
    "view": {
        "operationId": "view_game",
        "parameters": {"game_id": "$response.body#/game", "after": "$response.body#/version"},
    },
    "act": {
        "operationId": "act",
        "parameters": {"game_id": "$response.body#/game"},
        "requestBody": {
            "action": "$response.body#/actions/0/text",
            "version": "$response.body#/version",
        },
    },
    "rematch": {"operationId": "rematch", "parameters": {"game_id": "$response.body#/game"}},
    "next": {"operationId": "next_game", "parameters": {"game_id": "$response.body#/game"}},
    "hint": {"operationId": "hint", "parameters": {"game_id": "$response.body#/game"}},
}


def answers(ok: Any, *errors: int) -> dict[int | str, dict[str, Any]]:
    """A route's ``responses`` declaration: ``ok``, the model of its 200 answer (a
    :class:`TableView` leads, by its links, to the routes that take its game), and the
    error statuses it may answer, each a :class:`Problem` (413 always: the body limit holds
    for every request)."""
    declared: dict[int | str, dict[str, Any]] = {200: {"model": ok}}
    if ok is TableView:
        declared[200]["links"] = _LINKS
    for status in sorted({*errors, 413}):
        declared[status] = {"model": Problem, "description": _WHY[status]}
    return declared
