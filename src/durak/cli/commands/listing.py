"""``durak agents``: the registered agents, their parameters and defaults; and the listing
of a registry's entries that ``durak learners`` shares."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Protocol

import attrs
import typer
from rich.table import Table

from durak.agents import registry
from durak.agents.base import Param
from durak.cli.console import stdout_console
from durak.cli.errors import fail, user_errors
from durak.cli.options import Force, JsonFile
from durak.files import Existing, write_atomic


def agents(
    name: Annotated[
        str | None, typer.Argument(help="Show only this agent.", show_default=False)
    ] = None,
    json_file: JsonFile = None,
    force: Force = False,
) -> None:
    """List the agents with their parameters and defaults.

    A spec is NAME or NAME:key=value,key=value, e.g. 'mcts:limit=300,c=1.4'; parameters
    not given take their defaults.
    """
    known = {  # an agent registered over another says so
        n: attrs.evolve(info, description=info.description + info.replaced_note())
        for n, info in registry().items()
    }
    print_listing(
        known,
        name,
        "agent",
        "agents: use NAME or NAME:key=value,... as a spec",
        json_file,
        force,
    )


class Listed(Protocol):
    """A registry entry: an agent (``AgentInfo``) or a learner (``TrainerInfo``)."""

    @property
    def name(self) -> str:
        """The spec name."""
        ...

    @property
    def description(self) -> str:
        """A one-line description."""
        ...

    @property
    def params(self) -> tuple[Param, ...]:
        """The typed parameters."""
        ...


def print_listing(
    known: Mapping[str, Listed],
    name: str | None,
    kind: str,
    title: str,
    json_file: Path | None,
    force: bool = False,
) -> None:
    """Print the entries of ``known`` (only ``name``, if given) with their parameters, as a
    table, or as JSON to ``json_file`` (``-``: standard output; a file that exists is
    replaced only with ``force``); an unknown ``name`` or a file that cannot be written is
    a usage error on one line."""
    if name is not None and name not in known:
        raise fail(f"unknown {kind} {name!r}; known {kind}s: {', '.join(known)}")
    chosen = [known[name]] if name is not None else list(known.values())
    if json_file is not None:
        listing = [
            {
                "name": a.name,
                "description": a.description,
                "params": [
                    {
                        "name": p.name,
                        "type": p.kind.__name__,
                        "default": p.default,
                        "low": p.low,
                        "high": p.high,
                        "choices": list(p.choices),
                        "help": p.help,
                    }
                    for p in a.params
                ],
            }
            for a in chosen
        ]
        text = json.dumps(listing, indent=2)
        if str(json_file) == "-":
            print(text)
        else:
            with user_errors():
                again: Existing = "replace" if force else "refuse"
                write_atomic(json_file, lambda f: f.write(f"{text}\n".encode()), again)
        return
    table = Table(
        kind,
        "description",
        "parameters (name: type = default, range - meaning)",
        title=title,
        show_lines=True,
    )
    for info in chosen:
        params = "\n".join(p.describe() for p in info.params) or "(none)"
        table.add_row(info.name, info.description, params)
    stdout_console().print(table)
