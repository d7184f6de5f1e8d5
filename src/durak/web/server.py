"""The web server of ``durak serve``: FastAPI routes over :class:`~durak.web.registry.Tables`.

Plain HTTP with JSON; the page polls its table.  Routes:

* ``GET /``: the page; ``GET /static/...``: its files (only those of the package's
  ``static`` folder);
* ``GET /api/agents``: the agents a client may choose (the server's
  :class:`~durak.web.policy.AgentPolicy`), for the opponent lists;
* ``POST /api/learned``: the learned agents at the table a game request would open
  (:class:`GameRequest`; nothing is started or built), for the opponent lists;
* ``POST /api/games``: start a game (:class:`GameRequest`); the answer is the table view;
* ``GET /api/games/{id}[?after=V]``: the table view (a reconnecting page asks again with
  its id); with ``after``, the answer waits up to :data:`LONG_POLL` seconds for a version
  newer than ``V``, on the event loop (no thread is held, however many wait);
* ``POST /api/games/{id}/actions``: ``{"action": "Attack(6♠)", "version": 7}``;
* ``POST /api/games/{id}/rematch``: the same deal, seats turned; ``.../next``: the next
  deal;
* ``POST /api/games/{id}/review``: start the review of a finished game (or give the one
  started); ``GET`` the same path: its progress, then the review
  (:mod:`durak.web.reviews`); ``GET /review/{id}``: the page that shows it.
* ``POST /api/games/{id}/hint``: what the strongest agent for the rules thinks of the
  person's decision (:mod:`durak.web.hints`); 403 at a table made with ``"hints": false``,
  409 when the game is over or it is not the person's turn.

A bad or stale request gets a short 4xx answer ``{"detail": "one line"}`` and changes
nothing: request bodies are read strictly (no ``"12"`` for a number) up to
:data:`MAX_BODY` bytes (then 413); a full server answers 503.
"""

from __future__ import annotations

import asyncio
import secrets
import socket
from collections.abc import AsyncIterator, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn import Config, Server

from durak.rules import Rules, RulesError
from durak.web.learned import learned_view
from durak.web.policy import QUOTE, cut
from durak.web.registry import Tables
from durak.web.reviews import Reviews
from durak.web.schema import AgentInfo, HintView, LearnedView, ReviewState, TableView, answers
from durak.web.settings import GameSettings, RequestError

__all__ = ["MAX_BODY", "STATIC", "ActionRequest", "GameRequest", "create_app", "run"]

#: The page's files, served as they are (no build step).
STATIC = Path(__file__).parent / "static"

#: How long a long poll waits for the table to change, in seconds.
LONG_POLL = 20.0

#: The largest seed a person may give (the engine's seeds are 64-bit).
MAX_SEED = 2**63 - 1

#: The longest agent spec a request may hold, in characters.
MAX_SPEC = 200

#: The largest request body, in bytes.
MAX_BODY = 16 * 1024

#: The longest error text.
MAX_DETAIL = 300

_STRICT = ConfigDict(strict=True, extra="forbid")


class GameRequest(BaseModel):
    """A new game: the opponents' agent specs (one per other seat, in seat order), the
    person's seat, the rules (each option of ``durak match`` a table can use; the deck as
    ``lowest_rank`` and ``suits``, or as its card count ``deck``), an optional seed, and
    whether the table gives hints (on unless ``false``)."""

    model_config = _STRICT

    opponents: list[Annotated[str, Field(max_length=MAX_SPEC)]] = Field(min_length=1, max_length=5)
    seat: int = Field(0, ge=0, le=5)
    variant: Literal["podkidnoy", "perevodnoy"] = "podkidnoy"
    deck: int = Field(36, ge=1, le=52)
    suits: int = Field(4, ge=1, le=4)
    lowest_rank: int | None = Field(None, ge=2, le=14)
    hand_size: int = Field(6, ge=1, le=12)
    throw_in: Literal["all", "neighbours"] = "all"
    bout_cap: int = Field(6, ge=1, le=12)
    first_bout_cap: int | None = Field(None, ge=1, le=12)
    trumps: bool = True
    seed: int | None = Field(None, ge=0, le=MAX_SEED)
    hints: bool = True

    def settings(self) -> GameSettings:
        """The game's settings; :class:`RequestError` for rules that cannot be played."""
        try:
            rules = Rules(
                players=len(self.opponents) + 1,
                lowest_rank=self._lowest_rank(),
                suits=self.suits,
                hand_size=self.hand_size,
                bout_cap=self.bout_cap,
                first_bout_cap=self.first_bout_cap,
                throw_in=self.throw_in,
                transfer=self.variant == "perevodnoy",
                trumps=self.trumps,
            )
        except RulesError as e:
            raise RequestError(400, str(e)) from None
        seed = secrets.randbelow(2**32) if self.seed is None else self.seed
        return GameSettings(rules, self.seat, tuple(self.opponents), seed, hints=self.hints)

    def _lowest_rank(self) -> int:
        """The deck's lowest rank: ``lowest_rank`` if given (a ``deck`` given with it must
        count its cards), else the one that gives ``deck`` cards in ``suits`` suits (the
        36-card deck's 6 when neither is given)."""
        deck_given = "deck" in self.model_fields_set
        if self.lowest_rank is not None:
            cards = self.suits * (15 - self.lowest_rank)
            if deck_given and self.deck != cards:
                raise RequestError(
                    400,
                    f"deck {self.deck} does not match lowest_rank {self.lowest_rank} "
                    f"in {self.suits} suits ({cards} cards)",
                )
            return self.lowest_rank
        if not deck_given:
            return 6
        if self.deck % self.suits:
            raise RequestError(
                400, f"a deck holds {self.suits} cards of each rank; {self.deck} is not"
            )
        if self.deck > self.suits * 13:
            raise RequestError(
                400, f"a deck of {self.suits} suits holds at most {self.suits * 13} cards"
            )
        return 15 - self.deck // self.suits


class ActionRequest(BaseModel):
    """The person's action (the engine's notation) and the version of the view it was
    chosen on."""

    model_config = _STRICT

    action: str = Field(max_length=64)
    version: int = Field(ge=0)


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes gets 413 before the app reads
    it (the body is read at most ``limit`` bytes and a chunk far)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client has gone
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.limit:
                too_big = JSONResponse(
                    {"detail": f"the request body is over {self.limit} bytes"}, status_code=413
                )
                await too_big(scope, receive, send)
                return
            if not message.get("more_body", False):
                break
        body: Message | None = {"type": "http.request", "body": b"".join(chunks)}

        async def replay() -> Message:
            nonlocal body
            if body is None:
                return await receive()
            message, body = body, None
            return message

        await self.app(scope, replay, send)


async def _unless_gone(request: Request, waiting: Coroutine[Any, Any, None]) -> None:
    """Await ``waiting``, or stop once the client has gone: an abandoned long poll frees
    its place at once."""
    wait = asyncio.ensure_future(waiting)
    gone = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait((wait, gone), return_when=asyncio.FIRST_COMPLETED)
    finally:
        wait.cancel()
        gone.cancel()
    if wait.done() and not wait.cancelled():
        wait.result()  # its RequestError, if it had one


async def _disconnected(request: Request) -> None:
    """Return once the client has closed the connection (the body is read already)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


def _invalid(error: Any) -> str:
    """One line for pydantic's first complaint about a request: the field and why, the
    whole body's fault (``the request body: ...``), or a body that is not JSON (pydantic
    gives its position as the field)."""
    where = [str(x) for x in error.get("loc", ()) if x != "body"]
    if error.get("type") == "json_invalid":
        why = error.get("ctx", {}).get("error", "JSON decode error")
        at = f" at position {where[-1]}" if where else ""
        return f"the request body is not valid JSON ({why}{at})"
    field = cut(".".join(where), QUOTE) if where else "the request body"
    return f"{field}: {error.get('msg')}"


def _described(ok: Any, *errors: int) -> dict[str, Any]:
    """A route's answers as ``/openapi.json`` describes them (:func:`durak.web.schema.answers`)."""
    return {"response_model": None, "responses": answers(ok, *errors)}


def create_app(tables: Tables, reviews: Reviews | None = None) -> FastAPI:
    """The server's app over ``tables`` and the ``reviews`` of their games (by default,
    :class:`Reviews` under the tables' limits); both closed when the app shuts down."""
    reviews = Reviews(tables.limits) if reviews is None else reviews

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        reviews.close()
        tables.close()

    app = FastAPI(title="durak", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.add_middleware(BodyLimit, limit=MAX_BODY)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    _error_handlers(app)

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    # The answers are described by `answers` (durak.web.schema), and sent as built: a model
    # documents them, it does not rebuild or filter them (response_model=None).
    @app.get("/api/agents", operation_id="list_agents", **_described(list[AgentInfo]))
    async def agents() -> list[dict[str, Any]]:
        return [
            {"name": name, "description": description}
            for name, description in tables.policy.agents().items()
        ]

    # Whether a network fits may load it: on a worker thread.
    @app.post("/api/learned", operation_id="learned_agents", **_described(LearnedView, 400, 422))
    def learned(request: GameRequest) -> dict[str, Any]:
        return learned_view(request.settings().rules, tables.policy)

    # Opening a table builds its agents (a model may load): on a worker thread.
    @app.post("/api/games", operation_id="start_game", **_described(TableView, 400, 422, 503))
    def start(request: GameRequest) -> dict[str, Any]:
        return tables.open(request.settings()).view()

    @app.get(
        "/api/games/{game_id}", operation_id="view_game", **_described(TableView, 404, 422, 429)
    )
    async def view(request: Request, game_id: str, after: int | None = None) -> dict[str, Any]:
        table = tables.get(game_id)
        if after is not None:
            await _unless_gone(request, table.newer_than(after, LONG_POLL))
        return table.view()

    @app.post(
        "/api/games/{game_id}/actions",
        operation_id="act",
        **_described(TableView, 400, 404, 409, 422),
    )
    async def act(game_id: str, request: ActionRequest) -> dict[str, Any]:
        table = tables.get(game_id)
        await table.submit(request.action, request.version)
        return table.view()

    @app.post(
        "/api/games/{game_id}/rematch",
        operation_id="rematch",
        **_described(TableView, 400, 404, 422, 503),
    )
    def rematch(game_id: str) -> dict[str, Any]:
        return tables.open(tables.get(game_id).settings.rematch()).view()

    @app.post(
        "/api/games/{game_id}/next",
        operation_id="next_game",
        **_described(TableView, 400, 404, 422, 503),
    )
    def next_game(game_id: str) -> dict[str, Any]:
        return tables.open(tables.get(game_id).settings.next_game()).view()

    _hint_route(app, tables)
    _review_routes(app, tables, reviews)
    return app


def _error_handlers(app: FastAPI) -> None:
    """Every refused request answered as one short line (a :class:`~durak.web.schema.Problem`)."""

    @app.exception_handler(RequestError)
    async def request_error(_: Request, e: RequestError) -> JSONResponse:
        return JSONResponse({"detail": cut(e.message, MAX_DETAIL)}, status_code=e.status)

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, e: RequestValidationError) -> JSONResponse:
        first = e.errors()[0] if e.errors() else {"loc": (), "msg": "invalid request"}
        return JSONResponse({"detail": cut(_invalid(first), MAX_DETAIL)}, status_code=422)


def _hint_route(app: FastAPI, tables: Tables) -> None:
    """The hint of a person's decision (:mod:`durak.web.hints`)."""

    # A hint runs the analyst (under the move time limit): on a worker thread.
    @app.post(
        "/api/games/{game_id}/hint",
        operation_id="hint",
        **_described(HintView, 403, 404, 409, 422, 429, 503),
    )
    def hint(game_id: str) -> dict[str, Any]:
        return tables.get(game_id).hint()


def _review_routes(app: FastAPI, tables: Tables, reviews: Reviews) -> None:
    """The routes of the reviews of finished games (:mod:`durak.web.reviews`) and their page."""

    @app.get("/review/{game_id}", include_in_schema=False)
    async def review_page(game_id: str) -> FileResponse:
        return FileResponse(STATIC / "review.html")

    # A review is kept encoded: the cached answer is sent as it is.  Starting one may wait
    # a moment for a game that has just ended to be logged: on a worker thread.
    @app.post(
        "/api/games/{game_id}/review",
        operation_id="start_review",
        **_described(ReviewState, 404, 409, 422, 503),
    )
    def start_review(game_id: str) -> Response:
        found = reviews.cached(game_id)
        if found is None:
            found = reviews.start(tables.get(game_id))
        return Response(found, media_type="application/json")

    @app.get(
        "/api/games/{game_id}/review",
        operation_id="view_review",
        **_described(ReviewState, 404, 422),
    )
    async def view_review(game_id: str) -> Response:
        return Response(reviews.state(game_id), media_type="application/json")


def run(tables: Tables, listener: socket.socket) -> None:
    """Serve the app over ``tables`` on ``listener`` until SIGINT or SIGTERM.

    Shutting down closes the tables first: the waiting long polls are answered at once,
    every agent is stopped and every game logged; a request still running a second later
    is cancelled."""

    class _Server(Server):
        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            tables.close()
            await super().shutdown(sockets)

    config = Config(create_app(tables), log_level="warning", timeout_graceful_shutdown=1)
    _Server(config).run(sockets=[listener])
