"""Each extra installs everything its feature needs: the wheel is installed into a fresh venv
with that extra alone (``tests/support/install_venvs.py``: cached, shared by suites side by
side) and its feature's smallest command runs there.  A bare install plays, and every feature
it lacks is one line naming the extra, exit 2.

The venvs are built from the package index (several GB with PyTorch, minutes the first
time): these tests run under ``make test`` (``DURAK_REQUIRE_EXTRAS=1``) or with
``DURAK_INSTALL_TESTS=1``, and are skipped otherwise.  The checks of the extras' names
(README, docs, the ``learn`` umbrella) always run.
"""

from __future__ import annotations

import os
import re
import time
import tomllib
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.install_venvs import (
    KEEP_DAYS,
    ROOT,
    Venv,
    build_wheel,
    cache_dir,
    locked,
    prune,
    requirements,
)

EXTRAS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
    "optional-dependencies"
]
WANTED = (
    os.environ.get("DURAK_REQUIRE_EXTRAS") == "1" or os.environ.get("DURAK_INSTALL_TESTS") == "1"
)
installs = pytest.mark.skipif(
    not WANTED,
    reason="builds venvs from the package index: DURAK_INSTALL_TESTS=1 or "
    "DURAK_REQUIRE_EXTRAS=1 (make test) runs it",
)

VenvOf = Callable[[str | None], Venv]


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="session")
def venv_of(wheel: Path) -> Iterator[VenvOf]:
    cache = cache_dir()
    if cache.is_dir():
        prune(cache, time.time())
    made: dict[str | None, Venv] = {}

    def make(extra: str | None) -> Venv:
        if extra not in made:
            made[extra] = Venv(wheel, extra, cache)
        return made[extra]

    yield make


def one_error(done: object, line: str) -> None:
    assert getattr(done, "returncode", None) == 2, done
    assert getattr(done, "stderr", "").splitlines() == [f"error: {line}"], done


# -- a bare install ------------------------------------------------------------------------

#: A command of each feature, and its one line in a bare install.
MISSING = [
    (["match", "dmc", "greedy", "-n", "2"], "dmc needs PyTorch: pip install 'durak-lab[dmc]'"),
    (
        ["match", "ismcts:prior=dmc,limit=2", "greedy", "-n", "2"],
        "dmc needs PyTorch: pip install 'durak-lab[dmc]'",
    ),
    (
        ["train", "dqn", "--vs", "random", "--games", "2", "--out", "d.pt"],
        "dqn needs PyTorch: pip install 'durak-lab[dqn]'",
    ),
    (
        ["train", "dmc", "--vs", "greedy", "--games", "2", "--out", "m.pt"],
        "dmc needs PyTorch: pip install 'durak-lab[dmc]'",
    ),
    (
        ["match", "openspiel-mcts", "greedy", "-n", "2"],
        "openspiel-mcts needs open-spiel: pip install 'durak-lab[openspiel]'",
    ),
    (
        ["match", "random", "greedy", "-n", "2", "--backend", "ray"],
        "--backend ray needs Ray: pip install 'durak-lab[ray]'",
    ),
    (["serve", "--port", "0"], "durak serve needs FastAPI: pip install 'durak-lab[web]'"),
    (
        ["ladder", "random", "greedy", "--games", "2"],
        "durak ladder needs numpy: pip install 'durak-lab[ladder]'",
    ),
    (
        ["dataset", "random", "greedy", "-n", "2", "--out", "d"],
        "durak dataset needs numpy: pip install 'durak-lab[dataset]'",
    ),
]

#: A library import of each optional module, and the last line of its error.
MISSING_IMPORTS = [
    ("durak.encoding", "durak.encoding needs numpy: pip install 'durak-lab[rl]'"),
    ("durak.envs.aec", "the PettingZoo environment needs Gymnasium: pip install 'durak-lab[rl]'"),
    ("durak.learn.dmc.net", "dmc needs numpy: pip install 'durak-lab[dmc]'"),
    ("durak.learn.dqn.net", "dqn needs numpy: pip install 'durak-lab[dqn]'"),
    # durak.dataset itself imports its modules when first used (durak.learn reads its format)
    ("durak.dataset.run", "durak dataset needs numpy: pip install 'durak-lab[dataset]'"),
    (
        "durak.testing.strategies",
        "durak.testing.strategies needs hypothesis: pip install 'durak-lab[testing]'",
    ),
    (
        "durak.interop.openspiel.game",
        "durak.interop.openspiel needs open-spiel: pip install 'durak-lab[openspiel]'",
    ),
]


@installs
def test_a_bare_install_plays_and_names_the_extra_of_each_feature(
    venv_of: VenvOf, tmp_path: Path
) -> None:
    bare = venv_of(None)
    assert [r.split(">")[0] for r in bare.requirements] == ["attrs", "rich", "typer"]
    played = bare.run("durak", "match", "random", "greedy", "-n", "2", "--seed", "1", cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    assert "games 2 · draws" in played.stdout
    for args, line in MISSING:
        one_error(bare.run("durak", *args, cwd=tmp_path), line)
    for module, line in MISSING_IMPORTS:
        done = bare.run("python", "-c", f"import {module}", cwd=tmp_path)
        assert done.returncode == 1
        assert done.stderr.splitlines()[-1] == f"durak.extras.MissingExtraError: {line}"


# -- each extra alone ----------------------------------------------------------------------


@installs
def test_dmc_plays_and_trains(venv_of: VenvOf, tmp_path: Path) -> None:
    dmc = venv_of("dmc")
    played = dmc.run("durak", "match", "dmc", "greedy", "-n", "2", "--seed", "1", cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    assert "games 2 · draws" in played.stdout and "0 forfeits" in played.stdout
    # The best measured agent, guided by the shipped network, from outside the checkout.
    assert not tmp_path.is_relative_to(ROOT)
    best = dmc.run("durak", "match", "strongest", "greedy", "-n", "2", "--seed", "1", cwd=tmp_path)
    assert best.returncode == 0, best.stderr
    assert "games 2 · draws" in best.stdout and "0 forfeits" in best.stdout
    spec = "dmc:round=8,chunk=4,hidden=16,layers=2,batch=64"
    args = ["--vs", "self,greedy", "--games", "8", "--eval-games", "2", "--jobs", "1"]
    trained = dmc.run("durak", "train", spec, *args, "--seed", "1", "--out", "m.pt", cwd=tmp_path)
    assert trained.returncode == 0, trained.stderr
    assert (tmp_path / "m.pt").is_file() and (tmp_path / "m.png").is_file()  # the curve too


@installs
def test_dmc_with_torch_but_not_numpy_is_one_line(venv_of: VenvOf, tmp_path: Path) -> None:
    # The install: the wheel with torch, not numpy (simulated: numpy hidden).
    code = (
        "import sys; sys.modules['numpy'] = None\n"
        "sys.argv = ['durak', 'match', 'dmc', 'greedy', '-n', '2']\n"
        "from durak.cli.app import main; main()\n"
    )
    done = venv_of("dmc").run("python", "-W", "ignore", "-c", code, cwd=tmp_path)
    one_error(done, "dmc needs numpy: pip install 'durak-lab[dmc]'")


@installs
def test_dqn_trains_and_plays(venv_of: VenvOf, tmp_path: Path) -> None:
    dqn = venv_of("dqn")
    args = ["--vs", "random", "--games", "4", "--seed", "1", "--out", "d.pt"]
    trained = dqn.run("durak", "train", "dqn", *args, cwd=tmp_path)
    assert trained.returncode == 0, trained.stderr
    assert (tmp_path / "d.pt").is_file() and (tmp_path / "d.png").is_file()
    played = dqn.run(
        "durak", "match", "dqn:path=d.pt", "random", "-n", "2", "-j", "1", cwd=tmp_path
    )
    assert played.returncode == 0, played.stderr


@installs
def test_ladder_rates_and_plots(venv_of: VenvOf, tmp_path: Path) -> None:
    args = ["random", "greedy", "lowest", "--games", "4", "--seed", "1", "--plot", "r.png"]
    done = venv_of("ladder").run("durak", "ladder", *args, "--lowest-rank", "10", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "greedy" in done.stdout and (tmp_path / "r.png").is_file()


RL_CODE = """
import numpy as np
from durak.envs.aec import env as aec_env
from durak.envs.gymnasium_env import DurakEnv
from durak.rules import Rules

gym = DurakEnv(rules=Rules(lowest_rank=10), opponents=("random",))
obs, info = gym.reset(seed=1)
gym.step(int(np.flatnonzero(obs["action_mask"])[0]))
table = aec_env(rules=Rules(players=3, lowest_rank=10))
table.reset(seed=1)
obs, *_ = table.last()
table.step(int(np.flatnonzero(obs["action_mask"])[0]))
print("stepped")
"""


@installs
def test_rl_steps_both_environments_and_draws_a_curve(venv_of: VenvOf, tmp_path: Path) -> None:
    rl = venv_of("rl")
    stepped = rl.run("python", "-c", RL_CODE, cwd=tmp_path)
    assert stepped.stdout == "stepped\n", stepped.stderr
    args = ["--vs", "random", "--games", "20", "--seed", "1", "--out", "q.json"]
    trained = rl.run("durak", "train", "qlearn", *args, cwd=tmp_path)
    assert trained.returncode == 0, trained.stderr
    assert (tmp_path / "q.png").is_file() and "warning" not in trained.stderr


PPO_CODE = """
from sb3_contrib import MaskablePPO
from durak.envs.gymnasium_env import DurakEnv
from durak.rules import Rules

env = DurakEnv(rules=Rules(lowest_rank=10), opponents=("lowest",))
model = MaskablePPO("MultiInputPolicy", env, n_steps=16, batch_size=16, seed=0, device="cpu")
model.learn(16)
obs, _ = env.reset(seed=3)
action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
print(bool(env.action_masks()[int(action)]))
"""


@installs
def test_ppo_trains_maskable_ppo_on_the_gymnasium_env(venv_of: VenvOf, tmp_path: Path) -> None:
    done = venv_of("ppo").run("python", "-c", PPO_CODE, cwd=tmp_path)
    assert done.stdout == "True\n", done.stderr


@installs
def test_ray_plays_a_match(venv_of: VenvOf, tmp_path: Path) -> None:
    args = ["match", "random", "greedy", "-n", "2", "--seed", "1", "--backend", "ray"]
    done = venv_of("ray").run("durak", *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "runs on: local Ray" in done.stdout and "games 2 · draws" in done.stdout


DATASET_CODE = """
import pyarrow.parquet as pq
actions = pq.read_table("d/_games").column("actions").to_pylist()
print(pq.read_table("d").num_rows == sum(len(a) for a in actions))
"""


@installs
def test_dataset_writes_parquet_that_pyarrow_reads(venv_of: VenvOf, tmp_path: Path) -> None:
    venv = venv_of("dataset")
    args = ["dataset", "random", "greedy", "-n", "3", "--seed", "1", "--out", "d", "-j", "1"]
    written = venv.run("durak", *args, cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    assert venv.run("python", "-c", DATASET_CODE, cwd=tmp_path).stdout == "True\n"


@installs
def test_web_serves_the_page(venv_of: VenvOf, tmp_path: Path) -> None:
    args = ["serve", "--port", "0", "--log", str(tmp_path / "web.jsonl")]
    with venv_of("web").started("durak", *args, cwd=tmp_path) as server:
        assert server.stderr is not None
        lines = []
        for line in server.stderr:  # ends when the server does: never waits on a clock
            lines.append(line)
            if found := re.search(r"serve: (http://[\d.]+:\d+/)", line):
                with urllib.request.urlopen(found.group(1), timeout=60) as page:
                    assert page.status == 200 and b"<html" in page.read().lower()
                return
    raise AssertionError(f"the server stopped before serving: {''.join(lines)}")


OPENSPIEL_CODE = """
import pyspiel
import durak.interop.openspiel  # registers python_durak, as OpenSpiel's own games do

game = pyspiel.load_game("python_durak(players=3)")
state = game.new_initial_state()
state.apply_action(state.legal_actions()[0])
print(game.num_players(), state.is_chance_node())
"""


@installs
def test_openspiel_loads_the_game(venv_of: VenvOf, tmp_path: Path) -> None:
    done = venv_of("openspiel").run("python", "-c", OPENSPIEL_CODE, cwd=tmp_path)
    assert done.stdout == "3 True\n", done.stderr


TESTING_CODE = """
from hypothesis import given, settings
from durak.rules import Rules
from durak.testing import check_agent, check_state
from durak.testing.strategies import states

small = Rules(lowest_rank=12, hand_size=2)

@settings(max_examples=20, deadline=None)
@given(states(small))
def valid(state):
    check_state(state)

valid()
print(check_agent("greedy", small).games)
"""


@installs
def test_testing_draws_states_and_checks_an_agent(venv_of: VenvOf, tmp_path: Path) -> None:
    done = venv_of("testing").run("python", "-c", TESTING_CODE, cwd=tmp_path)
    assert done.stdout == "2\n", done.stderr


# -- the extras' names ---------------------------------------------------------------------


def test_learn_is_every_learner_and_environment_together(wheel: Path) -> None:
    together = set()
    for extra in ("dmc", "dqn", "rl", "ppo"):
        together |= set(requirements(wheel, extra))
    assert requirements(wheel, "learn") == sorted(together)


def test_every_extra_the_docs_and_the_code_name_exists() -> None:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    files += sorted((ROOT / "src" / "durak").rglob("*.py"))
    pattern = re.compile(
        r"durak-lab\[([a-z][a-z,]*)\]|'\.\[([a-z][a-z,]*)\]'|needs\(\s*\"[^\"]+\",\s*\"(\w+)\""
    )
    named: dict[str, Path] = {}
    for path in files:
        for match in pattern.finditer(path.read_text(encoding="utf-8")):
            for extra in ",".join(g for g in match.groups() if g).split(","):
                named.setdefault(extra, path.relative_to(ROOT))
    assert {"dmc", "dqn", "rl", "ppo", "ray", "web", "openspiel", "ladder", "testing"} <= set(named)
    assert not {e: str(p) for e, p in named.items() if e not in EXTRAS}


def test_prune_removes_the_venvs_unused_for_days_but_not_one_in_use(tmp_path: Path) -> None:
    now = time.time()
    old_use = now - (KEEP_DAYS + 1) * 86400
    for name, used in (("old", old_use), ("recent", now - 3600), ("busy", old_use)):
        (tmp_path / f"venv-{name}").mkdir()
        (tmp_path / f"venv-{name}" / "complete").touch()
        os.utime(tmp_path / f"venv-{name}" / "complete", (used, used))
        (tmp_path / f"venv-{name}.lock").touch()
    (tmp_path / "venv-crashed").mkdir()  # a build that never finished, long ago
    os.utime(tmp_path / "venv-crashed", (old_use, old_use))
    (tmp_path / "venv-crashed.lock").touch()
    with locked(tmp_path / "venv-busy.lock", exclusive=False):
        removed = prune(tmp_path, now)
    assert removed == [tmp_path / "venv-crashed", tmp_path / "venv-old"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "venv-busy",
        "venv-busy.lock",
        "venv-recent",
        "venv-recent.lock",
    ]
