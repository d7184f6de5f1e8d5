"""The README's layout section names real paths and every package (issue 38): a path it
names that does not exist, or a package under ``src/durak`` it does not name, fails."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: A path the layout names: the first word of a line, or a ``docs/...`` word after it.
_PATH = re.compile(r"(?:^|\s)((?:src|tests|docs|benchmarks|tools)/[\w./-]*)")


def layout_block(readme: str) -> str:
    """The code block under the README's ``## Layout`` heading."""
    section = readme.split("\n## Layout\n", 1)[1]
    return section.split("```", 2)[1]


def layout_problems(readme: str, root: Path) -> list[str]:
    """What the layout gets wrong against the tree at ``root``: paths it names that do not
    exist, and packages of ``src/durak`` (folders with an ``__init__.py``) it leaves out."""
    named = {m.rstrip("/.,") for m in _PATH.findall(layout_block(readme))}
    problems = [f"{p} does not exist" for p in sorted(named) if not (root / p).exists()]
    packages = sorted(
        p.parent.relative_to(root).as_posix() for p in (root / "src/durak").glob("*/__init__.py")
    )
    problems += [f"{p}/ is not named" for p in packages if f"{p}" not in named]
    return problems


def test_the_readme_layout_names_real_paths_and_every_package() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert layout_problems(readme, ROOT) == []


def test_the_layout_check_sees_a_wrong_path_and_a_missing_package() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    planted = readme.replace("src/durak/web/", "src/durak/webs/", 1)
    assert planted != readme
    assert layout_problems(planted, ROOT) == [
        "src/durak/webs does not exist",
        "src/durak/web/ is not named",
    ]
