"""A conformance check for games plugged into :mod:`durak.search`.

After OpenSpiel's ``random_sim_test`` and pgx's ``api_test`` (shipped as a library
function, so a new game is checked the same way as ours): :func:`check_game` plays random
games from the given states and checks, at every state reached, the contract of
:mod:`durak.search.protocol` that the searches rely on:

* ``legal_actions`` is empty exactly at terminal states, and gives the same sequence when
  asked twice;
* ``current_player`` is in ``range(num_players)`` at a non-terminal state;
* ``returns`` at a terminal state has ``num_players`` finite entries, within the game's
  ``payoff_bounds`` (``(min_value, max_sum)``) if it has them, summing to zero if
  ``zero_sum``;
* states are hashable, and ``step`` is deterministic (equal results, equal hashes) and never
  changes its input (compared with a deep copy taken before);
* with imperfect information (``observe`` and ``sample_world``): every observation is
  hashable, ``observe(sample_world(o, rng), p) == o``, the same generator state gives the
  same world, and a sampled world agrees with the true state on whose turn it is, whether
  the game is over and, for the player to move, its legal actions (what an
  information-set search reads from a world).

* the game's own methods and attributes never raise, ``legal_actions`` and ``returns``
  give sequences, ``is_terminal`` a bool (a numpy bool too), states and actions can be
  deep-copied and compared, ``num_players`` is a positive int and ``payoff_bounds`` two
  finite numbers or ``None`` (a payoff or bound is finite if it converts to a finite
  float); a player may be any integer type (a numpy integer too), never a bool.

A failure raises :class:`GameContractError` naming the check, the game, the start state's
index and the step (what a game method raised is its cause).

>>> import random
>>> class Count:  # a one-player game: add 1 or 2 until 5 or more
...     num_players = 1
...     def legal_actions(self, s): return () if s >= 5 else (1, 2)
...     def step(self, s, a): return s + a
...     def current_player(self, s): return 0
...     def is_terminal(self, s): return s >= 5
...     def returns(self, s): return (1.0 if s == 5 else -1.0,)
>>> check_game(Count(), [0, 3], random.Random(1), games=3).states > 0
True
"""

from __future__ import annotations

import copy
import math
import numbers
import operator
import random
import reprlib
from collections.abc import Iterable, Mapping, Sequence, Set
from typing import Any

import attrs

from durak.search.arguments import SearchError, as_rng

__all__ = ["ContractReport", "GameContractError", "check_game"]


class GameContractError(AssertionError):
    """A game that breaks the search protocol's contract; the message names the check."""


@attrs.frozen
class ContractReport:
    """What :func:`check_game` covered: ``games`` played, ``states`` checked and
    ``observations`` checked (with imperfect information)."""

    games: int
    states: int
    observations: int


def check_game(
    game: Any,
    states: Iterable[Any],
    rng: random.Random | int,
    *,
    games: int = 2,
    zero_sum: bool = False,
    max_steps: int = 100_000,
) -> ContractReport:
    """Play ``games`` random games from each of ``states`` and check the protocol's
    contract at every state reached (see the module docstring).

    Raises :class:`GameContractError` at the first violation, if a game does not end
    within ``max_steps`` steps, or if one of the game's own methods raises or gives
    something of the wrong kind (the error names the method, the start state and the
    step); :class:`~durak.search.arguments.SearchError` for a bad argument (``rng`` may be a
    ``random.Random`` or an int seed; ``states`` is an ordered collection of at least
    one start state: a list, a tuple, a numpy array's rows, not text, a set or a mapping).
    Draws only from ``rng``.
    """
    rng = as_rng(rng)
    for name, value, least in (("games", games, 1), ("max_steps", max_steps, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise SearchError(f"{name} must be an int >= {least}, got {value!r}")
    starts = _starts(states)
    name = type(game).__name__
    terms = _Terms(_players(game, name), _bounds(game, name), zero_sum)
    imperfect = all(_attribute(game, name, m, None) is not None for m in _IMPERFECT)
    checked = observed = played = 0
    for index, start in enumerate(starts):
        for _ in range(games):
            state = start
            for steps in range(max_steps + 1):
                where = f"{name}, start state {index}, step {steps}"
                legal = _check_state(game, state, where, terms)
                if imperfect:
                    observed += _check_observations(game, state, legal, rng, where, terms)
                checked += 1
                if not legal:
                    break
                state = _check_step(game, state, rng.choice(legal), where)
            else:
                raise GameContractError(
                    f"{name}: a game from start state {index} did not end within {max_steps} steps"
                )
            played += 1
    return ContractReport(played, checked, observed)


#: The methods that make a game one of imperfect information.
_IMPERFECT = ("observe", "sample_world")
_MISSING = object()


@attrs.frozen
class _Terms:
    """What the game declares once, read before the first state: its player count, its
    payoff bounds (or ``None``) and whether the caller asks for zero-sum payoffs."""

    players: int
    bounds: tuple[float, float] | None
    zero_sum: bool


def _starts(states: object) -> list[Any]:
    """The start states as a list: any ordered collection (a numpy array's rows too), but
    not text, a set or a mapping, whose items are not an ordered list of states."""
    if isinstance(states, str | bytes | bytearray | Set | Mapping) or not isinstance(
        states, Iterable
    ):
        raise SearchError(f"states must be a sequence of start states, got {_shown(states)}")
    try:
        starts = list(states)
    except Exception as e:
        raise SearchError(f"states could not be read as a sequence: {_error(e)}") from e
    if not starts:
        raise SearchError("states must hold at least one start state")
    return starts


def _attribute(game: Any, name: str, attribute: str, default: Any = _MISSING) -> Any:
    """``game.attribute`` (``default`` if it has none); what a property raises is a finding."""
    try:
        if default is _MISSING:
            return getattr(game, attribute)
        return getattr(game, attribute, default)
    except Exception as e:
        raise GameContractError(f"{name}: reading {attribute} raised {_error(e)}") from e


def _players(game: Any, name: str) -> int:
    n = _attribute(game, name, "num_players")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise GameContractError(f"{name}: num_players must be a positive int, got {_shown(n)}")
    return n


def _bounds(game: Any, name: str) -> tuple[float, float] | None:
    bounds = _attribute(game, name, "payoff_bounds", None)
    if bounds is not None and not (
        isinstance(bounds, tuple) and len(bounds) == 2 and all(map(_finite, bounds))
    ):
        raise GameContractError(
            f"{name}: payoff_bounds must be (min_value, max_sum), two finite numbers, "
            f"or None; got {_shown(bounds)}"
        )
    return bounds


def _fail(where: str, what: str) -> GameContractError:
    return GameContractError(f"{where}: {what}")


def _finite(x: object) -> bool:
    """Whether ``x`` is a real number (not a bool) that converts to a finite float (an
    int past the float range, such as ``10**400``, does not)."""
    if not isinstance(x, numbers.Real) or isinstance(x, bool):
        return False
    try:
        return math.isfinite(x)
    except OverflowError:
        return False


def _is_bool(x: object) -> bool:
    """Whether ``x`` is a bool or a numpy bool (told by its type, without importing numpy)."""
    kind = type(x)
    return isinstance(x, bool) or (
        kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_")
    )


class _Short(reprlib.Repr):
    """Reprs cut to a line: an int too long to print is shown by its size."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlist = self.maxtuple = 12

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 64:
            return f"<{'a negative' if x < 0 else 'an'} int of {x.bit_length()} bits>"
        return repr(x)


def _shown(x: object) -> str:
    """``x`` as a finding shows it: its repr, cut short."""
    return _Short().repr(x)


def _call(where: str, game: Any, method: str, *args: Any) -> Any:
    """``game.method(*args)``, a call of the game's own; what it raises becomes a finding."""
    try:
        return getattr(game, method)(*args)
    except Exception as e:
        raise _fail(where, f"{method} raised {_error(e)}") from e


def _terminal(where: str, game: Any, state: Any) -> bool:
    """``game.is_terminal(state)``, which must be a bool."""
    terminal = _call(where, game, "is_terminal", state)
    if not _is_bool(terminal):
        raise _fail(where, f"is_terminal gave {_shown(terminal)}, not a bool")
    return bool(terminal)


def _error(e: Exception) -> str:
    return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__


def _sequence(where: str, game: Any, method: str, state: Any, of: str) -> list[Any]:
    """What ``game.method(state)`` gives, as a list; a finding if it is not a sequence."""
    result = _call(where, game, method, state)
    if not isinstance(result, Sequence) or isinstance(result, str):
        raise _fail(where, f"{method} gave {_shown(result)}, not a sequence of {of}")
    return list(result)


def _same(where: str, a: Any, b: Any) -> bool:
    """Whether two states (or observations) are equal with equal hashes."""
    try:
        return bool(a == b) and hash(a) == hash(b)
    except Exception as e:
        raise _fail(where, f"comparing or hashing states raised {_error(e)}") from e


def _equal(where: str, a: Any, b: Any, what: str) -> bool:
    """Whether ``a == b`` (two lists of actions, observations or worlds)."""
    try:
        return bool(a == b)
    except Exception as e:
        raise _fail(where, f"comparing {what} raised {_error(e)}") from e


def _check_state(game: Any, state: Any, where: str, terms: _Terms) -> list[Any]:
    """Check ``state``; its legal actions."""
    try:
        hash(state)
    except Exception as e:
        raise _fail(where, f"the state is not hashable ({e})") from None
    legal = _sequence(where, game, "legal_actions", state, "actions")
    again = _sequence(where, game, "legal_actions", state, "actions")
    if not _equal(where, again, legal, "legal actions"):
        raise _fail(where, "legal_actions gives a different sequence when asked again")
    terminal = _terminal(where, game, state)
    if bool(legal) == terminal:
        raise _fail(
            where,
            "legal_actions must be empty exactly at terminal states "
            f"(terminal: {terminal}, {len(legal)} legal actions)",
        )
    n = terms.players
    if not terminal:
        player = _call(where, game, "current_player", state)
        # Any integer type indexes a tuple of payoffs (a numpy integer too); a bool is no seat.
        if not (isinstance(player, numbers.Integral) and not isinstance(player, bool)
                and 0 <= operator.index(player) < n):  # fmt: skip
            raise _fail(where, f"current_player {_shown(player)} is not in range({n})")
        return legal
    payoff = _sequence(where, game, "returns", state, "payoffs")
    if len(payoff) != n or not all(map(_finite, payoff)):
        raise _fail(where, f"returns {_shown(payoff)} must be {n} finite payoffs")
    if terms.zero_sum and abs(sum(payoff)) > 1e-9:
        raise _fail(where, f"returns {_shown(payoff)} do not sum to zero")
    if terms.bounds is not None:
        low, max_sum = terms.bounds
        if min(payoff) < low - 1e-9 or sum(payoff) > max_sum + 1e-9:
            raise _fail(where, f"returns {_shown(payoff)} break payoff_bounds {terms.bounds}")
    return legal


def _check_step(game: Any, state: Any, action: Any, where: str) -> Any:
    try:
        before = copy.deepcopy(state)
    except Exception as e:
        raise _fail(where, f"the state cannot be deep-copied ({_error(e)})") from e
    after = _call(where, game, "step", state, action)
    if not _same(where, state, before):
        raise _fail(where, f"step changed its input state (action {_shown(action)})")
    again = _call(where, game, "step", state, action)
    if not _same(where, again, after):
        raise _fail(where, f"step is not deterministic (action {_shown(action)})")
    return after


def _check_observations(
    game: Any, state: Any, legal: list[Any], rng: random.Random, where: str, terms: _Terms
) -> int:
    terminal = not legal
    mover = None if terminal else _call(where, game, "current_player", state)
    for p in range(terms.players):
        o = _call(where, game, "observe", state, p)
        try:
            hash(o)
        except Exception as e:
            raise _fail(where, f"player {p}'s observation is not hashable ({e})") from None
        seed = rng.getrandbits(64)
        world = _call(where, game, "sample_world", o, random.Random(seed))
        if not _equal(where, _call(where, game, "observe", world, p), o, "observations"):
            raise _fail(
                where,
                f"a world sampled from player {p}'s observation does not "
                "give that observation back",
            )
        twin = _call(where, game, "sample_world", o, random.Random(seed))
        if not _equal(where, twin, world, "sampled worlds"):
            raise _fail(
                where, f"sample_world for player {p} is not a function of its generator's state"
            )
        if _terminal(where, game, world) != terminal or (
            not terminal and _call(where, game, "current_player", world) != mover
        ):
            raise _fail(
                where,
                f"a world sampled for player {p} disagrees on whose turn it "
                "is or whether the game is over",
            )
        if p == mover and not _equal(
            where, _sequence(where, game, "legal_actions", world, "actions"), legal, "legal actions"
        ):
            raise _fail(
                where,
                f"a world sampled for player {p}, the player to move, has other legal actions",
            )
    return terms.players
