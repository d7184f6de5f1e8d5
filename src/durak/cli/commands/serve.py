"""``durak serve``: the web table (``durak.web``) on uvicorn.

It binds to 127.0.0.1 by default and warns when told to bind elsewhere: the server has no
accounts, so anyone who reaches it can play (see ``docs/web.md`` for a reverse proxy).
Web clients choose agents from an allow-list (``durak.web.policy``); ``--allow-agent``
grants more, each grant checked by building its agent before the server starts.
"""

from __future__ import annotations

import ipaddress
import socket
from pathlib import Path
from typing import Annotated

import typer

from durak.agents import make_agent
from durak.arena.play.referee import MAX_MOVE_TIMEOUT
from durak.cli.console import stderr_console
from durak.cli.errors import user_errors
from durak.extras import needs
from durak.rules import Rules


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(
    host: Annotated[str, typer.Option(help="The address to bind.")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option(help="The port (0: any free one, printed).", min=0, max=65535)
    ] = 8000,
    log: Annotated[
        Path, typer.Option(help="The JSONL log every game is appended to (durak replay reads it).")
    ] = Path("durak-web.jsonl"),
    idle_minutes: Annotated[
        float, typer.Option(help="Close a game nobody has looked at for this long.", min=0.1)
    ] = 30.0,
    move_timeout: Annotated[
        float,
        typer.Option(
            help="Seconds for each decision of an agent; over it, the agent forfeits.",
            min=0.001,
            max=MAX_MOVE_TIMEOUT,
        ),
    ] = 5.0,
    max_tables: Annotated[
        int, typer.Option(help="Games held at once; beyond it a new game gets 503.", min=1)
    ] = 1000,
    allow_agent: Annotated[
        list[str] | None,
        typer.Option(
            help="Let web clients use this agent spec, e.g. 'dmc:path=model.pt' (the only "
            "way a spec may name a file; repeatable; see docs/web.md).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Play in the browser: a web table for people against any agent."""
    with user_errors(), needs("durak serve", "web"):
        from durak.web.policy import AgentPolicy, Grant  # noqa: PLC0415 - the web extra
        from durak.web.registry import Tables  # noqa: PLC0415
        from durak.web.server import run  # noqa: PLC0415
        from durak.web.settings import Limits  # noqa: PLC0415
    with user_errors():
        grants = []
        for spec in allow_agent or ():
            grants.append(Grant.parse(spec))
            make_agent(spec)  # the operator's spec must build (its file must load)
        limits = Limits(move_timeout, idle_minutes * 60, max_tables)
        policy = AgentPolicy(tuple(grants))
        policy.agents()  # load the agent plugins now rather than at the first request
        listener = _listen(host, port)
        tables = Tables(log, limits, policy)
        tables.warm(Rules())  # the default table's hint analyst, loaded before requests come
    port = listener.getsockname()[1]
    notes = stderr_console()
    if not _loopback(host):
        notes.print(
            f"warning: binding to {host}: anyone who can reach it can play, and the games "
            "are logged; put it behind a reverse proxy with authentication (docs/web.md)"
        )
    notes.print(
        f"serve: http://{host}:{port}/ · log {log} · idle games close after {idle_minutes:g} min"
    )
    run(tables, listener)


def _listen(host: str, port: int) -> socket.socket:
    """A socket bound and listening before anything is printed, so the printed address
    accepts connections at once (they wait in the backlog until the server runs)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as e:
        raise OSError(f"--host {host}: {e.strerror}") from None
    listener = socket.socket(family, kind, proto)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind(address)
    except OSError as e:
        listener.close()
        raise OSError(f"cannot listen on {host}:{port}: {e.strerror}") from None
    listener.listen(128)
    return listener
