"""A review's job (:class:`durak.web.reviews.Reviews`), from the second mutation pass over
the web: one job per game however its starts interleave, a started review given whatever
the table says now, a review stopped at its next decision once the server closes, and the
review workers let go."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import attrs
import pytest

from tests.support.extras import require_extra

require_extra("fastapi")
require_extra("httpx2")

import durak.web.reviews as reviews_module  # noqa: E402
from durak.arena.gamelog.replay import replay_entry  # noqa: E402
from durak.web.settings import Limits  # noqa: E402
from tests.support.review_spy import SpyFactory  # noqa: E402
from tests.web.test_review import Served, finished, reviewed, serve  # noqa: E402
from tests.web.test_server import PATIENCE  # noqa: E402


@attrs.frozen
class Unfinished:
    """A stand-in table of game ``id`` that is not over (nor logged)."""

    id: str
    finished: bool = False
    entry: Any = None


def test_a_started_review_is_given_whatever_the_table_says_now(tmp_path: Path) -> None:
    for s in serve(tmp_path, SpyFactory([0]), Limits(idle_seconds=600)):
        game = finished(s)[-1]["game"]
        state = reviewed(s, game)
        again = s.reviews.start(Unfinished(game))  # type: ignore[arg-type]
        assert again == s.reviews.cached(game) and b'"state":"done"' in again
        assert state["state"] == "done" and len(s.spies.built) == 1


def _start_interleaved(s: Served, game: str, monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The answers of two starts of ``game``'s review, the second made while the first
    reads the log: between its check of the cache and taking the lock."""
    table = s.tables.get(game)
    inner: list[bytes] = []

    def interleaved(*args: Any, **kwargs: Any) -> Any:
        if not inner:
            inner.append(b"")  # the nested start replays unpatched
            inner[0] = s.reviews.start(table)
        return replay_entry(*args, **kwargs)

    monkeypatch.setattr(reviews_module, "replay_entry", interleaved)
    outer = s.reviews.start(table)
    return [outer, inner[0]]


def test_two_starts_that_interleave_make_one_review(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first must give the job the second registered, not start another.
    gate = threading.Event()
    for s in serve(tmp_path, SpyFactory([0], gate), Limits(idle_seconds=600)):
        game = finished(s)[-1]["game"]
        outer, inner = _start_interleaved(s, game, monkeypatch)
        assert outer == inner and b'"state":"running"' in outer
        gate.set()
        assert reviewed(s, game)["state"] == "done"
        s.reviews.close()
        s.reviews._pool.shutdown(wait=True)  # every submitted review has ended
        assert len(s.spies.built) == 1


def test_a_running_review_stops_at_its_next_decision_once_closed(tmp_path: Path) -> None:
    gate = threading.Event()
    for s in serve(tmp_path, SpyFactory([0], gate), Limits(idle_seconds=600)):
        game = finished(s)[-1]["game"]
        started = s.client.post(f"/api/games/{game}/review").json()
        assert started["state"] == "running" and started["total"] > 1
        s.reviews.close()
        gate.set()
        s.reviews._pool.shutdown(wait=True)  # the review's worker has ended
        (spy,) = s.spies.built
        assert len(spy.analysed) == 1


def test_closing_lets_the_review_workers_go(tmp_path: Path) -> None:
    before = set(threading.enumerate())
    for s in serve(tmp_path, SpyFactory([0]), Limits(idle_seconds=600)):
        game = finished(s)[-1]["game"]
        assert reviewed(s, game)["state"] == "done"
        workers = [t for t in set(threading.enumerate()) - before if t.name.startswith("review")]
        assert workers  # the review ran in the pool's worker
        s.reviews.close()
        for t in workers:
            t.join(PATIENCE)
        assert not any(t.is_alive() for t in workers)
