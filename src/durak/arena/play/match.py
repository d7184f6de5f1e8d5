"""One match between agent specs, game by game, in the duplicate format.

Game ``g`` of a :class:`MatchPlan` plays deal ``derive_seed(seed, g // n)`` with the seats
rotated by ``g % n``, so each deal is played ``n`` times and every agent sits in every
seat (the "duplicate" format that cancels the luck of the deal; with two players each
deal is played twice, seats swapped).  A game depends only on the plan and its index, so
a match gives the same outcomes in any order, in one process or many.
"""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence
from typing import Any

import attrs

from durak.agents import make_agent
from durak.agents.base import Agent, replacements
from durak.arena.play.game import play_game
from durak.arena.play.referee import Forfeit, Referee
from durak.rules import Rules, Visibility
from durak.seeding import derive_seed


def _tuple_of_str(specs: Sequence[str]) -> tuple[str, ...]:
    return tuple(specs)


@attrs.frozen
class PlayPlan:
    """What a plan of games declares, once for a match (:class:`MatchPlan`) and a
    tournament: ``games`` games of agent ``specs`` under ``rules`` from master ``seed``,
    with every hand visible if ``open_world``, refereed by ``referee`` (``None``: strict,
    an agent's error stops the match).

    Raises ``ValueError`` if ``games < 0``.
    """

    rules: Rules
    specs: tuple[str, ...] = attrs.field(converter=_tuple_of_str)
    seed: int
    games: int
    open_world: Visibility = False
    referee: Referee | None = None

    def __attrs_post_init__(self) -> None:
        if self.games < 0:
            raise ValueError(f"games must not be negative, got {self.games}")

    def match(self, specs: tuple[str, ...]) -> MatchPlan:
        """The match of ``specs`` under this plan's rules, seed, games, view and referee."""
        fields = {f.name: getattr(self, f.name) for f in attrs.fields(PlayPlan)}
        return MatchPlan(**{**fields, "specs": specs})


@attrs.frozen
class MatchPlan(PlayPlan):
    """What to play: a :class:`PlayPlan` with one spec per seat (``rules.players`` of them).

    Raises ``ValueError`` if the number of specs does not match the rules, or ``games < 0``.
    """

    def __attrs_post_init__(self) -> None:
        if len(self.specs) != self.rules.players:
            raise ValueError(
                f"{self.rules.players} players need {self.rules.players} agent "
                f"specs, got {len(self.specs)}"
            )
        super().__attrs_post_init__()

    @property
    def move_timeout(self) -> float | None:
        """The referee's move time limit, if any."""
        return None if self.referee is None else self.referee.move_timeout

    def deal_seed(self, game: int) -> int:
        """The seed of game ``game``'s deal: one deal per ``players`` games."""
        return derive_seed(self.seed, game // self.rules.players)

    def seats(self, game: int) -> tuple[int, ...]:
        """The agent (index into ``specs``) in each seat of game ``game``."""
        n = self.rules.players
        return tuple((s + game) % n for s in range(n))

    def identity(self) -> dict[str, Any]:
        """Everything that must agree for two runs to be the same experiment (the number
        of games aside): see :func:`run_identity`."""
        return run_identity(
            self.rules,
            self.specs,
            self.seed,
            self.open_world,
            self.move_timeout,
            replacements(self.specs),
        )


def run_identity(
    rules: Rules,
    specs: Sequence[str],
    seed: int,
    open_world: Visibility,
    move_timeout: float | None,
    replaced: Sequence[tuple[str, str]] = (),
) -> dict[str, Any]:
    """The identity of a run (of a plan, or of a logged game's plan): its rules, specs,
    seed, open world and move time limit, as plain data, and ``replaced``: the agents of
    the specs that replace another registration, with their sources (a key present only
    when there are some, so the logs of built-in agents stay as they were)."""
    identity = {
        "rules": attrs.asdict(rules),
        "specs": list(specs),
        "seed": seed,
        "open_world": open_world,
        "move_timeout": move_timeout,
    }
    return identity | ({"replaced": dict(replaced)} if replaced else {})


@attrs.frozen
class GameOutcome:
    """One game of a match from the agents' point of view.

    ``durak`` and ``seats`` hold agent indices (into the plan's specs); ``decisions``,
    ``think_time`` (seconds) and ``max_think`` (the longest decision) are per agent.
    ``moves`` is the number of actions, ``bouts`` the bouts begun; ``forfeit`` (with a
    seat number) says why the game ended early, if it did.
    """

    game: int
    durak: int | None
    seats: tuple[int, ...]
    bouts: int
    moves: int
    decisions: tuple[int, ...]
    think_time: tuple[float, ...]
    max_think: tuple[float, ...]
    forfeit: Forfeit | None = None

    @property
    def forfeiter(self) -> int | None:
        """The agent that forfeited, or ``None``."""
        return None if self.forfeit is None else self.seats[self.forfeit.seat]


@attrs.frozen
class PlayedGame:
    """A game just played: its outcome and its actions as ``str(action)`` texts."""

    outcome: GameOutcome
    actions: tuple[str, ...]


def build_agents(specs: Sequence[str], rules: Rules | None = None) -> tuple[Agent, ...]:
    """One agent per spec, each checked against ``rules`` if given; raises
    :class:`~durak.agents.SpecError` naming a bad spec or an agent made for other rules."""
    return tuple(make_agent(s, rules) for s in specs)


def play_match_game(
    plan: MatchPlan, game: int, agents: Sequence[Agent] | None = None
) -> PlayedGame:
    """Game ``game`` of ``plan``, played by ``agents`` (one per spec; built from the specs
    if ``None``)."""
    agents = build_agents(plan.specs, plan.rules) if agents is None else agents
    seats = plan.seats(game)
    record = play_game(
        plan.rules, [agents[a] for a in seats], plan.deal_seed(game), plan.open_world, plan.referee
    )
    by_agent = [seats.index(a) for a in range(plan.rules.players)]
    outcome = GameOutcome(
        game,
        None if record.loser is None else seats[record.loser],
        seats,
        record.bouts,
        len(record.actions),
        tuple(record.decisions[s] for s in by_agent),
        tuple(record.think_time[s] for s in by_agent),
        tuple(record.max_think[s] for s in by_agent),
        record.forfeit,
    )
    return PlayedGame(outcome, tuple(str(a) for a in record.actions))


def play_task(
    plans: Sequence[MatchPlan],
    task: tuple[int, int],
    agents: MutableMapping[int, tuple[Agent, ...]],
) -> tuple[int, PlayedGame]:
    """Game ``task = (plan index, game index)`` of ``plans``, tagged with its plan index.

    ``agents`` caches the agents of each plan (by index) across the games of one run, as
    every backend's workers keep them; a game's outcome does not depend on that reuse.
    """
    p, game = task
    if p not in agents:
        agents[p] = build_agents(plans[p].specs, plans[p].rules)
    return p, play_match_game(plans[p], game, agents[p])
