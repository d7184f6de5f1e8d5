"""Who may sit at a table: one seat policy per kind of run, checked at any depth of a spec.

A run that plays by itself (a match, a ladder, a dataset, training, an exploit, the web's
tables) has nobody at the terminal, so ``human`` may not play in it, not even as another
agent's part (``solver:fallback=phased:opening=human``); a run without a referee to
forfeit a broken agent (training, an exploit) refuses ``faulty`` too.  A
:class:`SeatPolicy` names the refused agents, each with its one-line reason, and
:meth:`SeatPolicy.check` walks a spec through the parameters that the registry declares to
hold agent specs (:func:`~durak.agents.base.spec_parts`), so a plugin's spec-valued
parameter is looked into like a built-in's, and nothing is built.

>>> try:
...     UNATTENDED.check("solver:fallback=phased:opening=human")
... except SpecError as e:
...     print(str(e)[:62])
solver:fallback=phased:opening=human: fallback: opening: human
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from durak.agents.base import SpecError, spec_parts

__all__ = [
    "NO_FAULTS",
    "UNATTENDED",
    "UNATTENDED_NO_FAULTS",
    "SeatError",
    "SeatPolicy",
]


class SeatError(SpecError):
    """A spec naming an agent that a seat policy refuses (a :class:`SpecError`, so one
    line wherever a bad spec is)."""


def _check_refused(_: object, __: object, refused: tuple[tuple[str, str], ...]) -> None:
    names = [name for name, _ in refused]
    if len(set(names)) != len(names):
        raise ValueError(f"a seat policy names an agent twice: {names}")
    if any("\n" in why or not why for _, why in refused):
        raise ValueError("a seat policy's reason is one non-empty line")


@attrs.frozen
class SeatPolicy:
    """The agents a kind of run refuses at its table: ``refused`` pairs an agent's name
    with the one-line reason given when a spec names it, at any depth."""

    refused: tuple[tuple[str, str], ...] = attrs.field(validator=_check_refused)

    def reason(self, name: str) -> str | None:
        """Why agent ``name`` may not sit at the table, or ``None`` if it may."""
        return dict(self.refused).get(name)

    def names(self) -> frozenset[str]:
        """The names of the refused agents."""
        return frozenset(name for name, _ in self.refused)

    def check(self, spec: str) -> None:
        """Nothing if no agent this policy refuses is named in ``spec``, as the agent
        itself or in a parameter declared to hold an agent spec, at any depth; else
        :class:`SeatError`, one line: ``SPEC: PLACE: REASON``, the place being the
        parameters that lead to the refused agent (``fallback: opening``).  Nothing is
        built; a malformed spec is a :class:`SpecError`, an unknown agent is left to
        :func:`~durak.agents.make_agent`."""
        for part in spec_parts(spec):
            why = self.reason(part.name)
            if why is not None:
                where = "".join(f"{key}: " for key in part.place)
                raise SeatError(f"{spec}: {where}{why}")

    def check_all(self, specs: Iterable[str]) -> None:
        """:meth:`check` each of ``specs``, in order (the first refusal is raised)."""
        for spec in specs:
            self.check(spec)

    def __or__(self, other: SeatPolicy) -> SeatPolicy:
        """The policy that refuses what either refuses (this one's reason first)."""
        mine = self.names()
        return SeatPolicy(self.refused + tuple(r for r in other.refused if r[0] not in mine))


#: A run that plays by itself: nobody sits at the terminal.
UNATTENDED = SeatPolicy(
    (
        (
            "human",
            "human asks a person at the terminal, and a run that plays by itself has "
            "nobody to answer",
        ),
    )
)
#: A run without a referee to forfeit an agent that breaks (a person may still teach).
NO_FAULTS = SeatPolicy(
    (
        (
            "faulty",
            "faulty breaks on purpose, to test referees, and this run has no referee to forfeit it",
        ),
    )
)
#: A run that plays by itself without a referee: training against agents, an exploit.
UNATTENDED_NO_FAULTS = UNATTENDED | NO_FAULTS
