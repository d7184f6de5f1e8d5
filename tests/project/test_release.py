"""The release artefacts and files (issue 63): ``python -m build`` makes an sdist and a wheel
that pass ``twine check --strict``, the sdist carries what a packager needs and not the
experiment artefacts, the version is read from one place, and the licence, the changelog
and the citation agree with it.

The build runs as ``make dist`` runs it (an isolated build environment, with the build
backend fetched from the package index), once for the module.
"""

from __future__ import annotations

import email.parser
import importlib.metadata
import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

import durak
from tests.support.extras import require_extra

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
#: The models the package ships (src/durak/learn/models/).
MODELS = sorted(p.name for p in (ROOT / "src" / "durak" / "learn" / "models").glob("*.pt"))


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    require_extra("build")
    out = tmp_path_factory.mktemp("dist")
    command = [sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (sdist,) = out.glob("durak_lab-*.tar.gz")
    (wheel,) = out.glob("durak_lab-*.whl")
    return {"sdist": sdist, "wheel": wheel}


def test_twine_check_strict_passes_on_both(dist: dict[str, Path]) -> None:
    require_extra("twine")
    command = [sys.executable, "-m", "twine", "check", "--strict", *map(str, dist.values())]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2


def test_the_sdist_carries_source_tests_docs_examples_and_models_not_training(
    dist: dict[str, Path],
) -> None:
    with tarfile.open(dist["sdist"]) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    tops = {n.split("/")[0] for n in names}
    assert {"src", "tests", "docs", "examples", "benchmarks"} <= tops
    assert {"LICENSE", "CHANGELOG.md", "CITATION.cff", "README.md", "pyproject.toml"} <= names
    assert {"mkdocs.yml", "Makefile"} <= names  # what builds the docs and runs the tests
    assert MODELS and {f"src/durak/learn/models/{m}" for m in MODELS} <= names
    assert {p.name for p in (ROOT / "examples").glob("*.py")} <= {
        n.removeprefix("examples/") for n in names
    }
    assert "training" not in tops and ".ci" not in tops


def test_the_wheel_holds_the_package_its_models_and_the_licence(dist: dict[str, Path]) -> None:
    with zipfile.ZipFile(dist["wheel"]) as whl:
        names = set(whl.namelist())
        (meta,) = (n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = email.parser.Parser().parsestr(whl.read(meta).decode("utf-8"))
    assert {"durak/py.typed", *(f"durak/learn/models/{m}" for m in MODELS)} <= names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert not any(n.startswith(("tests/", "training/", "examples/")) for n in names)
    assert metadata["Version"] == durak.__version__
    assert metadata["Name"] == "durak-lab"


def test_the_version_is_read_from_one_place() -> None:
    project = PROJECT["project"]
    assert "version" not in project and project["dynamic"] == ["version"]
    assert PROJECT["tool"]["hatch"]["version"]["path"] == "src/durak/__init__.py"
    assert re.fullmatch(r"\d+\.\d+\.\d+", durak.__version__)
    # The installed metadata (make test's editable install) is built from the same place.
    assert importlib.metadata.version("durak-lab") == durak.__version__


def test_the_licence_is_the_mit_text_pyproject_declares() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert PROJECT["project"]["license"] == {"text": "MIT"}
    assert text.startswith("MIT License\n\nCopyright (c) ")
    assert "Permission is hereby granted, free of charge" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in text


def test_the_changelog_has_this_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in text
    headings = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", text, re.MULTILINE)
    assert headings and headings[0] == durak.__version__  # the newest first
    assert "keepachangelog.com" in text


def test_the_citation_is_cff_1_2_with_the_project_as_author_and_this_version() -> None:
    yaml = require_extra("yaml")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    # The keys CFF 1.2.0 requires, and ours.
    assert {"cff-version", "message", "title", "authors"} <= set(cff)
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "software"
    assert cff["authors"] == [{"name": "the durak authors"}]  # an entity, not a person
    assert cff["version"] == durak.__version__
    assert cff["license"] == PROJECT["project"]["license"]["text"]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(cff["date-released"]))
