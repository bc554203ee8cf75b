"""The package as a user installs it: a wheel built from this checkout, installed into a fresh virtual environment.

The wheel is built from a copy of the checkout's files (those git tracks, and
new ones it does not ignore), so nothing is written into the checkout. The
fresh environment gets the wheel and the runtime dependencies only, each
pinned by hash to the versions of ``requirements/dev.lock`` (so pip installs
nothing the lock does not name, and its cache makes this quick after the first
time); then the installed ``elferraus`` command plays, simulates and checks
games, and the package data is where the code looks for it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
import zipfile
from email.parser import Parser
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from elferraus import Game

ROOT = Path(__file__).resolve().parents[1]
LOCKS = (ROOT / "requirements" / "dev.lock", ROOT / "requirements" / "older-pythons.lock")
"""The lock and what some Pythons need beside it (the Makefile installs both)."""
PACKAGE = ROOT / "src" / "elferraus"
MODELS = ("bots/models", "envs/models")
"""The folders of the networks the package ships: ``master``'s, and the learned player's."""
JUNK = re.compile(
    r"(^|/)(tests?|\.venv[^/]*|\.git|build|dist|benchmarks|examples|docs|__pycache__)/|\.pyc$|\.o$|\.egg-info"
)
"""Paths that have no place in the wheel: tests, environments, build output, caches."""


def environment() -> dict[str, str]:
    """The environment for the installed command: nothing of this checkout's own environment leaks in."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.pop("ELFERRAUS_PURE", None)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_INPUT"] = "1"
    return env


def run(command: list[str], what: str, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run ``command``; fail the test with its output if it does not succeed."""
    try:
        done = subprocess.run(
            command, cwd=cwd, env=environment(), capture_output=True, text=True, timeout=timeout, check=False
        )
    except OSError as error:
        pytest.fail(f"{what} failed: cannot run {command[0]}: {error}", pytrace=False)
    if done.returncode != 0:
        pytest.fail(
            f"{what} failed (exit {done.returncode}): {' '.join(command)}\n"
            f"--- stdout ---\n{done.stdout[-4000:]}\n--- stderr ---\n{done.stderr[-4000:]}",
            pytrace=False,
        )
    return done


def checkout_files() -> list[str]:
    """The checkout's files as git sees them: tracked, or new and not ignored (build output and .venv are ignored)."""
    listed = run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        "listing the checkout's files with git",
        ROOT,
        timeout=60,
    )
    return [name for name in listed.stdout.split("\0") if name and (ROOT / name).is_file()]


def build_wheel(tmp_path: Path) -> Path:
    """Copy the checkout's files to ``tmp_path/source`` and build the wheel there, as ``pip wheel`` does for a user."""
    started = time.perf_counter()
    source, dist = tmp_path / "source", tmp_path / "dist"
    for name in checkout_files():
        target = source / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)
    # --no-build-isolation: the build runs on this environment's setuptools, pinned in the lock, without an index.
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--wheel-dir", str(dist)]
    run([*command, str(source)], "building the wheel from the checkout", tmp_path)
    wheels = list(dist.glob("elferraus-*.whl"))
    assert len(wheels) == 1, f"expected one elferraus wheel in {dist}, found {wheels}"
    print(f"\ninstall test: wheel built in {time.perf_counter() - started:.1f} s ({wheels[0].stat().st_size:,} B)")
    return wheels[0]


def runtime_closure(wheel: Path) -> set[str]:
    """The wheel's runtime dependencies (no extras) and theirs, as installed here at the lock's versions."""
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [item for item in archive.namelist() if item.endswith(".dist-info/METADATA")]
        info = Parser().parsestr(archive.read(name).decode())
    # A requirement's extras (textual wants markdown-it-py[linkify]) bring the dependencies those extras name.
    wanted = [(Requirement(text), "") for text in info.get_all("Requires-Dist") or []]
    found: set[str] = set()
    followed: set[tuple[str, str]] = set()
    while wanted:
        requirement, extra = wanted.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": extra}):
            continue
        key = canonicalize_name(requirement.name)
        found.add(key)
        for wanted_extra in ("", *requirement.extras):
            if (key, wanted_extra) not in followed:
                followed.add((key, wanted_extra))
                wanted.extend((Requirement(text), wanted_extra) for text in metadata.requires(requirement.name) or [])
    return found


def lock_entries() -> dict[str, str]:
    """Each package of the lock files: its pin with every hash (and marker), as the lock writes it."""
    entries: dict[str, str] = {}
    for lock in LOCKS:
        for block in re.split(r"\n(?=[A-Za-z0-9])", lock.read_text(encoding="utf-8")):
            lines = [line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]
            if lines and "==" in lines[0]:
                entries[canonicalize_name(lines[0].split("==")[0].strip())] = "\n".join(lines)
    return entries


def runtime_requirements(wheel: Path, path: Path) -> list[str]:
    """Write the runtime subset of the lock, and the wheel by its hash, to ``path``; the packages it names."""
    needed = runtime_closure(wheel)
    entries = lock_entries()
    missing = sorted(needed - set(entries))
    assert not missing, f"runtime dependencies missing from {' and '.join(lock.name for lock in LOCKS)}: {missing}"
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    pins = [entries[name] for name in sorted(needed)]
    path.write_text("\n".join([*pins, f"elferraus @ {wheel.as_uri()} --hash=sha256:{digest}"]) + "\n", encoding="utf-8")
    return sorted(needed)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this checkout, built once for the tests here."""
    return build_wheel(tmp_path_factory.mktemp("wheel"))


def static_files() -> list[str]:
    """The page's files in the checkout, relative to its folder."""
    prefix = "src/elferraus/server/static/"
    return sorted(name.removeprefix(prefix) for name in checkout_files() if name.startswith(prefix))


def test_the_wheel_holds_the_package_and_nothing_else(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    dist_info = next(name.split("/")[0] for name in names if name.endswith(".dist-info/METADATA"))
    outside = [name for name in names if not name.startswith(("elferraus/", f"{dist_info}/"))]
    assert not outside, f"files outside the package in the wheel: {outside}"
    junk = [name for name in names if JUNK.search(name)]
    assert not junk, f"tests, environments or build output in the wheel: {junk}"
    # Every file of the package in the checkout is in the wheel (the C sources may be; the compiled core must be).
    shipped = {
        name.removeprefix("src/")
        for name in checkout_files()
        if name.startswith("src/elferraus/") and not name.endswith(".c")
    }
    assert shipped - set(names) == set(), "files of the package missing from the wheel"
    assert any(re.fullmatch(r"elferraus/_core\.[^/]*(\.so|\.pyd)", name) for name in names), "no compiled core"
    for expected in ("elferraus/messages.toml", "elferraus/py.typed"):
        assert expected in names
    static = sorted(name.removeprefix("elferraus/server/static/") for name in names if "/server/static/" in name)
    assert static == static_files()
    assert "index.html" in static
    for models in MODELS:
        assert [name for name in names if name.startswith(f"elferraus/{models}/")] == [
            f"elferraus/{models}/{path.name}" for path in sorted((PACKAGE / models).glob("*.npz"))
        ]
    assert "elferraus/bots/models/league.npz" in names, "the league network"


def test_the_installed_command_works_in_a_fresh_environment(wheel: Path, tmp_path: Path) -> None:
    started = time.perf_counter()
    requirements = tmp_path / "runtime.txt"
    packages = runtime_requirements(wheel, requirements)
    assert {"textual", "starlette", "platformdirs", "numpy"} <= set(packages), "numpy: master plays its network"
    assert not {"pytest", "mypy", "open-spiel"} & set(packages), "development or research packages"
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)], "creating a fresh virtual environment", tmp_path)
    python = venv / "bin" / "python"
    # --no-compile: the installed code is compiled as it is imported; compiling every file of every dependency
    # ahead of time (pip's default) would be most of this test's time.
    command = [
        *[sys.executable, "-m", "pip", "--python", str(python), "install"],
        *["--require-hashes", "--no-input", "--no-compile"],
    ]
    run([*command, "-r", str(requirements)], "installing the wheel with its runtime dependencies", tmp_path)
    run([sys.executable, "-m", "pip", "--python", str(python), "check"], "pip check in the fresh environment", tmp_path)
    installed = time.perf_counter()
    elferraus = str(venv / "bin" / "elferraus")
    work = tmp_path / "work"
    work.mkdir()

    help_text = run([elferraus, "--help"], "elferraus --help", work).stdout
    for command_name in ("play", "simulate", "check", "replay", "arena", "serve", "backup", "bot"):
        assert command_name in help_text
    assert run([elferraus, "--version"], "elferraus --version", work).stdout.strip() == "elferraus 0.1.0"

    games = work / "games.jsonl"
    simulate = [
        elferraus,
        "simulate",
        "--games",
        "6",
        "--seed",
        "1",
        "--bots",
        "medium,greedy,random",
        "--players",
        "3",
    ]
    run([*simulate, "--out", str(games)], "elferraus simulate", work)
    assert len(games.read_text(encoding="utf-8").splitlines()) == 6
    checked = run([elferraus, "check", str(games)], "elferraus check", work)
    assert checked.stdout.strip() == "6 records: 6 legal, 0 bad"

    plain = subprocess.run(
        [elferraus, "play", "--plain", "--players", "2", "--bots", "greedy", "--seed", "3", "--lang", "de"],
        input="m\nq\nj\n",
        cwd=work,
        env={**environment(), "HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data")},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert plain.returncode == 0, plain.stderr
    assert "Du darfst: " in plain.stdout
    assert plain.stdout.rstrip().endswith("Tschüss!")

    # The package data, read where the installed code reads it, and the compiled core in use.
    probe = textwrap.dedent(
        """
        import json
        from importlib.resources import files
        import elferraus, elferraus.core
        from elferraus import _core, Game
        from elferraus.bots import make_bot
        from elferraus.i18n import tr

        def walk(folder, prefix=""):
            for item in folder.iterdir():
                if item.is_dir():
                    yield from walk(item, prefix + item.name + "/")
                else:
                    yield prefix + item.name

        package = files("elferraus")
        game = Game.deal(4, 2)
        print(json.dumps({
            "package": elferraus.__file__,
            "core": _core.__file__,
            "backend": elferraus.core.BACKEND,
            "static": sorted(walk(package / "server" / "static")),
            "models": {
                models: sorted(item.name for item in (package / models).iterdir())
                for models in ("bots/models", "envs/models")
            },
            "messages": tr("app_title", "de"),
            "master": str(make_bot("master", 1).choose(game.view(game.turn))),
        }))
        """
    )
    found = json.loads(run([str(python), "-c", probe], "reading the installed package data", work).stdout)
    site = venv / "lib"
    assert Path(found["package"]).is_relative_to(site), found["package"]
    assert Path(found["core"]).is_relative_to(site), found["core"]
    assert found["backend"] == "c"
    assert found["static"] == static_files()
    assert found["models"] == {
        models: sorted(path.name for path in (PACKAGE / models).glob("*.npz")) for models in MODELS
    }
    dealt = Game.deal(4, 2)  # master read its network where the installed code looks for it, and chose
    assert found["master"] in [str(move) for move in dealt.legal_moves()]
    assert found["messages"] == "Elfer raus!"
    assert sorted(path.name for path in work.iterdir()) == ["games.jsonl"]
    print(
        f"\ninstall test: installed ({len(packages)} runtime packages) in {installed - started:.1f} s, "
        f"commands run in {time.perf_counter() - installed:.1f} s"
    )
