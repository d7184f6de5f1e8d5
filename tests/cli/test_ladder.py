"""``durak ladder``: the ladder file keeps every game (adding an agent plays only its
pairings; a stopped run continues to the same ratings as one run), the same seed gives the
same ratings, and bad input is one line, exit 2."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

import durak.arena.play.match as match_module
from durak.cli import progress
from durak.cli.app import app
from tests.support.cli_checks import one_error

runner = CliRunner()
#: The 5-card deck: games of a millisecond.
TINY = ["--suits", "1", "--lowest-rank", "10", "--hand-size", "2", "-j", "1", "-q"]


def ladder(*args: str | Path) -> Result:
    return runner.invoke(app, ["ladder", *TINY, "--bootstrap", "50", *map(str, args)])


def ratings(result: Result) -> list[dict[str, Any]]:
    assert result.exit_code == 0, result.output
    report: list[dict[str, Any]] = json.loads(result.stdout)["ratings"]
    return report


@pytest.fixture
def played(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[str, ...]]:
    """The games played in this process, counted by the pair's specs."""
    counts: Counter[tuple[str, ...]] = Counter()
    real = match_module.play_match_game

    def counting(plan: Any, game: int, agents: Any = None) -> Any:
        counts[plan.specs] += 1
        return real(plan, game, agents)

    monkeypatch.setattr(match_module, "play_match_game", counting)
    return counts


def test_adding_an_agent_plays_only_its_pairings(
    tmp_path: Path, played: Counter[tuple[str, ...]]
) -> None:
    file = tmp_path / "ladder.json"
    first = ladder(
        "random", "greedy", "lowest", "-n", "10", "--seed", "3", "--file", file, "--json"
    )
    assert len(ratings(first)) == 3
    assert sum(played.values()) == 3 * 10
    played.clear()
    more = ladder("random", "greedy", "lowest", "smart", "-n", "10", "--file", file, "--json")
    assert {r["agent"] for r in ratings(more)} == {"random", "greedy", "lowest", "smart"}
    assert played == {
        ("random", "smart"): 10,
        ("lowest", "smart"): 10,
        ("greedy", "smart"): 10,
    }
    assert "seed 3 (from" in more.stderr
    played.clear()
    again = ladder("random", "greedy", "lowest", "smart", "-n", "10", "--file", file, "--json")
    assert sum(played.values()) == 0 and ratings(again) == ratings(more)
    # The three original agents rated alone from the file: as in the first run.
    back = ladder("lowest", "random", "greedy", "-n", "10", "--file", file, "--json")
    assert ratings(back) == ratings(first)


def test_the_same_seed_gives_the_same_ratings_whatever_the_order(tmp_path: Path) -> None:
    one = ladder("random", "greedy", "lowest", "-n", "20", "--seed", "8", "--json")
    two = ladder("lowest", "random", "greedy", "-n", "20", "--seed", "8", "--json")
    other = ladder("random", "greedy", "lowest", "-n", "20", "--seed", "9", "--json")
    assert ratings(one) == ratings(two)
    assert ratings(one) != ratings(other)
    assert json.loads(one.stdout)["seed"] == 8 and json.loads(one.stdout)["anchor"] == "random"


def test_an_interrupted_ladder_continues_to_the_ratings_of_one_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    specs = ["random", "greedy", "lowest", "smart"]
    whole = ladder(*specs, "-n", "20", "--seed", "5", "--file", tmp_path / "whole.json", "--json")
    stopped_file = tmp_path / "stopped.json"
    real_advance = progress.GameProgress.advance
    calls = Counter[str]()

    def interrupting(self: progress.GameProgress, count: int = 1) -> None:
        calls["advance"] += 1
        if calls["advance"] == 50:
            raise KeyboardInterrupt
        real_advance(self, count)

    monkeypatch.setattr(progress.GameProgress, "advance", interrupting)
    stopped = ladder(*specs, "-n", "20", "--seed", "5", "--file", stopped_file)
    assert stopped.exit_code == 130, stopped.output
    assert "run the same command to finish" in stopped.stderr
    kept = json.loads(stopped_file.read_text())["pairs"]
    assert 0 < sum(p["games"] for p in kept) < 6 * 20
    monkeypatch.setattr(progress.GameProgress, "advance", real_advance)
    resumed = ladder(*specs, "-n", "20", "--file", stopped_file, "--json")
    assert ratings(resumed) == ratings(whole)
    assert stopped_file.read_text() == (tmp_path / "whole.json").read_text()


def test_the_outputs_table_json_and_plot(tmp_path: Path) -> None:
    plot = tmp_path / "ladder.png"
    done = ladder("random", "greedy", "-n", "10", "--seed", "1", "--json", "--plot", plot)
    report = json.loads(done.stdout)
    assert report["method"] == "bradley-terry" and report["rules"]["hand_size"] == 2
    assert [sorted(r) for r in report["ratings"]] == [["agent", "games", "interval", "rating"]] * 2
    assert "rating (Elo)" in done.stderr and "98% interval" in done.stderr
    assert plot.read_bytes().startswith(b"\x89PNG")
    refused = ladder("random", "greedy", "-n", "10", "--seed", "1", "--plot", plot)
    one_error(refused, str(plot), "--force")


def test_alpharank_rates_by_mass(tmp_path: Path) -> None:
    pytest.importorskip("open_spiel")
    done = ladder("random", "greedy", "lowest", "-n", "10", "--seed", "1", "--method",
                  "alpharank", "--json")  # fmt: skip
    report = json.loads(done.stdout)
    assert report["method"] == "alpharank" and report["anchor"] is None
    assert sum(r["rating"] for r in report["ratings"]) == pytest.approx(1.0)


def test_alpharank_without_openspiel_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "open_spiel" else real(name)
    )
    done = ladder("random", "greedy", "-n", "2", "--method", "alpharank")
    one_error(done, "pip install 'durak-lab[openspiel]'")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["random", "nosuch"], ["unknown agent 'nosuch'"]),
        (["random"], ["at least two agents"]),
        (["random", "greedy", "random"], ["'random' is given twice"]),
        (["random", "human"], ["human: human asks a person at the terminal"]),
        # Issue 61: a person nested in another agent waited at a terminal prompt (-j 1).
        (["random", "solver:fallback=human"], ["fallback: human asks a person"]),
        (["random", "phased:opening=human"], ["opening: human asks a person"]),
        (["random", "solver:fallback=phased:opening=human"], ["fallback: opening: human asks"]),
        (["random", "greedy", "--anchor", "smart"], ["--anchor 'smart'"]),
        # Issue 61: two spellings of one agent were two agents.
        (["random", "random:", "greedy"], ["'random:' is given twice", "as 'random'"]),
        (["mcts:limit=5,c=1", "greedy", "mcts:c=1.0,limit=5"], ["'mcts:c=1.0,limit=5' is given"]),
        (["random", "greedy", "-n", "3"], ["even"]),
    ],
)
def test_bad_input_is_one_line(args: list[str], words: list[str]) -> None:
    one_error(ladder(*args), *words)


def rewrite(file: Path, change: Any, fix_checksum: bool = True) -> None:
    obj = json.loads(file.read_text())
    change(obj)
    if fix_checksum:
        body = {k: v for k, v in obj.items() if k != "sha256"}
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        obj["sha256"] = hashlib.sha256(text.encode()).hexdigest()
    file.write_text(json.dumps(obj))


@pytest.fixture
def made(tmp_path: Path) -> Path:
    file = tmp_path / "ladder.json"
    done = ladder("random", "greedy", "-n", "4", "--seed", "2", "--file", file)
    assert done.exit_code == 0, done.output
    return file


def test_a_ladder_of_other_rules_or_seed_is_refused(made: Path) -> None:
    other_rules = runner.invoke(
        app, ["ladder", "random", "greedy", "-n", "4", "--file", str(made), "-q", "-j", "1"]
    )
    one_error(other_rules, str(made), "other rules", "hand_size=2 (command: 6)")
    one_error(ladder("random", "greedy", "-n", "4", "--seed", "3", "--file", made), "seed 2")


def flip(obj: dict[str, Any]) -> None:
    r = obj["pairs"][0]["results"]
    obj["pairs"][0]["results"] = ("L" if r[0] != "L" else "W") + r[1:]


@pytest.mark.parametrize(
    ("change", "fix", "words"),
    [
        (flip, False, "checksum does not match"),
        (flip, True, "does not add up"),
        (lambda o: o.update(extra=1), True, "unknown field 'extra'"),
        (lambda o: o["pairs"].append(o["pairs"][0]), True, "given twice"),
        (lambda o: o["pairs"][0].update(results="WX" * 2), True, "codes other than"),
        (lambda o: o["pairs"][0].update(agents=["random", "greedy"]), True, "in order"),
    ],
)
def test_a_tampered_ladder_file_is_refused(made: Path, change: Any, fix: bool, words: str) -> None:
    rewrite(made, change, fix)
    one_error(ladder("random", "greedy", "-n", "4", "--file", made), str(made), words)


def test_a_ladder_file_that_is_not_json_is_refused(tmp_path: Path) -> None:
    file = tmp_path / "l.json"
    file.write_text("not json")
    one_error(ladder("random", "greedy", "-n", "2", "--file", file), "not a ladder file")


def _respell(old: str, new: str) -> Any:
    def change(obj: dict[str, Any]) -> None:
        for pair in obj["pairs"]:
            pair["agents"] = [new if a == old else a for a in pair["agents"]]

    return change


def test_an_agent_is_kept_under_its_canonical_name(tmp_path: Path) -> None:
    file = tmp_path / "ladder.json"
    done = ladder("random", "faulty:after=0100,fault=error", "-n", "2", "--file", file, "--json")
    assert {r["agent"] for r in ratings(done)} == {"random", "faulty:after=100"}
    pairs = json.loads(file.read_text())["pairs"]
    assert [p["agents"] for p in pairs] == [["faulty:after=100", "random"]]


def test_a_file_s_older_spelling_of_an_agent_keeps_its_games_and_deals(
    tmp_path: Path, played: Counter[tuple[str, ...]]
) -> None:
    """A ladder file written before the canonical form holds an agent under another
    spelling: another spelling of that agent reads its games (none replayed, none lost),
    and extending the pair goes on with the deals of the spelling the games were
    played under."""
    file = tmp_path / "ladder.json"
    assert (
        ladder("random", "faulty:after=100", "-n", "4", "--seed", "2", "--file", file).exit_code
        == 0
    )
    old = "faulty:after=0100"
    rewrite(file, _respell("faulty:after=100", old))
    before = json.loads(file.read_text())["pairs"][0]
    played.clear()
    again = ladder("random", "faulty:after=100", "-n", "4", "--file", file, "--json")
    assert {r["agent"] for r in ratings(again)} == {"random", old}
    assert sum(played.values()) == 0
    assert json.loads(file.read_text())["pairs"] == [before]
    longer = ladder("faulty:after=+100", "random", "-n", "6", "--file", file)
    assert longer.exit_code == 0, longer.output
    assert played == Counter({(old, "random"): 2})
    (after,) = json.loads(file.read_text())["pairs"]
    assert after["agents"] == [old, "random"] and after["results"][:4] == before["results"]


def test_two_spellings_of_one_agent_in_an_old_file_are_both_kept(tmp_path: Path) -> None:
    file = tmp_path / "ladder.json"
    made = ladder("random", "greedy", "faulty:after=100", "-n", "2", "--seed", "2", "--file", file)
    assert made.exit_code == 0, made.output
    rewrite(file, _respell("faulty:after=100", "faulty:after=0100"))
    rewrite(file, _respell("greedy", "faulty:after=100,fault=error"))  # one agent, two names
    pairs = json.loads(file.read_text())["pairs"]
    one_error(ladder("random", "faulty:after=+100", "-n", "2", "--file", file), "2 spellings")
    kept = ladder("random", "faulty:after=0100", "-n", "2", "--file", file, "--json")
    assert {r["agent"] for r in ratings(kept)} == {"random", "faulty:after=0100"}
    assert json.loads(file.read_text())["pairs"] == pairs
