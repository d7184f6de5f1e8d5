"""Errors raised by the rules engine.

Both are ``ValueError`` subclasses, so callers that validate input can catch either.
"""

from __future__ import annotations


class RulesError(ValueError):
    """An inconsistent :class:`~durak.rules.Rules`, bad card or deck, or impossible position."""


class IllegalActionError(ValueError):
    """An action that is not legal in the given state.

    The message names the action, the player to act and the legal alternatives.
    """
