"""The table of shipped ``dmc`` models in ``docs/agents.md`` is the models folder's
(issue 51): a model shipped or removed without its row fails here (no PyTorch needed:
the headers are read without it)."""

from __future__ import annotations

import re
from pathlib import Path

from durak.agents.learned import table_name
from durak.learn.dmc.shipped import MODELS, shipped_models

DOC = Path(__file__).resolve().parents[2] / "docs" / "agents.md"
_ROW = re.compile(r"^\| (?P<table>[^|`]+?) \| `src/durak/learn/models/(?P<file>[^`]+)` \|$")


def documented() -> dict[str, str]:
    """The rows of the doc's "Shipped models" table: table -> file name."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Shipped models", 1)[1].split("\n## ", 1)[0]
    rows = [_ROW.match(line) for line in section.splitlines()]
    return {m["table"]: m["file"] for m in rows if m}


def test_the_docs_table_lists_every_shipped_model_and_no_other() -> None:
    assert documented() == {table_name(r): p.name for r, p in shipped_models().items()}


def test_every_listed_file_is_in_the_models_folder() -> None:
    for name in documented().values():
        assert (MODELS / name).is_file(), name
