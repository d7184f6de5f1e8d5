"""Expert iteration in DMC training (durak.learn.dmc.expert, ``dmc:expert=DIR``): the
segment cross-entropy and its gradient, the decisions rebuilt from a ``durak dataset
--policy`` folder, the refusals, and ``durak train`` with it, resumed."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tests.support.cli_checks import one_error
from tests.support.extras import require_extra

torch = require_extra("torch")
pq = require_extra("pyarrow.parquet")

from durak.agents.base import SpecError  # noqa: E402
from durak.cli.app import app  # noqa: E402
from durak.encoding import ActionSpace  # noqa: E402
from durak.learn.dmc.expert import (  # noqa: E402
    ExpertData,
    ExpertTerm,
    decision_cross_entropy,
    load_expert,
)
from durak.learn.dmc.features import decision_rows  # noqa: E402
from durak.learn.dmc.net import build_network, load_model  # noqa: E402
from durak.learn.dmc.schedule import read_evaluations  # noqa: E402
from durak.learn.dmc.settings import DmcSettings  # noqa: E402
from durak.rules import Rules, legal_actions, new_game, observe, parse_action, step  # noqa: E402

torch.set_num_threads(1)
runner = CliRunner()
SMALL = Rules(lowest_rank=10)  # 20 cards: short games
SPEC = "dmc:round=8,chunk=4,hidden=16,layers=2,batch=64"
DATASET = ["ismcts:limit=5", "greedy", "-n", "3", "-j", "1", "--lowest-rank", "10", "--policy"]


def dataset(out: Path, *extra: str, seed: int = 3) -> Path:
    args = ["dataset", *DATASET, "--seed", str(seed), *extra, "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def expert_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return dataset(tmp_path_factory.mktemp("expert") / "search")


def test_the_segment_cross_entropy_is_each_decisions_own() -> None:
    gen = torch.Generator().manual_seed(1)
    scores = torch.randn(7, generator=gen)
    segment = torch.tensor([0, 0, 0, 1, 1, 1, 1])
    targets = torch.tensor([0.2, 0.8, 0.0, 0.1, 0.1, 0.3, 0.5])
    got = decision_cross_entropy(scores, segment, targets, 2, 0.5)
    each = [
        -(targets[s] * torch.log_softmax(scores[s] / 0.5, dim=0)).sum()
        for s in (slice(0, 3), slice(3, 7))
    ]
    assert got.item() == pytest.approx(((each[0] + each[1]) / 2).item(), rel=1e-6)


def test_the_term_pulls_the_networks_softmax_toward_the_searchs_choice() -> None:
    torch.manual_seed(0)
    state = new_game(SMALL, 5)
    legal = legal_actions(state)
    assert len(legal) > 2
    rows = decision_rows(observe(state, state.turn), legal)
    wanted = len(legal) - 1
    targets = np.zeros(len(legal), np.float32)
    targets[wanted] = 1.0
    data = ExpertData(rows.astype(np.float16), np.array([0, len(legal)]), targets, "x")
    settings = DmcSettings(hidden=16, layers=2, expert_temperature=0.1)
    term = ExpertTerm(data, settings)
    net = build_network(SMALL, settings.widths)
    optimizer = torch.optim.Adam(net.parameters(), lr=0.01)
    x = torch.from_numpy(data.rows.astype(np.float32))

    def chance() -> float:
        with torch.no_grad():
            return float(torch.softmax(net(x)[:, 0] / 0.1, dim=0)[wanted])

    before = chance()
    term.begin(4, 0)
    for _ in range(20):
        optimizer.zero_grad()
        term.loss(net).backward()
        optimizer.step()
    assert before < 0.3 and chance() > 0.9
    assert 0 < term.mean_loss < 10


def test_the_decisions_are_rebuilt_from_each_deal_with_the_searchs_shares(
    expert_dir: Path,
) -> None:
    data = load_expert(expert_dir, SMALL)
    space = ActionSpace(SMALL)
    games = pq.read_table(expert_dir / "_games").to_pylist()
    policies = {(r["game"], r["step"]): r["policy"] for r in pq.read_table(expert_dir).to_pylist()}
    d = 0
    for game in games:
        state = new_game(SMALL, game["seed"])
        for k, text in enumerate(game["actions"]):
            legal = legal_actions(state)
            policy = policies[(game["game"], k)]
            if policy is not None and len(legal) > 1:
                rows = data.rows[data.starts[d] : data.starts[d + 1]]
                expected = decision_rows(observe(state, state.turn), legal)
                assert np.array_equal(rows, expected.astype(np.float16))
                shares = np.array(policy, np.float32)[space.encode_all(legal)]
                got = data.targets[data.starts[d] : data.starts[d + 1]]
                assert got == pytest.approx(shares / shares.sum(), abs=1e-6)
                d += 1
            state = step(state, parse_action(text))
    assert d == data.decisions > 0
    assert data.rows.dtype == np.float16 and len(data.rows) == len(data.targets)


def test_a_dataset_of_other_rules_without_policies_or_changed_is_one_line(
    tmp_path: Path, expert_dir: Path
) -> None:
    other = r"^dmc: expert=.*played under other rules: lowest_rank 10 \(this run: 6\)$"
    with pytest.raises(SpecError, match=other):
        load_expert(expert_dir, Rules())
    plain = tmp_path / "plain"
    runner.invoke(app, ["dataset", *DATASET[:-1], "--seed", "3", "--out", str(plain)])
    with pytest.raises(SpecError, match="no policy column; write it with durak dataset --policy"):
        load_expert(plain, SMALL)
    with pytest.raises(SpecError, match="no dataset there"):
        load_expert(tmp_path, SMALL)
    changed = dataset(tmp_path / "changed")
    (changed / "part-00000.parquet").write_bytes(b"damaged")
    with pytest.raises(SpecError, match=r"part-00000\.parquet: does not match the SHA-256"):
        load_expert(changed, SMALL)
    with pytest.raises(SpecError, match="expert and privileged do not combine"):
        DmcSettings(expert=str(expert_dir), privileged=100).check()


@pytest.mark.parametrize("name", ["part-00000.parquet", "part-00009.parquet"])
def test_a_fifo_or_an_entry_outside_the_run_is_refused_unread(
    tmp_path: Path, expert_dir: Path, name: str
) -> None:
    # Before the fix, a FIFO in place of a listed file blocked for ever (the suite's
    # pytest-timeout ends such a hang), and an entry past the run's last file was read.
    data = tmp_path / "data"
    shutil.copytree(expert_dir, data)
    manifest = json.loads((data / "_manifest.json").read_text(encoding="utf-8"))
    if name == "part-00009.parquet":
        manifest["shards"].append({**manifest["shards"][0], "index": 9})
        (data / "_manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        shutil.copy(data / "part-00000.parquet", data / name)
        shutil.copy(data / "_games" / "part-00000.parquet", data / "_games" / name)
        problem = "not a file of this run"
    else:
        (data / name).unlink()
        os.mkfifo(data / name)
        problem = "FIFO"
    with pytest.raises(SpecError, match=rf"^dmc: expert=.*: {name}: .*{problem}"):
        load_expert(data, SMALL)


def train_args(data: Path, out: Path, games: int, *extra: str) -> list[str]:
    args = ["train", f"{SPEC},expert={data}", "--vs", "self", "--lowest-rank", "10"]
    args += ["--seed", "5", "--interval", "8", "--eval-games", "2", "--no-plot", "--quiet"]
    return [*args, "-j", "1", "--games", str(games), "--out", str(out), *extra]


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("expert={data},privileged=8", ["expert and privileged do not combine"]),
        ("expert={plain}", ["no policy column"]),
    ],
)
def test_train_refuses_a_bad_expert_run_in_one_line(
    tmp_path: Path, expert_dir: Path, spec: str, words: list[str]
) -> None:
    plain = tmp_path / "plain"
    runner.invoke(app, ["dataset", *DATASET[:-1], "--seed", "3", "--out", str(plain)])
    text = spec.format(data=expert_dir, plain=plain)
    args = ["train", f"{SPEC},{text}", "--vs", "self", "--lowest-rank", "10", "--games", "8"]
    one_error(runner.invoke(app, [*args, "--out", str(tmp_path / "m.pt")]), *words)
    other_rules = ["train", f"{SPEC},expert={expert_dir}", "--vs", "self", "--games", "8"]
    one_error(
        runner.invoke(app, [*other_rules, "--out", str(tmp_path / "m.pt")]),
        "played under other rules: lowest_rank 10 (this run: 6)",
    )


def test_train_with_an_expert_logs_its_loss_and_resumes_to_the_uninterrupted_network(
    tmp_path: Path,
) -> None:
    data = dataset(tmp_path / "search")
    cut, whole, plain = tmp_path / "cut.pt", tmp_path / "whole.pt", tmp_path / "plain.pt"
    first = runner.invoke(app, train_args(data, cut, 16))
    assert first.exit_code == 0, first.output
    resumed = runner.invoke(app, train_args(data, cut, 24, "--resume"))
    assert resumed.exit_code == 0, resumed.output
    straight = runner.invoke(app, train_args(data, whole, 24))
    assert straight.exit_code == 0, straight.output
    a, b = load_model(cut).net.state_dict(), load_model(whole).net.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    rows, again = read_evaluations(tmp_path / "whole.csv"), read_evaluations(tmp_path / "cut.csv")
    assert [r["episodes"] for r in rows] == [8, 16, 24]
    assert "expert_loss" not in rows[0] and all(r["expert_loss"] > 0 for r in rows[1:])
    for mine, theirs in zip(rows, again, strict=True):
        assert [mine.get(k) for k in ("loss", "expert_loss")] == [
            theirs.get(k) for k in ("loss", "expert_loss")
        ]
    # Without the expert the same seed trains another network: the term is used.
    args = train_args(data, plain, 24)
    args[1] = SPEC
    assert runner.invoke(app, args).exit_code == 0
    c = load_model(plain).net.state_dict()
    assert not all(torch.equal(a[k], c[k]) for k in a)
    assert "expert_loss" not in (tmp_path / "plain.csv").read_text(encoding="utf-8")
    # Other data in the same folder: the checkpoint refuses it.
    dataset(data, "--force", seed=4)
    one_error(runner.invoke(app, train_args(data, cut, 32, "--resume")), "expert_sha256")
