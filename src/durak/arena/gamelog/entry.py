"""One log entry (a game) as a typed value, and its strict reading from JSON.

Reading checks every field's type and the entry's own consistency (seat numbers, lengths,
the deal seed that follows from the seed and the game index); the engine-level checks of
the actions are :mod:`durak.arena.gamelog.replay`'s.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, NoReturn, TypeAlias, cast

import attrs

from durak.agents.base import replacements
from durak.arena.play.match import GameOutcome, MatchPlan, PlayedGame, run_identity
from durak.arena.play.referee import FAULT_KINDS, FaultKind, Forfeit
from durak.rules import VISIBILITIES, Rules, RulesError, Visibility
from durak.seeding import derive_seed

#: The version written in every entry's ``"format"`` field.
FORMAT = 1
Kind: TypeAlias = Literal["match", "play"]
Ending: TypeAlias = Literal["finished", "forfeit", "interrupted"]


class LogError(ValueError):
    """A log line that is not a valid game, or a log that does not fit the run."""

    def __init__(self, path: Path | str, line: int | None, reason: str) -> None:
        where = f"{path}" if line is None else f"{path} line {line}"
        super().__init__(f"{where}: {reason}")
        self.path = Path(path)
        self.line = line
        self.reason = reason


@attrs.frozen
class LogEntry:
    """One logged game.  ``kind`` is ``match`` (game ``game`` of a match: deal
    ``derive_seed(seed, game // players)``, seats rotated by ``game``) or ``play`` (a game
    with a person: deal ``derive_seed(seed, game)``, agent ``i`` in seat ``i``).  ``durak``
    and ``seats`` hold agent indices; ``decisions``, ``think_time`` and ``max_think`` are
    per agent.  ``line`` is where it was read from (0 if it was not)."""

    kind: Kind
    rules: Rules
    specs: tuple[str, ...]
    seed: int
    open_world: Visibility
    move_timeout: float | None
    game: int
    deal_seed: int
    seats: tuple[int, ...]
    actions: tuple[str, ...]
    end: Ending
    durak: int | None
    bouts: int
    decisions: tuple[int, ...]
    think_time: tuple[float, ...]
    max_think: tuple[float, ...]
    forfeit: Forfeit | None = None
    line: int = attrs.field(default=0, eq=False)
    replaced: tuple[tuple[str, str], ...] = ()

    def identity(self) -> dict[str, Any]:
        """The run this game belongs to, as :meth:`MatchPlan.identity` gives it."""
        return run_identity(
            self.rules, self.specs, self.seed, self.open_world, self.move_timeout, self.replaced
        )

    def outcome(self) -> GameOutcome:
        """The game as a match outcome (for the statistics of a resumed run)."""
        return GameOutcome(
            self.game,
            self.durak,
            self.seats,
            self.bouts,
            len(self.actions),
            self.decisions,
            self.think_time,
            self.max_think,
            self.forfeit,
        )

    def to_json(self) -> dict[str, Any]:
        """The entry as a JSON object (times rounded to microseconds)."""
        f = self.forfeit
        forfeit = (
            None
            if f is None
            else {
                "seat": f.seat,
                "agent": self.seats[f.seat],
                "fault": f.fault,
                "message": f.message,
                "action": f.action,
            }
        )
        return {
            "format": FORMAT,
            "kind": self.kind,
            **self.identity(),
            "game": self.game,
            "deal_seed": self.deal_seed,
            "seats": list(self.seats),
            "actions": list(self.actions),
            "end": self.end,
            "durak": self.durak,
            "bouts": self.bouts,
            "decisions": list(self.decisions),
            "think_time": [round(t, 6) for t in self.think_time],
            "max_think": [round(t, 6) for t in self.max_think],
            "forfeit": forfeit,
        }


def entry_for(plan: MatchPlan, played: PlayedGame) -> LogEntry:
    """The log entry of game ``played`` of ``plan``."""
    o = played.outcome
    end: Ending = "finished" if o.forfeit is None else "forfeit"
    return LogEntry(
        "match",
        plan.rules,
        plan.specs,
        plan.seed,
        plan.open_world,
        plan.move_timeout,
        o.game,
        plan.deal_seed(o.game),
        o.seats,
        played.actions,
        end,
        o.durak,
        o.bouts,
        o.decisions,
        o.think_time,
        o.max_think,
        o.forfeit,
        replaced=replacements(plan.specs),
    )


class _Reader:
    """Typed access to the fields of one JSON object; errors name the line and field."""

    def __init__(self, obj: object, path: Path | str, line: int) -> None:
        self.path, self.number = path, line
        if not isinstance(obj, dict):
            self.fail(f"expected a JSON object, got {type(obj).__name__}")
        self.obj = cast(dict[str, Any], obj)

    def fail(self, reason: str) -> NoReturn:
        raise LogError(self.path, self.number, reason)

    def get(self, name: str, kind: type | tuple[type, ...], nullable: bool = False) -> Any:
        if name not in self.obj:
            self.fail(f"field {name!r} is missing")
        value = self.obj[name]
        if value is None and nullable:
            return None
        if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
            self.fail(f"field {name!r} must not be true/false, got {value!r}")
        if not isinstance(value, kind):
            self.fail(f"field {name!r} has the wrong type: {value!r}")
        return value

    def items(
        self, name: str, kind: type | tuple[type, ...], length: int | None
    ) -> tuple[Any, ...]:
        values = self.get(name, list)
        for v in values:
            if isinstance(v, bool) or not isinstance(v, kind):
                self.fail(f"field {name!r} holds a value of the wrong type: {v!r}")
        if length is not None and len(values) != length:
            self.fail(f"field {name!r} must have {length} items, got {len(values)}")
        return tuple(values)


def _visibility(r: _Reader) -> Visibility:
    """The ``open_world`` field: true, false or "full"."""
    value = r.get("open_world", (bool, str))
    if value not in VISIBILITIES:
        r.fail(f"field 'open_world' must be true, false or \"full\", got {value!r}")
    return cast("Visibility", value)


def parse_entry(obj: object, path: Path | str, line: int) -> LogEntry:
    """The entry in ``obj`` (a decoded JSON line); raises :class:`LogError` naming the line
    and the first problem."""
    r = _Reader(obj, path, line)
    if r.get("format", int) != FORMAT:
        r.fail(f"unknown log format {r.obj['format']!r} (this version reads {FORMAT})")
    kind = r.get("kind", str)
    if kind not in ("match", "play"):
        r.fail(f"unknown kind {kind!r}")
    try:
        rules = Rules(**r.get("rules", dict))
    except (TypeError, RulesError) as e:
        r.fail(f"bad rules: {e}")
    n = rules.players
    specs = r.items("specs", str, n)
    seed, game = r.get("seed", int), r.get("game", int)
    seats = r.items("seats", int, n)
    if sorted(seats) != list(range(n)):
        r.fail(f"seats {list(seats)} are not a seating of {n} agents")
    deal = derive_seed(seed, game // n if kind == "match" else game)
    if r.get("deal_seed", int) != deal or game < 0:
        r.fail(f"deal seed {r.obj['deal_seed']} does not follow from seed {seed} and game {game}")
    if kind == "match" and seats != tuple((s + game) % n for s in range(n)):
        r.fail(f"seats {list(seats)} are not the rotation of game {game}")
    end = r.get("end", str)
    if end not in ("finished", "forfeit", "interrupted"):
        r.fail(f"unknown end {end!r}")
    durak = r.get("durak", int, nullable=True)
    if durak is not None and not 0 <= durak < n:
        r.fail(f"durak {durak} is not an agent of this game")
    timeout = r.get("move_timeout", (int, float), nullable=True)
    return LogEntry(
        kind,
        rules,
        specs,
        seed,
        _visibility(r),
        None if timeout is None else float(timeout),
        game,
        deal,
        seats,
        r.items("actions", str, None),
        end,
        durak,
        r.get("bouts", int),
        r.items("decisions", int, n),
        _floats(r, "think_time", n),
        _floats(r, "max_think", n),
        _forfeit(r, n, end),
        line,
        _replaced(r),
    )


def _replaced(r: _Reader) -> tuple[tuple[str, str], ...]:
    """The optional ``replaced`` field: agent names and the sources that registered them
    over another agent (absent when no agent of the game was replaced)."""
    if "replaced" not in r.obj:
        return ()
    raw = r.get("replaced", dict)
    if not raw or not all(isinstance(k, str) and isinstance(v, str) for k, v in raw.items()):
        r.fail(f"field 'replaced' must map agent names to sources, got {raw!r}")
    return tuple(sorted(raw.items()))


def _floats(r: _Reader, name: str, n: int) -> tuple[float, ...]:
    return tuple(float(t) for t in r.items(name, (int, float), n))


def _forfeit(r: _Reader, n: int, end: str) -> Forfeit | None:
    raw = r.get("forfeit", dict, nullable=True)
    if (raw is None) != (end != "forfeit"):
        r.fail("a forfeit must be recorded exactly when the game ends by forfeit")
    if raw is None:
        return None
    f = _Reader(raw, r.path, r.number)
    seat, fault = f.get("seat", int), f.get("fault", str)
    if not 0 <= seat < n:
        r.fail(f"forfeit seat {seat} is not a seat of this game")
    if fault not in FAULT_KINDS:
        r.fail(f"unknown fault {fault!r}")
    return Forfeit(
        seat, cast(FaultKind, fault), f.get("message", str), f.get("action", str, nullable=True)
    )
