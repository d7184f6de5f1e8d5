"""The learning curve of a training run as a PNG: win rate and mean reward per interval.

matplotlib is an optional dependency (``durak-lab[rl]``): it is imported only when a curve
is drawn, and without it :func:`learning_curve` raises :class:`MatplotlibMissingError`.
:func:`evaluation_curve` draws the periodic evaluations of ``durak train dmc``,
:func:`ratings_chart` the ratings of ``durak ladder``.  The
figure is rendered by the Agg canvas directly, without ``pyplot``, so drawing a curve
neither needs a display nor changes the backend of the calling program.  The PNG is
written atomically, over a regular file only (:func:`durak.files.write_atomic`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from durak.extras import MissingExtraError, missing_message, needs
from durak.files import write_atomic
from durak.learn.online import IntervalStats

__all__ = [
    "MISSING_MATPLOTLIB",
    "MatplotlibMissingError",
    "evaluation_curve",
    "learning_curve",
    "ratings_chart",
]

MISSING_MATPLOTLIB = missing_message("the learning curve", "matplotlib", "rl")


class MatplotlibMissingError(MissingExtraError):
    """matplotlib is not installed; the message says how to install it."""


def _figure(
    panels: int = 2, feature: str = "the learning curve", extra: str = "rl"
) -> tuple[Any, Any]:
    """A figure of ``panels`` stacked panels, drawn by the Agg canvas; without matplotlib,
    :class:`MatplotlibMissingError` naming ``feature`` and ``extra``."""
    with needs(feature, extra, MatplotlibMissingError):
        import matplotlib  # noqa: F401, PLC0415  (the package first: its parts may be loaded)
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: PLC0415
        from matplotlib.figure import Figure  # noqa: PLC0415
    fig = Figure(figsize=(8, 3 * panels), layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.subplots(panels, 1)


def evaluation_curve(
    points: Sequence[Mapping[str, float]],
    opponents: Sequence[str],
    path: Path,
    title: str,
) -> None:
    """Draw periodic evaluations to the PNG file ``path``: each ``win_<opponent>`` of
    ``points`` against the ``episodes`` played (above) and the training ``hours`` (below).

    Raises ``ValueError`` if ``points`` is empty, :class:`MatplotlibMissingError` without
    matplotlib, and :class:`~durak.files.FileError` (naming the file and the reason) if it
    cannot be written.
    """
    if not points:
        raise ValueError("an evaluation curve needs at least one point")
    fig, (top, bottom) = _figure()
    marker = "o" if len(points) <= 40 else None
    for name in opponents:
        wins = [p[f"win_{name}"] for p in points]
        top.plot([p["episodes"] for p in points], wins, marker=marker, label=f"vs {name}")
        bottom.plot([p["hours"] for p in points], wins, marker=marker, label=f"vs {name}")
    for axis, label in ((top, "episodes"), (bottom, "training hours (wall)")):
        axis.set_ylim(0, 1)
        axis.axhline(0.5, color="grey", linewidth=0.8)
        axis.set_ylabel("win rate (not the durak)")
        axis.set_xlabel(label)
        axis.grid(alpha=0.3)
        axis.legend(loc="lower right")
    fig.suptitle(title)
    write_atomic(path, lambda f: fig.savefig(f, format="png", dpi=100), "replace")


def learning_curve(stats: Sequence[IntervalStats], path: Path, title: str) -> None:
    """Draw ``stats`` (one point per interval, against the episodes played) to the PNG file
    ``path``: the win rate above, the mean reward per game below, under ``title``.

    Raises ``ValueError`` if ``stats`` is empty, :class:`MatplotlibMissingError` without
    matplotlib, and :class:`~durak.files.FileError` (naming the file and the reason) if it
    cannot be written.
    """
    if not stats:
        raise ValueError("a learning curve needs at least one interval")
    fig, (top, bottom) = _figure()
    episodes = [s.episodes for s in stats]
    marker = "o" if len(stats) <= 40 else None  # dots help only while they stay apart
    top.plot(episodes, [s.win_rate for s in stats], marker=marker, color="tab:blue")
    top.set_ylim(0, 1)
    top.set_ylabel("win rate (not the durak)")
    top.grid(alpha=0.3)
    bottom.plot(episodes, [s.mean_reward for s in stats], marker=marker, color="tab:orange")
    bottom.set_ylabel("mean reward per game")
    bottom.set_xlabel("episodes")
    bottom.grid(alpha=0.3)
    fig.suptitle(title)
    write_atomic(path, lambda f: fig.savefig(f, format="png", dpi=100), "replace")


def ratings_chart(
    rows: Sequence[tuple[str, float, float, float]], path: Path, title: str, label: str
) -> None:
    """Draw ratings to the PNG file ``path``: one horizontal bar per ``(agent, rating,
    low, high)`` of ``rows`` (top to bottom in their order), its interval as an error bar,
    the axis labelled ``label``.

    Raises ``ValueError`` if ``rows`` is empty, :class:`MatplotlibMissingError` (naming
    the ``ladder`` extra) without matplotlib, and :class:`~durak.files.FileError` if the
    file cannot be written.
    """
    if not rows:
        raise ValueError("a ratings chart needs at least one agent")
    fig, axis = _figure(1, "the ratings plot", "ladder")
    fig.set_size_inches(8, 1.5 + 0.4 * len(rows))
    ys = list(range(len(rows)))[::-1]
    values = [r[1] for r in rows]
    below = [r[1] - r[2] for r in rows]
    above = [r[3] - r[1] for r in rows]
    axis.errorbar(values, ys, xerr=[below, above], fmt="o", color="tab:blue", capsize=4)
    axis.set_yticks(ys, [r[0] for r in rows])
    axis.set_xlabel(label)
    axis.grid(alpha=0.3, axis="x")
    fig.suptitle(title)
    write_atomic(path, lambda f: fig.savefig(f, format="png", dpi=100), "replace")
