"""The Ray backend: the same games as one local job, nothing lost or doubled when a worker
dies or the run is interrupted, forfeits as on the local backend, and one-line errors.

One Ray instance serves the whole module (and so the session): a simulated two-node
cluster (``ray.cluster_utils.Cluster``, one CPU per node) that this process joins.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from durak.arena.gamelog.files import read_log
from durak.arena.play.match import MatchPlan
from durak.arena.play.referee import Referee
from durak.arena.runs.backends import open_backend
from durak.arena.runs.interface import MAX_BATCH, TASK_SECONDS, BackendError, BatchSizer
from durak.arena.runs.run import Run
from durak.cli.app import app
from durak.rules import Rules
from tests.support.cli_checks import one_error
from tests.support.extras import require_extra

runner = CliRunner()
DURAK = [sys.executable, "-c", "from durak.cli.app import main; main()"]


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A two-node Ray cluster joined by this process; yields its address."""
    ray = require_extra("ray")
    from ray.cluster_utils import Cluster  # noqa: PLC0415 - an extra, required above

    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    nodes = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 1, "include_dashboard": False},
    )
    nodes.add_node(num_cpus=1)
    nodes.wait_for_nodes()
    ray.init(address=nodes.address, logging_level="ERROR", log_to_driver=False)
    try:
        yield nodes.address
    finally:
        ray.shutdown()
        nodes.shutdown()  # type: ignore[no-untyped-call]
        for s, handler in handlers.items():
            signal.signal(s, handler)


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args))


def games(log: Path) -> list[tuple[Any, ...]]:
    """The logged games in game order, without their timings."""
    entries = sorted(read_log(log).entries, key=lambda e: (e.specs, e.game))
    return [
        (e.specs, e.game, e.seats, e.actions, e.outcome().durak, e.forfeit, e.decisions)
        for e in entries
    ]


def untimed(run: Run) -> list[tuple[Any, ...]]:
    """A run's outcomes without their timings."""
    return [
        (o.game, o.durak, o.seats, o.bouts, o.moves, o.decisions, o.forfeit)
        for o in run.results()[0].outcomes
    ]


def results_without_time(result: Result) -> list[str]:
    """The command's output without the lines and columns that depend on the machine."""
    keep = []
    for line in result.stdout.splitlines():
        if line.startswith(("time:", "runs on:", "log:")):
            continue
        cells = line.split("│")
        keep.append("│".join(cells[:-3]) if len(cells) > 5 else line)
    return keep


COMMANDS = {
    "match": ["match", "random", "greedy", "smart", "--variant", "perevodnoy", "-n", "24"],
    "tournament": ["tournament", "random", "greedy", "lowest", "-n", "10"],
    "grid": ["grid", "random", "-p", "stop_chance=0,0.5", "--vs", "lowest", "-n", "10"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_ray_plays_the_games_of_one_local_job(cluster: str, tmp_path: Path, command: str) -> None:
    base = [*COMMANDS[command], "--seed", "4"]
    one = invoke(*base, "--jobs", "1", "--log", str(tmp_path / "one.jsonl"))
    on_ray = invoke(*base, "--backend", "ray", "--log", str(tmp_path / "ray.jsonl"))
    assert one.exit_code == 0 and on_ray.exit_code == 0, one.output + on_ray.output
    assert games(tmp_path / "ray.jsonl") == games(tmp_path / "one.jsonl")
    assert results_without_time(on_ray) == results_without_time(one)
    assert f"runs on: Ray cluster at {cluster}, 2 CPUs on 2 nodes" in on_ray.stdout


def _gate_and_hold() -> tuple[type[Any], Callable[[Any, str], None]]:
    """A class of named one-shot events and a task that holds a CPU until one opens
    (made here, not at module level, so that Ray sends them by value: its workers cannot
    import this test module)."""

    class Gate:
        """Named one-shot events shared by the driver and tasks (a Ray actor)."""

        def __init__(self) -> None:
            self.events: dict[str, asyncio.Event] = {}

        async def open(self, name: str) -> None:
            self.events.setdefault(name, asyncio.Event()).set()

        async def wait(self, name: str) -> None:
            await self.events.setdefault(name, asyncio.Event()).wait()

    def hold(gate: Any, node: str) -> None:
        """Hold one CPU of the node this runs on until the gate ``release <node>`` opens."""
        import ray  # noqa: PLC0415 - an extra; runs in a Ray worker

        ray.get(gate.open.remote(f"held {node}"))
        ray.get(gate.wait.remote(f"release {node}"))

    return Gate, hold


def test_a_match_runs_across_both_nodes(cluster: str) -> None:
    # Which node plays is steered by holding CPUs, not left to Ray's timing: the match
    # starts with the other node held, so its first batch is played on the head node;
    # then the head is held (once its batches in flight are done) and the other released.
    ray = require_extra("ray")
    from ray.util.scheduling_strategies import (  # noqa: PLC0415 - an extra
        NodeAffinitySchedulingStrategy,
    )

    head = ray.get_runtime_context().get_node_id()
    [other] = [n["NodeID"] for n in ray.nodes() if n["Alive"] and n["NodeID"] != head]
    gate_class, hold_cpu = _gate_and_hold()
    gate = ray.remote(num_cpus=0)(gate_class).remote()
    holds = []

    def hold(node: str) -> None:
        strategy = NodeAffinitySchedulingStrategy(node, soft=False)
        holds.append(ray.remote(hold_cpu).options(scheduling_strategy=strategy).remote(gate, node))
        ray.get(gate.wait.remote(f"held {node}"), timeout=300)

    plan = MatchPlan(Rules(), ("random", "greedy"), 2, 40)
    hold(other)
    with open_backend("ray", jobs=1) as backend:
        run = Run([plan])
        batches = run.play(backend)
        next(batches)
        assert set(backend.games_by_node) == {head}  # type: ignore[attr-defined]
        hold(head)
        ray.get(gate.open.remote(f"release {other}"))
        for _ in batches:
            pass
        ray.get(gate.open.remote(f"release {head}"))
        by_node = backend.games_by_node  # type: ignore[attr-defined]
    ray.get(holds, timeout=300)
    assert set(by_node) == {head, other} and sum(by_node.values()) == 40
    local = Run([plan])
    for _ in local.play():
        pass
    assert untimed(run) == untimed(local)


def _parent(pid: int) -> int:
    """The parent of process ``pid`` (0 once it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(stat.rpartition(")")[2].split()[1])


def _workers_playing() -> list[int]:
    """This session's processes running a batch of games now (Ray names them after the
    task; another test session's cluster is left alone)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            pid = int(entry)
            ancestor = _parent(pid)
            while ancestor > 1 and ancestor != os.getpid():
                ancestor = _parent(ancestor)
            if cmdline.startswith(b"ray::_play_batch") and ancestor == os.getpid():
                found.append(pid)
    return found


def test_a_killed_worker_loses_and_doubles_no_game(cluster: str, tmp_path: Path) -> None:
    plan = MatchPlan(Rules(), ("mcts:limit=30,samples=1", "greedy"), 6, 30)
    log = tmp_path / "run.jsonl"
    killed: list[int] = []
    run = Run([plan], log=log)

    def kill_one() -> None:
        deadline = time.monotonic() + 120
        while not killed and time.monotonic() < deadline:
            if log.exists() and log.read_bytes().count(b"\n") >= 2:
                for pid in _workers_playing():
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                    break
            time.sleep(0.01)

    killer = threading.Thread(target=kill_one)
    killer.start()
    with open_backend("ray", jobs=1) as backend:
        for _ in run.play(backend):
            pass
    killer.join()
    assert killed, "no worker was found playing, so none was killed"
    logged = [e.game for e in read_log(log).entries]
    assert sorted(logged) == list(range(30))  # each game once
    serial = Run([plan])
    for _ in serial.play():
        pass
    assert untimed(run) == untimed(serial)


def test_an_interrupted_ray_run_resumes_to_the_uninterrupted_one(
    cluster: str, tmp_path: Path
) -> None:
    # 120 games: enough that the run is still going when the signal lands, however fast
    # the engine (with 40, a loaded machine once saw every game finish first).
    base = ["match", "mcts:limit=20,samples=1", "greedy", "-n", "120", "--seed", "8", "--quiet"]
    log = tmp_path / "run.jsonl"
    proc = subprocess.Popen(
        [*DURAK, *base, "--backend", "ray", "--address", cluster, "--log", str(log)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while (not log.exists() or log.read_bytes().count(b"\n") < 3) and time.monotonic() < deadline:
        time.sleep(0.05)  # polling for the first games; the outcome does not depend on it
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "--resume" in err and "Traceback" not in err
    kept = len(read_log(log).entries)
    assert 3 <= kept < 120
    resumed = invoke(*base, "--backend", "ray", "--log", str(log), "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert f"{kept} of 120 games already in" in resumed.stderr
    whole = tmp_path / "whole.jsonl"
    assert invoke(*base, "--jobs", "1", "--log", str(whole)).exit_code == 0
    assert games(log) == games(whole)


def test_a_forfeit_on_ray_is_recorded_as_on_the_local_backend(cluster: str, tmp_path: Path) -> None:
    faulty = [f"faulty:fault={f},after=4" for f in ("timeout", "error", "illegal")]
    # A limit far above an honest decision (smart: about a millisecond), so only the
    # faulty agent times out, however busy the machine (0.3 s was once overrun under load).
    base = ["tournament", *faulty, "smart", "-n", "2", "--seed", "3", "--move-timeout", "1.5"]
    one = invoke(*base, "--jobs", "1", "--log", str(tmp_path / "one.jsonl"))
    on_ray = invoke(*base, "--backend", "ray", "--log", str(tmp_path / "ray.jsonl"))
    assert one.exit_code == 0 and on_ray.exit_code == 0, one.output + on_ray.output
    logged = games(tmp_path / "ray.jsonl")
    assert logged == games(tmp_path / "one.jsonl")
    faults = {g[5].fault for g in logged if g[5] is not None}
    assert faults == {"timeout", "error", "illegal"}


def test_ray_workers_import_the_agent_module(cluster: str, tmp_path: Path) -> None:
    (tmp_path / "ray_own_agent.py").write_text(
        "from durak.agents import register\n\n\n"
        "class Last:\n"
        "    name = 'ray-own'\n\n"
        "    def act(self, observation, rng):\n"
        "        return observation.legal_actions[-1]\n\n\n"
        "register('ray-own', Last, 'plays its last legal action')\n",
        encoding="utf-8",
    )
    base = [
        "match",
        "ray-own",
        "random",
        "-n",
        "4",
        "--seed",
        "2",
        "--agent-module",
        "ray_own_agent",
    ]
    runs = [
        subprocess.run(
            [*DURAK, *base, *where],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        for where in (["--jobs", "1"], ["--backend", "ray", "--address", cluster])
    ]
    for result in runs:
        assert result.returncode == 0, result.stderr
    local, on_ray = (results_of(r.stdout) for r in runs)
    assert on_ray == local and any("ray-own" in line for line in local)


def results_of(stdout: str) -> list[str]:
    """The results table of a match's output, without its machine-dependent columns."""
    rows = [line.split("│") for line in stdout.splitlines() if line.startswith("│")]
    return ["│".join(cells[:-3]) for cells in rows]


def test_an_agent_error_without_a_referee_is_raised_as_it_was(cluster: str) -> None:
    plan = MatchPlan(Rules(), ("faulty:fault=error", "greedy"), 1, 4)
    with open_backend("ray", jobs=1) as backend, pytest.raises(RuntimeError, match="faulty"):
        for _ in Run([plan]).play(backend):
            pass
    refereed = MatchPlan(Rules(), ("faulty:fault=illegal", "greedy"), 1, 4, referee=Referee())
    with open_backend("ray", jobs=1) as backend:
        run = Run([refereed])
        for _ in run.play(backend):
            pass
    assert {o.forfeit.fault for o in run.results()[0].outcomes if o.forfeit} == {"illegal"}


@pytest.mark.parametrize(
    ("address", "words"),
    [
        ("127.0.0.1:1", ["--address 127.0.0.1:1", "no Ray cluster answers there"]),
        ("nowhere", ["--address 'nowhere'", "expected HOST:PORT"]),
        ("host:99999", ["expected HOST:PORT"]),
    ],
)
def test_a_bad_address_is_one_line(tmp_path: Path, address: str, words: list[str]) -> None:
    require_extra("ray")
    log = tmp_path / "run.jsonl"
    args = ["match", "random", "greedy", "-n", "2", "--log", str(log)]
    one_error(invoke(*args, "--backend", "ray", "--address", address), *words)
    assert log.read_bytes() == b"" if log.exists() else True


def test_ray_missing_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails, as when not installed
    result = invoke("match", "random", "greedy", "-n", "2", "--backend", "ray")
    one_error(result, "needs Ray", "pip install 'durak-lab[ray]'")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--backend", "foo"], ["--backend", "foo"]),
        (["--address", "127.0.0.1:6379"], ["--address is for --backend ray"]),
        (["--backend", "ray", "--address", "h:1", "-j", "2"], ["--jobs", "cluster"]),
    ],
)
def test_bad_backend_options_are_one_line(args: list[str], words: list[str]) -> None:
    one_error(invoke("match", "random", "greedy", "-n", "2", *args), *words)


def test_open_backend_refuses_what_it_does_not_know() -> None:
    with pytest.raises(BackendError, match="unknown backend 'foo'; choose one of: local, ray"):
        open_backend("foo", jobs=1)
    with pytest.raises(BackendError, match="--address is for --backend ray"):
        open_backend("local", jobs=1, address="h:1")


def test_batches_grow_to_the_target_time_and_shrink_at_the_end() -> None:
    sizes = BatchSizer(count=10_000, workers=2)
    assert [sizes.next_size() for _ in range(4)] == [1, 1, 1, 1]  # nothing measured yet
    sizes.record(games=4, seconds=4 * 0.001)  # a millisecond per game
    assert sizes.next_size() == min(MAX_BATCH, round(TASK_SECONDS / 0.001))
    slow = BatchSizer(count=100, workers=2)
    slow.record(games=1, seconds=10.0)
    assert slow.next_size() == 1  # a game longer than a task's time: one at a time
    tail = BatchSizer(count=40, workers=2)
    tail.record(games=100, seconds=0.1)
    shares = []
    while tail.submitted < tail.count:
        shares.append(tail.next_size())
    assert sum(shares) == 40 and shares[0] == 10 and shares[-1] == 1  # an even share of the rest


def test_dmc_actors_on_ray_train_the_network_of_local_actors(cluster: str) -> None:
    require_extra("torch")
    from durak.arena.runs.pool import LocalPool  # noqa: PLC0415
    from durak.learn.dmc.learner import DmcTrainer  # noqa: PLC0415
    from durak.learn.dmc.settings import DmcSettings  # noqa: PLC0415

    settings = DmcSettings(round=8, chunk=4, hidden=16, layers=2, batch=64)
    rules = Rules(lowest_rank=10)
    on_ray = DmcTrainer(rules, ["self", "lowest"], 9, settings)
    local = DmcTrainer(rules, ["self", "lowest"], 9, settings)
    with open_backend("ray", jobs=1) as backend, LocalPool(2) as pool:
        for _ in range(3):
            on_ray.round(backend)
            local.round(pool)
    ray_weights, local_weights = on_ray.weights(), local.weights()
    assert ray_weights.keys() == local_weights.keys()
    assert all((ray_weights[k] == local_weights[k]).all() for k in ray_weights)


def test_a_task_error_on_ray_is_raised_by_the_waiting_function(cluster: str) -> None:
    with open_backend("ray", jobs=1) as backend:
        wait = backend.start(json.loads, ["1", "x", "3"])
        with pytest.raises(json.JSONDecodeError, match="Expecting value"):
            wait()
        assert backend.start(json.loads, ["4", "[5]"])() == [4, [5]]


def _durak(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``durak ARGS`` in a subprocess; the timeout only guards against a hang."""
    return subprocess.run(
        [*DURAK, *args], capture_output=True, text=True, timeout=300, env=env, check=False
    )


def _one_line(done: subprocess.CompletedProcess[str], *words: str) -> None:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ") and all(w in lines[0] for w in words), lines[0]


class _Silent(threading.Thread):
    """A listener on a free loopback port that accepts and never answers."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.held: list[socket.socket] = []

    def run(self) -> None:
        with contextlib.suppress(OSError):  # closed at the end of the test
            while True:
                self.held.append(self.server.accept()[0])


def test_an_address_where_a_server_that_is_not_ray_listens_is_one_line() -> None:
    require_extra("ray")
    http = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    silent = _Silent()
    threading.Thread(target=http.serve_forever, daemon=True).start()
    silent.start()
    try:
        args = ["match", "random", "greedy", "-n", "2", "--backend", "ray", "--address"]
        address = f"127.0.0.1:{http.server_address[1]}"
        _one_line(_durak(*args, address), f"--address {address}", "not Ray")
        address = f"127.0.0.1:{silent.port}"
        _one_line(_durak(*args, address), f"--address {address}", "did not answer within 5 s")
        with pytest.raises(BackendError, match="did not answer"):
            open_backend("ray", jobs=1, address=address)
    finally:
        http.shutdown()
        http.server_close()
        silent.server.close()
        for held in silent.held:
            held.close()


def test_a_local_instance_starts_while_another_ray_runs_on_the_machine() -> None:
    require_extra("ray")
    # Ray finds a running instance through a file under $RAY_TMPDIR: a directory of this
    # test's own keeps it from every other Ray on the machine (short: Ray's socket paths
    # must fit in 107 characters).
    home = Path(tempfile.mkdtemp(prefix="durak-ray-", dir="/tmp"))
    env = {**os.environ, "RAY_TMPDIR": str(home)}
    env.pop("RAY_ADDRESS", None)
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    head = [str(Path(sys.executable).parent / "ray"), "start", "--head", f"--port={port}"]
    head += ["--num-cpus=1", "--include-dashboard=false", "--disable-usage-stats", "--block"]
    other = subprocess.Popen(head, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        marker = home / "ray" / "ray_current_cluster"
        deadline = time.monotonic() + 240
        while not marker.exists() and other.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)  # waiting for the other instance; the outcome does not depend on it
        assert marker.exists(), "ray start --head did not come up"
        done = _durak("match", "random", "greedy", "-n", "2", "--backend", "ray", env=env)
        assert done.returncode == 0, done.stderr
        assert "runs on: local Ray" in done.stdout
    finally:
        other.terminate()  # `ray start --block` stops the processes it started
        other.communicate(timeout=120)
        shutil.rmtree(home, ignore_errors=True)
