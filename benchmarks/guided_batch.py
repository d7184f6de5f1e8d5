"""The guided search's iterations per second, one leaf at a time against leaf batches.

    .venv/bin/python benchmarks/guided_batch.py               # 50 decisions, batch 8, 3 rounds
    .venv/bin/python benchmarks/guided_batch.py --batch 16 --rounds 5 --seed 11
    .venv/bin/python benchmarks/guided_batch.py --quick       # smoke run: 4 decisions, 1 round

The positions: games of the default rules dealt from seeds ``seed, seed + 1, ...``, both
seats played by ``greedy``; every third decision with two or more legal actions is kept
until there are ``--decisions``.  Each round times ``ismcts:prior=dmc,value=dmc,limit=200,
opponent=greedy`` at ``batch=1`` and at ``batch=B`` over the same decisions (decision
``i`` searched with ``random.Random(i)``), the two in alternating order from round to
round so that a drift of the machine's speed falls on both.  A line per round and agent:
the iterations searched (every simulation is one, the early stop included), the wall and
CPU seconds, iterations per wall second, the mean milliseconds and the network passes per
decision.  Last, over all rounds, iterations per wall and per CPU second, and how often
``batch=B`` chose the action ``batch=1`` chose, beside how often ``batch=1`` itself does
under other seeds (``random.Random(10**6 + i)``, untimed): the virtual loss changes the
search a little, and so does a seed.  Timing needs an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import durak.agents.searchers.ismcts as ismcts_agent
import durak.learn.dmc.agent as dmc_agent
import durak.learn.dmc.net
import durak.search
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
        search, scores = durak.search.ismcts, durak.learn.dmc.net.scores

        def counted_search(*args: Any, **kwargs: Any) -> SearchResult[Any]:
            result = search(*args, **kwargs)
            self.iterations += result.stats.iterations
            return result

        def counted_scores(*args: Any, **kwargs: Any) -> Any:
            self.passes += 1
            return scores(*args, **kwargs)

        # The names the agent modules call, replaced in their namespaces.
        vars(ismcts_agent)["ismcts"] = counted_search
        vars(dmc_agent)["scores"] = counted_scores

    def reset(self) -> tuple[int, int]:
        """The counts so far, set back to zero."""
        counts = self.iterations, self.passes
        self.iterations = self.passes = 0
        return counts


def timed(
    agent: Agent, positions: Sequence[Observation], counters: Counters
) -> tuple[list[Action], float, float, int, int]:
    """The agent's actions on ``positions``, the wall and CPU seconds, iterations and
    network passes."""
    counters.reset()
    started, cpu = time.perf_counter(), time.process_time()
    actions = [agent.act(o, random.Random(i)) for i, o in enumerate(positions)]
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    return actions, seconds, cpu, *counters.reset()


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
    total = {k: [0.0, 0.0, 0] for k in range(2)}  # wall and CPU seconds, iterations
    out(f"{len(positions)} decisions from seed {args.seed}; {GUIDED}, batch 1 against {args.batch}")
    for r in range(args.rounds):
        for k in (0, 1) if r % 2 == 0 else (1, 0):
            actions, seconds, cpu, iterations, passes = timed(agents[k], positions, counters)
            chosen[k] = actions
            for i, x in enumerate((seconds, cpu, iterations)):
                total[k][i] += x
            out(
                f"round {r + 1} {specs[k].rsplit(',', 1)[1]:>9}: {iterations} iterations in "
                f"{seconds:.2f} s ({cpu:.2f} s CPU) = {iterations / seconds:,.0f}/s, "
                f"{seconds / len(positions) * 1000:.1f} ms and {passes / len(positions):.1f} "
                "network passes per decision"
            )
    wall, per_cpu = ([total[k][2] / total[k][i] for k in range(2)] for i in (0, 1))
    reseeded = [agents[0].act(o, random.Random(10**6 + i)) for i, o in enumerate(positions)]
    same, itself = (
        sum(a == b for a, b in zip(chosen[0], other, strict=True)) / len(positions)
        for other in (chosen[1], reseeded)
    )
    out(
        f"all rounds: {wall[0]:,.0f}/s at batch 1, {wall[1]:,.0f}/s at batch {args.batch} "
        f"({wall[1] / wall[0]:.2f}x; per CPU second {per_cpu[0]:,.0f} and {per_cpu[1]:,.0f}, "
        f"{per_cpu[1] / per_cpu[0]:.2f}x); batch {args.batch} chose batch 1's action on {same:.0%} "
        f"of the decisions, batch 1 under other seeds on {itself:.0%}"
    )


if __name__ == "__main__":
    main()
