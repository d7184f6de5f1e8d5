"""The result tables of the ``durak`` commands, and the cells they share.

* ``durak match``: :func:`match_table` and :func:`match_summary`, Zarlykov's (2023)
  statistics block;
* ``durak tournament``: :func:`tournament_matrix` (row vs column) and :func:`ranking_table`;
* ``durak grid``: :func:`grid_table`;
* ``durak ladder``: :func:`ladder_table`.

Machine-dependent figures (thinking times) are always the last columns of a table, and the
wall time a line of its own starting with ``time:``
(:func:`~durak.cli.console.timing_line`), so seed-determined output can be compared across
runs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rich.table import Table

from durak.arena.experiments.grid import GridResult
from durak.arena.experiments.tournament import TournamentResult
from durak.arena.play.referee import FaultKind
from durak.arena.scores.ratings import Rating
from durak.arena.scores.result import MatchResult


def pct(x: float) -> str:
    """``0.1234`` as ``12.3%``."""
    return f"{x:.1%}"


def ci(bounds: tuple[float, float]) -> str:
    """An interval as ``10.1–14.9%``."""
    return f"{bounds[0] * 100:.1f}–{bounds[1]:.1%}"


def conf(confidence: float) -> str:
    """``0.98`` as ``98%``."""
    return f"{confidence * 100:g}%"


def faults(counts: Counter[FaultKind]) -> str:
    """Forfeit counts: ``0``, or ``3 (2 timeout, 1 error)``."""
    total = sum(counts.values())
    if not total:
        return "0"
    return f"{total} ({', '.join(f'{n} {k}' for k, n in counts.items())})"


def match_table(result: MatchResult, confidence: float) -> Table:
    """Per agent: wins and durak counts and rates with intervals, forfeits, time per move."""
    c = conf(confidence)
    table = Table(
        "#",
        "agent",
        "wins",
        "win rate",
        f"{c} CI",
        "durak",
        "durak rate",
        f"{c} CI",
        "forfeits",
        "ms/move",
        "max ms",
        title=f"{' vs '.join(result.specs)}: {result.games} games, {c} Wilson intervals",
    )
    for i, spec in enumerate(result.specs):
        table.add_row(
            str(i),
            spec,
            str(result.wins(i)),
            pct(result.win_rate(i)),
            ci(result.win_interval(i, confidence)),
            str(result.durak_count(i)),
            pct(result.durak_rate(i)),
            ci(result.durak_interval(i, confidence)),
            faults(result.forfeits(i)),
            f"{result.mean_think(i) * 1000:.2f}",
            f"{result.max_think(i) * 1000:.0f}",
        )
    return table


def match_summary(result: MatchResult, confidence: float) -> list[str]:
    """The statistics block below the table: draws, bouts, moves, forfeits."""
    lines = [
        f"games {result.games} · draws {result.draws} ({pct(result.draw_rate())}, "
        f"{conf(confidence)} CI {ci(result.draw_interval(confidence))}) · "
        f"{result.bouts_per_game():.2f} bouts per game · "
        f"{result.moves_per_bout():.2f} moves per bout · "
        f"{result.forfeit_count} forfeits"
    ]
    for i, spec in enumerate(result.specs):
        first = result.first_forfeit(i)
        if first is not None and first.forfeit is not None:
            lines.append(
                f"forfeits of agent {i} ({spec}): {faults(result.forfeits(i))}; "
                f"first in game {first.game}: {first.forfeit.fault}: "
                f"{first.forfeit.message}"
            )
    return lines


def tournament_matrix(result: TournamentResult, confidence: float) -> Table:
    """Row-vs-column score rates (a draw counts half) with their intervals."""
    specs = result.tournament.specs
    table = Table(
        "",
        *specs,
        title=f"score of row vs column (wins + ½ draws), {conf(confidence)} Wilson intervals",
    )
    for i, spec in enumerate(specs):
        cells = [
            "—"
            if i == j
            else f"{pct(result.score(i, j))} ({ci(result.score_interval(i, j, confidence))})"
            for j in range(len(specs))
        ]
        table.add_row(spec, *cells)
    return table


def ranking_table(result: TournamentResult, confidence: float) -> Table:
    """The agents by mean score over their opponents."""
    table = Table(
        "rank",
        "agent",
        "score",
        f"{conf(confidence)} CI",
        "games",
        "W",
        "D",
        "L",
        "forfeits",
        "ms/move",
        title="ranking (mean score over opponents)",
    )
    for rank, s in enumerate(result.ranking(confidence), 1):
        table.add_row(
            str(rank),
            s.spec,
            pct(s.score),
            ci((s.low, s.high)),
            str(s.games),
            str(s.wins),
            str(s.draws),
            str(s.losses),
            str(s.forfeits),
            f"{s.seconds_per_move * 1000:.2f}",
        )
    return table


def grid_table(result: GridResult, confidence: float) -> Table:
    """One row per setting: its score against the opponents with its interval."""
    c = conf(confidence)
    leaders = result.leaders()
    tie = f"; * marks the {len(leaders)} settings tied for the best" if len(leaders) > 1 else ""
    table = Table(
        "setting",
        "spec",
        "games",
        "W",
        "D",
        "durak",
        "score",
        f"{c} CI",
        "forfeits",
        "ms/move",
        title=f"vs {', '.join(result.grid.opponents)}: score (wins + ½ draws), "
        f"{c} Wilson intervals{tie}",
    )
    for k, (setting, m) in enumerate(zip(result.grid.settings(), result.matches, strict=True)):
        table.add_row(
            setting.label + (" *" if k in leaders else ""),
            setting.spec,
            str(m.games),
            str(m.wins(0)),
            str(m.draws),
            str(m.durak_count(0)),
            pct(m.score_rate(0)),
            ci(m.score_interval(0, confidence)),
            faults(m.forfeits(0)),
            f"{m.mean_think(0) * 1000:.2f}",
        )
    return table


def ladder_table(ratings: Sequence[Rating], confidence: float, alpharank: bool) -> Table:
    """``durak ladder``: agent, rating (Elo, or α-Rank mass), its interval, games; in the
    order given (best first)."""
    table = Table(
        "#",
        "agent",
        "α-Rank mass" if alpharank else "rating (Elo)",
        f"{conf(confidence)} interval",
        "games",
    )
    for k, r in enumerate(ratings, 1):
        if alpharank:
            cells = (f"{r.rating:.3f}", f"{r.low:.3f}–{r.high:.3f}")
        else:
            cells = (f"{r.rating:+.0f}", f"{r.low:+.0f} … {r.high:+.0f}")
        table.add_row(str(k), r.agent, *cells, str(r.games))
    return table
