"""The plan of a run's files (:class:`durak.files.FilePlan`, issue 61, item 1): two outputs
at one path, an output at an input, a non-regular target and an existing file without
leave are each refused with one :class:`FileError`, before anything is written, and two
spellings of one file (a symbolic link, a hard link, ``a/../b``) are one file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from durak.files import STDOUT, Existing, FileError, FilePlan, Input, Output
from tests.support.special_files import fifo


def test_a_plan_of_distinct_new_files_passes_and_writes_nothing(tmp_path: Path) -> None:
    plan = FilePlan.of(
        [Output(tmp_path / "a.pt", "--out"), None, Output(tmp_path / "a.png", "--plot")],
        [Input(tmp_path / "log.jsonl", "LOG"), None],
    )
    plan.check()
    assert list(tmp_path.iterdir()) == []
    assert len(plan.outputs) == 2 and len(plan.inputs) == 1


@pytest.mark.parametrize("existing", ["refuse", "replace", "append"])
def test_two_outputs_at_one_path_are_refused_whatever_the_leave(
    tmp_path: Path, existing: Existing
) -> None:
    target = tmp_path / "t.pt"
    target.write_bytes(b"model")
    plan = FilePlan((Output(target, "--out", "replace"), Output(target, "--plot", existing)))
    with pytest.raises(FileError, match=r"--out and --plot name the same file"):
        plan.check()
    assert target.read_bytes() == b"model"


def test_spellings_of_one_file_are_one_file(tmp_path: Path) -> None:
    target = tmp_path / "t.pt"
    target.write_bytes(b"model")
    (tmp_path / "sub").mkdir()
    link = tmp_path / "link.pt"
    link.symlink_to(target)
    hard = tmp_path / "hard.pt"
    os.link(target, hard)
    for other in (link, hard, tmp_path / "sub" / ".." / "t.pt"):
        plan = FilePlan((Output(target, "--out", "replace"), Output(other, "--csv", "replace")))
        with pytest.raises(FileError, match="name the same file"):
            plan.check()
    # a path not yet there is compared resolved
    new = tmp_path / "new.csv"
    plan = FilePlan((Output(new, "--csv"), Output(tmp_path / "sub" / ".." / "new.csv", "--json")))
    with pytest.raises(FileError, match="--csv and --json name the same file"):
        plan.check()


def test_standard_output_is_one_target_too() -> None:
    plan = FilePlan((Output(STDOUT, "--csv"), Output(STDOUT, "--json")))
    with pytest.raises(FileError, match=r"^standard output: --csv and --json"):
        plan.check()


def test_an_output_at_an_input_is_refused_even_when_it_may_replace(tmp_path: Path) -> None:
    log = tmp_path / "games.jsonl"
    log.write_text("{}\n", encoding="utf-8")
    plan = FilePlan((Output(log, "--json", "replace"),), (Input(log, "the log FILE"),))
    with pytest.raises(FileError, match="--json names the log FILE, which this run reads"):
        plan.check()
    assert log.read_text(encoding="utf-8") == "{}\n"


def test_each_target_is_checked_as_check_target_checks_it(tmp_path: Path) -> None:
    there = tmp_path / "there.csv"
    there.write_text("rows", encoding="utf-8")
    with pytest.raises(FileError, match="exists; overwriting it needs --force"):
        FilePlan((Output(there, "--csv"),)).check()
    FilePlan((Output(there, "--csv", "replace"),)).check()
    pipe = fifo(tmp_path)
    with pytest.raises(FileError, match="FIFO"):
        FilePlan((Output(pipe, "--json", "replace"),)).check()
    with pytest.raises(FileError, match="no such directory"):
        FilePlan((Output(tmp_path / "no" / "x.png", "--plot"),)).check()


def test_a_folder_output_is_compared_but_left_to_its_writer(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    FilePlan((Output(folder, "--out", folder=True),)).check()  # its writer checks the rest
    plan = FilePlan((Output(folder, "--out", folder=True), Output(folder, "--json")))
    with pytest.raises(FileError, match="--out and --json name the same file"):
        plan.check()


def test_plans_add_up(tmp_path: Path) -> None:
    a = FilePlan((Output(tmp_path / "x", "--out"),))
    b = FilePlan((Output(tmp_path / "x", "--json"),), (Input(tmp_path / "y", "FILE"),))
    both = a + b
    assert both.outputs == a.outputs + b.outputs and both.inputs == b.inputs
    with pytest.raises(FileError, match="--out and --json"):
        both.check()
