"""Option groups (:mod:`durak.cli.option_groups`): declared once, expanded into commands."""

from __future__ import annotations

import inspect
from typing import Annotated

import attrs
import pytest
import typer
from typer.testing import CliRunner

from durak.cli.option_groups import expand, option_group

Size = Annotated[int, typer.Option(help="A size.", min=1)]
Name = Annotated[str, typer.Option("--label", help="A label.")]


@option_group
@attrs.frozen
class Group:
    """Two options shared by commands."""

    size: Size = 3
    label: Name = "x"


def _app(command: typer.models.CommandFunctionType) -> typer.Typer:
    app = typer.Typer()
    app.command()(command)
    app.command("other")(lambda: None)  # two commands, so the first is named
    return app


def test_a_group_expands_into_options_and_is_gathered_back() -> None:
    seen: list[tuple[str, Group]] = []

    @expand
    def cmd(word: Annotated[str, typer.Argument()], group: Group, flag: bool = False) -> None:
        seen.append((word, group))

    result = CliRunner().invoke(_app(cmd), ["cmd", "hi", "--size", "5", "--label", "y"])
    assert result.exit_code == 0, result.output
    assert seen == [("hi", Group(5, "y"))]
    seen.clear()
    result = CliRunner().invoke(_app(cmd), ["cmd", "hi"])
    assert result.exit_code == 0, result.output
    assert seen == [("hi", Group())]  # the defaults come from the class


def test_the_group_options_keep_their_checks_and_help() -> None:
    @expand
    def cmd(group: Group) -> None:
        pass

    app = _app(cmd)
    bad = CliRunner().invoke(app, ["cmd", "--size", "0"])
    assert bad.exit_code == 2
    assert "--size" in bad.output
    helped = CliRunner().invoke(app, ["cmd", "--help"])
    assert "A size." in helped.output and "--label" in helped.output


def test_a_clash_between_groups_and_parameters_is_refused() -> None:
    def cmd(group: Group, size: int = 1) -> None:
        pass

    with pytest.raises(TypeError, match="repeat size"):
        expand(cmd)


def test_only_attrs_classes_can_be_groups() -> None:
    class Plain:
        pass

    with pytest.raises(TypeError, match="attrs class"):
        option_group(Plain)


@option_group
@attrs.frozen(kw_only=True)
class Outer:
    """A group holding another group among its own options."""

    word: Annotated[str, typer.Argument()]
    inner: Group
    loud: Annotated[bool, typer.Option("--loud")] = False

    def __attrs_post_init__(self) -> None:
        if self.loud and self.inner.size > 4:
            raise ValueError("--loud takes a --size up to 4")


def test_a_group_inside_a_group_expands_in_its_place_and_is_gathered_back() -> None:
    seen: list[Outer] = []

    @expand
    def cmd(outer: Outer, after: Annotated[int, typer.Option()] = 0) -> None:
        seen.append(outer)

    names = [p.name for p in inspect.signature(cmd).parameters.values()]
    assert names == ["word", "size", "label", "loud", "after"]
    app = _app(cmd)
    result = CliRunner().invoke(app, ["cmd", "hi", "--size", "4", "--loud", "--label", "z"])
    assert result.exit_code == 0, result.output
    assert seen == [Outer(word="hi", inner=Group(4, "z"), loud=True)]
    bad = CliRunner().invoke(app, ["cmd", "hi", "--size", "5", "--loud"])
    assert bad.exit_code == 2
    assert bad.stderr == "error: --loud takes a --size up to 4\n"


def test_a_clash_inside_a_nested_group_is_refused() -> None:
    def cmd(outer: Outer, label: int = 1) -> None:
        pass

    with pytest.raises(TypeError, match="repeat label"):
        expand(cmd)
