"""Contracts every command keeps, generated from the typer app (issue 61), so that a new
command is covered without a new test: it only needs its row in :data:`BASE`.

* Files: every pair of a command's outputs at one path, and every output at one of its
  inputs, is refused with one line and exit 2, before any work, even with ``--force``
  (nothing is written at that path; a file there is left as it was).  A command's file
  parameters are read from its signature: a ``Path`` option is an output, a ``Path``
  argument an input.  Derived names (``OUT.ckpt``, ``OUT.csv``, ``OUT.png``) are listed in
  :data:`DERIVED`.
"""

from __future__ import annotations

import inspect
import itertools
import typing
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from durak.cli.app import app
from tests.support.cli_checks import one_error

runner = CliRunner()

#: A deck of 4 cards (the king and ace of spades and hearts): games of a few moves.
TINY = ["--suits", "2", "--lowest-rank", "13", "--hand-size", "2"]
#: A DMC learner small enough to build at once.
SMALL_DMC = "dmc:round=8,chunk=4,hidden=16,layers=2,batch=64"
#: A game log for the commands that read one (written by the fixture).
LOG = "{log}"

#: A fast invocation of every command (its file options are added by the tests).
BASE: dict[str, list[str]] = {
    "match": ["random", "random", "-n", "2", "-j", "1", "--seed", "1", *TINY],
    "tournament": ["random", "greedy", "-n", "2", "-j", "1", "--seed", "1", *TINY],
    "grid": ["mcts:limit=2", "--param", "c=1,2", "-n", "2", "-j", "1", "--seed", "1", *TINY],
    "ladder": ["random", "greedy", "-n", "2", "-j", "1", "--seed", "1", *TINY],
    "dataset": ["random", "random", "--games", "2", "-j", "1", "--seed", "1", *TINY],
    "train": [SMALL_DMC, "--vs", "greedy", "-n", "8", "-j", "1", "--seed", "1", "-q", *TINY],
    "exploit": [
        *("greedy", "--learner", SMALL_DMC, "-n", "8", "--curve-games", "2", "--eval-games"),
        *("1", "-j", "1", "--seed", "1", "-q", "--init", "none", *TINY),
    ],
    "review": [LOG, "--agent", "greedy"],
    "replay": [LOG],
    "play": ["greedy", *TINY],
    "agents": [],
    "learners": [],
    "bench": ["--games", "2"],
    "serve": ["--port", "0"],
}

#: Files a command derives from ``--out m.pt``, as (the derived name's end, the option
#: whose default it is, if any): ``train`` writes ``m.pt.ckpt`` and, unless ``--csv`` says
#: otherwise, ``m.csv``.
DERIVED: dict[str, list[tuple[str, str | None]]] = {
    "train": [(".pt.ckpt", None), (".pt.eval", None), (".csv", "--csv"), (".png", "--plot")],
    "exploit": [(".pt.ckpt", None), (".pt.eval", None), (".csv", None), (".png", "--plot")],
}


def _commands() -> dict[str, typer.core.TyperCommand]:
    group = typer.main.get_command(app)
    ctx = typer.Context(group)
    return {n: group.get_command(ctx, n) for n in group.list_commands(ctx)}  # type: ignore[attr-defined]


def _file_params(command: typer.core.TyperCommand) -> tuple[list[str], list[str]]:
    """The flags of the command's ``Path`` options (outputs) and the names of its ``Path``
    arguments (inputs), in signature order."""
    hints = typing.get_type_hints(command.callback, include_extras=True)
    outputs, inputs = [], []
    for name in inspect.signature(command.callback).parameters:  # type: ignore[arg-type]
        hint = hints.get(name)
        base = typing.get_args(hint)[0] if typing.get_origin(hint) is typing.Annotated else hint
        if Path not in (typing.get_args(base) or (base,)):
            continue
        param = next(p for p in command.params if p.name == name)
        if param.param_type_name == "option":
            outputs.append(max(param.opts, key=len))
        else:
            inputs.append(name)
    return outputs, inputs


COMMANDS = _commands()
FILES = {name: _file_params(c) for name, c in COMMANDS.items()}


def test_every_command_has_a_base_invocation() -> None:
    assert set(BASE) == set(COMMANDS), "give a new command its row in BASE"


def _pairs() -> list[tuple[str, str, str]]:
    cases = []
    for name, (outputs, _) in FILES.items():
        cases += [(name, a, b) for a, b in itertools.combinations(outputs, 2)]
    return cases


def _args(name: str, tmp_path: Path) -> list[str]:
    log = tmp_path / "games.jsonl"
    if not log.exists():
        played = ["match", "greedy", "random", "-n", "2", "-j", "1", "--seed", "3"]
        runner.invoke(app, [*played, *TINY, "--log", str(log)])
    return [str(log) if a == LOG else a for a in BASE[name]]


def _all_outputs(name: str, tmp_path: Path) -> dict[str, Path]:
    """A distinct path in a fresh folder for every output option of ``name``."""
    folder = tmp_path / "out"
    folder.mkdir(exist_ok=True)
    return {flag: folder / f"{flag.strip('-')}.pt" for flag in FILES[name][0]}


def _refused(name: str, given: dict[str, Path], tmp_path: Path, *words: str) -> None:
    args = [name, *_args(name, tmp_path)]
    for flag, path in given.items():
        args += [flag, str(path)]
    result = runner.invoke(app, [*args, "--force"] if "--force" in _flags(name) else args)
    one_error(result, *words)
    assert "runs on:" not in result.output, "work began before the refusal"


def _flags(name: str) -> set[str]:
    return {o for p in COMMANDS[name].params for o in getattr(p, "opts", [])}


@pytest.mark.parametrize(("name", "first", "second"), _pairs())
def test_two_outputs_at_one_path_are_refused_before_any_work(
    name: str, first: str, second: str, tmp_path: Path
) -> None:
    given = _all_outputs(name, tmp_path)
    shared = given[first]
    given[second] = shared
    _refused(name, given, tmp_path, "name the same file", first, second)
    assert not shared.exists()


@pytest.mark.parametrize(
    ("name", "end", "owner"),
    [(n, end, owner) for n, derived in DERIVED.items() for end, owner in derived],
)
def test_an_output_at_a_derived_name_is_refused(
    name: str, end: str, owner: str | None, tmp_path: Path
) -> None:
    out = tmp_path / "m.pt"
    derived = tmp_path / ("m" + end)
    others = [f for f in FILES[name][0] if f not in ("--out", owner)]
    assert others, f"{name}: no option to put at {derived.name}"
    for flag in others:
        _refused(name, {"--out": out, flag: derived}, tmp_path, "name the same file")
        assert not out.exists() and not derived.exists()


@pytest.mark.parametrize(
    ("name", "output"),
    [(n, o) for n, (outputs, inputs) in FILES.items() if inputs for o in outputs],
)
def test_an_output_at_an_input_is_refused_and_the_input_kept(
    name: str, output: str, tmp_path: Path
) -> None:
    _args(name, tmp_path)  # writes the log
    log = tmp_path / "games.jsonl"
    before = log.read_bytes()
    _refused(name, {output: log}, tmp_path, "which this run reads")
    assert log.read_bytes() == before


def test_the_file_parameters_are_read_from_the_commands() -> None:
    assert FILES["match"] == (["--log", "--csv", "--json"], [])
    assert FILES["review"][1] == ["file"] and "--json" in FILES["review"][0]
    assert set(FILES["train"][0]) >= {"--out", "--csv", "--plot"}


#: Outputs a run continues when they exist: a game log (``--resume``) and a ladder file.
CONTINUED = {"--log", "--file"}


@pytest.mark.parametrize(
    ("name", "output"),
    [(n, o) for n, (outputs, _) in FILES.items() for o in outputs if o not in CONTINUED],
)
def test_an_existing_output_without_force_is_refused_before_any_work(
    name: str, output: str, tmp_path: Path
) -> None:
    there = tmp_path / "there.out"
    there.write_bytes(b"kept")
    if name == "dataset":  # its output is a folder, with a dataset in it
        there = tmp_path / "data"
        there.mkdir()
        (there / "part-00000.parquet").write_bytes(b"kept")
    args = [name, *_args(name, tmp_path), output, str(there)]
    if output != "--out" and "--out" in FILES[name][0]:
        args += ["--out", str(tmp_path / "model.pt")]
    result = runner.invoke(app, args)
    one_error(result, str(there))
    assert "runs on:" not in result.output
    assert not (tmp_path / "model.pt").exists()


#: The commands whose games or actors run on a backend (they take ``--jobs``).
BACKED = sorted(n for n, c in COMMANDS.items() if "--jobs" in _flags(n))


@pytest.mark.parametrize("name", BACKED)
@pytest.mark.parametrize(
    ("options", "words"),
    [
        (["--address", "127.0.0.1:1"], ["--address is for --backend ray"]),
        (["--backend", "ray", "--address", "127.0.0.1:1", "-j", "2"], ["--jobs", "--address"]),
    ],
)
def test_the_run_options_are_checked_first_by_every_command_that_runs_games(
    name: str, options: list[str], words: list[str], tmp_path: Path
) -> None:
    given = {flag: path for flag, path in _all_outputs(name, tmp_path).items() if flag == "--out"}
    args = [name, *_args(name, tmp_path), *options]
    for flag, path in given.items():
        args += [flag, str(path)]
    one_error(runner.invoke(app, args), *words)
    assert not any(p.exists() for p in given.values())


#: ``human`` two deep: a fallback's opening.
NESTED_HUMAN = "solver:fallback=phased:opening=human"
#: Where each command that plays unattended takes a seat's spec: its arguments with
#: :data:`NESTED_HUMAN` seated.
SEATED: dict[str, list[str]] = {
    "match": [NESTED_HUMAN, "random", "-n", "2", "-j", "2", *TINY],
    "tournament": ["random", NESTED_HUMAN, "-n", "2", "-j", "2", *TINY],
    "grid": [NESTED_HUMAN, "--param", "nodes=5,6", "-n", "2", "-j", "2", *TINY],
    "ladder": ["random", NESTED_HUMAN, "-n", "2", "-j", "2", *TINY],
    "dataset": ["random", NESTED_HUMAN, "--games", "2", "-j", "2", *TINY],
    "exploit": [NESTED_HUMAN, "--method", "search", "--eval-games", "1", "-j", "2", *TINY],
    "train": [SMALL_DMC, "--vs", f"self,{NESTED_HUMAN}", "-n", "8", "-j", "2", *TINY],
}


def test_every_command_that_plays_unattended_has_a_seated_invocation() -> None:
    assert set(SEATED) == set(BACKED), "give a command that plays unattended its SEATED row"


@pytest.mark.parametrize("name", BACKED)
def test_a_person_nested_two_deep_is_refused_before_any_game(name: str, tmp_path: Path) -> None:
    written = {"train": {"--out": tmp_path / "out.pt"}, "dataset": {"--out": tmp_path / "data"}}
    outputs = written.get(name, {})
    args = [name, *SEATED[name]]
    for flag, path in outputs.items():
        args += [flag, str(path)]
    result = runner.invoke(app, args)
    one_error(result, "human", "fallback: opening")
    assert "runs on:" not in result.output
    assert not any(p.exists() for p in outputs.values())
