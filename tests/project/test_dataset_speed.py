"""The report logic of ``benchmarks/dataset_speed.py`` (nothing here is timed): reading the
child's RSS, the memory verdict, the command's own rate and the decisions read back."""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from tests.support.extras import require_extra

pq = require_extra("pyarrow.parquet")

from durak.cli.app import app  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BENCH: dict[str, Any] = runpy.run_path(str(ROOT / "benchmarks" / "dataset_speed.py"))
Sample = BENCH["Sample"]


def samples(rss: list[int]) -> list[Any]:
    """One sample of each RSS, half a second apart."""
    return [Sample(0.5 * k, kib) for k, kib in enumerate(rss)]


def test_vm_rss_reads_the_status_line_in_kib() -> None:
    status = "Name:\tpython\nVmPeak:\t  900 kB\nVmRSS:\t  123456 kB\nThreads:\t1\n"
    assert BENCH["vm_rss"](status) == 123456
    assert BENCH["vm_rss"]("Name:\tpython\nState:\tZ (zombie)\n") is None


def test_memory_that_rises_and_falls_with_each_file_is_flat() -> None:
    # a saw-tooth: every sample at 10% could be a trough, one at 90% a crest
    rss = [100_000 if k % 3 else 150_000 for k in range(100)]
    mem = BENCH["memory"](samples(rss))
    assert (mem.early, mem.middle, mem.late) == (150_000, 150_000, 150_000)
    assert mem.flat is True


def test_memory_that_grows_is_not_flat() -> None:
    rss = [100_000 + 1_000 * k for k in range(100)]
    mem = BENCH["memory"](samples(rss))
    assert mem.early < mem.middle < mem.late
    assert mem.late > mem.early * 1.1
    assert mem.flat is False


def test_a_run_too_short_has_no_verdict() -> None:
    mem = BENCH["memory"](samples([100_000] * 20))
    assert mem.flat is None
    assert BENCH["memory"](samples([100_000] * 100)).flat is True


def test_the_commands_rate_and_the_decisions_are_read_back(tmp_path: Path) -> None:
    out = tmp_path / "data"
    args = ["dataset", "random", "random", "-n", "3", "--seed", "1", "--jobs", "1"]
    result = CliRunner().invoke(app, [*args, "--shards", "2", "--quiet", "--out", str(out)])
    assert result.exit_code == 0, result.output
    rate = BENCH["cli_rate"](result.output)
    assert rate is not None and rate > 0
    assert BENCH["cli_rate"]("time: 1.00 s wall · 12,345 decisions/s · 1 job\n") == 12345.0
    assert BENCH["cli_rate"]("wrote: 0 of 1 files\n") is None
    rows = pq.read_table(out).num_rows  # the decisions only: _games/ is skipped
    assert rows > 0
    assert BENCH["decisions_written"](out) == (rows, rows)
