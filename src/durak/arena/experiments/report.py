"""Machine-readable results: JSON objects and CSV rows for matches, tournaments and grids.

Everything fixed by the seed is kept apart from the machine-dependent figures, which sit
under ``"timing"`` (JSON) or in the trailing ``ms_per_move`` column (CSV), so two runs of
the same experiment compare equal once those are dropped.
"""

from __future__ import annotations

from typing import Any

import attrs

from durak.arena.experiments.grid import GridResult
from durak.arena.experiments.tournament import TournamentResult
from durak.arena.scores.result import MatchResult


def _r(x: float) -> float:
    return round(x, 6)


def match_report(result: MatchResult, confidence: float) -> dict[str, Any]:
    """The statistics block of a match (Zarlykov 2023) as a JSON object."""
    plan = result.plan
    agents = []
    for i, spec in enumerate(plan.specs):
        first = result.first_forfeit(i)
        agents.append(
            {
                "spec": spec,
                "wins": result.wins(i),
                "win_rate": _r(result.win_rate(i)),
                "win_interval": [_r(x) for x in result.win_interval(i, confidence)],
                "durak": result.durak_count(i),
                "durak_rate": _r(result.durak_rate(i)),
                "durak_interval": [_r(x) for x in result.durak_interval(i, confidence)],
                "score_rate": _r(result.score_rate(i)),
                "forfeits": dict(result.forfeits(i)),
                "first_forfeit": None
                if first is None or first.forfeit is None
                else {
                    "game": first.game,
                    "fault": first.forfeit.fault,
                    "message": first.forfeit.message,
                },
            }
        )
    return {
        "rules": attrs.asdict(plan.rules),
        "specs": list(plan.specs),
        "seed": plan.seed,
        "open_world": plan.open_world,
        "move_timeout": plan.move_timeout,
        "planned_games": plan.games,
        "games": result.games,
        "complete": result.complete,
        "confidence": confidence,
        "draws": result.draws,
        "draw_rate": _r(result.draw_rate()),
        "draw_interval": [_r(x) for x in result.draw_interval(confidence)],
        "bouts_per_game": _r(result.bouts_per_game()),
        "moves_per_bout": _r(result.moves_per_bout()),
        "forfeits": result.forfeit_count,
        "agents": agents,
        "timing": {
            "wall_seconds": _r(result.wall_seconds),
            "ms_per_move": [_r(result.mean_think(i) * 1000) for i in range(len(plan.specs))],
            "max_ms": [_r(result.max_think(i) * 1000) for i in range(len(plan.specs))],
        },
    }


def match_rows(result: MatchResult, confidence: float) -> list[dict[str, Any]]:
    """One row per agent of a match, for CSV: its wins and durak counts, their rates and
    Wilson intervals, forfeits and thinking time."""
    rows = []
    for i, spec in enumerate(result.plan.specs):
        win_low, win_high = result.win_interval(i, confidence)
        durak_low, durak_high = result.durak_interval(i, confidence)
        rows.append(
            {
                "agent": i,
                "spec": spec,
                "games": result.games,
                "wins": result.wins(i),
                "win_rate": _r(result.win_rate(i)),
                "win_low": _r(win_low),
                "win_high": _r(win_high),
                "durak": result.durak_count(i),
                "durak_rate": _r(result.durak_rate(i)),
                "durak_low": _r(durak_low),
                "durak_high": _r(durak_high),
                "draws": result.draws,
                "forfeits": sum(result.forfeits(i).values()),
                "ms_per_move": _r(result.mean_think(i) * 1000),
            }
        )
    return rows


def tournament_rows(result: TournamentResult, confidence: float) -> list[dict[str, Any]]:
    """One row per ordered pair (row agent vs column agent), for CSV."""
    specs = result.tournament.specs
    rows = []
    for i, row in enumerate(specs):
        for j, column in enumerate(specs):
            if i != j:
                match, a = result.match_between(i, j)
                low, high = result.score_interval(i, j, confidence)
                rows.append(
                    {
                        "row": row,
                        "column": column,
                        "games": match.games,
                        "wins": match.wins(a),
                        "draws": match.draws,
                        "losses": match.wins(1 - a),
                        "score": _r(result.score(i, j)),
                        "low": _r(low),
                        "high": _r(high),
                        "forfeits": sum(match.forfeits(a).values()),
                        "ms_per_move": _r(match.mean_think(a) * 1000),
                    }
                )
    return rows


def tournament_report(result: TournamentResult, confidence: float) -> dict[str, Any]:
    """The matrix and the ranking as a JSON object."""
    t = result.tournament
    ranking = [
        {
            k: _r(v) if isinstance(v, float) else v
            for k, v in attrs.asdict(s).items()
            if k != "seconds_per_move"
        }
        for s in result.ranking(confidence)
    ]
    timing = {
        "ms_per_move": {s.spec: _r(s.seconds_per_move * 1000) for s in result.ranking(confidence)},
        "wall_seconds": _r(max((m.wall_seconds for m in result.matches), default=0.0)),
    }
    pairs = [
        {k: v for k, v in row.items() if k != "ms_per_move"}
        for row in tournament_rows(result, confidence)
    ]
    return {
        "rules": attrs.asdict(t.rules),
        "specs": list(t.specs),
        "seed": t.seed,
        "games_per_pair": t.games,
        "open_world": t.open_world,
        "move_timeout": None if t.referee is None else t.referee.move_timeout,
        "confidence": confidence,
        "pairs": pairs,
        "ranking": ranking,
        "timing": timing,
    }


def grid_rows(result: GridResult, confidence: float) -> list[dict[str, Any]]:
    """One row per setting, for CSV: its values, spec and score against the opponents."""
    rows = []
    for setting, match in zip(result.grid.settings(), result.matches, strict=True):
        low, high = match.score_interval(0, confidence)
        rows.append(
            {
                **dict(setting.values),
                "spec": setting.spec,
                "games": match.games,
                "wins": match.wins(0),
                "draws": match.draws,
                "durak": match.durak_count(0),
                "score": _r(match.score_rate(0)),
                "low": _r(low),
                "high": _r(high),
                "forfeits": sum(match.forfeits(0).values()),
                "ms_per_move": _r(match.mean_think(0) * 1000),
            }
        )
    return rows


def grid_report(result: GridResult, confidence: float) -> dict[str, Any]:
    """The grid's settings and their scores as a JSON object."""
    g = result.grid
    rows = grid_rows(result, confidence)
    return {
        "template": g.template,
        "params": {p.name: list(p.values) for p in g.params},
        "opponents": list(g.opponents),
        "rules": attrs.asdict(g.rules),
        "seed": g.seed,
        "games": g.games,
        "open_world": g.open_world,
        "confidence": confidence,
        "settings": [{k: v for k, v in r.items() if k != "ms_per_move"} for r in rows],
        "best": rows[result.best()]["spec"] if rows else None,
        "timing": {"ms_per_move": [r["ms_per_move"] for r in rows]},
    }
