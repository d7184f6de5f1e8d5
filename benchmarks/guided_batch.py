"""The guided search's iterations per second, one leaf at a time against leaf batches.

    .venv/bin/python benchmarks/guided_batch.py                    # 50 decisions, batch 8, 3 rounds
    .venv/bin/python benchmarks/guided_batch.py --batch 16 --rounds 5 --seed 11
    .venv/bin/python benchmarks/guided_batch.py --quick            # a smoke run: 4 decisions, 1 round

The positions: games of the default rules dealt from seeds ``seed, seed + 1, ...``, both
seats played by ``greedy``; every third decision with two or more legal actions is kept
until there are ``--decisions``.  Each round times ``ismcts:prior=dmc,value=dmc,limit=200,
opponent=greedy`` at ``batch=1`` and at ``batch=B`` over the same decisions (decision
``i`` searched with ``random.Random(i)``), the two in alternating order from round to
round so that a drift of the machine's speed falls on both.  A line per round and agent:
the iterations searched (every simulation is one, the early stop included), the seconds,
iterations per second, the mean milliseconds per decision and the network passes per
decision; last, the share of decisions on which the two agents chose the same action (the
batched search's virtual loss changes the search a little, so not every one).  Timing
needs an otherwise idle machine (``docs/agents.md``).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import durak.agents.searchers.ismcts as ismcts_agent
import durak.learn.dmc.agent as dmc_agent
from durak.agents import Agent, make_agent
from durak.rules import Action, Observation, Rules, is_terminal, legal_actions, new_game, observe
from durak.rules import step as play
from durak.search import SearchResult

#: The guided search measured, without its ``batch`` option.
GUIDED = "ismcts:prior=dmc,value=dmc,limit=200,opponent=greedy"


def decisions(seed: int, count: int) -> list[Observation]:
    """Every third decision with a choice of greedy-vs-greedy games from ``seed`` on."""
    greedy, rng = make_agent("greedy"), random.Random(seed)
    kept: list[Observation] = []
    choices, game = 0, 0
    while len(kept) < count:
        state = new_game(Rules(), seed + game)
        while not is_terminal(state) and len(kept) < count:
            o = observe(state, state.turn)
            if len(legal_actions(state)) > 1:
                choices += 1
                if choices % 3 == 0:
                    kept.append(o)
            state = play(state, greedy.act(o, rng))
        game += 1
    return kept


class Counters:
    """The searches' iterations and the network's passes, counted by wrapping both."""

    def __init__(self) -> None:
        self.iterations = self.passes = 0
        search, scores = ismcts_agent.ismcts, dmc_agent.scores

        def counted_search(*args: Any, **kwargs: Any) -> SearchResult[Any]:
            result = search(*args, **kwargs)
            self.iterations += result.stats.iterations
            return result

        def counted_scores(*args: Any, **kwargs: Any) -> Any:
            self.passes += 1
            return scores(*args, **kwargs)

        ismcts_agent.ismcts = counted_search  # type: ignore[assignment]
        dmc_agent.scores = counted_scores

    def reset(self) -> tuple[int, int]:
        """The counts so far, set back to zero."""
        counts = self.iterations, self.passes
        self.iterations = self.passes = 0
        return counts


def timed(
    agent: Agent, positions: Sequence[Observation], counters: Counters
) -> tuple[list[Action], float, int, int]:
    """The agent's actions on ``positions``, the seconds, iterations and network passes."""
    counters.reset()
    started = time.perf_counter()
    actions = [agent.act(o, random.Random(i)) for i, o in enumerate(positions)]
    seconds = time.perf_counter() - started
    return actions, seconds, *counters.reset()


def main(argv: Sequence[str] | None = None, out: Callable[[str], None] = print) -> None:
    """Parse the options, build the positions and agents, time them round by round."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7000, help="first deal (default 7000)")
    parser.add_argument("--decisions", type=int, default=50, help="positions (default 50)")
    parser.add_argument("--batch", type=int, default=8, help="the batched size B (default 8)")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds (default 3)")
    parser.add_argument("--quick", action="store_true", help="smoke run: 4 decisions, 1 round")
    args = parser.parse_args(argv)
    if args.quick:
        args.decisions, args.rounds = 4, 1
    if args.decisions < 1 or args.rounds < 1 or args.batch < 2:
        parser.error("--decisions and --rounds must be >= 1 and --batch >= 2")
    positions = decisions(args.seed, args.decisions)
    specs = [f"{GUIDED},batch=1", f"{GUIDED},batch={args.batch}"]
    agents = [make_agent(spec) for spec in specs]
    counters = Counters()
    for agent in agents:  # load the network and warm its first calls outside the timing
        agent.act(positions[0], random.Random(0))
    chosen: dict[int, list[Action]] = {}
    total = {k: [0.0, 0] for k in range(2)}
    out(f"{len(positions)} decisions from seed {args.seed}; {GUIDED}, batch 1 against {args.batch}")
    for r in range(args.rounds):
        for k in (0, 1) if r % 2 == 0 else (1, 0):
            actions, seconds, iterations, passes = timed(agents[k], positions, counters)
            chosen[k] = actions
            total[k][0] += seconds
            total[k][1] += iterations
            out(
                f"round {r + 1} {specs[k].rsplit(',', 1)[1]:>9}: {iterations} iterations in "
                f"{seconds:.2f} s = {iterations / seconds:,.0f}/s, "
                f"{seconds / len(positions) * 1000:.1f} ms and {passes / len(positions):.1f} "
                "network passes per decision"
            )
    rates = [float(total[k][1]) / total[k][0] for k in range(2)]
    same = sum(a == b for a, b in zip(chosen[0], chosen[1], strict=True)) / len(positions)
    out(
        f"all rounds: {rates[0]:,.0f}/s at batch 1, {rates[1]:,.0f}/s at batch {args.batch} "
        f"({rates[1] / rates[0]:.2f}x); the same action on {same:.0%} of the decisions"
    )


if __name__ == "__main__":
    main()
