"""A dataset's ``return`` column (``durak dataset``): each game's returns sum to the game's
total, 0 (docs/rules.md: the durak pays 1, shared by the others; a draw pays nothing), and
every row of a seat carries that seat's return, within the game's payoffs."""

from __future__ import annotations

from pathlib import Path

import pytest

from durak.dataset.rows import seat_returns
from tests.cli.test_dataset import pq, write


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_seats_returns_sum_to_zero_for_every_durak_and_a_draw(players: int) -> None:
    top = 1 / (players - 1)
    assert seat_returns(players, None) == (0.0,) * players
    for loser in range(players):
        got = seat_returns(players, loser)
        assert len(got) == players and sum(got) == pytest.approx(0.0, abs=1e-12)
        assert got[loser] == -1.0
        assert [x for p, x in enumerate(got) if p != loser] == [top] * (players - 1)


@pytest.mark.parametrize("players", [2, 4])
def test_the_return_column_sums_to_each_games_total(tmp_path: Path, players: int) -> None:
    out = tmp_path / "data"
    agents = ["random", "greedy", "lowest", "random"][:players]
    write(out, *agents, "-n", 6, "--seed", 11, "--lowest-rank", 10, "--hand-size", 4, "-j", 1)
    games = {g["game"]: g for g in pq.read_table(out / "_games").to_pylist()}
    rows = pq.read_table(out).to_pylist()
    assert len(games) == 6 and rows
    by_game: dict[int, dict[int, set[float]]] = {}
    for row in rows:
        by_game.setdefault(row["game"], {}).setdefault(row["player"], set()).add(row["return"])
    top = 1 / (players - 1)
    for game, seats in by_game.items():
        total = games[game]["returns"]
        assert sum(total) == pytest.approx(0.0, abs=1e-6)
        assert all(-1.0 <= x <= top + 1e-6 for x in total)
        for seat, values in seats.items():
            assert len(values) == 1, (game, seat)
            assert next(iter(values)) == pytest.approx(total[seat]), (game, seat)
        # every seat that decided is counted once: the column's per-seat sum is the total
        if len(seats) == players:
            assert sum(next(iter(v)) for v in seats.values()) == pytest.approx(0.0, abs=1e-6)
