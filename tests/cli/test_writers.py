"""The commands that write or read files, against targets that are not regular files, a
full disk and a mismatched resume (issue 47, items 1 and 8).

Each command is run in a subprocess with a time limit (a FIFO opened the blocking way
would hang it) and, for a full disk, with ``RLIMIT_FSIZE`` (``ulimit -f``).  After every
refusal: exit 2, one ``error:`` line naming the file, the FIFO or device still what it
was, the old file's bytes unchanged, and no temporary file left behind.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.extras import require_extra
from tests.support.special_files import device, fifo

SRC = str(Path(__file__).resolve().parents[2] / "src")
SMALL = ["--lowest-rank", "10"]
TINY_DMC = "dmc:round=8,chunk=4,hidden=16,layers=2,batch=64"


def run(
    args: list[str], cwd: Path, *, fsize: int | None = None
) -> subprocess.CompletedProcess[str]:
    """``args`` (a ``durak`` command line, or ``-m module ...``) in a fresh process."""
    limit = (
        ""
        if fsize is None
        else (f"import resource; resource.setrlimit(resource.RLIMIT_FSIZE, ({fsize}, {fsize}))\n")
    )
    if args[0] == "-m":
        code = f"import runpy, sys\nsys.argv = {args[1:]!r}\n"
        code += f"runpy.run_module({args[1]!r}, run_name='__main__')"
    else:
        code = (
            f"import sys\nsys.argv = ['durak', *{args!r}]\nfrom durak.cli.app import main\nmain()"
        )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    env["COLUMNS"] = "400"
    return subprocess.run(
        [sys.executable, "-c", limit + code],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def one_error(result: subprocess.CompletedProcess[str], *words: str) -> str:
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = [x for x in result.stderr.splitlines() if x.strip()]
    errors = [x for x in lines if x.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in result.stderr, result.stderr
    for word in words:
        assert word in errors[0], errors[0]
    return errors[0]


def kinds(folder: Path) -> dict[str, int]:
    return {p.name: stat.S_IFMT(p.lstat().st_mode) for p in folder.iterdir()}


# --- model_upgrade -----------------------------------------------------------------------


def version_1_model(folder: Path) -> Path:
    torch = require_extra("torch")
    from durak.learn.dmc.net import DmcModel, build_network, save_model  # noqa: PLC0415
    from durak.rules import Rules  # noqa: PLC0415

    rules = Rules(lowest_rank=10)
    path = folder / "v1.pt"
    torch.manual_seed(0)
    save_model(path, DmcModel(build_network(rules, (8,)), rules, (8,)))
    data = torch.load(path, weights_only=True)
    del data["checksum"]
    torch.save({**data, "version": 1}, path)
    return path


@pytest.mark.parametrize("make", [fifo, device])
def test_model_upgrade_never_replaces_a_fifo_or_a_device(tmp_path: Path, make: object) -> None:
    source = version_1_model(tmp_path)
    target = make(tmp_path)  # type: ignore[operator]
    before = kinds(tmp_path)
    for force in ([], ["--force"]):
        result = run(
            ["-m", "durak.learn.model_upgrade", str(source), str(target), *force], tmp_path
        )
        one_error(result, str(target), "not a regular file")
        assert kinds(tmp_path) == before


def test_model_upgrade_overwrites_a_model_only_with_force(tmp_path: Path) -> None:
    source = version_1_model(tmp_path)
    target = tmp_path / "new.pt"
    target.write_bytes(b"keep me")
    result = run(["-m", "durak.learn.model_upgrade", str(source), str(target)], tmp_path)
    one_error(result, str(target), "exists", "--force")
    assert target.read_bytes() == b"keep me"
    result = run(["-m", "durak.learn.model_upgrade", str(source), str(target), "--force"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert sorted(kinds(tmp_path)) == ["new.pt", "v1.pt"]


@pytest.mark.parametrize(
    ("name", "words"),
    [("sub", "is a directory"), ("missing/new.pt", "no such directory"), ("n" * 300, "too long")],
)
def test_model_upgrade_refuses_bad_targets_in_one_line(
    tmp_path: Path, name: str, words: str
) -> None:
    source = version_1_model(tmp_path)
    (tmp_path / "sub").mkdir()
    result = run(["-m", "durak.learn.model_upgrade", str(source), str(tmp_path / name)], tmp_path)
    one_error(result, words)
    assert sorted(kinds(tmp_path)) == ["sub", "v1.pt"]


def test_model_upgrade_on_a_full_disk_leaves_the_model_and_no_debris(tmp_path: Path) -> None:
    source = version_1_model(tmp_path)
    old = source.read_bytes()
    result = run(["-m", "durak.learn.model_upgrade", "v1.pt"], tmp_path, fsize=len(old) // 2)
    one_error(result, "v1.pt", "File too large")
    assert source.read_bytes() == old
    assert sorted(kinds(tmp_path)) == ["v1.pt"]


# --- train qlearn / dmc -----------------------------------------------------------------


def train_qlearn(out: str, *more: str) -> list[str]:
    return ["train", "qlearn", "--vs", "random", "--games", "20", "--interval", "10", *SMALL,
            "--seed", "1", "--no-plot", "--out", out, *more]  # fmt: skip


@pytest.mark.parametrize("make", [fifo, device])
def test_train_qlearn_refuses_a_fifo_or_device_even_with_force(
    tmp_path: Path, make: object
) -> None:
    target = make(tmp_path)  # type: ignore[operator]
    before = kinds(tmp_path)
    for force in ([], ["--force"]):
        args = train_qlearn(str(target), *force, "--csv", str(tmp_path / "q.csv"))
        one_error(run(args, tmp_path), str(target), "not a regular file")
        assert kinds(tmp_path) == before


@pytest.mark.parametrize(
    ("name", "words"),
    [("sub", "is a directory"), ("missing/q.json", "no such directory"), ("q" * 300, "too long")],
)
def test_train_qlearn_refuses_bad_targets_in_one_line(
    tmp_path: Path, name: str, words: str
) -> None:
    (tmp_path / "sub").mkdir()
    result = run(train_qlearn(str(tmp_path / name), "--csv", str(tmp_path / "q.csv")), tmp_path)
    one_error(result, words)
    assert sorted(kinds(tmp_path)) == ["sub"]


def test_train_qlearn_on_a_full_disk_names_the_table_and_leaves_no_debris(tmp_path: Path) -> None:
    (tmp_path / "q.json").write_bytes(b"old table")
    result = run(train_qlearn("q.json", "--force"), tmp_path, fsize=4000)
    one_error(result, "q.json", "File too large")
    assert (tmp_path / "q.json").read_bytes() == b"old table"
    assert sorted(kinds(tmp_path)) == ["q.csv", "q.json"]


def dmc_args(out: str, *more: str) -> list[str]:
    return ["train", TINY_DMC, "--vs", "self", *SMALL, "--seed", "3", "--out", out,
            "--interval", "8", "--eval-games", "2", "--no-plot", "--games", "8", *more]  # fmt: skip


def test_train_dmc_on_a_full_disk_is_one_line_without_debris(tmp_path: Path) -> None:
    require_extra("torch")
    result = run(dmc_args("m.pt"), tmp_path, fsize=60_000)
    one_error(result, "m.pt", "File too large")
    assert not [p for p in kinds(tmp_path) if p.endswith((".partial", ".tmp"))], kinds(tmp_path)


def test_train_dmc_refuses_a_device_checkpoint(tmp_path: Path) -> None:
    require_extra("torch")
    target = device(tmp_path, "m.pt.ckpt")
    result = run(dmc_args("m.pt", "--force"), tmp_path)
    one_error(result, "m.pt.ckpt", "not a regular file")
    assert kinds(tmp_path) == {"m.pt.ckpt": stat.S_IFCHR} and target.is_char_device()


def test_train_dmc_resume_names_the_setting_that_differs(tmp_path: Path) -> None:
    require_extra("torch")
    first = run(dmc_args("m.pt"), tmp_path)
    assert first.returncode == 0, first.stderr
    other = dmc_args("m.pt", "--resume")
    other[1] = TINY_DMC + ",lr=0.001"
    one_error(run(other, tmp_path), "m.pt.ckpt", "settings differ", "lr=0.0003 (command: 0.001)")
    seed = dmc_args("m.pt", "--resume")
    seed[seed.index("--seed") + 1] = "4"
    one_error(run(seed, tmp_path), "m.pt.ckpt", "seed 3, the command 4")


# --- readers: qlearn tables, logs, reports ----------------------------------------------


@pytest.mark.parametrize("make", [fifo, device])
def test_a_qlearn_table_that_is_not_a_regular_file_is_refused(tmp_path: Path, make: object) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    result = run(["match", f"qlearn:path={path}", "greedy", "-n", "1"], tmp_path)
    one_error(result, str(path), "not a regular file")


def test_match_refuses_a_fifo_log_and_replay_a_fifo(tmp_path: Path) -> None:
    path = fifo(tmp_path, "games.jsonl")
    one_error(run(["match", "random", "random", "-n", "1", "--log", str(path)], tmp_path),
              str(path), "FIFO")  # fmt: skip
    one_error(run(["replay", str(path)], tmp_path), str(path), "FIFO")
    assert stat.S_ISFIFO(path.stat().st_mode)


@pytest.mark.parametrize("option", ["--json", "--csv"])
def test_match_reports_refuse_a_device_and_are_written_whole(tmp_path: Path, option: str) -> None:
    target = device(tmp_path)
    one_error(run(["match", "random", "random", "-n", "1", option, str(target)], tmp_path),
              str(target), "not a regular file")  # fmt: skip
    assert target.is_char_device()
    report = tmp_path / "report"
    report.write_text("old")
    result = run(["match", "random", "random", "-n", "2", option, str(report), "--force"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert report.read_text() != "old" and sorted(kinds(tmp_path)) == ["null", "report"]


def test_agents_json_refuses_a_fifo(tmp_path: Path) -> None:
    path = fifo(tmp_path)
    one_error(run(["agents", "--json", str(path)], tmp_path), str(path), "FIFO")
    assert stat.S_ISFIFO(path.stat().st_mode)
