"""Write played games as a Parquet dataset, then fit a behavioural-cloning policy to it.

``write_dataset`` plays the games and stores every decision as a row: the observation
vector, the legal-action mask, the action's index and the player's return (the same as
``durak dataset greedy greedy ...``).  Any Parquet reader loads the folder; a softmax
regression over the legal actions, fitted by gradient descent, then imitates ``greedy``,
and is scored on games it never saw.  Needs ``durak-lab[dataset]`` and pandas.
Run: ``python examples/dataset_cloning.py`` (writes the folder ``games/``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from durak.dataset import DatasetPlan, write_dataset
from durak.rules import Rules

if __name__ == "__main__":
    plan = DatasetPlan(Rules(), ("greedy", "greedy"), seed=1, games=60, shard_games=20)
    write_dataset(plan, "games")
    rows = pd.read_parquet("games")  # the decisions; games/_games holds each game's record
    X = np.stack(rows["observation"].to_numpy())  # (decisions, features) float32
    masks = np.stack(rows["legal_mask"].to_numpy())  # (decisions, actions) bool
    used = np.flatnonzero(masks.any(axis=0))  # the actions ever legal here
    legal, y = masks[:, used], np.searchsorted(used, rows["action"].to_numpy())
    train = rows["game"].to_numpy() < 45  # hold out the last 15 games
    test = ~train

    def predict(weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
        return np.where(legal[rows], X[rows] @ weights, -np.inf)

    W = np.zeros((X.shape[1], len(used)), np.float32)
    for _ in range(60):  # softmax regression restricted to the legal actions
        logits = predict(W, train)
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        p[np.arange(train.sum()), y[train]] -= 1.0
        W -= 1.0 * X[train].T @ p / train.sum()

    agree = np.mean(predict(W, test).argmax(axis=1) == y[test])
    chance = np.mean(1.0 / legal[test].sum(axis=1))
    print(f"{len(rows)} decisions from {plan.games} games; held out: {test.sum()}")
    print(f"the clone picks greedy's action in {agree:.0%} of held-out decisions")
    print(f"a uniform legal choice would in {chance:.0%}")
