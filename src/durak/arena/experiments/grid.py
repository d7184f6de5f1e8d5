"""Parameter grid search (Zarlykov's 2023 ``-config``): one match per setting of a template.

A template is an agent spec; each ``--param name=v1,v2,...`` either fills a ``{name}``
placeholder in it or is appended as ``name=value``.  Every combination of values is a
setting, and each setting plays a duplicate match against the same opponents from the same
seed, so the settings meet the same deals.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import product

import attrs

from durak.agents import SpecError, parse_spec
from durak.agents.naming import distinct_specs
from durak.arena.play.match import MatchPlan
from durak.arena.play.referee import Referee
from durak.arena.scores.result import MatchResult
from durak.rules import Rules, Visibility

_NAME = re.compile(r"[A-Za-z_]\w*")
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


@attrs.frozen
class GridParam:
    """One swept parameter and its values, as given."""

    name: str
    values: tuple[str, ...]


def parse_param(text: str) -> GridParam:
    """Read ``name=v1,v2,...``; raises ``ValueError`` naming what is wrong."""
    name, eq, rest = text.partition("=")
    name = name.strip()
    values = tuple(v.strip() for v in rest.split(","))
    if not eq or not _NAME.fullmatch(name):
        raise ValueError(f"bad --param {text!r}: expected name=value1,value2,...")
    if not all(values):
        raise ValueError(f"bad --param {text!r}: an empty value")
    if len(set(values)) != len(values):
        raise ValueError(f"bad --param {text!r}: a value is given twice")
    return GridParam(name, values)


@attrs.frozen
class Setting:
    """One point of the grid: the parameter values and the spec they give."""

    values: tuple[tuple[str, str], ...]
    spec: str

    @property
    def label(self) -> str:
        """``name=value`` pairs, e.g. ``c=0.5 limit=100``."""
        return " ".join(f"{k}={v}" for k, v in self.values)


def expand(template: str, params: Sequence[GridParam]) -> list[Setting]:
    """Every setting of ``params`` in ``template``, the last parameter varying fastest.

    Raises :class:`~durak.agents.SpecError` for a parameter swept twice, a placeholder
    without its parameter, a parameter the template already sets, a setting that is not a
    spec, or two settings of one agent (``c=1,1.0``: :func:`~durak.agents.naming.distinct_specs`).
    """
    names = [p.name for p in params]
    if len(set(names)) != len(names):
        raise SpecError(f"a parameter is swept twice: {', '.join(names)}")
    holes = set(_PLACEHOLDER.findall(template))
    if holes - set(names):
        raise SpecError(
            f"placeholder {{{sorted(holes - set(names))[0]}}} in {template!r} has no --param"
        )
    fixed = parse_spec(_PLACEHOLDER.sub("x", template))[1]
    for name in names:
        if name in fixed and name not in holes:
            raise SpecError(f"{name} is set in the template {template!r} and swept by --param")
    settings = []
    for values in product(*(p.values for p in params)):
        spec = template
        extra = []
        for name, value in zip(names, values, strict=True):
            if name in holes:
                spec = spec.replace("{" + name + "}", value)
            else:
                extra.append(f"{name}={value}")
        if extra:
            spec += ("," if ":" in spec else ":") + ",".join(extra)
        settings.append(Setting(tuple(zip(names, values, strict=True)), spec))
    distinct_specs([s.spec for s in settings])
    return settings


@attrs.frozen
class Grid:
    """Each setting of ``template`` plays ``games`` games against ``opponents`` (one per
    other seat) under ``rules`` from ``seed``."""

    template: str
    params: tuple[GridParam, ...]
    opponents: tuple[str, ...]
    rules: Rules
    seed: int
    games: int
    open_world: Visibility = False
    referee: Referee | None = None

    def settings(self) -> list[Setting]:
        """The grid's points, in order."""
        return expand(self.template, self.params)

    def plans(self) -> list[MatchPlan]:
        """One match per setting; the setting is agent 0."""
        return [
            MatchPlan(
                self.rules,
                (s.spec, *self.opponents),
                self.seed,
                self.games,
                self.open_world,
                self.referee,
            )
            for s in self.settings()
        ]


@attrs.frozen
class GridResult:
    """The matches of a grid, one per setting, in :meth:`Grid.settings` order."""

    grid: Grid
    matches: tuple[MatchResult, ...]

    def best(self) -> int:
        """The index of the setting with the highest score rate (the first on ties)."""
        return self.leaders()[0]

    def leaders(self) -> list[int]:
        """The indices of every setting with the highest score rate (several on a tie)."""
        rates = [m.score_rate(0) for m in self.matches]
        return [k for k, rate in enumerate(rates) if rate == max(rates)]
