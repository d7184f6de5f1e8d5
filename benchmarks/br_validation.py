"""The best response by search against OpenSpiel's exact one where cards stay hidden
(issue 62, item 2).

On one small deck (``--suits``, ``--lowest-rank``, ``--hand-size``, and ``--transfer`` or
``--no-trumps``) and for each target: NashConv / 2, the exact best response's mean payoff
over both seats (:class:`~durak.interop.openspiel.best_response.ExploitTree`), and the
exact mean payoff of ``pomcp`` (``durak exploit --method search``) at each ``--limits``
budget, the exploiter told the game up to each decision (``watch``) as in a match; with
``--cheat``, also the value of a planted cheat that reads the hidden cards
(:class:`~durak.interop.openspiel.best_response.SeesAll`), which the check must find above
the best response's wherever hidden cards matter.

    .venv/bin/python benchmarks/br_validation.py --suits 1 --lowest-rank 10 --hand-size 1 \\
        --targets greedy lowest smart random --limits 30 100 300

prints one line per figure, with its seconds.
"""

from __future__ import annotations

import argparse
import time
from statistics import fmean

from durak.agents.searchers.exploiter import search_exploiter_spec
from durak.interop.openspiel.best_response import ExploitTree, SeesAll
from durak.rules import Rules


def main() -> None:
    """Print NashConv / 2 and the search exploiter's exact value at every budget."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--suits", type=int, default=1)
    parser.add_argument("--lowest-rank", type=int, default=10)
    parser.add_argument("--hand-size", type=int, default=1)
    parser.add_argument("--transfer", action="store_true")
    parser.add_argument("--no-trumps", action="store_true")
    parser.add_argument("--targets", nargs="*", default=["greedy", "lowest", "smart", "random"])
    parser.add_argument("--limits", nargs="*", type=int, default=[30, 100, 300])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cheat", action="store_true", help="the planted cheat's value too")
    parser.add_argument(
        "--cheat-only",
        action="store_true",
        help="the planted cheat's value alone (to set beside a best response measured before)",
    )
    args = parser.parse_args()
    if args.transfer and args.suits < 2:
        parser.error("--transfer needs two suits: on one, no two cards share a rank to transfer")
    rules = Rules(
        players=args.players,
        suits=args.suits,
        lowest_rank=args.lowest_rank,
        hand_size=args.hand_size,
        transfer=args.transfer,
        trumps=not args.no_trumps,
    )
    print(rules, flush=True)
    for target in args.targets:
        start = time.perf_counter()
        tree = ExploitTree(rules, target, samples=1, seed=args.seed)
        if args.cheat_only:
            cheat = fmean(tree.values_of(SeesAll(tree)))
            print(f"{target}: planted cheat: {cheat:.4f} ({time.perf_counter() - start:.0f} s)")
            continue
        best = tree.best_response().mean
        print(f"{target}: NashConv / 2 = {best:.4f} ({time.perf_counter() - start:.0f} s)")
        if args.cheat:
            start = time.perf_counter()
            cheat = fmean(tree.values_of(SeesAll(tree)))
            seconds = time.perf_counter() - start
            print(f"  planted cheat: {cheat:.4f} (above by {cheat - best:+.4f}, {seconds:.0f} s)")
        for limit in args.limits:
            start = time.perf_counter()
            spec = search_exploiter_spec(target, limit=limit)
            value = tree.exploiter(spec, seed=args.seed, watch=True).mean
            seconds = time.perf_counter() - start
            print(f"  {spec}: {value:.4f} (gap {best - value:+.4f}, {seconds:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
