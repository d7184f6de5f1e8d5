"""One-line errors: a bad spec, option or file ends a command with exit code 2, no traceback.

The library reports bad input with ``ValueError`` subclasses (``SpecError``, ``RulesError``,
``LogError``, ...) and files with ``OSError``; at the command line both become
``error: <message>`` on standard error.  So does a missing optional dependency
(:class:`~durak.extras.MissingExtraError`), whose message names the extra to install.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import typer

from durak.extras import MissingExtraError

#: The exit code of every usage error, as click uses it.
USAGE = 2
#: The exit code after Ctrl-C (128 + SIGINT), by shell convention.
INTERRUPTED = 130
#: The exit code after SIGTERM (128 + SIGTERM), by shell convention.
TERMINATED = 143


def error(message: str) -> None:
    """Print ``error: message`` on one line of standard error."""
    print(f"error: {' '.join(message.split())}", file=sys.stderr, flush=True)


def fail(message: str) -> typer.Exit:
    """Print the error and return the exception that exits with code 2 (raise it)."""
    error(message)
    return typer.Exit(USAGE)


def describe(e: BaseException) -> str:
    """The message of a user-facing error, with the file of an ``OSError``."""
    if isinstance(e, OSError) and e.filename is not None:
        return f"{e.filename}: {e.strerror or e}"
    return str(e) or type(e).__name__


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn ``ValueError``/``OSError``/:class:`~durak.extras.MissingExtraError` raised in the
    body into a one-line error, exit 2."""
    try:
        yield
    except (ValueError, OSError, MissingExtraError) as e:
        raise fail(describe(e)) from None
