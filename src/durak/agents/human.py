"""The ``human`` agent: a person chooses each action at a terminal.

It prints what the player may see (its hand sorted by power, the table, the trump, the
talon and discard sizes and the opponents' hand sizes) and the numbered legal actions, then
reads a line: a number from the list, or an action written as ``str(action)`` shows it
(``Attack(6♠)``, ``Defend(6♥<-8♥)``, ``Take``; cards as :meth:`~durak.rules.Card.parse`
reads them, e.g. ``attack(6s)``).
"""

from __future__ import annotations

import random
import sys
from typing import TextIO

import attrs

from durak.agents.base import register
from durak.agents.heuristics.tactics import power, sorted_by_power
from durak.rules import Action, Card, Observation, parse_action


def describe(observation: Observation) -> str:
    """The observation as a human reads it: roles, trump, talon and discard sizes, hands,
    table and legal actions."""
    o = observation
    lines = [f"--- player {o.player} ({_role(o)}) ---"]
    piles = f"Talon: {_count(o.talon_size)}. Discard pile: {_count(len(o.discard))}."
    if o.trump_suit is None:
        lines.append(f"No trumps. {piles}")
    else:
        card = "" if o.trump_card is None else f", trump card {o.trump_card}"
        lines.append(f"Trump: {o.trump_suit}{card}. {piles}")
    others = []
    for p in range(o.rules.players):
        if p != o.player:
            known = o.known_cards(p)
            seen = f" (known: {known})" if known else ""
            others.append(
                f"player {p}: {'out' if p in o.players_out else _count(o.hand_sizes[p])}{seen}"
            )
    lines.append(f"Opponents: {'; '.join(others)}.")
    lines.append(f"Attacker: player {o.attacker}. Defender: player {o.defender}.")
    if o.table:
        pairs = [f"{a}/{'-' if d is None else d}" for a, d in o.table]
        taking = " (the defender takes)" if o.taking else ""
        lines.append(f"Table: {'  '.join(pairs)}{taking}")
    else:
        lines.append("Table: empty")
    hand = " ".join(str(c) for c in shown_hand(o))
    lines.append(f"Your hand: {hand or '(empty)'}")
    lines.append("Legal actions:")
    lines += [f"  {i}. {a}" for i, a in enumerate(shown_order(o), 1)]
    return "\n".join(lines)


def shown_hand(observation: Observation) -> list[Card]:
    """The player's hand as every person-facing view shows it (``durak play`` and the web
    table): weakest first, trumps last."""
    return sorted_by_power(observation.hand, observation.trump_suit)


def shown_order(observation: Observation) -> tuple[Action, ...]:
    """The legal actions in the order the hand is shown (:func:`shown_hand`): by the played
    card, weakest first and trumps last (a card's defences by their target, then its
    transfer), Take and Pass last.  The numbers a person types refer to this order, in
    ``durak play`` and on the web table alike."""
    trump = observation.trump_suit

    def key(a: Action) -> tuple[int, int, int, int]:
        card = getattr(a, "card", None)
        if card is None:
            return (1, 0, 0, a.sort_key[0])
        target = getattr(a, "target", None)
        return (0, power(card, trump), a.sort_key[0], -1 if target is None else target.index)

    return tuple(sorted(observation.legal_actions, key=key))


def _count(n: int) -> str:
    return "1 card" if n == 1 else f"{n} cards"


def _role(o: Observation) -> str:
    if o.player == o.defender:
        return "defending"
    return "throwing in" if o.table else "leading"


def choose(legal: tuple[Action, ...], text: str) -> Action | str:
    """The action ``text`` names (a 1-based number or an action), or an error message."""
    s = text.strip()
    if not s:
        return "Please enter a number or an action."
    if s.removeprefix("-").isdigit():
        k = int(s)
        if 1 <= k <= len(legal):
            return legal[k - 1]
        return f"{s} is not a choice: enter a number from 1 to {len(legal)}."
    action: Action | None = None
    for form in (s, s[:1].upper() + s[1:].lower()):
        try:
            action = parse_action(form)
            break
        except ValueError:
            continue
    if action is None:
        return f"Could not read {s!r}: enter a number from 1 to {len(legal)} or an action."
    if action not in legal:
        return f"{action} is not legal now: choose one of the listed actions."
    return action


@attrs.frozen(eq=False)
class HumanAgent:
    """A person at a terminal; the ``human`` spec (no parameters).

    Each decision prints :func:`describe` to ``output`` and reads lines from ``input``
    (``None``: ``sys.stdin``/``sys.stdout`` at the time of the call) until one names a legal
    action: its number in the list (:func:`shown_order`), or the action as text (read with
    :func:`~durak.rules.parse_action`, accepted only if legal).  A forced decision (one legal
    action) is played at once with a line saying so, unless ``confirm_forced``.  A bad line
    gets a message and the question again.  At the end of the input it raises
    :class:`EOFError`.  As a :class:`~durak.agents.Watcher` it also prints the other
    players' actions and the outcome.
    """

    input: TextIO | None = None
    output: TextIO | None = None
    confirm_forced: bool = False
    name: str = "human"

    def _out(self) -> TextIO:
        return sys.stdout if self.output is None else self.output

    def game_started(self, observation: Observation) -> None:
        """Announce the seat and the trump."""
        suit = observation.trump_suit
        trump = "no trumps" if suit is None else f"trump {suit}"
        print(
            f"=== new game: you are player {observation.player} of "
            f"{observation.rules.players}; {trump} ===",
            file=self._out(),
        )

    def action_taken(self, player: int, action: Action, observation: Observation) -> None:
        """Show the other players' actions as they happen."""
        if player != observation.player:
            print(f"player {player}: {action}", file=self._out())

    def game_ended(self, observation: Observation, loser: int | None) -> None:
        """Announce the outcome from this seat's point of view."""
        if loser is None:
            verdict = "a draw: nobody is the durak"
        elif loser == observation.player:
            verdict = "you are the durak"
        else:
            verdict = f"player {loser} is the durak"
        print(f"=== game over: {verdict} ===", file=self._out())

    def act(self, observation: Observation, rng: random.Random) -> Action:
        """Ask until the person names a legal action."""
        stdin = sys.stdin if self.input is None else self.input
        out = self._out()
        legal = observation.legal_actions
        if not legal:
            raise ValueError(f"player {observation.player} has no action to choose")
        print(describe(observation), file=out)
        if len(legal) == 1 and not self.confirm_forced:
            print(f"Only one action is legal: {legal[0]} (played for you).", file=out)
            return legal[0]
        legal = shown_order(observation)
        while True:
            print(f"Your choice (1-{len(legal)} or an action): ", end="", file=out, flush=True)
            line = stdin.readline()
            if not line:
                print(file=out)
                raise EOFError(f"end of input while player {observation.player} was choosing")
            answer = choose(legal, line)
            if isinstance(answer, str):
                print(answer, file=out)
                continue
            return answer


register("human", HumanAgent, "a person chooses at the terminal (reads stdin, writes stdout)")
