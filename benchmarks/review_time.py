"""The time of a game's review (issue 52: a 100-decision game within 30 s on one core,
then its cached answer within 50 ms).

    .venv/bin/python benchmarks/review_time.py --decisions 100 --agent strongest --seed 1

Pins the process to one core (one thread for PyTorch too), plays games of ``random``
against ``greedy`` (seeds ``--seed``, ``--seed + 1``, ...) until one has at least
``--decisions`` decisions, logs it and times :func:`~durak.arena.gamelog.review.review_entry`
of every seat of it by ``--agent``.  Then it plays a web game in process (FastAPI's
``TestClient``: no network), the person taking their first listed action against
``greedy``, has the server review it by ``--agent``, and times ``--samples`` requests of
the finished review (``GET`` and ``POST``), which are answered from the cache.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before PyTorch is imported

import argparse
import importlib
import statistics
import tempfile
import time
from pathlib import Path

from fastapi.testclient import TestClient

from durak.agents import make_agent
from durak.arena.gamelog.review import review_entry
from durak.arena.play.game import play_game
from durak.arena.play.person import play_entry
from durak.rules import Rules
from durak.seeding import derive_seed
from durak.web.registry import Tables
from durak.web.reviews import Reviews
from durak.web.server import create_app
from durak.web.settings import Limits


def one_core() -> None:
    """Run on one core, with one PyTorch thread if PyTorch is installed."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    try:
        torch = importlib.import_module("torch")
    except ImportError:
        return
    torch.set_num_threads(1)


def engine_review(rules: Rules, decisions: int, agent: str, seed: int) -> None:
    """Time the review of the first game of at least ``decisions`` decisions."""
    for s in range(seed, seed + 1000):
        record = play_game(rules, [make_agent("random"), make_agent("greedy")], derive_seed(s, 0))
        if len(record.actions) >= decisions:
            break
    else:
        raise SystemExit(f"no game of {decisions} decisions in 1000 seeds")
    entry = play_entry(rules, ("random", "greedy"), s, False, 0, record.actions, record)
    started = time.perf_counter()
    review = review_entry(entry, agent, seed=seed)
    spent = time.perf_counter() - started
    analysed = sum(not d.forced for d in review.decisions)
    print(
        f"review of game seed {s}: {len(review.decisions)} decisions ({analysed} analysed) "
        f"by {review.analyst}: {spent:.2f} s (target 30 s), "
        f"{spent / max(analysed, 1) * 1000:.0f} ms per analysed decision"
    )


def cached_review(rules: Rules, agent: str, seed: int, samples: int) -> None:
    """Time the cached answer of a web game's review."""
    limits = Limits()
    with tempfile.TemporaryDirectory() as folder:
        tables = Tables(Path(folder) / "web.jsonl", limits)
        with TestClient(create_app(tables, Reviews(limits, agent))) as client:
            deck = {"lowest_rank": rules.lowest_rank, "suits": rules.suits}
            request = {"opponents": ["greedy"], "seed": seed, **deck}
            view = client.post("/api/games", json=request).json()
            while not view["over"]:
                if view["actions"]:
                    body = {"action": view["actions"][0]["text"], "version": view["version"]}
                    view = client.post(f"/api/games/{view['game']}/actions", json=body).json()
                else:
                    after = {"after": view["version"]}
                    view = client.get(f"/api/games/{view['game']}", params=after).json()
            path = f"/api/games/{view['game']}/review"
            tables.get(view["game"]).join(60)
            started = time.perf_counter()
            state = client.post(path).json()
            while state["state"] == "running":
                time.sleep(0.05)
                state = client.get(path).json()
            spent = time.perf_counter() - started
            print(f"web review: {state['state']}, {state['total']} decisions, {spent:.2f} s")
            for method in ("GET", "POST"):
                times = []
                for _ in range(samples):
                    t = time.perf_counter()
                    answer = client.request(method, path)
                    times.append(time.perf_counter() - t)
                    assert answer.status_code == 200 and answer.json() == state
                print(
                    f"cached {method} ({len(answer.content)} bytes): median "
                    f"{statistics.median(times) * 1000:.2f} ms, max {max(times) * 1000:.2f} ms "
                    f"(target 50 ms)"
                )


def main() -> None:
    """Run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=100)
    parser.add_argument("--agent", default="strongest")
    parser.add_argument("--lowest-rank", type=int, default=6)
    parser.add_argument("--samples", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    one_core()
    rules = Rules(lowest_rank=args.lowest_rank)
    engine_review(rules, args.decisions, args.agent, args.seed)
    cached_review(rules, args.agent, args.seed, args.samples)


if __name__ == "__main__":
    main()
