"""Model files checked end to end (issue 36, items 7 and 8): a checksum of the tensors,
float32 finite weights only, and one clear line for every file that is refused."""

from __future__ import annotations

import math
import pickle
import warnings
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from tests.support.cli_checks import one_error
from tests.support.extras import require_extra

torch = require_extra("torch")

from durak.agents import SpecError, make_agent  # noqa: E402
from durak.cli.app import app  # noqa: E402
from durak.learn.dmc import BUNDLED  # noqa: E402
from durak.learn.dmc.net import DmcModel, DmcModelError, build_network, load_model  # noqa: E402
from durak.learn.dmc.net import save_model as save_dmc  # noqa: E402
from durak.learn.model_file import write_model_file  # noqa: E402
from durak.rules import Rules  # noqa: E402

runner = CliRunner()
SMALL = Rules(lowest_rank=10)


def refused(path: Path, *words: str) -> None:
    """``path`` refused by the library (one line naming the file, never torch's advice,
    no warning) and by ``durak match`` (exit 2, one ``error:`` line, nothing else)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(DmcModelError) as err:
            load_model(path)
    assert not caught, [str(w.message) for w in caught]
    message = str(err.value)
    assert message.startswith(f"{path}: ") and "\n" not in message, message
    assert "weights_only" not in message and "False" not in message, message
    for word in words:
        assert word in message, message
    result: Result = runner.invoke(app, ["match", f"dmc:path={path}", "greedy", "-n", "2"])
    one_error(result, *words)
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def small_model(tmp_path: Path) -> Path:
    torch.manual_seed(0)
    path = tmp_path / "small.pt"
    save_dmc(path, DmcModel(build_network(SMALL, (8,)), SMALL, (8,)))
    return path


def with_weight(tmp_path: Path, name: str, key: str, weight: Any) -> Path:
    """The small model with ``state_dict[key]`` replaced, written as ``name`` through
    :func:`write_model_file` (so its checksum is right: the weight is the problem)."""
    data = torch.load(small_model(tmp_path), weights_only=True)
    data["state_dict"][key] = weight
    path = tmp_path / name
    write_model_file(path, data)
    return path


def test_flipped_bytes_in_the_bundled_model_are_refused(tmp_path: Path) -> None:
    blob = bytearray(BUNDLED.read_bytes())
    first = torch.load(BUNDLED, weights_only=True)["state_dict"]["0.weight"]
    raw = first.numpy().tobytes()
    start = blob.find(raw[:64]) + len(raw) // 2 - 1000
    assert start > 0
    for i in range(start, start + 2000):  # inside the first layer's weights
        blob[i] ^= 0x5A
    corrupt = tmp_path / "corrupt.pt"
    corrupt.write_bytes(bytes(blob))
    refused(corrupt, "damaged", "checksum")


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_weights_that_are_not_finite_are_refused(tmp_path: Path, value: float) -> None:
    net = build_network(SMALL, (8,))
    with torch.no_grad():
        net[0].weight[3, 5] = value
    path = tmp_path / "nonfinite.pt"
    save_dmc(path, DmcModel(net, SMALL, (8,)))
    refused(path, "weight 0.weight", "not finite")


@pytest.mark.parametrize("dtype", ["complex64", "bool", "int64", "float64", "float16"])
def test_weights_of_another_dtype_are_refused(tmp_path: Path, dtype: str) -> None:
    weight = torch.ones((8,), dtype=getattr(torch, dtype))
    path = with_weight(tmp_path, f"{dtype}.pt", "0.bias", weight)
    refused(path, "weight 0.bias", f"is {dtype}, not float32")


def test_a_pickle_payload_is_refused_unrun_in_one_line(tmp_path: Path) -> None:
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
            return (Path.touch, (marker,))

    bare = tmp_path / "bare.pt"
    bare.write_bytes(pickle.dumps(Payload(), protocol=4))
    refused(bare, "not a model file")
    zipped = tmp_path / "zipped.pt"
    torch.save({"format": "durak-dmc", "x": Payload()}, zipped)
    refused(zipped, "objects other than tensors and plain values")
    assert not marker.exists()


def test_a_text_file_is_not_a_model_file(tmp_path: Path) -> None:
    text = tmp_path / "notes.pt"
    text.write_text("hello, this is not a model\n", encoding="utf-8")
    refused(text, "not a model file")
    refused(tmp_path, "not a regular file")


def test_an_edited_header_is_damaged(tmp_path: Path) -> None:
    path = small_model(tmp_path)
    data = torch.load(path, weights_only=True)
    data["meta"] = {"episodes": 10**9}  # a field changed without the checksum
    torch.save(data, path)
    refused(path, "damaged")


def test_a_version_1_file_is_refused_with_how_to_convert_it(tmp_path: Path) -> None:
    from durak.learn.model_upgrade import main  # noqa: PLC0415

    path = small_model(tmp_path)
    data = torch.load(path, weights_only=True)
    del data["checksum"]
    torch.save({**data, "version": 1}, path)
    refused(path, "version 1", "python -m durak.learn.model_upgrade")
    assert main([str(path)]) == 0
    upgraded = load_model(path)
    for key, tensor in upgraded.net.state_dict().items():
        assert tensor.numpy().tobytes() == data["state_dict"][key].numpy().tobytes()
    assert upgraded.meta == data["meta"]
    assert main([str(path)]) == 2  # already current


def test_the_upgrade_refuses_a_version_1_file_with_bad_weights(tmp_path: Path) -> None:
    from durak.learn.model_upgrade import ModelUpgradeError, upgrade  # noqa: PLC0415

    data = torch.load(small_model(tmp_path), weights_only=True)
    del data["checksum"]
    data["state_dict"]["0.bias"] = torch.full((8,), math.nan)
    path = tmp_path / "old.pt"
    torch.save({**data, "version": 1}, path)
    before = path.read_bytes()
    with pytest.raises(ModelUpgradeError, match="not finite"):
        upgrade(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.pt", "small.pt"]


def test_the_bundled_model_is_checksummed_and_loads() -> None:
    data = torch.load(BUNDLED, weights_only=True)
    assert data["version"] == 2 and str(data["checksum"]).startswith("sha256:")
    assert make_agent("dmc", Rules()).name == "dmc"
    with pytest.raises(SpecError, match="dmc: no shipped model for 2 players, 20 cards"):
        make_agent("dmc", SMALL)


def test_a_version_1_checkpoint_is_refused_then_converted_and_resumed(tmp_path: Path) -> None:
    from durak.learn.dmc.learner import DmcTrainer  # noqa: PLC0415
    from durak.learn.dmc.settings import DmcSettings  # noqa: PLC0415
    from durak.learn.model_upgrade import upgrade  # noqa: PLC0415

    settings = DmcSettings(round=8, chunk=4, hidden=16, layers=2, batch=64)
    path = tmp_path / "run.ckpt"
    DmcTrainer(SMALL, ["self"], 4, settings).save_checkpoint(path)
    data = torch.load(path, weights_only=True)
    del data["checksum"]
    torch.save({**data, "version": 1}, path)
    with pytest.raises(DmcModelError, match=r"version 1.*durak\.learn\.model_upgrade"):
        DmcTrainer(SMALL, ["self"], 4, settings).load_checkpoint(path)
    assert upgrade(path) == "durak-dmc-checkpoint"
    resumed = DmcTrainer(SMALL, ["self"], 4, settings)
    resumed.load_checkpoint(path)
    for key, tensor in resumed.net.state_dict().items():
        assert torch.equal(tensor, data["state_dict"][key])


def test_the_upgrade_refuses_a_target_that_is_its_source_under_another_name(
    tmp_path: Path,
) -> None:
    from durak.learn.model_upgrade import main  # noqa: PLC0415

    path = small_model(tmp_path)
    data = torch.load(path, weights_only=True)
    del data["checksum"]
    torch.save({**data, "version": 1}, path)
    before = path.read_bytes()
    link = tmp_path / "link.pt"
    link.symlink_to(path)
    # NEW.pt is OLD.pt by another name: an output at the upgrade's input, even with --force
    assert main([str(path), str(link), "--force"]) == 2
    assert path.read_bytes() == before and link.is_symlink()
    assert main([str(path), str(tmp_path / "new.pt")]) == 0  # another file: upgraded
