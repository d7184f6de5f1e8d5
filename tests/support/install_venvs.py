"""Fresh virtual environments holding the wheel of durak-lab with one extra (or none), for
``tests/project/test_install_extras.py``: built once, cached, and shared by suites side by side.

* **What a venv holds.**  ``pip install 'WHEEL[EXTRA]'`` into an empty venv, with the pins
  of the Makefile (``TORCH``, ``RAY``: a loose ``torch`` would pull a CUDA build of several
  GB), so that it holds exactly what a user's install of that extra holds.
* **Cache.**  ``$DURAK_EXTRAS_CACHE``, by default ``durak-lab/extras-venvs`` in the user's
  cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``, beside pip's), so that a fresh clone
  (CI) finds the venvs of the last run; :func:`prune` removes those unused for
  :data:`KEEP_DAYS` days.  A venv is named by a hash of its requirement set: the extra's
  and the base ``Requires-Dist`` lines of the wheel's metadata, the pins and the Python
  version.  It is built again when ``pyproject.toml`` changes what the extra installs; two
  extras that install the same (``dqn``, ``dmc``) share one.  Only the wheel is replaced (without
  its dependencies) when the code changes: the venv records the wheel's hash.
* **Locks.**  Each venv has a lock file (``fcntl.flock``): building it or replacing the
  wheel holds it exclusively, running a command in it holds it shared, with the wheel's
  hash checked under that lock.  Two suites side by side wait for each other's build and
  never run a command while the other replaces the wheel.
"""

from __future__ import annotations

import email.parser
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: Seconds allowed to build a venv (PyTorch is large) and to run one command.
BUILD_SECONDS = 1800
RUN_SECONDS = 600


#: Days a venv is kept unused.
KEEP_DAYS = 14


def cache_dir() -> Path:
    """Where the venvs are kept: ``$DURAK_EXTRAS_CACHE``, else the user's cache folder's
    ``durak-lab/extras-venvs``."""
    if given := os.environ.get("DURAK_EXTRAS_CACHE"):
        return Path(given)
    user = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(user) / "durak-lab" / "extras-venvs"


def prune(cache: Path, now: float, keep_days: float = KEEP_DAYS) -> list[Path]:
    """Remove the venvs of ``cache`` unused for ``keep_days`` before ``now`` (their
    ``complete`` marker, touched at each use, or an unfinished build's folder), skipping
    any in use; the removed ones."""
    removed = []
    for lock in sorted(cache.glob("venv-*.lock")):
        venv = lock.with_suffix("")
        with lock.open("a") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # built or used by another suite right now
            marker = venv / "complete"
            used = marker if marker.exists() else venv
            if not used.exists() or now - used.stat().st_mtime > keep_days * 86400:
                shutil.rmtree(venv, ignore_errors=True)
                lock.unlink()
                removed.append(venv)
    return removed


def pins(makefile: Path = ROOT / "Makefile") -> list[str]:
    """The versions the Makefile pins, as requirements: ``torch==X``, ``ray==Y``."""
    text = makefile.read_text(encoding="utf-8")
    found = []
    for name in ("torch", "ray"):
        match = re.search(rf"^{name.upper()}\s*:=\s*(\S+)\s*$", text, re.MULTILINE)
        assert match, f"the Makefile pins no {name.upper()}"
        found.append(f"{name}=={match.group(1)}")
    return found


def build_wheel(out: Path) -> Path:
    """The wheel of the work tree, built into ``out``."""
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)]
    subprocess.run(command, check=True, env=_pip_env(), timeout=BUILD_SECONDS)
    (wheel,) = out.glob("durak_lab-*.whl")
    return wheel


def requirements(wheel: Path, extra: str | None) -> list[str]:
    """The ``Requires-Dist`` lines of ``wheel`` an install with ``extra`` takes (the base
    ones too), their markers dropped, sorted."""
    with zipfile.ZipFile(wheel) as z:
        (name,) = (n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = email.parser.Parser().parsestr(z.read(name).decode("utf-8"))
    found = []
    for line in metadata.get_all("Requires-Dist") or []:
        requirement, _, marker = line.partition(";")
        wanted = re.fullmatch(r"\s*extra\s*==\s*['\"]([\w.-]+)['\"]\s*", marker)
        if not marker or (wanted and wanted.group(1) == extra):
            found.append(requirement.strip())
        elif not wanted:
            raise AssertionError(f"{wheel.name}: a marker this helper cannot read: {line}")
    return sorted(found)


def digest(path: Path) -> str:
    """The sha256 of the file at ``path``."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


@contextmanager
def locked(path: Path, exclusive: bool) -> Iterator[None]:
    """Hold ``path``'s ``flock``: exclusive or shared."""
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _pip_env() -> dict[str, str]:
    # The suite's PYTHONPATH (the work tree's src/) must not reach another interpreter.
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}


class Venv:
    """A cached venv with the wheel and one extra; :meth:`run` runs a command in it."""

    def __init__(self, wheel: Path, extra: str | None, cache: Path) -> None:
        self.wheel, self.extra, self.sha = wheel, extra, digest(wheel)
        self.requirements = requirements(wheel, extra)
        identity = [self.requirements, pins(), list(sys.version_info[:3]), sys.platform]
        key = hashlib.sha256(json.dumps(identity).encode()).hexdigest()[:16]
        cache.mkdir(parents=True, exist_ok=True)
        self.path = cache / f"venv-{key}"
        self.lock = cache / f"venv-{key}.lock"
        self.python = self.path / "bin" / "python"
        with locked(self.lock, exclusive=True):
            if not (self.path / "complete").exists():
                self._build()
            (self.path / "complete").touch()  # used now: kept by prune

    def _pip(self, *args: str) -> None:
        command = [sys.executable, "-m", "pip", "--python", str(self.python), "install", "-q"]
        subprocess.run([*command, *args], check=True, env=_pip_env(), timeout=BUILD_SECONDS)

    def _build(self) -> None:
        """Under the exclusive lock: an empty venv, then the wheel with the extra."""
        shutil.rmtree(self.path, ignore_errors=True)
        subprocess.run(
            [sys.executable, "-m", "venv", "--without-pip", str(self.path)],
            check=True,
            env=_pip_env(),
            timeout=BUILD_SECONDS,
        )
        constraints = self.path / "constraints.txt"
        constraints.write_text("\n".join(pins()) + "\n", encoding="utf-8")
        target = f"{self.wheel}[{self.extra}]" if self.extra else str(self.wheel)
        self._pip("-c", str(constraints), target)
        (self.path / "durak-wheel.sha256").write_text(self.sha, encoding="utf-8")
        (self.path / "complete").touch()

    def _current(self) -> bool:
        return (self.path / "durak-wheel.sha256").read_text(encoding="utf-8") == self.sha

    @contextmanager
    def _in_use(self) -> Iterator[None]:
        """Hold the shared lock, with this session's wheel installed (replaced first, under
        the exclusive lock, if the venv holds another build)."""
        while True:
            with locked(self.lock, exclusive=False):
                if self._current():
                    yield
                    return
            with locked(self.lock, exclusive=True):
                if not self._current():
                    self._pip("--no-deps", "--force-reinstall", str(self.wheel))
                    (self.path / "durak-wheel.sha256").write_text(self.sha, encoding="utf-8")

    def _command(self, args: tuple[str, ...], cwd: Path) -> tuple[list[str], dict[str, str]]:
        """The venv's program ``args[0]`` (``durak``, ``python``) with its arguments, and a
        clean environment: nothing of the suite's (its ``PYTHONPATH`` above all)."""
        env = {
            "PATH": os.pathsep.join([str(self.path / "bin"), "/usr/bin", "/bin"]),
            "HOME": os.environ.get("HOME", str(cwd)),
            "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
            "PYTHONNOUSERSITE": "1",
            "LANG": "C.UTF-8",
            "COLUMNS": "200",
        }
        return [str(self.path / "bin" / args[0]), *args[1:]], env

    def run(
        self, *args: str, cwd: Path, timeout: float = RUN_SECONDS
    ) -> subprocess.CompletedProcess[str]:
        """Run ``args`` (``durak ...``, ``python ...``: the venv's) in ``cwd``, to the end."""
        command, env = self._command(args, cwd)
        with self._in_use():
            return subprocess.run(
                command,
                cwd=cwd,
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )

    @contextmanager
    def started(self, *args: str, cwd: Path) -> Iterator[subprocess.Popen[str]]:
        """``args`` started in ``cwd`` (standard error piped), killed on leaving."""
        command, env = self._command(args, cwd)
        with self._in_use():
            process = subprocess.Popen(
                command,
                cwd=cwd,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            try:
                yield process
            finally:
                process.kill()
                process.communicate(timeout=RUN_SECONDS)
