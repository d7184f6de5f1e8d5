"""``durak dataset --policy``: each decision's row holds the acting agent's policy (the
search's visit shares, one-hot where it has none, null for an agent that cannot analyse),
and the games and every other column are those of the same run without it."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from tests.support.cli_checks import one_error
from tests.support.extras import require_extra

np = require_extra("numpy")
pq = require_extra("pyarrow.parquet")

from durak.agents import make_agent  # noqa: E402
from durak.agents.interface.analysis import Analyst  # noqa: E402
from durak.cli.app import app  # noqa: E402
from durak.dataset.recorder import policy_of  # noqa: E402
from durak.encoding import ActionSpace  # noqa: E402
from durak.rules import Rules, new_game, observe, parse_action, step  # noqa: E402
from durak.seeding import derive_seed  # noqa: E402

runner = CliRunner()
SEARCH = "ismcts:limit=5"


def invoke(*args: str | int | Path) -> Result:
    return runner.invoke(app, ["dataset", *(str(a) for a in args)])


def write(out: Path, *args: str | int) -> None:
    result = invoke(*args, "--out", out)
    assert result.exit_code == 0, result.output


def files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_policies_are_the_searchs_visit_shares_and_null_for_a_plain_agent(
    tmp_path: Path,
) -> None:
    out = tmp_path / "data"
    write(out, SEARCH, "greedy", "-n", 3, "--seed", 4, "-j", 1, "--policy")
    rows = {(r["game"], r["step"]): r for r in pq.read_table(out).to_pylist()}
    games = pq.read_table(out / "_games").to_pylist()
    rules = Rules(**json.loads(games[0]["rules"]))
    space = ActionSpace(rules)
    searched = spread = 0
    for game in games:
        # Replay the game with fresh agents and each seat's generator (play_game's).
        agents = [make_agent(spec, rules) for spec in game["agents"]]
        rngs = [random.Random(derive_seed(game["seed"], s)) for s in range(rules.players)]
        state = new_game(rules, game["seed"])
        for k, text in enumerate(game["actions"]):
            row, seat = rows[(game["game"], k)], state.turn
            seen = observe(state, seat)
            agent = agents[seat]
            if isinstance(agent, Analyst):
                analysis = agent.analyse(seen, rngs[seat])
                policy = np.array(row["policy"], np.float32)
                assert policy.shape == (space.size,)
                assert policy.sum() == pytest.approx(1.0, abs=1e-6)
                assert not policy[~np.array(row["legal_mask"])].any()
                assert np.array_equal(policy, policy_of(analysis, space))
                assert space.encode(analysis.chosen) == row["action"]
                searched += 1
                spread += int((policy > 0).sum() > 1)
            else:
                assert row["policy"] is None
                agent.act(seen, rngs[seat])
            state = step(state, parse_action(text))
    assert searched > 0 and spread > 0  # a search spread its visits somewhere


def test_a_network_that_does_not_visit_gives_one_hot_policies(tmp_path: Path) -> None:
    require_extra("torch")
    out = tmp_path / "data"
    write(out, "dmc", "random", "-n", 2, "--seed", 3, "-j", 1, "--policy")
    table = pq.read_table(out).to_pylist()
    mine = [r for r in table if r["agent"] == "dmc"]
    assert mine and all(r["policy"] is None for r in table if r["agent"] == "random")
    for r in mine:
        policy = np.array(r["policy"], np.float32)
        assert policy[r["action"]] == 1.0 and policy.sum() == 1.0


def test_the_games_and_other_columns_are_those_of_a_run_without_policy(tmp_path: Path) -> None:
    args = (SEARCH, "greedy", "-n", 5, "--seed", 9, "--shards", 2)
    write(tmp_path / "plain", *args, "-j", 1)
    write(tmp_path / "policy", *args, "-j", 1, "--policy")
    write(tmp_path / "pool", *args, "-j", 2, "--policy")
    plain, policy = files(tmp_path / "plain"), files(tmp_path / "policy")
    assert files(tmp_path / "pool") == policy  # the same bytes on a pool
    for name in ("_games/part-00000.parquet", "_games/part-00001.parquet"):
        assert policy[name] == plain[name]
    with_policy = pq.read_table(tmp_path / "policy")
    assert with_policy.schema.names[-1] == "policy"
    assert with_policy.drop(["policy"]).equals(pq.read_table(tmp_path / "plain"))
    manifest = json.loads(policy["_manifest.json"])
    assert manifest["run"]["policy"] is True
    assert "policy" not in json.loads(plain["_manifest.json"])["run"]


def test_resuming_with_another_policy_choice_is_refused(tmp_path: Path) -> None:
    base = ("random", "greedy", "-n", 2, "--seed", 1, "-j", 1)
    with_policy, without = tmp_path / "with", tmp_path / "without"
    write(with_policy, *base, "--policy")
    write(without, *base)
    before = files(with_policy), files(without)
    one_error(
        invoke(*base, "--out", with_policy, "--resume"),
        "the dataset has policy True, the command has no policy",
        "refusing to resume",
    )
    one_error(
        invoke(*base, "--policy", "--out", without, "--resume"),
        "the dataset has no policy, the command has policy True",
        "refusing to resume",
    )
    assert (files(with_policy), files(without)) == before
    again = invoke(*base, "--policy", "--out", with_policy, "--resume")
    assert again.exit_code == 0, again.output
