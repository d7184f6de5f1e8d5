"""The shipped ``dmc`` models by rules (issue 51): ``dmc`` and its guide play the model of
the game's rules, ``strongest`` searches with it, and a table without one is one line."""

from __future__ import annotations

import os
import pickle
import random
import shutil
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.support.agent_checks import (
    check_decisions_ignore_hidden_cards,
    check_legal_reproducible_games,
)
from tests.support.cli_checks import one_error
from tests.support.extras import require_extra

torch = require_extra("torch")

import durak.learn.dmc.shipped as shipped_module  # noqa: E402
from durak.agents import SpecError, make_agent, registry  # noqa: E402
from durak.agents.learned import NoModelError, table_name  # noqa: E402
from durak.agents.strongest import (  # noqa: E402
    GUIDED,
    MORE_PLAYERS,
    TWO_PLAYERS,
    network_fits,
    network_problem,
    strongest_spec,
)
from durak.arena.play.match import MatchPlan  # noqa: E402
from durak.arena.runs.run import Run  # noqa: E402
from durak.cli.app import app  # noqa: E402
from durak.learn.dmc import BUNDLED  # noqa: E402
from durak.learn.dmc.agent import ShippedDmcAgent, ShippedDmcGuide, loaded  # noqa: E402
from durak.learn.dmc.net import build_network, load_model, save_model  # noqa: E402
from durak.learn.dmc.shipped import MODELS, read_rules, shipped_model, shipped_models  # noqa: E402
from durak.learn.model_file import NetworkModel  # noqa: E402
from durak.rules import Rules  # noqa: E402

torch.set_num_threads(1)
runner = CliRunner()
#: The table of the tiny test model: 3 players (a short deck keeps the games short).
THREE = Rules(players=3, lowest_rank=9, hand_size=5)
#: A table no model is shipped for, nor planned.
NONE = Rules(players=5)


def tiny_model(path: Path, rules: Rules, seed: int = 0) -> Path:
    """A small untrained network for ``rules``, saved to ``path``."""
    torch.manual_seed(seed)
    save_model(path, NetworkModel(build_network(rules, (16,)), rules, (16,), {"test": True}))
    return path


@pytest.fixture
def models(tmp_path: Path) -> Path:
    """A models folder holding a tiny 3-player model and a copy of the 2-player one."""
    folder = tmp_path / "models"
    folder.mkdir()
    tiny_model(folder / "dmc-3p.pt", THREE)
    shutil.copy(BUNDLED, folder / "dmc-2p-36.pt")
    return folder


def test_every_file_of_a_folder_is_a_model_by_its_rules(models: Path) -> None:
    assert shipped_models(models) == {Rules(): models / "dmc-2p-36.pt", THREE: models / "dmc-3p.pt"}
    assert shipped_model(THREE, models) == models / "dmc-3p.pt"


def test_the_packages_models_load_and_each_fits_the_rules_it_is_listed_under() -> None:
    found = shipped_models()
    assert found[Rules()] == BUNDLED
    assert set(found.values()) == set(MODELS.glob("*.pt"))  # every file, once
    for rules, path in found.items():
        assert load_model(path).rules == rules == read_rules(path)


@pytest.mark.parametrize("rules", list(shipped_models()), ids=table_name)
def test_each_shipped_model_plays_legal_reproducible_games_blind_to_hidden_cards(
    rules: Rules,
) -> None:
    # The shared agent checks, at each shipped table's own rules (issue 51).
    others = ["greedy", "random", "lowest", "greedy", "random"][: rules.players - 1]
    check_legal_reproducible_games(lambda: make_agent("dmc", rules), others, rules, 11)
    assert check_decisions_ignore_hidden_cards(make_agent("dmc", rules), rules, 13) >= 10


def test_two_files_for_the_same_rules_are_refused(models: Path) -> None:
    tiny_model(models / "other-3p.pt", THREE, seed=1)
    with pytest.raises(SpecError, match="two shipped models for 3 players") as e:
        shipped_models(models)
    assert "dmc-3p.pt" in str(e.value) and "other-3p.pt" in str(e.value)
    with pytest.raises(SpecError, match="two shipped models"):
        ShippedDmcAgent(models).check_rules(THREE)


def test_a_file_that_is_no_model_is_one_line_and_never_unpickles_a_class(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    evil = tmp_path / "evil.pt"
    payload = f"cos\nsystem\n(S'touch {marker}'\ntR.".encode()
    with zipfile.ZipFile(evil, "w") as z:
        z.writestr("evil/data.pkl", payload)
    (tmp_path / "junk.pt").write_bytes(b"not a model")
    os.mkfifo(tmp_path / "fifo.pt")
    for name, words in (
        ("evil.pt", "os.system is not a part of a model file"),
        ("junk.pt", "cannot read it"),
        ("fifo.pt", "not a regular file"),
    ):
        with pytest.raises(SpecError, match=words) as e:
            read_rules(tmp_path / name)
        assert "\n" not in str(e.value) and name in str(e.value)
    assert not marker.exists()


def test_dmc_plays_the_shipped_model_of_a_3_player_table(models: Path) -> None:
    agent = ShippedDmcAgent(models)
    agent.check_rules(THREE)
    assert agent.model_path(THREE) == models / "dmc-3p.pt"
    assert agent.resolve(THREE).model.rules == THREE
    assert agent.resolve(Rules()).model.rules == Rules()  # one agent, a model per rules
    check_legal_reproducible_games(lambda: ShippedDmcAgent(models), ["greedy", "random"], THREE, 5)
    assert check_decisions_ignore_hidden_cards(ShippedDmcAgent(models), THREE, 7) >= 3


def test_the_dmc_guide_scores_with_the_model_of_the_observations_rules(models: Path) -> None:
    guide = ShippedDmcGuide(ShippedDmcAgent(models))
    agent = ShippedDmcAgent(models)
    from durak.testing.games import random_game_observations  # noqa: PLC0415

    seen = random_game_observations(THREE, 1, 3)[:20] + random_game_observations(Rules(), 1, 3)[:20]
    random.Random(0).shuffle(seen)
    many = guide.action_values_many(seen)
    for o, values in zip(seen, many, strict=True):
        alone = guide.action_values(o)
        assert values == pytest.approx(alone, abs=1e-5)  # float32 sums in another order
        best = o.legal_actions[alone.index(max(alone))]
        assert agent.act(o, random.Random(0)) == best


def test_each_model_is_loaded_once_and_only_when_bound_to_rules(models: Path) -> None:
    loaded.cache_clear()
    agent = ShippedDmcAgent(models)
    assert loaded.cache_info().currsize == 0  # built before the rules are known: nothing read
    agent.check_rules(THREE)
    other = ShippedDmcAgent(models)
    other.check_rules(THREE)
    assert other.resolve(THREE).model is agent.resolve(THREE).model
    assert loaded.cache_info().currsize == 1


def test_a_table_without_a_model_is_one_line_naming_those_with_one(models: Path) -> None:
    with pytest.raises(NoModelError) as e:
        ShippedDmcAgent(models).check_rules(NONE)
    text = str(e.value)
    assert text == (
        "dmc: no shipped model for 5 players, 36 cards, podkidnoy, throw-in all (shipped: "
        "2 players, 36 cards, podkidnoy, throw-in all; 3 players, 24 cards, podkidnoy, "
        "throw-in all, hand 5); give dmc:path=FILE"
    )
    again = pickle.loads(pickle.dumps(e.value))  # from a worker to its parent, whole
    assert isinstance(again, NoModelError) and str(again) == text
    assert again.plain() == (
        f"No learned agent for {table_name(NONE)}: dmc ships networks for "
        f"{table_name(Rules())}; {table_name(THREE)} only."
    )


def test_make_agent_resolves_dmc_when_bound_to_rules() -> None:
    agent = make_agent("dmc")
    assert isinstance(agent, ShippedDmcAgent)
    with pytest.raises(NoModelError, match="no shipped model for 5 players"):
        make_agent("dmc", NONE)
    assert isinstance(make_agent("dmc", Rules()), ShippedDmcAgent)


def test_strongest_searches_with_a_network_at_two_players_wherever_one_ships(
    models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small = Rules(lowest_rank=10)  # 2 players, 20 cards: no model is shipped for it
    assert not network_fits(THREE) and not network_fits(small)
    assert strongest_spec(THREE) == MORE_PLAYERS and strongest_spec(small) == TWO_PLAYERS
    tiny_model(models / "dmc-2p-20.pt", small)
    monkeypatch.setattr(shipped_module, "MODELS", models)  # as if these models shipped
    assert network_fits(THREE) and network_problem(THREE) is None
    assert strongest_spec(small) == GUIDED
    # At 3 players the torch-free search was measured the stronger (GUIDED_PLAYERS).
    assert strongest_spec(THREE) == MORE_PLAYERS
    searcher = make_agent("ismcts:prior=dmc,value=dmc,limit=8,opponent=greedy", THREE)
    check_legal_reproducible_games(lambda: searcher, ["greedy", "greedy"], THREE, 2)
    problem = network_problem(NONE)
    assert problem is not None and "No learned agent for 5 players" in problem
    assert "3 players, 24 cards" in problem


def test_the_command_line_refuses_a_table_without_a_model_in_one_line(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    args = ["match", "dmc", *["greedy"] * 4, "-n", "2", "--log", str(log)]
    one_error(
        runner.invoke(app, args),
        "dmc: no shipped model for 5 players, 36 cards",
        "shipped: 2 players, 36 cards",
        "give dmc:path=FILE",
    )
    assert not log.exists() or log.read_bytes() == b""
    guided = ["match", "ismcts:prior=dmc,value=dmc,limit=5", *["greedy"] * 4, "-n", "2"]
    one_error(runner.invoke(app, guided), "ismcts: dmc: no shipped model for 5 players")


def test_durak_agents_lists_the_shipped_tables_and_their_files() -> None:
    description = registry()["dmc"].description
    for rules, path in shipped_models().items():
        assert f"{table_name(rules)}: {path.name}" in description
    result = runner.invoke(app, ["agents", "dmc", "--json", "-"])
    assert result.exit_code == 0 and "dmc-2p-36.pt" in result.stdout


def test_a_run_and_the_command_line_say_what_dmc_and_strongest_play(tmp_path: Path) -> None:
    three = Rules(players=3)
    plans = [
        MatchPlan(three, ("dmc", "greedy", "dmc"), 1, 3),
        MatchPlan(Rules(), ("strongest", "dmc"), 1, 2),
    ]
    run = Run(plans)
    run.close()
    assert run.resolutions == [
        f"dmc plays the shipped model {shipped_model(three).name} ({table_name(three)})",
        f"strongest plays {strongest_spec(Rules())}",
        f"dmc plays the shipped model {BUNDLED.name} ({table_name(Rules())})",
    ]
    assert Run([MatchPlan(three, ("greedy", "lowest", "random"), 1, 3)]).resolutions == []
    match = runner.invoke(app, ["match", "dmc", "greedy", "greedy", "-n", "3", "-j", "1"])
    dataset = ["dataset", "dmc", "random", "random", "-n", "2", "-j", "1", "--out", str(tmp_path)]
    for result in (match, runner.invoke(app, dataset)):
        assert result.exit_code == 0, result.output
        line = f"agent: dmc plays the shipped model {shipped_model(three).name}"
        assert result.stdout.count(line) == 1, result.stdout
    played = runner.invoke(app, ["play", "dmc", "greedy", "--seed", "1"], input="")
    line = f"agent: dmc plays the shipped model {shipped_model(three).name}"
    assert played.stdout.count(line) == 1, played.output
    ladder = runner.invoke(app, ["ladder", "dmc", "lowest", "-n", "2", "-j", "1", "-q"])
    assert ladder.exit_code == 0, ladder.output
    assert f"agent: dmc plays the shipped model {BUNDLED.name}" in ladder.stdout
