"""How a ``python_durak`` state is written as text: data only, the game and the history.

OpenSpiel's default for a game written in Python writes a pickle of the state's attributes
and unpickles it when reading (``open_spiel/python/pybind11/python_games.cc``), so a forged
string runs whatever code its pickle names.  A ``python_durak`` state is instead two lines
of plain data, after OpenSpiel's own history notation (Lanctot et al., arXiv:1908.09453)::

    game=python_durak(bout_cap=6,...)
    history=-1:3,-1:0,...,0:12

the game's string (:func:`~durak.interop.openspiel.parameters.game_string`) and every
``player:action`` of the history, chance (``-1``) first.  :func:`parse_state_text` only
reads the text; the game rebuilds the state by replaying the actions through the engine,
which checks each one (:meth:`DurakOpenSpielGame.deserialize_state
<durak.interop.openspiel.game.DurakOpenSpielGame.deserialize_state>`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from durak.extras import needs

with needs("durak.interop.openspiel", "openspiel"):
    import pyspiel

from durak.interop.openspiel.parameters import game_string
from durak.rules import Rules, RulesError

__all__ = ["StateStringError", "parse_state_text", "state_text", "who"]

_GAME = "game="
_HISTORY = "history="
#: One ``player:action`` of the history: chance is -1, ids are never longer than this.
_MOVE = re.compile(r"(-1|[0-9]{1,2}):([0-9]{1,9})", re.ASCII)
#: How much of a bad string an error message quotes.
_QUOTE = 60


class StateStringError(RulesError, pyspiel.SpielError):  # type: ignore[misc]  # untyped base
    """A string that is not a state of this ``python_durak`` game: OpenSpiel's usual error
    (``SpielError``) and a :class:`RulesError`, with one line naming the problem."""


def who(player: int) -> str:
    """``player`` in an error message: chance, nobody (the game is over) or the player."""
    return "chance" if player == -1 else "nobody" if player < 0 else f"player {player}"


def _quoted(text: str) -> str:
    return repr(text if len(text) <= _QUOTE else text[:_QUOTE] + "...")


def state_text(rules: Rules, history: Sequence[tuple[int, int]]) -> str:
    """The text of the state of ``rules`` reached by ``history`` (``(player, action)``
    pairs, chance ``-1``), as the module docstring shows."""
    moves = ",".join(f"{p}:{a}" for p, a in history)
    return f"{_GAME}{game_string(rules)}\n{_HISTORY}{moves}"


def parse_state_text(rules: Rules, text: object) -> list[tuple[int, int]]:
    """The ``(player, action)`` pairs of ``text``, a state of the game of ``rules``.

    Reads data only (nothing is evaluated or unpickled).  Raises :class:`StateStringError`
    naming the first problem: not two lines ``game=`` and ``history=`` (a final newline is
    allowed), another game's string, or a move that is not ``player:action`` in digits.
    Whether the moves can be played is for the replay to check.
    """
    if not isinstance(text, str):
        raise StateStringError(f"a state string must be a str, got {type(text).__name__}")
    lines = text.removesuffix("\n").split("\n")
    if len(lines) != 2 or not lines[0].startswith(_GAME) or not lines[1].startswith(_HISTORY):
        raise StateStringError(
            "not a python_durak state: expected the two lines 'game=python_durak(...)' and "
            f"'history=player:action,...', got {_quoted(text)}"
        )
    game, body = lines[0].removeprefix(_GAME), lines[1].removeprefix(_HISTORY)
    mine = game_string(rules)
    if game != mine:
        raise StateStringError(f"a state of {_quoted(game)} is not a state of this game {mine}")
    moves = []
    for k, token in enumerate(body.split(",") if body else [], start=1):
        match = _MOVE.fullmatch(token)
        if match is None:
            raise StateStringError(
                f"move {k} of the history is not player:action (digits), got {_quoted(token)}"
            )
        moves.append((int(match[1]), int(match[2])))
    return moves
