"""The learning curve of a training run as a PNG: win rate and mean reward per interval.

matplotlib is an optional dependency (``durak-lab[rl]``): it is imported only when a curve
is drawn, and without it :func:`learning_curve` raises :class:`MatplotlibMissingError`.
The figure is rendered by the Agg canvas directly, without ``pyplot``, so drawing a curve
neither needs a display nor changes the backend of the calling program.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from durak.learn.train import IntervalStats

__all__ = ["MISSING_MATPLOTLIB", "MatplotlibMissingError", "learning_curve"]

MISSING_MATPLOTLIB = "the learning curve needs matplotlib: pip install 'durak-lab[rl]'"


class MatplotlibMissingError(ImportError):
    """matplotlib is not installed; the message says how to install it."""


def learning_curve(stats: Sequence[IntervalStats], path: Path, title: str) -> None:
    """Draw ``stats`` (one point per interval, against the episodes played) to the PNG file
    ``path``: the win rate above, the mean reward per game below, under ``title``.

    Raises ``ValueError`` if ``stats`` is empty, :class:`MatplotlibMissingError` without
    matplotlib, and ``OSError`` if the file cannot be written.
    """
    if not stats:
        raise ValueError("a learning curve needs at least one interval")
    try:
        import matplotlib  # noqa: F401, PLC0415 - optional dependency, imported on use
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: PLC0415
        from matplotlib.figure import Figure  # noqa: PLC0415
    except ImportError:
        raise MatplotlibMissingError(MISSING_MATPLOTLIB) from None
    episodes = [s.episodes for s in stats]
    marker = "o" if len(stats) <= 40 else None  # dots help only while they stay apart
    fig = Figure(figsize=(8, 6), layout="constrained")
    FigureCanvasAgg(fig)
    top, bottom = fig.subplots(2, 1, sharex=True)
    top.plot(episodes, [s.win_rate for s in stats], marker=marker, color="tab:blue")
    top.set_ylim(0, 1)
    top.set_ylabel("win rate (not the durak)")
    top.grid(alpha=0.3)
    bottom.plot(episodes, [s.mean_reward for s in stats], marker=marker, color="tab:orange")
    bottom.set_ylabel("mean reward per game")
    bottom.set_xlabel("episodes")
    bottom.grid(alpha=0.3)
    fig.suptitle(title)
    fig.savefig(path, format="png", dpi=100)
