"""The OpenSpiel bridge follows OpenSpiel's convention and loads only what is used: importing
the package ``durak.interop.openspiel`` registers ``python_durak`` whenever ``pyspiel``
imports (issue 63), and succeeds without it; the agents' entry point (beside the package,
``durak.interop.openspiel_agents``) loads without open-spiel, imports neither the package
nor numpy, and registers its agents; building one then names the extra to install (issue 49).

open-spiel is hidden from a child process as Python itself does for a module known to be
missing: ``None`` in ``sys.modules`` makes ``import`` raise ``ModuleNotFoundError`` and
``importlib.util.find_spec`` answer ``None``, as for a package that is not installed.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.support.extras import require_extra

ROOT = Path(__file__).resolve().parents[2]
OPENSPIEL_AGENTS = ("openspiel-ismcts", "openspiel-mcts")

HIDE_OPENSPIEL = "import sys\nsys.modules['pyspiel'] = sys.modules['open_spiel'] = None\n"


def entry_point(name: str) -> str:
    """The module ``pyproject.toml`` names for the agent ``name``."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    module: str = project["entry-points"]["durak.agents"][name]
    return module


def run_without_openspiel(code: str) -> list[str]:
    """The lines ``code`` prints in a child process without open-spiel (it must succeed)."""
    done = subprocess.run(
        [sys.executable, "-c", HIDE_OPENSPIEL + code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.mark.parametrize("name", OPENSPIEL_AGENTS)
def test_the_entry_point_loads_without_openspiel_and_the_agent_names_the_extra(
    name: str,
) -> None:
    module = entry_point(name)
    assert module == "durak.interop.openspiel_agents"  # beside the package, not in it
    code = (
        f"import {module}\n"
        "loaded = [m for m in sys.modules if m.startswith(('numpy', 'durak.interop.'))]\n"
        "print(*sorted(loaded))\n"
        "from durak.agents import SpecError, make_agent, registry\n"
        f"print(registry()[{name!r}].source.split()[0])\n"
        "try:\n"
        f"    make_agent({name!r})\n"
        "except SpecError as e:\n"
        "    print(isinstance(e, ImportError), e)\n"
    )
    loaded, source, error = run_without_openspiel(code)
    # Nothing of the game (nor numpy): the package, which registers the game, is not loaded.
    assert loaded.split() == [module]
    assert source == module
    assert error == f"True {name} needs open-spiel: pip install 'durak-lab[openspiel]'"


def test_a_name_of_the_package_without_openspiel_names_the_extra() -> None:
    code = (
        "import durak.interop.openspiel as bridge\n"
        "from durak.extras import MissingExtraError\n"
        "try:\n"
        "    bridge.DurakOpenSpielGame\n"
        "except MissingExtraError as e:\n"
        "    print(e)\n"
        "try:\n"
        "    bridge.no_such_name\n"
        "except AttributeError as e:\n"
        "    print(e)\n"
    )
    assert run_without_openspiel(code) == [
        "durak.interop.openspiel needs open-spiel: pip install 'durak-lab[openspiel]'",
        "module 'durak.interop.openspiel' has no attribute 'no_such_name'",
    ]


def test_every_name_of_the_package_is_its_module_s() -> None:
    require_extra("pyspiel")
    import durak.interop.openspiel as bridge  # noqa: PLC0415
    from durak.interop.openspiel import agent_bots, game, parameters  # noqa: PLC0415

    for name in bridge.__all__:
        value = getattr(bridge, name)
        assert value.__module__.startswith("durak.interop.openspiel."), name
    assert bridge.bot is agent_bots.bot and bridge.game_string is parameters.game_string
    assert bridge.DurakOpenSpielGame is game.DurakOpenSpielGame


def test_the_game_s_state_is_what_the_observers_read() -> None:
    # The observers name a protocol, not the game module's state (no import cycle): the
    # state must keep every member of it.  mypy cannot tell (the state's base, pyspiel's
    # State, is untyped, so any member may come from it): this test does.
    require_extra("pyspiel")
    from durak.interop.openspiel.game import DurakOpenSpielGame  # noqa: PLC0415
    from durak.interop.openspiel.observers import ObservedState  # noqa: PLC0415

    state = DurakOpenSpielGame({"lowest_rank": 13, "suits": 2, "hand_size": 2}).new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    seen: ObservedState = state
    members = {name for name in vars(ObservedState) if not name.startswith("_")}
    assert members == {"rules", "durak_state", "dealt_cards", "line"}
    assert all(hasattr(seen, name) for name in members)
    assert seen.durak_state is not None and len(seen.dealt_cards()) == 4


REGISTERED = (
    "import pyspiel\n"
    "def registered():\n"
    "    return 'python_durak' in pyspiel.registered_names()\n"
    "before = registered()\n"
    "import durak.interop.openspiel\n"
    "game = pyspiel.load_game('python_durak(players=3,lowest_rank=10)')\n"
    "print(before, registered(), game.num_players())\n"
)


def test_importing_the_package_registers_the_game_as_openspiel_s_own_do() -> None:
    # OpenSpiel's convention (open_spiel.python.games): the package import registers the game,
    # in a fresh process (this one may have registered it already).
    require_extra("pyspiel")
    done = subprocess.run(
        [sys.executable, "-c", REGISTERED], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True", "3"]


def test_the_agents_entry_point_does_not_import_open_spiel_even_when_installed() -> None:
    # Loading every plugin (each run of the agent registry) must stay cheap: pyspiel and the
    # game are imported only when an OpenSpiel bot acts.
    require_extra("pyspiel")
    code = (
        "import sys\n"
        f"import {entry_point('openspiel-mcts')}\n"
        "from durak.agents import registry\n"
        "assert 'openspiel-mcts' in registry()\n"
        "print(sorted(m for m in sys.modules if m.startswith(('pyspiel', 'durak.interop.'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['durak.interop.openspiel_agents']"
