"""The opponents of ``durak train``: one agent spec per other seat of an online learner's
table (``--vs``, repeated, or one filling every seat), or DMC's list of opponents
(``--vs self,greedy``), each checked as an agent that can be trained against."""

from __future__ import annotations

from durak.agents import Agent, make_agent
from durak.agents.seats import UNATTENDED_NO_FAULTS, SeatError, SeatPolicy
from durak.cli.options import UsageError
from durak.rules import Rules


def seat_opponents(vs: list[str], players: int | None) -> list[str]:
    """One opponent spec per other seat: ``vs`` itself, or its single spec repeated when
    ``--players`` asks for more seats.  :class:`UsageError` if the counts disagree."""
    if players is None or len(vs) == players - 1:
        return list(vs)
    if len(vs) == 1 and players > 1:
        return vs * (players - 1)
    raise UsageError(
        f"--players {players} needs {players - 1} --vs opponents (or one, for "
        f"every other seat), got {len(vs)}"
    )


def split_opponents(vs: list[str]) -> tuple[str, ...]:
    """The opponent specs of ``--vs`` values, each a comma-separated list in which a piece
    of the form ``key=value`` continues the spec before it: ``self,greedy`` is two specs,
    ``mcts:limit=5,samples=1`` one (an agent's name never holds ``=``).
    :class:`UsageError` for a parameter with no spec before it in its ``--vs``."""
    specs: list[str] = []
    for item in vs:
        started = len(specs)
        for piece in (p.strip() for p in item.split(",")):
            if not piece:
                continue
            if _is_parameter(piece):
                if len(specs) == started:
                    raise UsageError(f"--vs {item}: {piece!r} is a parameter of no agent")
                specs[-1] += f",{piece}"
            else:
                specs.append(piece)
    return tuple(specs)


def _is_parameter(piece: str) -> bool:
    """Whether ``piece`` is ``key=value`` (an ``=`` before any ``:``), not a spec."""
    equals, colon = piece.find("="), piece.find(":")
    return equals != -1 and (colon == -1 or equals < colon)


def training_opponent(
    spec: str,
    rules: Rules,
    seats: SeatPolicy = UNATTENDED_NO_FAULTS,
    label: str = "--vs",
) -> Agent:
    """The agent of an opponent spec for training under ``rules``: :class:`UsageError`
    (``LABEL SPEC: PLACE: why``) for an agent the seat policy ``seats`` refuses, at any
    depth (``solver:fallback=human``; checked before anything is built), ``SpecError`` for
    a bad spec."""
    try:
        seats.check(spec)
    except SeatError as e:
        raise UsageError(f"{label} {e}") from None
    return make_agent(spec, rules)


#: DMC's opponents that are the learner itself: now (``self``) or an earlier copy.
LEARNER_COPIES = ("self", "past")


def dmc_opponents(vs: list[str], rules: Rules) -> tuple[str, ...]:
    """The opponents of ``--vs self,past,greedy`` (see :func:`split_opponents`; repeated
    ``--vs`` add to the list, and a name given k times is met k times as often); each agent
    spec is built once to check it (``SpecError`` names a bad one,
    :func:`training_opponent`)."""
    names = split_opponents(vs)
    if not names:
        raise UsageError("--vs: give self and/or agent specs, e.g. --vs self,greedy,lowest")
    for name in names:
        if name not in LEARNER_COPIES:
            training_opponent(name, rules)
    return names
