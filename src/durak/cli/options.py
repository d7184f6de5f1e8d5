"""Options shared by the ``durak`` commands, and turning them into :class:`Rules` and back.

The rules options map onto :class:`~durak.rules.Rules`: ``--variant perevodnoy`` is
``transfer=True``, ``--no-trumps`` is ``trumps=False``; the run options follow Zarlykov's
(2023) CLI (``-total_games``, ``-seed``, ``-verbose``, ``-log``, ``-open_world``).
"""

from __future__ import annotations

import enum
import secrets
from pathlib import Path
from typing import Annotated

import attrs
import typer

from durak.arena.play.referee import MAX_MOVE_TIMEOUT
from durak.arena.runs import backends
from durak.cli.option_groups import option_group
from durak.rules import Rules, Suit

RULES = "Rules"
RUN = "Run"
OUTPUT = "Output"


class Variant(enum.StrEnum):
    """Podkidnoy (throw-in) or Perevodnoy (throw-in and transfer)."""

    podkidnoy = "podkidnoy"
    perevodnoy = "perevodnoy"


class ThrowIn(enum.StrEnum):
    """Who may throw in: every attacker, or only the defender's neighbours."""

    all = "all"
    neighbours = "neighbours"


Specs = Annotated[
    list[str],
    typer.Argument(
        help="Agent specs, e.g. random, greedy, 'mcts:limit=300,c=1.4' (see durak agents).",
        metavar="SPEC",
        show_default=False,
    ),
]
Players = Annotated[
    int | None,
    typer.Option(
        help="Players (2-6); inferred from the specs.", rich_help_panel=RULES, show_default=False
    ),
]
LowestRank = Annotated[
    int,
    typer.Option(
        help="Lowest rank in the deck: 6 gives 36 cards, 2 gives 52.", rich_help_panel=RULES
    ),
]
SuitsOpt = Annotated[
    int,
    typer.Option(
        "--suits",
        help="Suits in the deck (1-4; the first of spades, hearts, diamonds, clubs).",
        rich_help_panel=RULES,
    ),
]
HandSize = Annotated[int, typer.Option(help="Cards per hand.", rich_help_panel=RULES)]
NoTrumps = Annotated[
    bool, typer.Option("--no-trumps", help="Play without a trump suit.", rich_help_panel=RULES)
]
VariantOpt = Annotated[
    Variant,
    typer.Option(help="Perevodnoy adds the transfer.", rich_help_panel=RULES, case_sensitive=False),
]
ThrowInOpt = Annotated[
    ThrowIn, typer.Option(help="Who may throw in.", rich_help_panel=RULES, case_sensitive=False)
]
BoutCap = Annotated[int, typer.Option(help="Most attack cards in a bout.", rich_help_panel=RULES)]
FirstBoutCap = Annotated[
    int | None,
    typer.Option(
        help="Cap of the bouts before the first successful defence (default: --bout-cap).",
        rich_help_panel=RULES,
        show_default=False,
    ),
]

Games = Annotated[
    int,
    typer.Option(
        "--games", "-n", min=1, help="Games (per pairing or setting).", rich_help_panel=RUN
    ),
]
Seed = Annotated[
    int | None,
    typer.Option(
        help="Master seed (default: a random one, printed).",
        rich_help_panel=RUN,
        show_default=False,
    ),
]
Jobs = Annotated[
    int | None,
    typer.Option(
        "--jobs",
        "-j",
        min=1,
        help="Worker processes, or the CPUs of a local Ray instance (default: the cores).",
        rich_help_panel=RUN,
        show_default=False,
    ),
]


#: Where the games run; the names are declared once, in :mod:`durak.arena.runs.backends`.
BackendName = backends.BackendName
BackendOption = Annotated[
    BackendName,
    typer.Option(
        "--backend",
        help="local: a process pool on this machine; ray: Ray tasks (pip install "
        "'durak-lab\\[ray]'), on a local Ray instance or the cluster at --address.",
        rich_help_panel=RUN,
    ),
]
Address = Annotated[
    str | None,
    typer.Option(
        "--address",
        help="The Ray cluster to join (HOST:PORT, as 'ray start --head' prints; default: "
        "$RAY_ADDRESS, else a local Ray instance).",
        rich_help_panel=RUN,
        show_default=False,
    ),
]
OpenWorld = Annotated[bool, typer.Option(help="Every player sees every hand.", rich_help_panel=RUN)]
FullInformation = Annotated[
    bool,
    typer.Option(
        help="Every player sees every hand and the talon's order (a research setting: the "
        "open world of Zarlykov's framework).",
        rich_help_panel=RUN,
    ),
]
MoveTimeout = Annotated[
    float | None,
    typer.Option(
        help="Seconds per move; an agent over it forfeits the game.",
        rich_help_panel=RUN,
        show_default=False,
    ),
]
Log = Annotated[
    Path | None,
    typer.Option(
        help="Append each finished game to this JSON Lines file.",
        rich_help_panel=RUN,
        show_default=False,
        dir_okay=False,
    ),
]
Resume = Annotated[
    bool,
    typer.Option(
        help="Continue the run logged in --log: finished games are not played again.",
        rich_help_panel=RUN,
    ),
]
Confidence = Annotated[
    float, typer.Option(help="Confidence of the Wilson intervals.", rich_help_panel=OUTPUT)
]
Verbose = Annotated[
    int,
    typer.Option(
        "--verbose",
        "-v",
        count=True,
        help="One line per game; twice: with its moves.",
        rich_help_panel=OUTPUT,
    ),
]
Quiet = Annotated[
    bool, typer.Option("--quiet", "-q", help="No progress bar.", rich_help_panel=OUTPUT)
]

JsonFile = Annotated[
    Path | None,
    typer.Option(
        "--json",
        metavar="[FILE|-]",
        help="Write the results as JSON to FILE; '-' or no value: to standard output (the "
        "tables then go to standard error).",
        rich_help_panel=OUTPUT,
        show_default=False,
        dir_okay=False,
    ),
]
CsvFile = Annotated[
    Path | None,
    typer.Option(
        "--csv",
        metavar="[FILE|-]",
        help="Write the results as CSV to FILE; '-' or no value: to standard output (the "
        "tables then go to standard error).",
        rich_help_panel=OUTPUT,
        show_default=False,
        dir_okay=False,
    ),
]

PlotFile = Annotated[
    Path | None,
    typer.Option(
        "--plot",
        help="Draw the results to this PNG file: a ladder's ratings with their intervals, a "
        "training's learning curve (default: --out with the suffix .png).",
        rich_help_panel=OUTPUT,
        show_default=False,
        dir_okay=False,
    ),
]

Force = Annotated[
    bool,
    typer.Option(
        "--force",
        help="Replace output files that exist already (a regular file only: a folder, a FIFO "
        "or a device is never replaced).",
        rich_help_panel=OUTPUT,
    ),
]


class UsageError(ValueError):
    """A bad combination of options; the CLI prints it on one line and exits with 2."""


# The defaults of the rules options are those of Rules: declared there, once.
_DEFAULT = Rules()
_THROW_IN = ThrowIn(_DEFAULT.throw_in)


@option_group
@attrs.frozen
class RulesOptions:
    """The rules options every game command takes, before the number of players is known
    (expanded into each command by :func:`~durak.cli.option_groups.expand`).

    Attributes:
      lowest_rank, suits, hand_size, bout_cap, first_bout_cap: as in :class:`Rules`.
      no_trumps: ``--no-trumps``, :attr:`Rules.trumps` inverted.
      variant: ``--variant``; ``perevodnoy`` is :attr:`Rules.transfer`.
      throw_in: ``--throw-in``, :attr:`Rules.throw_in`.

    The defaults are those of :class:`Rules`; :meth:`rules` checks the options together,
    and :func:`rules_flags` is its inverse.
    """

    lowest_rank: LowestRank = _DEFAULT.lowest_rank
    suits: SuitsOpt = _DEFAULT.suits
    hand_size: HandSize = _DEFAULT.hand_size
    no_trumps: NoTrumps = not _DEFAULT.trumps
    variant: VariantOpt = Variant.perevodnoy if _DEFAULT.transfer else Variant.podkidnoy
    throw_in: ThrowInOpt = _THROW_IN
    bout_cap: BoutCap = _DEFAULT.bout_cap
    first_bout_cap: FirstBoutCap = _DEFAULT.first_bout_cap

    def rules(self, seats: int, players: int | None = None) -> Rules:
        """The rules for ``seats`` agents; raises :class:`~durak.rules.RulesError` for
        inconsistent options and :class:`UsageError` if ``--players`` (``players``)
        disagrees."""
        if players is not None and players != seats:
            raise UsageError(f"--players {players} but {seats} agent specs")
        return Rules(
            players=seats,
            lowest_rank=self.lowest_rank,
            suits=self.suits,
            hand_size=self.hand_size,
            bout_cap=self.bout_cap,
            first_bout_cap=self.first_bout_cap,
            throw_in=self.throw_in.value,
            transfer=self.variant is Variant.perevodnoy,
            trumps=not self.no_trumps,
        )


def rules_flags(rules: Rules) -> list[str]:
    """The inverse of :meth:`RulesOptions.rules`: the rules options of a command line that
    give ``rules`` with one spec per player (the options whose value is not the default).

    >>> rules_flags(Rules(hand_size=5, transfer=True, trumps=False))
    ['--hand-size', '5', '--variant', 'perevodnoy', '--no-trumps']
    """
    flags: list[str] = []
    for option, value, usual in (
        ("--lowest-rank", rules.lowest_rank, _DEFAULT.lowest_rank),
        ("--suits", rules.suits, _DEFAULT.suits),
        ("--hand-size", rules.hand_size, _DEFAULT.hand_size),
        ("--bout-cap", rules.bout_cap, _DEFAULT.bout_cap),
        ("--first-bout-cap", rules.first_bout_cap, _DEFAULT.first_bout_cap),
        ("--throw-in", rules.throw_in, _DEFAULT.throw_in),
    ):
        if value != usual:
            flags += [option, str(value)]
    if rules.transfer:
        flags += ["--variant", "perevodnoy"]
    if not rules.trumps:
        flags.append("--no-trumps")
    return flags


def choose_seed(seed: int | None) -> int:
    """``seed``, or a fresh random 32-bit seed."""
    return secrets.randbelow(2**32) if seed is None else seed


def check_confidence(confidence: float) -> None:
    """Raise :class:`UsageError` unless 0 < confidence < 1."""
    if not 0 < confidence < 1:
        raise UsageError(f"--confidence must be between 0 and 1, got {confidence}")


def check_timeout(move_timeout: float | None) -> None:
    """Raise :class:`UsageError` unless the move time limit is a finite positive number of
    seconds within the referee's bound."""
    if move_timeout is not None and not 0 < move_timeout <= MAX_MOVE_TIMEOUT:
        raise UsageError(
            f"--move-timeout must be positive seconds up to {MAX_MOVE_TIMEOUT:g}, "
            f"got {move_timeout:g}"
        )


def describe_rules(rules: Rules) -> str:
    """The rules in one line, e.g. ``2 players, 36 cards (6 to ace), hand 6, ...``; a deck of
    fewer than four suits names them, e.g. ``6 cards (queen to ace, ♠♥)``."""
    low = {11: "jack", 12: "queen", 13: "king", 14: "ace"}.get(
        rules.lowest_rank, str(rules.lowest_rank)
    )
    suits = "" if rules.suits == 4 else ", " + "".join(str(Suit(s)) for s in range(rules.suits))
    first = "" if rules.first_bout_cap is None else f", first bout cap {rules.first_bout_cap}"
    return (
        f"{rules.players} players, {rules.deck_size} cards ({low} to ace{suits}), "
        f"hand {rules.hand_size}, {'trumps' if rules.trumps else 'no trumps'}, "
        f"{'perevodnoy' if rules.transfer else 'podkidnoy'}, throw-in {rules.throw_in}, "
        f"bout cap {rules.bout_cap}{first}"
    )
