"""``durak play``: a person plays against agents at the terminal, through the ``human`` agent.

The person's seat wraps :class:`~durak.agents.HumanAgent` (which shows the hand, the table
pairs, the trump, the talon and discard sizes, the opponents' hand sizes and the numbered
legal actions, and asks again on bad input) and records the game's actions as a watcher, so
a game stopped by Ctrl-C or the end of input is still logged, marked ``interrupted``.  An
agent that fails forfeits, as in matches.
"""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Callable
from typing import Annotated

import attrs
import typer

from durak.agents import HumanAgent, make_agent
from durak.agents.base import Agent, Relay, Watcher, watchers_among
from durak.agents.interface.protocol import resolutions
from durak.arena.gamelog.files import LogWriter, read_log
from durak.arena.play.game import play_game
from durak.arena.play.person import PlayerLeft, play_entry
from durak.arena.play.referee import Referee
from durak.cli.console import print_resolutions
from durak.cli.errors import INTERRUPTED, fail, user_errors
from durak.cli.option_groups import expand
from durak.cli.options import (
    Log,
    OpenWorld,
    RulesOptions,
    Seed,
    choose_seed,
    describe_rules,
)
from durak.rules import Action, Observation
from durak.seeding import derive_seed


@attrs.define
class HumanSeat:
    """The person's seat: :class:`HumanAgent`, recording the actions for the log."""

    human: HumanAgent = attrs.field(factory=HumanAgent)
    actions: list[Action] = attrs.field(factory=list)
    name: str = "human"

    def game_started(self, observation: Observation) -> None:
        """Forget the last game; announce this one."""
        self.actions.clear()
        self.human.game_started(observation)

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        """Record every action; show the others'."""
        self.actions.append(action)
        self.human.action_taken(player, action, observation)

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        """Announce the outcome."""
        self.human.game_ended(observation, loser)

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """Ask the person; the end of their input ends the session."""
        try:
            return self.human.act(observation, rng)
        except EOFError:
            raise PlayerLeft from None


@attrs.frozen
class Announced(Relay):
    """An opponent whose slow decisions are announced: once one has taken ``delay``
    seconds, ``announce`` gets "player N is thinking…" (a timer thread; a quick decision
    cancels it, so nothing is printed).  Hooks are relayed to the agent."""

    agent: Agent
    seat: int
    delay: float = 0.3
    announce: Callable[[str], None] = attrs.field(default=lambda text: print(text, flush=True))
    watchers: tuple[Watcher, ...] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "watchers", watchers_among(self.agent))

    @property
    def name(self) -> str:
        """The agent's name."""
        return self.agent.name

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """The agent's action, announced if it takes longer than ``delay``."""
        timer = threading.Timer(self.delay, self.announce, (f"player {self.seat} is thinking…",))
        timer.daemon = True
        timer.start()
        try:
            return self.agent.act(observation, rng)
        finally:
            timer.cancel()


@expand
def play(
    specs: Annotated[
        list[str],
        typer.Argument(
            help="The opponents' agent specs, e.g. greedy 'mcts:limit=300'.", show_default=False
        ),
    ],
    seat: Annotated[int, typer.Option(help="Your seat, from 0.", min=0)] = 0,
    games: Annotated[int, typer.Option("--games", "-n", min=1, help="Games in a row.")] = 1,
    seed: Seed = None,
    *,
    rules_options: RulesOptions,
    open_world: OpenWorld = False,
    log: Log = None,
    confirm_forced: Annotated[
        bool,
        typer.Option(
            help="Ask even when only one action is legal (by default it is played for you)."
        ),
    ] = False,
) -> None:
    """Play against agents at the terminal.

    Enter the number of an action, or the action itself (e.g. attack(6s), Take).  Ctrl-C
    or the end of input stops; the game so far is saved to --log.
    """
    with user_errors():
        rules = rules_options.rules(1 + len(specs))
        if seat >= rules.players:
            raise fail(f"--seat {seat} is not a seat of a {rules.players}-player game")
        others = [Announced(make_agent(s, rules), i + (i >= seat)) for i, s in enumerate(specs)]
        writer = None if log is None else LogWriter(log)
        # A log that holds games already is continued: game numbers stay unique in it,
        # so durak replay accepts the file whatever the seeds of the sessions.
        first = 0 if log is None or not log.stat().st_size else len(read_log(log).entries)
    the_seed = choose_seed(seed)
    human = HumanSeat(HumanAgent(confirm_forced=confirm_forced))
    agents: list[Agent] = [*others[:seat], human, *others[seat:]]
    names = (*specs[:seat], "human", *specs[seat:])
    print(
        f"play: you are seat {seat} of {rules.players} · seed {the_seed} · {describe_rules(rules)}"
    )
    print_resolutions(print, resolutions(specs, [a.agent for a in others], rules))
    if first:
        print(f"note: {log} holds {first} games; these continue its numbering from game {first}")
    lost = 0
    try:
        for game in range(first, first + games):
            try:
                record = play_game(
                    rules, agents, derive_seed(the_seed, game), open_world, Referee()
                )
            except (KeyboardInterrupt, PlayerLeft) as stop:
                entry = play_entry(rules, names, the_seed, open_world, game, human.actions, None)
                if writer is not None:
                    writer.write(entry)
                saved = f"; the game so far is saved in {log}" if log is not None else ""
                why = "interrupted" if isinstance(stop, KeyboardInterrupt) else "end of input"
                print(f"\n{why} after {len(entry.actions)} moves{saved}", file=sys.stderr)
                raise typer.Exit(INTERRUPTED if why == "interrupted" else 0) from None
            if writer is not None:
                writer.write(
                    play_entry(rules, names, the_seed, open_world, game, human.actions, record)
                )
            if record.forfeit is not None:
                print(f"{names[record.forfeit.seat]} forfeits: {record.forfeit.message}")
            lost += record.loser == seat
        if games > 1:
            print(f"you were the durak in {lost} of {games} games")
    finally:
        if writer is not None:
            writer.close()
