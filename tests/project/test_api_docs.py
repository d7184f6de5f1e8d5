"""The API reference site builds strictly from the checkout, and every public name has its
entry (issue 63).

The site is built into a temporary folder as ``make docs`` builds it (``mkdocs.yml``:
strict, so a broken link, a page outside the nav or a docstring reference that names nothing
fails the build).  Then each package's page must hold an anchor for every name of its
``__all__``: at the package's path, or, for a function named like the module that defines
it (``durak.search.mcts``), at the function's own path in that module.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.extras import require_extra

ROOT = Path(__file__).resolve().parents[2]
#: Each public package and its page under docs/api/.
PAGES = {
    "durak.rules": "rules",
    "durak.search": "search",
    "durak.agents": "agents",
    "durak.arena": "arena",
    "durak.learn": "learn",
    "durak.envs": "envs",
    "durak.dataset": "dataset",
    "durak.encoding": "encoding",
    "durak.interop.openspiel": "openspiel",
    "durak.testing": "testing",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_extra("mkdocstrings_handlers.python")
    require_extra("pyspiel")  # the openspiel page's names are imported to be checked
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--site-dir", str(out)],
        cwd=ROOT,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return out


def anchors(site: Path, page: str) -> set[str]:
    """The ids of the headings of the site's page ``page``."""
    html = (site / "api" / page / "index.html").read_text(encoding="utf-8")
    return set(re.findall(r'id="([^"]+)"', html))


def entry(package: str, name: str) -> str:
    """The anchor of ``package.name``: its own path, but a function named like the module
    that defines it is documented in that module."""
    value = getattr(importlib.import_module(package), name)
    module = getattr(value, "__module__", None)
    shadowed = importlib.util.find_spec(f"{package}.{name}") is not None
    if shadowed and callable(value) and module == f"{package}.{name}":
        return f"{module}.{value.__qualname__}"
    return f"{package}.{name}"


@pytest.mark.parametrize("package", PAGES)
def test_every_public_name_has_an_entry(site: Path, package: str) -> None:
    names = importlib.import_module(package).__all__
    assert names
    found = anchors(site, PAGES[package])
    assert package in found
    assert [n for n in names if entry(package, n) not in found] == []


def test_every_package_page_is_in_the_nav_and_the_readme_links_the_site(site: Path) -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for package, page in PAGES.items():
        assert f"{package}: api/{page}.md" in config
        assert f"::: {package}\n" in (ROOT / "docs" / "api" / f"{page}.md").read_text("utf-8")
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "Quick start" in home  # the README is the entry page
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make docs" in readme and "site/index.html" in readme


def test_a_docstring_reference_that_names_nothing_fails_the_build(tmp_path: Path) -> None:
    # The strict build's guard, on a copy of the package with one reference broken.
    src = tmp_path / "src" / "durak"
    src.mkdir(parents=True)
    (src / "__init__.py").write_text(
        '"""See :func:`~durak.no_such_function` and :func:`step`."""\n', encoding="utf-8"
    )
    code = (
        "import logging, sys\n"
        f"sys.path.insert(0, {str(ROOT / 'tools')!r})\n"
        "import griffe\n"
        "from docs_roles import SphinxRoles\n"
        "logging.basicConfig(format='%(name)s %(levelname)s %(message)s')\n"
        "ext = griffe.load_extensions(SphinxRoles())\n"
        f"griffe.load('durak', search_paths=[{str(tmp_path / 'src')!r}], extensions=ext)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        "mkdocs.plugins.docs_roles WARNING durak: the reference "
        ":func:`~durak.no_such_function` does not resolve",
        "mkdocs.plugins.docs_roles WARNING durak: the reference :func:`step` does not resolve",
    ]
