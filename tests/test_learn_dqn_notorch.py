"""Without PyTorch, the ``dqn`` and ``dmc`` agents and the ``dqn`` learner fail with a
clear message (runs without PyTorch too: the torch import is simulated away)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from durak.agents import SpecError, make_agent
from durak.learn import make_learner
from durak.rules import Rules

HINT = "dqn and dmc need PyTorch: pip install 'durak-lab[dqn]'"


@pytest.fixture
def no_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` now raises ImportError


@pytest.mark.usefixtures("no_torch")
def test_missing_torch_gives_the_install_hint() -> None:
    with pytest.raises(SpecError, match="durak-lab\\[dqn\\]") as err:
        make_agent("dqn:path=model.pt")
    assert str(err.value) == HINT
    assert isinstance(err.value, ImportError)
    with pytest.raises(SpecError, match="durak-lab\\[dqn\\]"):
        make_learner("dqn", Rules())
    with pytest.raises(ImportError, match="durak-lab\\[dqn\\]"):
        from durak.learn.dqn import DqnLearner  # noqa: F401, PLC0415
    with pytest.raises(SpecError) as err:
        make_agent("dmc")
    assert str(err.value) == HINT


def test_importing_the_plugin_imports_neither_torch_nor_numpy() -> None:
    code = (
        "import sys, durak.learn.dqn, durak.learn.dmc, durak.agents as a; a.registry(); "
        "print(sorted({'torch', 'numpy'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
