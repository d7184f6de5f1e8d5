"""``durak dataset``: every decision of the games of ``durak match`` as a Parquet row.

A round trip rebuilds every row from the games' public records through the engine and
:mod:`durak.encoding`; the same seed writes the same bytes, on one process or a pool; a run
stopped by SIGINT and resumed writes the bytes of one uninterrupted run; bad input is one
line, exit 2."""

from __future__ import annotations

import json
import os
import signal
import stat
from pathlib import Path
from typing import Any, TypeAlias

import pytest
from typer.testing import CliRunner, Result

import tests.support.faulty_agents  # noqa: F401 - registers the test-* agents
from tests.support.cli_checks import one_error
from tests.support.extras import require_extra

np = require_extra("numpy")
pa = require_extra("pyarrow")
pq = require_extra("pyarrow.parquet")
pd = require_extra("pandas")

from durak.arena import read_log  # noqa: E402
from durak.cli.app import app  # noqa: E402
from durak.dataset import DatasetPlan  # noqa: E402
from durak.dataset.store import DatasetDir  # noqa: E402
from durak.encoding import ActionSpace, encode_observation  # noqa: E402
from durak.rules import (  # noqa: E402
    Rules,
    is_terminal,
    legal_actions,
    new_game,
    observe,
    parse_action,
    returns,
    step,
)

runner = CliRunner()
Arg: TypeAlias = str | int | Path


def invoke(*args: Arg) -> Result:
    return runner.invoke(app, [str(a) for a in args])


def write(out: Path, *args: Arg) -> Result:
    result = invoke("dataset", *args, "--out", out)
    assert result.exit_code == 0, result.output
    return result


def files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by relative path, with its bytes."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def rows_by_step(folder: Path) -> dict[tuple[int, int], dict[str, Any]]:
    table = pq.read_table(folder)  # the decisions: _games/ and _manifest.json are skipped
    rows = table.to_pylist()
    keyed = {(r["game"], r["step"]): r for r in rows}
    assert len(keyed) == len(rows)  # no decision twice
    return keyed


CASES = [
    (["random", "greedy", "-n", 7, "--seed", 3, "--shards", 3], 2),
    (
        [
            *("lowest", "random", "greedy", "-n", 4, "--seed", 5, "--variant", "perevodnoy"),
            *("--lowest-rank", 9, "--hand-size", 5, "--full-information", "--shards", 4),
        ],
        3,
    ),
]


@pytest.mark.parametrize(("args", "players"), CASES)
def test_every_row_is_rebuilt_from_the_logged_game(
    tmp_path: Path, args: list[Arg], players: int
) -> None:
    out = tmp_path / "data"
    write(out, *args, "-j", 1)
    games = pq.read_table(out / "_games").to_pylist()
    rows = rows_by_step(out)
    seen = 0
    for game in games:
        rules = Rules(**json.loads(game["rules"]))
        assert rules.players == players
        visibility = json.loads(game["open_world"])
        space = ActionSpace(rules)
        state = new_game(rules, game["seed"])
        for k, text in enumerate(game["actions"]):
            row = rows[(game["game"], k)]
            seat = state.turn
            seen_by = observe(state, seat, visibility)
            assert row["player"] == seat and row["seed"] == game["seed"]
            assert row["agent"] == game["agents"][seat]
            assert np.array_equal(
                np.array(row["observation"], np.float32), encode_observation(seen_by)
            )
            assert np.array_equal(np.array(row["legal_mask"]), space.mask(legal_actions(state)))
            assert row["action"] == space.encode(parse_action(text))
            state = step(state, parse_action(text))
            seen += 1
        assert is_terminal(state) and game["end"] == "finished"
        final = returns(state)
        assert game["returns"] == pytest.approx(final)
        for k in range(len(game["actions"])):
            row = rows[(game["game"], k)]
            assert row["return"] == pytest.approx(final[row["player"]])
    assert seen == len(rows) > 0  # every row is a decision of a logged game
    assert sorted(g["game"] for g in games) == list(range(len(games)))


def test_the_games_are_those_of_durak_match_with_the_same_seed(tmp_path: Path) -> None:
    out, log = tmp_path / "data", tmp_path / "match.jsonl"
    write(out, "random", "greedy", "-n", 6, "--seed", 11, "-j", 1, "--shards", 4)
    played = invoke("match", "random", "greedy", "-n", 6, "--seed", 11, "-j", 1, "--log", log)
    assert played.exit_code == 0, played.output
    games = {g["game"]: g for g in pq.read_table(out / "_games").to_pylist()}
    for entry in read_log(log).entries:
        g = games[entry.game]
        assert g["actions"] == list(entry.actions) and g["seed"] == entry.deal_seed
        assert g["seats"] == list(entry.seats) and g["bouts"] == entry.bouts
        assert g["durak"] == (None if entry.durak is None else entry.seats.index(entry.durak))


FORFEITS = [
    # a fault in act (an exception, an illegal action): the rows stop before it
    (("test-crash:p=0.1", "test-illegal:p=0.1", "greedy"), {"error", "illegal"}),
    # a watcher whose hook raises at the first action: its hooks must still be called
    (("test-hook-crash", "greedy"), {"error"}),
]


@pytest.mark.parametrize(("specs", "faults"), FORFEITS)
def test_forfeited_games_keep_the_rows_before_the_fault_as_durak_match_plays_them(
    tmp_path: Path, specs: tuple[str, ...], faults: set[str]
) -> None:
    out, log = tmp_path / "data", tmp_path / "match.jsonl"
    write(out, *specs, "-n", 8, "--seed", 12, "-j", 1, "--shards", 3)
    played = invoke("match", *specs, "-n", 8, "--seed", 12, "-j", 1, "--log", log)
    assert played.exit_code == 0, played.output
    games = {g["game"]: g for g in pq.read_table(out / "_games").to_pylist()}
    steps = sorted(rows_by_step(out))
    for entry in read_log(log).entries:
        g = games[entry.game]
        assert g["actions"] == list(entry.actions)
        assert g["end"] == entry.end
        assert (g["forfeit"] is None) == (entry.forfeit is None)
        assert [k for game, k in steps if game == entry.game] == list(range(len(entry.actions)))
    found = {json.loads(g["forfeit"])["fault"] for g in games.values() if g["forfeit"]}
    assert found == faults


def test_pandas_reads_the_folder_without_code_of_ours(tmp_path: Path) -> None:
    out = tmp_path / "data"
    write(out, "random", "random", "-n", 5, "--seed", 2, "-j", 1, "--shards", 2)
    manifest = json.loads((out / "_manifest.json").read_text(encoding="utf-8"))
    frame = pd.read_parquet(out)
    assert len(frame) == sum(s["decisions"] for s in manifest["shards"])
    assert list(frame.columns) == [
        "game", "seed", "step", "player", "agent", "observation", "legal_mask", "action",
        "return",
    ]  # fmt: skip
    assert len(frame["observation"].iloc[0]) == manifest["run"]["observation_size"] == 273
    assert len(frame["legal_mask"].iloc[0]) == manifest["run"]["action_space_size"] == 1334
    assert frame["legal_mask"].map(lambda m: bool(m[0]) in (True, False)).all()
    assert sorted(os.listdir(out)) == [
        "_games", "_manifest.json", "part-00000.parquet", "part-00001.parquet",
        "part-00002.parquet",
    ]  # fmt: skip
    assert pd.read_parquet(out / "_games")["game"].tolist() == [0, 1, 2, 3, 4]


def test_hugging_face_datasets_loads_it(tmp_path: Path) -> None:
    datasets = require_extra("datasets")  # a test dependency (dev), not the extra's
    out = tmp_path / "data"
    write(out, "random", "random", "-n", 3, "--seed", 2, "-j", 1)
    files_ = str(out / "part-*.parquet")
    loaded = datasets.load_dataset("parquet", data_files=files_, cache_dir=str(tmp_path / "hf"))
    assert loaded["train"].num_rows == len(pd.read_parquet(out))


def test_the_same_seed_writes_the_same_bytes_on_any_number_of_jobs(tmp_path: Path) -> None:
    args: list[Arg] = ["random", "greedy", "-n", 9, "--seed", 4, "--shards", 2]
    write(tmp_path / "a", *args, "-j", 1)
    write(tmp_path / "b", *args, "-j", 1)
    write(tmp_path / "c", *args, "-j", 2)
    first = files(tmp_path / "a")
    assert len(first) == 11  # 5 shards of decisions, 5 of games, the manifest
    assert files(tmp_path / "b") == first == files(tmp_path / "c")
    write(tmp_path / "d", "random", "greedy", "-n", 9, "--seed", 5, "--shards", 2, "-j", 1)
    assert files(tmp_path / "d")["part-00000.parquet"] != first["part-00000.parquet"]


def interrupt_after(monkeypatch: pytest.MonkeyPatch, commits: int) -> None:
    """Ctrl-C (a real SIGINT to this process) right after the ``commits``-th shard."""
    commit = DatasetDir.commit
    made: list[int] = []

    def commit_then_interrupt(self: DatasetDir, files: Any) -> Any:
        shard = commit(self, files)
        made.append(shard.index)
        if len(made) == commits:
            os.kill(os.getpid(), signal.SIGINT)
        return shard

    monkeypatch.setattr(DatasetDir, "commit", commit_then_interrupt)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_run_stopped_by_sigint_resumes_to_the_bytes_of_one_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    args: list[Arg] = ["random", "greedy", "-n", 11, "--seed", 6, "--shards", 2, "-j", jobs]
    whole = tmp_path / "whole"
    write(whole, *args)
    out = tmp_path / "stopped"
    with monkeypatch.context() as patch:
        interrupt_after(patch, 2)
        stopped = invoke("dataset", *args, "--out", out)
    assert stopped.exit_code == 130, stopped.output
    assert (
        f"interrupted: 2 of 6 files written to {out}; run the same command with --resume"
        in stopped.stderr
    )
    manifest = json.loads((out / "_manifest.json").read_text(encoding="utf-8"))
    assert [s["index"] for s in manifest["shards"]] == [0, 1]
    kept = {n: (out / n).stat().st_mtime_ns for n in ("part-00000.parquet", "part-00001.parquet")}
    # A cut-off write and a shard written but not yet listed are written again.
    (out / ".part-00002.parquet.abc.tmp").write_bytes(b"half")
    (out / "part-00002.parquet").write_bytes(b"not listed")
    resumed = invoke("dataset", *args, "--out", out, "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert "resuming: 2 of 6 files already in" in resumed.stderr
    assert "(2 files resumed)" in resumed.stdout
    assert files(out) == files(whole)
    assert {n: (out / n).stat().st_mtime_ns for n in kept} == kept  # not written again
    games = pq.read_table(out / "_games").column("game").to_pylist()
    assert games == list(range(11))  # no game twice


def test_a_changed_shard_is_written_again_on_resume(tmp_path: Path) -> None:
    args: list[Arg] = ["random", "random", "-n", 4, "--seed", 8, "--shards", 2, "-j", 1]
    out = tmp_path / "data"
    write(out, *args)
    whole = files(out)
    (out / "_games" / "part-00001.parquet").write_bytes(b"damaged")
    resumed = invoke("dataset", *args, "--out", out, "--resume")
    assert resumed.exit_code == 0, resumed.output
    note = "note: _games/part-00001.parquet: does not match the SHA-256 the manifest lists; "
    assert note + "writing part-00001.parquet again" in resumed.stderr
    assert files(out) == whole


@pytest.mark.parametrize("name", ["part-00001.parquet", "_games/part-00003.parquet"])
def test_a_fifo_in_place_of_a_file_is_refused_unread_on_resume(tmp_path: Path, name: str) -> None:
    # Before the fix, resuming read the FIFO and blocked for ever (the suite's pytest-timeout
    # ends such a hang); now it is refused before any game, and left as it is.
    args: list[Arg] = ["random", "random", "-n", 8, "--seed", 9, "--shards", 2, "-j", 1]
    out = tmp_path / "data"
    write(out, *args)
    before = files(out)
    (out / name).unlink()
    os.mkfifo(out / name)
    one_error(invoke("dataset", *args, "--out", out, "--resume"), name, "FIFO")
    assert stat.S_ISFIFO((out / name).stat().st_mode)
    assert files(out) == {k: v for k, v in before.items() if k != name}


def rewrite_manifest(out: Path, change: Any) -> None:
    """The manifest of ``out`` changed in place by ``change(manifest)``."""
    manifest = json.loads((out / "_manifest.json").read_text(encoding="utf-8"))
    change(manifest)
    (out / "_manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def copy_shard(out: Path, source: int, target: int) -> None:
    for folder in (out, out / "_games"):
        name = f"part-{target:05d}.parquet"
        (folder / name).write_bytes((folder / f"part-{source:05d}.parquet").read_bytes())


def test_a_manifest_entry_outside_the_run_is_dropped_and_its_files_removed(
    tmp_path: Path,
) -> None:
    # 11 games, 2 a file: files 0 to 5.  Before the fix, an entry for file 7 with copies of
    # file 0 was believed: "7 of 6 files, 13 games", and the folder read 2 games twice.
    args: list[Arg] = ["random", "greedy", "-n", 11, "--seed", 6, "--shards", 2, "-j", 1]
    out = tmp_path / "data"
    write(out, *args)
    whole = files(out)
    copy_shard(out, 0, 7)
    rewrite_manifest(out, lambda m: m["shards"].append({**m["shards"][0], "index": 7}))
    resumed = invoke("dataset", *args, "--out", out, "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert (
        "note: the manifest lists part-00007.parquet, not a file of this run; removing it"
        in resumed.stderr
    )
    assert "wrote: 6 of 6 files, 11 games" in resumed.stdout
    assert files(out) == whole
    assert pq.read_table(out).column("game").unique().to_pylist() == list(range(11))


def forge(kind: str) -> Any:
    """A change to a manifest: file 1's entry claims what its files do not hold."""

    def change(manifest: dict[str, Any]) -> None:
        first, entry = manifest["shards"][0], manifest["shards"][1]
        if kind == "other games":  # file 0's files and checksums, listed as file 1
            entry.update(sha256=first["sha256"], decisions=first["decisions"])
        else:
            entry[kind] = 1000

    return change


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("games", "part-00001.parquet: holds 2 games, not the 1000 listed"),
        ("decisions", "part-00001.parquet: holds"),
        ("other games", "part-00001.parquet: does not hold games 2 to 3"),
    ],
)
def test_a_manifest_entry_its_files_do_not_bear_out_is_written_again(
    tmp_path: Path, kind: str, words: str
) -> None:
    args: list[Arg] = ["random", "greedy", "-n", 8, "--seed", 6, "--shards", 2, "-j", 1]
    out = tmp_path / "data"
    write(out, *args)
    whole = files(out)
    if kind == "other games":
        copy_shard(out, 0, 1)
    rewrite_manifest(out, forge(kind))
    resumed = invoke("dataset", *args, "--out", out, "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert f"note: {words}" in resumed.stderr
    assert "writing part-00001.parquet again" in resumed.stderr
    assert "resuming: 3 of 4 files" in resumed.stderr
    assert files(out) == whole


def test_resume_without_a_seed_takes_the_datasets(tmp_path: Path) -> None:
    out = tmp_path / "data"
    write(out, "random", "random", "-n", 2, "--seed", 77, "-j", 1)
    again = invoke("dataset", "random", "random", "-n", 2, "-j", 1, "--out", out, "--resume")
    assert again.exit_code == 0, again.output
    assert f"seed 77 (from {out})" in again.stdout


def test_force_replaces_a_dataset_with_another(tmp_path: Path) -> None:
    out = tmp_path / "data"
    write(out, "random", "random", "-n", 6, "--seed", 1, "-j", 1, "--shards", 1)
    write(out, "random", "greedy", "-n", 2, "--seed", 2, "-j", 1, "--force")
    write(tmp_path / "fresh", "random", "greedy", "-n", 2, "--seed", 2, "-j", 1)
    assert files(out) == files(tmp_path / "fresh")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["random", "bogus"], ["unknown agent 'bogus'"]),
        (["random"], ["at least two agents"]),
        (["random", "random", "--shards", "0"], ["Invalid value for '--shards'"]),
        (["random", "random", "--games", "0"], ["Invalid value for '--games'"]),
        (["random", "random", "--resume", "--force"], ["--resume", "--force"]),
        (["random", "random", "--hand-size", "30"], ["more than the 36-card deck"]),
        (["random", "random", "--address", "h:1"], ["--address is for --backend ray"]),
    ],
)
def test_bad_options_are_one_line_and_write_nothing(
    tmp_path: Path, args: list[str], words: list[str]
) -> None:
    out = tmp_path / "data"
    one_error(invoke("dataset", "-n", "2", *args, "--out", out), *words)
    assert not out.exists()


def test_bad_folders_are_one_line_and_are_left_as_they_were(tmp_path: Path) -> None:
    plain = tmp_path / "plain.txt"
    plain.write_text("mine", encoding="utf-8")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine", encoding="utf-8")
    base: list[Arg] = ["dataset", "random", "random", "-n", "2", "-j", "1", "--out"]
    one_error(invoke(*base, plain), str(plain), "is not a directory")
    one_error(invoke(*base, fifo), "is not a directory")
    one_error(invoke(*base, plain / "sub"), "is not a directory")  # cannot be created
    one_error(invoke(*base, tmp_path / "no" / "such"), "no such directory")
    for flag in ([], ["--force"], ["--resume"]):
        one_error(invoke(*base, busy, *flag), "holds files but no dataset")
    assert plain.read_text(encoding="utf-8") == "mine"
    assert sorted(os.listdir(busy)) == ["notes.txt"]


def test_an_existing_dataset_needs_force_or_a_resume_of_the_same_run(tmp_path: Path) -> None:
    out = tmp_path / "data"
    write(out, "random", "random", "-n", 2, "--seed", 1, "-j", 1)
    before = files(out)
    base: list[Arg] = ["dataset", "random", "random", "-n", "2", "-j", "1", "--out", out]
    one_error(invoke(*base, "--seed", "1"), "holds a dataset already", "--force")
    one_error(
        invoke(*base, "--seed", "2", "--resume"),
        "the dataset has seed 1, the command 2",
        "refusing to resume a different run",
    )
    one_error(invoke(*base[:-4], "-n", "3", "-j", "1", "--out", out, "--resume"), "games 2")
    assert files(out) == before


def test_the_package_imports_each_public_name_when_first_used() -> None:
    # durak.dataset imports its modules lazily (so that learn reads the format alone)
    import durak.dataset  # noqa: PLC0415

    found = {name: getattr(durak.dataset, name) for name in durak.dataset.__all__}
    assert found["DatasetPlan"] is DatasetPlan and found["DatasetDir"] is DatasetDir
    assert all(getattr(v, "__module__", "").startswith("durak.dataset.") for v in found.values())
    with pytest.raises(AttributeError, match="no attribute 'bogus'"):
        durak.dataset.bogus  # noqa: B018


def test_the_agent_column_names_agents_by_their_canonical_specs(tmp_path: Path) -> None:
    """Issue 61: two spellings of one agent were two names, and two datasets."""
    out = tmp_path / "data"
    write(out, "random:stop_chance=.20", "greedy:", "-n", 2, "--seed", 1, "-j", 1)
    assert set(pq.read_table(out).column("agent").to_pylist()) == {"random", "greedy"}
    games = pq.read_table(out / "_games").to_pylist()
    assert {a for g in games for a in g["agents"]} == {"random", "greedy"}
    before = files(out)
    again = invoke(
        "dataset", "random:", "greedy:", "-n", 2, "--seed", 1, "-j", 1, "--out", out, "--resume"
    )
    assert again.exit_code == 0, again.output  # the same run, spelt otherwise
    assert files(out) == before


def test_a_folder_in_use_by_another_run_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "data"
    write(out, "random", "random", "-n", 2, "--seed", 1, "-j", 1)
    base: list[Arg] = ["dataset", "random", "random", "-n", "2", "--seed", "1", "-j", "1"]
    base += ["--out", out]
    plan = DatasetPlan(Rules(), ("random", "random"), 1, 2, 1000)
    with DatasetDir(out, plan.description(), "resume"):
        one_error(invoke(*base, "--resume"), "in use by another durak dataset run")
