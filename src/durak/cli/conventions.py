"""One meaning per option across the ``durak`` commands (the table in docs/cli.md, "Option
conventions"), and the help text that shows it.

* ``--json`` and ``--csv`` take an optional value: ``FILE``, or ``-`` (standard output),
  which is also what they mean alone; click has no optional values, so
  :func:`rewrite_arguments` supplies the ``-``.
* The spellings replaced by the convention (``durak train --episodes`` and ``--actors``)
  still work for one release: :func:`rewrite_arguments` maps them to the new ones and
  prints a one-line note on standard error.
* ``--agent-module MODULE`` (an option of ``durak`` itself) may also follow the command:
  :func:`rewrite_arguments` moves it to the front.
* :func:`tidy_help` shows flags as flags (no ``<bool>`` placeholder), arguments in the
  usage line as ``SPEC...`` rather than typer's ``{specs}...``, and descriptions filled to
  the terminal's width.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Sequence
from typing import Any

#: Options whose value may be left out; alone they mean standard output.
OPTIONAL_VALUE = {"--json": "-", "--csv": "-"}

#: Old spellings, by command: old option -> the option of the convention.
DEPRECATED = {
    "train": {"--episodes": "--games", "--actors": "--jobs", "--eval-games": "--curve-games"}
}


#: Options of ``durak`` itself that may also be given after the command.
GLOBAL = "--agent-module"


def _command_of(args: Sequence[str]) -> str | None:
    """The subcommand named in ``args`` (the first word that is not an option or the value
    of ``--agent-module``)."""
    skip = False
    for a in args:
        if skip or a.startswith("-"):
            skip = a == GLOBAL
            continue
        return a
    return None


def _hoist_globals(args: list[str]) -> list[str]:
    """``args`` with every ``--agent-module MODULE`` moved before the command."""
    hoisted: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(args):
        if args[i] == "--":
            rest += args[i:]
            break
        if args[i] == GLOBAL and i + 1 < len(args):
            hoisted += args[i : i + 2]
            i += 2
            continue
        if args[i].startswith(GLOBAL + "="):
            hoisted.append(args[i])
        else:
            rest.append(args[i])
        i += 1
    return hoisted + rest


def rewrite_arguments(args: Sequence[str]) -> list[str]:
    """``args`` with a ``-`` after a ``--json``/``--csv`` that has no value, and deprecated
    spellings replaced (each noted on standard error); everything after ``--`` is kept."""
    args = _hoist_globals(list(args))
    command = _command_of(args)
    aliases = DEPRECATED.get(command or "", {})
    out: list[str] = []
    for i, given in enumerate(args):
        if given == "--":
            return out + args[i:]
        name, eq, value = given.partition("=")
        if name in aliases:
            print(
                f"note: {command} {name} is deprecated and will be removed; use {aliases[name]}",
                file=sys.stderr,
            )
            name = aliases[name]
        out.append(name + eq + value)
        if name in OPTIONAL_VALUE and not eq:
            following = args[i + 1] if i + 1 < len(args) else None
            if following is None or (following.startswith("-") and following != "-"):
                out.append(OPTIONAL_VALUE[name])
    return out


def _usage_pieces(param: Any) -> list[str]:
    name = param.metavar or param.name.upper()
    if param.nargs != 1:
        name += "..."
    return [name if param.required else f"[{name}]"]


def tidy_help(command: Any) -> None:
    """Show ``command``'s flags without a value placeholder, its arguments as ``SPEC...`` /
    ``[NAME]`` in the usage line, and its description as paragraphs that rich fills to the
    terminal's width (rich help keeps the docstring's line breaks, so a narrower terminal
    broke every line a second time, mid-sentence)."""
    if command is None or getattr(command, "_durak_tidy", False):
        return
    command._durak_tidy = True
    if command.help:
        paragraphs = inspect.cleandoc(command.help).split("\n\n")
        command.help = "\n\n".join(" ".join(p.split()) for p in paragraphs)
    help_option = command.get_help_option

    def flag_help_option(ctx: Any) -> Any:
        option = help_option(ctx)
        if option is not None:
            option.metavar = ""
        return option

    command.get_help_option = flag_help_option
    for param in getattr(command, "params", ()):
        if param.param_type_name == "option" and (param.is_flag or param.count):
            param.metavar = ""
        elif param.param_type_name == "argument":
            # an instance attribute: typer's own usage name wraps a required one in {}
            param.get_usage_pieces = lambda ctx, p=param: _usage_pieces(p)
