"""Without PyTorch or numpy, the ``dqn`` and ``dmc`` agents and the ``dqn`` learner fail with
a one-line message naming their extra (runs without them too: the import is simulated away)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from durak.agents import SpecError, make_agent
from durak.learn import make_learner
from durak.rules import Rules
from tests.support.extras import require_extra

HINT = "dqn needs PyTorch: pip install 'durak-lab[dqn]'"
DMC_HINT = "dmc needs PyTorch: pip install 'durak-lab[dmc]'"


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
    assert str(err.value) == DMC_HINT


@pytest.mark.parametrize("spec", ["dmc", "dmc:path=model.pt", "ismcts:prior=dmc,limit=2"])
def test_dmc_without_numpy_names_the_dmc_extra(monkeypatch: pytest.MonkeyPatch, spec: str) -> None:
    # torch installed, numpy not (as in a wheel installed with torch only); the dmc modules
    # may be imported already, by other tests: the check must not depend on importing them.
    require_extra("torch")
    monkeypatch.setitem(sys.modules, "numpy", None)
    with pytest.raises(SpecError) as err:
        make_agent(spec)
    assert str(err.value) == "dmc needs numpy: pip install 'durak-lab[dmc]'"
    assert isinstance(err.value, ImportError)
    with pytest.raises(SpecError, match=r"^dqn needs numpy: pip install 'durak-lab\[dqn\]'$"):
        make_learner("dqn", Rules())


def test_importing_the_plugin_imports_neither_torch_nor_numpy() -> None:
    code = (
        "import sys, durak.learn.dqn, durak.learn.dmc, durak.agents as a; a.registry(); "
        "print(sorted({'torch', 'numpy'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
