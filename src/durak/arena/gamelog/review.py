"""A review of a logged game: at each decision of the reviewed seat(s), what was played,
what an analysing agent would have played, and the value lost by the difference.

The game is first replayed through the engine by :func:`~durak.arena.gamelog.replay.replay_entry`,
so a tampered log is refused exactly as ``durak replay`` refuses it (one
:class:`~durak.arena.gamelog.entry.LogError` line).  Each decision is then analysed
(:mod:`durak.agents.interface.analysis`) from the deciding seat's own
:func:`~durak.rules.observe` only, at the visibility the game was played with, never from
the state: a review tells the reviewed player nothing they could not see at the table.
The analyst also watches the game (its :class:`~durak.agents.interface.protocol.Watcher` hooks, if
it has them) through that seat's observations, as it would have at the table.

Every draw comes from ``derive_seed(seed, deal_seed, step)``: the same seed gives the same
review.  A forced decision (one legal action) is listed but not analysed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs

from durak.agents.base import Watcher, make_agent
from durak.agents.interface.analysis import Analysis, Analyst, analyse, not_an_analyst
from durak.arena.gamelog.entry import LogEntry
from durak.arena.gamelog.replay import Replay, replay_entry
from durak.rules import Action, Observation, observe
from durak.seeding import derive_seed

__all__ = [
    "PERSON",
    "Decision",
    "Progress",
    "Review",
    "decision_json",
    "person_seats",
    "review_entry",
    "reviewed_seats",
]

#: The name a log gives a seat played by a person (``durak play``, ``durak serve``).
PERSON = "human"

#: Told ``(decisions done, decisions in all)`` after each reviewed decision.
Progress = Callable[[int, int], None]

#: Builds the analysing agent from its spec for the game's rules.
AgentFactory = Callable[..., object]


@attrs.frozen
class Decision:
    """One decision of a reviewed seat: ``step``, the number of the action in the game
    (1-based, as ``durak replay`` numbers moves); ``seat``; ``observation``, what the seat
    saw; ``played``, the logged action; ``analysis``, the analyst's view (``None`` for a
    forced decision, which is not analysed)."""

    step: int
    seat: int
    observation: Observation
    played: Action
    analysis: Analysis | None

    @property
    def forced(self) -> bool:
        """Whether the seat had one legal action only."""
        return len(self.observation.legal_actions) == 1

    @property
    def chosen(self) -> Action:
        """The analyst's choice (the only action of a forced decision)."""
        return self.played if self.analysis is None else self.analysis.chosen

    @property
    def played_value(self) -> float | None:
        """The analyst's value of the played action (``None``: not valued, or forced)."""
        return None if self.analysis is None else self.analysis.of(self.played).value

    @property
    def chosen_value(self) -> float | None:
        """The analyst's value of its own choice (``None``: not valued, or forced)."""
        return None if self.analysis is None else self.analysis.of(self.chosen).value

    @property
    def loss(self) -> float | None:
        """The value lost by the played action (:meth:`Analysis.loss`): never negative,
        0.0 when it is the analyst's choice or the decision was forced, ``None`` when the
        analyst did not value one of the two."""
        return 0.0 if self.analysis is None else self.analysis.loss(self.played)


@attrs.frozen
class Review:
    """The review of ``game`` (a replayed log entry) for ``seats`` by the agent of spec
    ``analyst`` (as it resolved: ``strongest`` names the spec it plays) with ``seed``:
    ``decisions``, every decision of those seats in game order."""

    game: Replay
    seats: tuple[int, ...]
    analyst: str
    seed: int
    decisions: tuple[Decision, ...]

    @property
    def entry(self) -> LogEntry:
        """The logged game."""
        return self.game.entry

    def mistakes(self) -> tuple[Decision, ...]:
        """The decisions that lost value (a known loss over 0), the largest loss first,
        ties in game order."""
        lost = [d for d in self.decisions if (d.loss or 0.0) > 0.0]
        return tuple(sorted(lost, key=lambda d: (-(d.loss or 0.0), d.step)))

    @property
    def total_loss(self) -> float:
        """The sum of the known losses."""
        return sum(d.loss or 0.0 for d in self.decisions)

    def to_json(self) -> dict[str, Any]:
        """The review as a JSON object: the game (index, line, kind, agents by seat), the
        seats, the analyst and seed, every decision (:func:`decision_json`), the steps of
        the mistakes (largest loss first) and the total loss."""
        e = self.entry
        return {
            "game": e.game,
            "line": e.line,
            "kind": e.kind,
            "names": [e.specs[a] for a in e.seats],
            "seats": list(self.seats),
            "analyst": self.analyst,
            "seed": self.seed,
            "decisions": [decision_json(d) for d in self.decisions],
            "mistakes": [d.step for d in self.mistakes()],
            "total_loss": self.total_loss,
        }


def decision_json(d: Decision) -> dict[str, Any]:
    """One decision as a JSON object: step, seat, the played and the preferred action,
    their values and the loss (``null`` where unknown), whether it was forced, and the
    analysis (how it was found, every legal action with its value, visit share and
    visits, best first; empty when forced)."""
    a = d.analysis
    return {
        "step": d.step,
        "seat": d.seat,
        "played": str(d.played),
        "chosen": str(d.chosen),
        "forced": d.forced,
        "played_value": d.played_value,
        "chosen_value": d.chosen_value,
        "loss": d.loss,
        "kind": None if a is None else a.kind,
        "actions": []
        if a is None
        else [
            {"action": str(x.action), "value": x.value, "share": x.share, "visits": x.visits}
            for x in a.ranked()
        ],
    }


def person_seats(entry: LogEntry) -> tuple[int, ...]:
    """The seats a person played (named :data:`PERSON` in the log), in seat order."""
    return tuple(s for s, agent in enumerate(entry.seats) if entry.specs[agent] == PERSON)


def reviewed_seats(entry: LogEntry, seats: Sequence[int] | None) -> tuple[int, ...]:
    """``seats`` checked against the game (``ValueError`` naming a seat it does not
    have), or, when ``None``, the seats a person played, or every seat if none was."""
    n = entry.rules.players
    if seats is None:
        return person_seats(entry) or tuple(range(n))
    for s in seats:
        if not 0 <= s < n:
            raise ValueError(f"seat {s} is not a seat of this game (seats 0 to {n - 1})")
    return tuple(sorted(set(seats)))


def review_entry(
    entry: LogEntry,
    analyst: str = "strongest",
    *,
    seats: Sequence[int] | None = None,
    seed: int = 0,
    path: Path | str = "log",
    progress: Progress | None = None,
    make: AgentFactory = make_agent,
) -> Review:
    """The review of the logged game ``entry`` (read from ``path``) for ``seats``
    (:func:`reviewed_seats`) by the agent of spec ``analyst`` (built by ``make(spec,
    rules)``, one per seat), each decision drawing from ``derive_seed(seed,
    entry.deal_seed, step)``; ``progress`` is told after each decision.

    Raises :class:`~durak.arena.gamelog.entry.LogError` as ``durak replay`` does for an
    entry the engine refuses, :class:`~durak.agents.base.SpecError` for a spec that does
    not build or an agent that cannot analyse, ``ValueError`` for a bad seat."""
    chosen = reviewed_seats(entry, seats)
    game = replay_entry(entry, path)
    agents = {s: _analyst(make, analyst, entry) for s in chosen}
    total = sum(1 for m in game.movers if m in agents)
    decisions: list[Decision] = []
    spec = analyst
    for s, agent in agents.items():
        for d in _seat_decisions(game, s, agent, seed):
            decisions.append(d)
            if d.analysis is not None:
                spec = d.analysis.spec
            if progress is not None:
                progress(len(decisions), total)
    decisions.sort(key=lambda d: d.step)
    return Review(game, chosen, spec, seed, tuple(decisions))


def _analyst(make: AgentFactory, spec: str, entry: LogEntry) -> object:
    """The analysing agent for ``entry``'s rules; :class:`~durak.agents.SpecError` if it
    cannot analyse."""
    agent = make(spec, entry.rules)
    if not isinstance(agent, Analyst):
        raise not_an_analyst(spec)
    return agent


def _seat_decisions(game: Replay, seat: int, agent: object, seed: int) -> Iterator[Decision]:
    """Every decision of ``seat``, each as soon as it is analysed (so that progress is
    told, and a stop heard, after each), the analyst watching the game from that seat."""
    entry, states = game.entry, game.states
    view = entry.open_world
    watcher = agent if isinstance(agent, Watcher) else None
    if watcher is not None:
        watcher.game_started(observe(states[0], seat, view))
    for k, (action, mover) in enumerate(zip(game.actions, game.movers, strict=True)):
        if mover == seat:
            seen = observe(states[k], seat, view)
            analysis = None
            if len(seen.legal_actions) > 1:
                rng = random.Random(derive_seed(seed, entry.deal_seed, k + 1))
                analysis = analyse(agent, seen, rng)
            yield Decision(k + 1, seat, seen, action, analysis)
        if watcher is not None:
            watcher.action_taken(mover, action, observe(states[k + 1], seat, view))
    if watcher is not None:
        durak = None if entry.durak is None else entry.seats.index(entry.durak)
        watcher.game_ended(observe(game.final, seat, view), durak)
