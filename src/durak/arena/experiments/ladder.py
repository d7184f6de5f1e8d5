"""A rating ladder: a round robin of two-player duplicate matches that grows one agent at
a time and keeps every game it has played.

Every pair of agents plays its own duplicate match (:mod:`durak.arena.play.match`) under
the ladder's rules.  A pair's deals come from :func:`pair_seed`, the ladder's master seed
mixed with the pair's two specs (in sorted order), never with the order in which agents
joined: a pair plays the same games whenever it is scheduled, so adding an agent plays
only its new pairings and leaves the others as they were, and a pair can be extended
later (its game ``g`` is the same game in a match of any length).  The results are kept
per game (:class:`PairRecord`), so the ratings can resample whole deals
(:mod:`durak.arena.scores.ratings`); the ladder file (:mod:`durak.arena.experiments.ladder_file`)
stores them.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Generator, Sequence
from contextlib import closing, suppress
from itertools import combinations
from typing import Any

import attrs

from durak.agents.interface.protocol import resolutions
from durak.agents.naming import canonical_spec, distinct_specs
from durak.agents.seats import UNATTENDED
from durak.agents.specs import SpecError
from durak.arena.play.match import GameOutcome, MatchPlan, build_agents
from durak.arena.play.referee import Referee
from durak.arena.runs.interface import Backend, Task, refuse_in_starting_worker
from durak.arena.runs.signals import hold_interrupts
from durak.arena.scores.ratings import Matchup
from durak.rules import Rules
from durak.seeding import derive_seed

__all__ = ["CODES", "Ladder", "LadderSetup", "PairRecord", "Schedule", "check_specs", "pair_seed"]

#: A game's result from the first agent's side: a win, a loss, a draw, a win by the other's
#: forfeit, a loss by its own forfeit.
CODES = "WLDwl"
#: Games per deal: two players, seats swapped.
DEAL = 2
#: Seconds between two saves while pairs are under way (a finished pair is saved at once).
SAVE_EVERY = 10.0


def pair_seed(seed: int, first: str, second: str) -> int:
    """The master seed of the match of specs ``first`` and ``second`` (in either order)
    in a ladder of master ``seed``."""
    a, b = sorted((first, second))
    digest = hashlib.sha256(f"{a}\n{b}".encode()).digest()
    return derive_seed(seed, int.from_bytes(digest[:8], "big"))


def check_specs(specs: Sequence[str], rules: Rules) -> list[str]:
    """``ValueError`` naming the problem unless ``specs`` are at least two agents, none
    given twice under any spelling (:func:`~durak.agents.naming.distinct_specs`), none
    naming ``human`` at any depth (:data:`~durak.agents.seats.UNATTENDED`), each one that
    builds for ``rules`` (:class:`~durak.agents.SpecError`); what those the rules resolve
    play (:func:`~durak.agents.interface.protocol.resolutions`)."""
    if len(specs) < 2:
        raise ValueError(f"a ladder needs at least two agents, got {len(specs)}")
    distinct_specs(specs)
    UNATTENDED.check_all(specs)
    return resolutions(specs, build_agents(specs, rules), rules)


def _code(outcome: GameOutcome) -> str:
    """The result of a game of a pair's plan, from the plan's first agent's side."""
    if outcome.durak is None:
        return "D"
    code = "W" if outcome.durak == 1 else "L"
    return code.lower() if outcome.forfeit is not None else code


@attrs.frozen
class PairRecord:
    """The games of ``first`` and ``second`` (``first < second``), game ``g`` being game
    ``g`` of their match: ``results[g]`` is one of :data:`CODES` from ``first``'s side.

    Raises ``ValueError`` for specs out of order or equal, an unknown code, or games that
    are not whole deals.
    """

    first: str
    second: str
    results: str

    def __attrs_post_init__(self) -> None:
        if not self.first < self.second:
            raise ValueError(f"a pair's agents must be two specs in order, not {self.agents}")
        if set(self.results) - set(CODES):
            raise ValueError(
                f"{self.first} vs {self.second}: results hold codes other than {CODES}"
            )
        if len(self.results) % DEAL:
            raise ValueError(f"{self.first} vs {self.second}: games are not whole deals")

    @property
    def agents(self) -> tuple[str, str]:
        """The two specs, in order."""
        return self.first, self.second

    @property
    def games(self) -> int:
        """Games played."""
        return len(self.results)

    def wins(self) -> tuple[int, int]:
        """Each agent's wins (forfeits of the other included)."""
        r = self.results
        return r.count("W") + r.count("w"), r.count("L") + r.count("l")

    @property
    def draws(self) -> int:
        """Games without a durak."""
        return self.results.count("D")

    def forfeits(self) -> tuple[int, int]:
        """The games each agent lost by its own fault."""
        return self.results.count("l"), self.results.count("w")

    def matchup(self) -> Matchup:
        """The games as a :class:`~durak.arena.scores.ratings.Matchup` of scores."""
        value = {"W": 1.0, "w": 1.0, "D": 0.5, "L": 0.0, "l": 0.0}
        return Matchup(self.first, self.second, [value[c] for c in self.results], DEAL)


@attrs.frozen
class LadderSetup:
    """What every game of a ladder shares: two-player ``rules``, the master ``seed`` and
    the move time limit (``None``: none).  Raises ``ValueError`` for rules that are not
    for two players."""

    rules: Rules
    seed: int
    move_timeout: float | None = None

    def __attrs_post_init__(self) -> None:
        if self.rules.players != 2:
            raise ValueError(f"a ladder is two-player, not {self.rules.players}-player")

    def plan(self, first: str, second: str, games: int) -> MatchPlan:
        """The first ``games`` games of the pair's match."""
        referee = Referee(self.move_timeout)
        return MatchPlan(
            self.rules, (first, second), pair_seed(self.seed, first, second), games, False, referee
        )

    def identity(self) -> dict[str, Any]:
        """The setup as plain data: two ladders agree if this does."""
        return {
            "rules": attrs.asdict(self.rules),
            "seed": self.seed,
            "move_timeout": self.move_timeout,
        }


@attrs.define
class Ladder:
    """A ladder's setup and the games of each pair so far, by (first, second)."""

    setup: LadderSetup
    records: dict[tuple[str, str], PairRecord] = attrs.field(factory=dict)

    def names(self, specs: Sequence[str]) -> list[str]:
        """The name under which this ladder keeps each agent of ``specs``: the canonical
        form (:func:`~durak.agents.naming.canonical_spec`), or, when the ladder holds games
        of that agent under another spelling (a file written before the canonical form),
        that spelling, whose games and deals (:func:`pair_seed`) go on under it.  A spec
        the ladder holds verbatim is its own name.  ``ValueError`` for a bad spec, or an
        agent the ladder holds under two spellings and ``specs`` names by neither."""
        held: dict[str, set[str]] = {}
        for name in dict.fromkeys(n for pair in self.records for n in pair):  # in order
            with suppress(SpecError):  # an agent no longer known: only its spelling names it
                held.setdefault(canonical_spec(name), set()).add(name)
        names = []
        for spec in specs:
            canonical = canonical_spec(spec)
            spellings = sorted(held.get(canonical, {canonical}))
            if spec in spellings:
                names.append(spec)
            elif len(spellings) == 1:
                names.append(spellings[0])
            else:
                raise ValueError(
                    f"agent spec {spec!r}: the ladder holds this agent under "
                    f"{len(spellings)} spellings ({', '.join(spellings)}); give one of them"
                )
        return names

    def matchups(self, specs: Sequence[str]) -> list[Matchup]:
        """The games between ``specs``, one matchup per pair that played, in the pairs'
        order however the games were added (the bootstrap draws pair by pair)."""
        chosen = set(specs)
        records = [self.records[k] for k in sorted(self.records)]
        return [r.matchup() for r in records if set(r.agents) <= chosen and r.games]

    def schedule(self, specs: Sequence[str], games: int) -> Schedule:
        """The games that take every pair of ``specs`` to ``games`` games (a multiple of
        two); a pair that has more keeps them all.  Raises ``ValueError`` for another."""
        if games < DEAL or games % DEAL:
            raise ValueError(
                f"--games must be a positive even number (deals are played twice, "
                f"seats swapped), got {games}"
            )
        plans, starts = [], []
        for a, b in combinations(sorted(specs), 2):
            have = self.records.get((a, b), PairRecord(a, b, "")).games
            if have < games:
                plans.append(self.setup.plan(a, b, games))
                starts.append(have)
        return Schedule(self, plans, starts)


@attrs.define
class Schedule:
    """The games still to play of a ladder: game ``g`` of ``plans[p]`` for ``g`` from
    ``starts[p]`` (the games the ladder holds) to the plan's end."""

    ladder: Ladder
    plans: list[MatchPlan]
    starts: list[int]
    _done: list[dict[int, str]] = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self._done = [{} for _ in self.plans]

    @property
    def total(self) -> int:
        """Games to play."""
        return sum(p.games - s for p, s in zip(self.plans, self.starts, strict=True))

    def tasks(self) -> Generator[Task, None, None]:
        """The games to play, as (plan index, game index)."""
        for p, (plan, start) in enumerate(zip(self.plans, self.starts, strict=True)):
            for g in range(start, plan.games):
                yield p, g

    def _keep(self, p: int) -> bool:
        """Move the whole deals played in a row after the ladder's games of pair ``p``
        into the ladder; whether the pair is now complete."""
        plan, done = self.plans[p], self._done[p]
        a, b = plan.specs
        record = self.ladder.records.get((a, b), PairRecord(a, b, ""))
        run = ""
        while record.games + len(run) in done:
            run += done[record.games + len(run)]
        run = run[: len(run) - len(run) % DEAL]
        if run:
            self.ladder.records[(a, b)] = PairRecord(a, b, record.results + run)
        return self.ladder.records.get((a, b), record).games >= plan.games

    def play(self, backend: Backend, save: Callable[[Ladder], None]) -> Generator[int, None, None]:
        """Play the games on ``backend``; yield the number of games of each batch that
        finished.  ``save(ladder)`` is called when a pair completes, every
        :data:`SAVE_EVERY` seconds while games finish, and when play ends (stopped too), so
        the ladder holds every whole deal finished in a row."""
        refuse_in_starting_worker()
        last = time.monotonic()
        try:
            with closing(backend.play(self.plans, self.tasks(), self.total)) as batches:
                for batch in batches:
                    with hold_interrupts():  # a batch is counted whole, or not at all
                        fresh = []  # a game delivered again (a task run twice) counts once
                        for p, played in batch:
                            if played.outcome.game not in self._done[p]:
                                self._done[p][played.outcome.game] = _code(played.outcome)
                                fresh.append(p)
                        complete = [self._keep(p) for p in set(fresh)]
                        if any(complete) or time.monotonic() - last > SAVE_EVERY:
                            save(self.ladder)
                            last = time.monotonic()
                    yield len(fresh)
        finally:  # every batch has kept its pairs' whole deals already
            save(self.ladder)
