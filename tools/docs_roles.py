"""The docstrings' Sphinx roles as links of the API reference site (``make docs``).

The docstrings of durak are written for Sphinx: ``:func:`~durak.rules.step``` and its
kin.  MkDocs renders them as Markdown, so this griffe extension (loaded by mkdocstrings,
``mkdocs.yml``) rewrites each role before rendering:

* a role whose target names an object of durak becomes an optional cross-reference of
  mkdocs-autorefs: a link where the site documents the object (its canonical path or an
  alias of it), plain code where it does not (a private module, say);
* a role whose target is outside durak (``random.Random``) becomes plain code;
* a role whose target names nothing (a renamed function, a typo) is a warning, which the
  strict build turns into a failure: a docstring's reference must resolve.

It also fences doctest blocks (``>>>`` lines and their output) as ``pycon`` code, which
Markdown would otherwise read as nested quotes.
"""

from __future__ import annotations

import builtins
import functools
import importlib.util
import logging
import re
from collections.abc import Iterator
from typing import Any

import griffe

#: mkdocs counts the warnings of its own loggers; in strict mode any of them fails the build.
_log = logging.getLogger("mkdocs.plugins.docs_roles")

ROLE = re.compile(r":(?:py:)?(func|class|mod|meth|attr|data|exc|obj|const):`([^`]+)`")
EXPLICIT = re.compile(r"(?P<title>.*?)\s*<(?P<target>[^<>]+)>$")


def _objects(obj: griffe.Object) -> Iterator[griffe.Object]:
    """``obj`` and every object defined in it (aliases left out: each is seen at its home)."""
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _objects(member)  # type: ignore[arg-type]  # not an alias: an Object


def _exists(package: griffe.Module, path: str) -> bool:
    """Whether ``path`` (``durak.x.y``) names an object of ``package`` (``durak``)."""
    if path == package.name:
        return True
    try:
        package[path.removeprefix(package.name + ".")]
    except Exception:  # griffe raises several kinds for a path it cannot follow
        return False
    return True


def _resolve(obj: griffe.Object, target: str) -> str | None:
    """The full path ``target`` names from the scope of ``obj`` (its members, its class's
    inherited ones, its imports, its parents'), ``None`` if it names nothing there.  A name
    of the builtins, or a dotted name from an importable module outside the package, is
    returned as it is: it is not the package's."""
    head, _, rest = target.partition(".")
    full: str | None
    try:
        full = obj.resolve(head)
    except Exception:  # griffe's NameResolutionError and alias errors
        full = _inherited(obj, head)
    if full is None:
        if hasattr(builtins, head) or (rest and importlib.util.find_spec(head) is not None):
            return target
        return None
    return f"{full}.{rest}" if rest else full


def _inherited(obj: griffe.Object, name: str) -> str | None:
    """The path of the member ``name`` that the class around ``obj`` inherits, if any."""
    scope: griffe.Object | None = obj
    while scope is not None and not scope.is_class:
        scope = scope.parent
    if scope is None:
        return None
    try:
        member = scope.all_members.get(name)
    except Exception:  # a base class griffe cannot follow
        return None
    return None if member is None else member.path


class SphinxRoles(griffe.Extension):
    """Rewrites the Sphinx roles and doctest blocks of every docstring of a package."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        """Rewrite every docstring of ``pkg`` once it is loaded whole."""
        for obj in _objects(pkg):
            if obj.docstring is not None:
                text = ROLE.sub(functools.partial(self._role, pkg, obj), obj.docstring.value)
                obj.docstring.value = fence_doctests(text)

    def _role(self, package: griffe.Module, obj: griffe.Object, found: re.Match[str]) -> str:
        text = found.group(2)
        explicit = EXPLICIT.fullmatch(text)
        target = explicit.group("target") if explicit else text
        short = target.startswith("~")
        target = target.lstrip("~.").removesuffix("()")
        title = explicit.group("title") if explicit else target
        if short and not explicit:
            title = target.rsplit(".", 1)[-1]
        code = f"<code>{title}</code>"
        root = package.name
        path = target if target.split(".")[0] == root else _resolve(obj, target)
        if path is not None and path.split(".")[0] != root:
            return f"`{title}`"  # outside durak: the standard library, numpy, OpenSpiel...
        if path is None or not _exists(package, path):
            _log.warning("%s: the reference %s does not resolve", obj.path, found.group(0))
            return f"`{title}`"
        return f'<autoref identifier="{path}" optional>{code}</autoref>'


def fence_doctests(text: str) -> str:
    """``text`` with each doctest block (a ``>>>`` line, its ``...`` lines and its output,
    up to a blank line) fenced as ``pycon``, unless it is already in a fence."""
    out: list[str] = []
    fenced = in_fence = False
    indent = ""
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith("```"):
            in_fence = not in_fence
        elif not in_fence and not fenced and stripped.startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(indent + "```pycon")
            fenced = True
        elif fenced and not stripped:
            out.append(indent + "```")
            fenced = False
        out.append(line)
    if fenced:
        out.append(indent + "```")
    return "\n".join(out)
