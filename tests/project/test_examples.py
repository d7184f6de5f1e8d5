"""Every script of ``examples/`` runs as it is, from a folder of its own, and prints what its
docstring promises; each stays short (``examples/README.md`` lists them all).

The figures an example prints come from its own seeds; the checks here are on what must
hold whatever they are (an interval holds its rate, a clone beats a uniform choice, a file
is written), never on the numbers themselves.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support.extras import require_extra

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SCRIPTS = sorted(p.name for p in EXAMPLES.glob("*.py"))
#: The modules each example needs beyond the core (its extra).
NEEDS = {
    "custom_game_search.py": (),
    "dataset_cloning.py": ("pyarrow", "pandas"),
    "exact_exploitability.py": ("pyspiel",),
    "ladder_plot.py": ("choix", "matplotlib"),
    "own_agent.py": (),
    "ppo_gymnasium.py": ("sb3_contrib", "torch"),
    "small_dmc.py": ("torch",),
}
PERCENT = r"(\d+\.\d)%"
INTERVAL = rf"{PERCENT} \[{PERCENT}, {PERCENT}\]"


def run(script: str, cwd: Path) -> list[str]:
    """The lines ``examples/<script>`` prints when run in ``cwd`` (it must succeed)."""
    for module in NEEDS[script]:
        require_extra(module)
    env = dict(os.environ, MPLBACKEND="Agg")
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def holds(found: re.Match[str] | None) -> bool:
    """Whether a matched ``rate [low, high]`` has its rate inside its interval."""
    assert found, "no rate with an interval"
    rate, low, high = (float(found.group(i)) for i in (1, 2, 3))
    return low <= rate <= high


def test_every_example_is_listed_tested_and_short() -> None:
    assert set(SCRIPTS) == set(NEEDS)
    listing = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    for script in SCRIPTS:
        text = (EXAMPLES / script).read_text(encoding="utf-8")
        assert f"[`{script}`]({script})" in listing, script
        assert len(text.splitlines()) < 80, script
        doc = ast.get_docstring(ast.parse(text))
        assert doc and f"python examples/{script}" in doc, script


def test_own_agent(tmp_path: Path) -> None:
    lines = run("own_agent.py", tmp_path)
    assert lines[0].startswith("save-trumps vs greedy: 300 games")
    wilson = rf"win rate {PERCENT}, 98% Wilson interval \[{PERCENT}, {PERCENT}\]"
    assert holds(re.fullmatch(wilson, lines[1]))


def test_custom_game_search(tmp_path: Path) -> None:
    lines = run("custom_game_search.py", tmp_path)  # the script asserts the theory itself
    assert lines[0].startswith("ContractReport(games=40,")
    assert [line.split()[0] for line in lines[1:]] == ["9", "10", "12", "13"]


def test_small_dmc(tmp_path: Path) -> None:
    lines = run("small_dmc.py", tmp_path)
    assert re.fullmatch(r"trained on 1600 episodes, \d+ samples", lines[0])
    assert (tmp_path / "small-dmc.pt").is_file()
    for line, opponent in zip(lines[1:3], ("random", "greedy"), strict=True):
        assert line.startswith(f"vs {opponent}: ") and holds(re.search(INTERVAL, line))


def test_ppo_gymnasium(tmp_path: Path) -> None:
    lines = run("ppo_gymnasium.py", tmp_path)
    assert [line.split(" vs ")[0] for line in lines] == ["uniform random moves", "MaskablePPO"]
    assert all(holds(re.search(INTERVAL, line)) for line in lines)


def test_dataset_cloning(tmp_path: Path) -> None:
    lines = run("dataset_cloning.py", tmp_path)
    assert sorted(tmp_path.joinpath("games").glob("*.parquet"))
    clone = re.search(r"in (\d+)% of held-out", lines[1])
    chance = re.search(r"would in (\d+)%", lines[2])
    assert clone and chance and int(clone.group(1)) > int(chance.group(1))


def test_exact_exploitability(tmp_path: Path) -> None:
    lines = run("exact_exploitability.py", tmp_path)  # it checks two walks agree
    assert lines[0] == "2 players, 4 cards, hand 2"
    for line, spec in zip(lines[1:], ("lowest", "greedy", "smart", "solver"), strict=True):
        found = re.fullmatch(rf"\s*{spec}: NashConv (\d\.\d+); .* by seat", line)
        assert found and 0 <= float(found.group(1)) <= 4  # two seats, payoffs in [-1, 1]


def test_ladder_plot(tmp_path: Path) -> None:
    lines = run("ladder_plot.py", tmp_path)
    assert lines[-1] == "wrote ladder.png" and (tmp_path / "ladder.png").stat().st_size > 0
    row = re.compile(r"\s*(\S+): +([+-]\d+) Elo +98% \[([+-]\d+), ([+-]\d+)\] +300 games")
    found = [row.fullmatch(line) for line in lines[:-1]]
    ratings = {m.group(1): [int(m.group(i)) for i in (2, 3, 4)] for m in found if m}
    assert len(ratings) == len(found) and set(ratings) == {"random", "lowest", "greedy", "smart"}
    assert ratings["random"] == [0, 0, 0]  # the anchor
    assert all(low <= rating <= high for rating, low, high in ratings.values())
    shown = [r[0] for r in ratings.values()]
    assert shown == sorted(shown, reverse=True)  # best first
