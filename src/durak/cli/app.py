"""The ``durak`` command line (typer, rich help), after Zarlykov's (2023) experiment CLI.

Commands: ``match`` and ``tournament``, ``grid``, ``ladder``, ``play``, ``replay``, ``review``,
``agents``,
``bench``, ``serve``, ``train``, ``learners``, ``exploit`` and ``dataset``
(:mod:`durak.cli.commands`).  Every usage error, bad option value included, is one line
``error: ...`` on standard error with exit code 2; Ctrl-C exits with 130.
"""

from __future__ import annotations

import codecs
import importlib.metadata
import io
import sys
from collections.abc import Sequence
from typing import Annotated, Any, TextIO

import typer
from typer.core import TyperGroup

from durak.cli.commands import (
    bench,
    dataset,
    exploit,
    grid,
    ladder,
    listing,
    matches,
    play,
    replay,
    review,
    serve,
    train,
)
from durak.cli.conventions import rewrite_arguments, tidy_help
from durak.cli.errors import INTERRUPTED, USAGE, error
from durak.cli.plugins import VERBOSE, load_agents, verbose_asked
from durak.extras import MissingExtraError


def _interrupted() -> typer.Exit:
    """A Ctrl-C no run's stop path caught (typer would exit silently): the line, and the
    exit to raise."""
    print("interrupted", file=sys.stderr)
    return typer.Exit(INTERRUPTED)


class _OneLineErrors(TyperGroup):
    """Reports click's usage errors (bad or missing options) on one line, and applies the
    option conventions (:mod:`durak.cli.conventions`) to the arguments and the help."""

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        tidy_help(command)
        return command

    def make_context(
        self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any
    ) -> Any:
        verbose = verbose_asked(args)  # before click consumes the arguments
        try:
            ctx = super().make_context(info_name, args, parent, **extra)
        except KeyboardInterrupt:
            raise _interrupted() from None
        ctx.meta[VERBOSE] = verbose
        return ctx

    def format_help(self, ctx: Any, formatter: Any) -> None:
        tidy_help(self)
        super().format_help(ctx, formatter)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise _interrupted() from None

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        args = rewrite_arguments(sys.argv[1:] if args is None else args)
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        except typer.TyperException as e:
            if type(e).__name__ == "NoArgsIsHelpError":  # the help text, not an error
                print(e.format_message(), file=sys.stderr)
            else:
                ctx = getattr(e, "ctx", None)
                where = ctx.command_path if ctx is not None else prog_name or "durak"
                error(f"{e.format_message()} (see {where} --help)")
            sys.exit(getattr(e, "exit_code", USAGE))
        except typer.Abort:
            sys.exit(INTERRUPTED)
        except MissingExtraError as e:  # wherever an optional import fails: one line
            error(str(e))
            sys.exit(USAGE)
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(
    name="durak",
    cls=_OneLineErrors,
    help="Durak: rules engine, agents and experiments.  Agent specs look like "
    "'mcts:limit=300,c=1.4'; see durak agents.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    rich_markup_mode="rich",
)


def _version(wanted: bool) -> None:
    if wanted:
        print(f"durak {importlib.metadata.version(DISTRIBUTION)}")
        raise typer.Exit()


@app.callback()
def _options(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option(
            "--version", is_eager=True, callback=_version, help="Print the version and exit."
        ),
    ] = False,
    agent_module: Annotated[
        list[str] | None,
        typer.Option(
            "--agent-module",
            metavar="MODULE",
            help="Import MODULE (from the current directory too) before the command, so the "
            "agents it registers can be named in specs; may follow the command too, and repeat.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """The options of ``durak`` itself (the help is the app's); loads the agents of the
    plugins and of ``--agent-module`` before the command (:mod:`durak.cli.plugins`)."""
    load_agents(agent_module or (), bool(ctx.meta.get(VERBOSE)))


app.command()(matches.match)
app.command()(matches.tournament)
app.command()(grid.grid)
app.command()(ladder.ladder)
app.command()(play.play)
app.command()(replay.replay)
app.command()(review.review)
app.command()(listing.agents)
app.command()(bench.bench)
app.command()(train.train)
app.command()(train.learners)
app.command()(exploit.exploit)
app.command()(serve.serve)
app.command()(dataset.dataset)


#: ASCII stand-ins for the characters the commands print, for streams that cannot encode
#: them (``PYTHONIOENCODING=ascii``, an old terminal): ``10♠`` prints as ``10S``.
ASCII_FALLBACK = {
    "♠": "S",
    "♥": "H",
    "♦": "D",
    "♣": "C",
    "♤": "S",
    "♡": "H",
    "♢": "D",
    "♧": "C",
    "·": "-",
    "×": "x",
    "…": "...",
    "—": "-",
    "–": "-",
    "←": "<-",
    "→": "->",
    "µ": "u",
    "√": "sqrt",
    "½": "1/2",
    "≥": ">=",
    "≤": "<=",
    "±": "+-",
    "•": "*",
}
_FALLBACK_ERRORS = "durak-ascii"


def _ascii_stand_ins(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = error.object[error.start : error.end]
    return "".join(ASCII_FALLBACK.get(ch, "?") for ch in text), error.end


#: The distribution whose version ``durak --version`` prints.
DISTRIBUTION = "durak-lab"

codecs.register_error(_FALLBACK_ERRORS, _ascii_stand_ins)


def use_ascii_fallback(stream: TextIO) -> None:
    """Make ``stream`` print :data:`ASCII_FALLBACK` stand-ins where its encoding fails."""
    try:
        "♠·×".encode(stream.encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors=_FALLBACK_ERRORS)


def main() -> None:
    """Entry point of the ``durak`` script."""
    for stream in (sys.stdout, sys.stderr):
        use_ascii_fallback(stream)
    app()
