"""How much policy-based inference knows: the share of the opponent's unknown cards its
worlds place right, against the uniform prior's (``infer=greedy`` against ``greedy``).

    .venv/bin/python benchmarks/infer_accuracy.py --games 6 --seed 7101
    .venv/bin/python benchmarks/infer_accuracy.py --games 6 --seed 7101 --candidates 16 --chain 300

Game ``g`` deals seed ``SEED + g`` of the 36-card two-player game; ``greedy`` plays both
seats, so the ``greedy`` opponent model (error rate ``--epsilon``) is the opponent's true
policy.  At every decision of seat 0 with a choice and an unknown card in the opponent's
hand, it builds the belief of that decision as ``ismcts:infer=greedy`` does
(:func:`~durak.agents.inference.belief.weigh_worlds`) and draws ``--draws`` worlds from it
and as many from :func:`~durak.rules.sample_world`; a world's score is the share of the
opponent's cards unknown to seat 0 that it puts in the opponent's hand.  It prints the mean
score of each, the likelihood of the true deal against that of the belief's best candidate
(log10, medians), and the time per decision.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time

from durak.agents import make_agent
from durak.agents.inference.belief import likelihood, weigh_worlds
from durak.agents.inference.opponents import GreedyModel
from durak.agents.inference.record import GameLog, PublicRecord
from durak.rules import Rules, is_terminal, legal_actions, new_game, observe, sample_world, step


def main() -> None:
    """Play, measure, print the means."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--seed", type=int, default=7101)
    parser.add_argument("--candidates", type=int, default=64)
    parser.add_argument("--chain", type=int, default=0, help="Metropolis-Hastings steps")
    parser.add_argument("--epsilon", type=float, default=0.1)
    parser.add_argument("--draws", type=int, default=100)
    args = parser.parse_args()
    greedy = make_agent("greedy")
    model = GreedyModel(args.epsilon)
    belief_scores, prior_scores, spent = [], [], []
    true_logs, best_logs, sizes = [], [], []
    for g in range(args.games):
        start = new_game(Rules(), args.seed + g)
        state = start
        log = GameLog(observe(state, 0))
        while not is_terminal(state):
            seen = log.latest
            unknown = state.hand_masks[1] & ~seen.knowledge.exposed.mask
            if state.turn == 0 and len(legal_actions(state)) > 1 and unknown:
                rng = random.Random(g)
                began = time.perf_counter()
                belief = weigh_worlds(log, model, args.candidates, rng, args.chain)
                spent.append(time.perf_counter() - began)

                def score(hands: tuple[int, ...], unknown: int = unknown) -> float:
                    return (hands[1] & unknown).bit_count() / unknown.bit_count()

                draws = range(args.draws)
                belief_scores.append(
                    statistics.mean(score(belief.sample(seen, rng).hand_masks) for _ in draws)
                )
                prior_scores.append(
                    statistics.mean(score(sample_world(seen, rng).hand_masks) for _ in draws)
                )
                replayed = PublicRecord.of(log).replay(start)
                choices = [] if replayed is None else replayed[1]
                if choices and not args.chain:
                    true_logs.append(math.log10(likelihood(model, choices)))
                    best_logs.append(math.log10(max(*belief.weights, 1e-300)))
                    w = belief.weights
                    sizes.append(sum(w) ** 2 / sum(x * x for x in w) if any(w) else 0.0)
            mover = state.turn
            action = greedy.act(observe(state, mover), random.Random(0))
            state = step(state, action)
            log.moves.append((mover, action, observe(state, 0)))
    likelihoods = (
        f"median log10 likelihood of the true deal {statistics.median(true_logs):.2f}, "
        f"of the best weighed candidate {statistics.median(best_logs):.2f}; "
        f"effective number of candidates (sum w)^2 / sum w^2: median "
        f"{statistics.median(sizes):.1f}; "
        if true_logs
        else ""
    )
    print(
        f"{len(spent)} decisions, {args.candidates} candidates, {args.chain} steps, "
        f"epsilon {args.epsilon}: opponent's unknown cards placed right: belief "
        f"{statistics.mean(belief_scores):.3f}, prior {statistics.mean(prior_scores):.3f}; "
        f"{likelihoods}mean {statistics.mean(spent) * 1000:.1f} ms per decision"
    )


if __name__ == "__main__":
    main()
