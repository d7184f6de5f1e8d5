"""A hint on request: what the strongest agent for a table's rules thinks of the person's
decision, as the page shows it.

:func:`analyst` builds the analyst (:data:`HINT_AGENT`, ``strongest``: it resolves per
rules, building each rules' agent once, at the first hint of those rules; a server shares
one among its tables), and a table's :class:`Hinter` analyses the person's current decision
(:func:`durak.agents.interface.analysis.analyse`) from the person's own observation only, under the
table's :class:`~durak.arena.play.referee.Referee`: the server's move time limit, and
called off when the table closes, as any agent's move.  :func:`hint_view` is what the
browser is sent, a pure function of that analysis and observation: every legal action,
numbered as the table view numbers it, with its value and visit share, and the one the
analyst would play.  The analyst's spec is checked against the server's allow-list
(:class:`~durak.web.policy.AgentPolicy`) when the table opens, as the opponents' are.
"""

from __future__ import annotations

import random
import threading
from typing import Any

from durak.agents import make_agent, shown_order
from durak.agents.base import Agent, SpecError, check_bound
from durak.agents.interface.analysis import Analysis, analyse
from durak.arena.play.referee import AgentFaultError, GameStopped, Referee
from durak.rules import Observation, Rules
from durak.seeding import derive_seed
from durak.web.settings import RequestError

__all__ = ["HINT_AGENT", "Hinter", "analyst", "hint_seed", "hint_view", "ready"]

#: The analyst of every hint.
HINT_AGENT = "strongest"

#: The sub-stream of a game's seed that hints draw from ("hint" in ASCII).
_HINT_STREAM = 0x68696E74


def analyst() -> Agent:
    """A new analyst of hints (:data:`HINT_AGENT`), not yet resolved for any rules."""
    return make_agent(HINT_AGENT)


def ready(agent: Agent, rules: Rules) -> None:
    """Resolve ``agent`` for ``rules`` (its network loads once, at the first hint of a
    table of these rules, outside the move time limit); :class:`~durak.agents.SpecError`
    if it cannot play them."""
    check_bound(agent, rules, HINT_AGENT)


def hint_seed(seed: int, game: int, version: int) -> int:
    """The seed of the hint of the table view ``version`` of deal ``game`` of ``seed``: a
    hint asked again of the same view is the same."""
    return derive_seed(seed, game, _HINT_STREAM, version)


def hint_view(analysis: Analysis, o: Observation, *, game: str, version: int) -> dict[str, Any]:
    """The hint as the browser is sent it: the game and the ``version`` of the view it
    analyses, the analyst's resolved spec and how it valued the actions (``kind``: a
    search, a solve or a network), the action it would play (``suggested``), and every
    legal action in the table view's order and numbering (``key``, ``text``) with its
    ``value`` (expected return of the person, -1 for losing as the durak; ``null`` if the
    analyst did not value it), its ``share`` of a search's visits and their count
    (``null`` for a network) and whether it is the suggested one."""
    actions = []
    for key, action in enumerate(shown_order(o), start=1):
        assessed = analysis.of(action)
        actions.append(
            {
                "key": key,
                "text": str(action),
                "value": assessed.value,
                "share": assessed.share,
                "visits": assessed.visits,
                "suggested": action == analysis.chosen,
            }
        )
    return {
        "game": game,
        "version": version,
        "agent": analysis.spec,
        "kind": analysis.kind,
        "suggested": str(analysis.chosen),
        "actions": actions,
    }


class Hinter:
    """One table's hints by ``agent`` (an :func:`analyst`, made :func:`ready` for the
    table's ``rules`` at the first hint) under the table's ``referee``: one hint computed
    at a time (a second request meanwhile is a 429), and the last one kept for its view."""

    def __init__(self, agent: Agent, rules: Rules, referee: Referee) -> None:
        self._agent = agent
        self._rules = rules
        self._referee = referee
        self._lock = threading.Lock()
        self._last: tuple[int, dict[str, Any]] | None = None

    def hint(self, o: Observation, seed: int, *, game: str, version: int) -> dict[str, Any]:
        """The hint of the person's decision in ``o`` (the table view ``version``), drawn
        from ``seed``; :class:`RequestError` (429) while another hint of this table is
        being computed, (503) if the analyst ran past the move time limit or failed, (409)
        if the table closed meanwhile."""
        if not self._lock.acquire(blocking=False):
            raise RequestError(429, "a hint is being computed for this game already")
        try:
            if self._last is not None and self._last[0] == version:
                return self._last[1]
            agent, rng = self._agent, random.Random(seed)
            try:
                ready(agent, self._rules)
            except SpecError as e:
                raise RequestError(503, f"no hint: {e}") from None
            try:
                analysis = self._referee.call(lambda: analyse(agent, o, rng))
            except AgentFaultError as e:
                raise RequestError(503, f"no hint: {HINT_AGENT}: {e.message}") from None
            except GameStopped:
                raise RequestError(409, "the game is over") from None
            view = hint_view(analysis, o, game=game, version=version)
            self._last = (version, view)
            return view
        finally:
            self._lock.release()
