"""The tests' servers forked from the template behave as processes of their own, as ``elferraus serve`` started anew."""

from __future__ import annotations

import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.support.forked_server import SERVE, ForkedServer, launch
from tests.support.web_helpers import ServerProcess


@pytest.mark.timeout(60)
def test_a_forked_server_serves_in_a_process_of_its_own_and_reports_how_it_ended(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "games.sqlite3")
    server.start()
    process = server.process
    assert isinstance(process, ForkedServer)
    with urllib.request.urlopen(f"{server.base}/healthz", timeout=5) as answer:
        assert answer.read() == b"ok"
    assert process.poll() is None
    with pytest.raises(subprocess.TimeoutExpired):
        process.wait(0.1)
    server.kill()  # kill -9, then waits: the exit is known as a Popen's would be
    assert process.returncode == -signal.SIGKILL
    assert process.poll() == -signal.SIGKILL

    server.start()  # on the same database and port, after the kill
    assert server.process is not process
    assert isinstance(server.process, ForkedServer)
    assert server.process.pid != process.pid
    server.stop()


@pytest.mark.timeout(60)
def test_a_server_that_cannot_start_exits_with_its_message_in_the_log(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    process = launch([sys.executable, *SERVE, "serve", "--port", "not-a-port"], stderr=log)
    assert isinstance(process, ForkedServer)
    assert process.wait(30) == 2  # argparse's usage error, as from a new interpreter
    assert "invalid int value" in log.read_text()


@pytest.mark.timeout(60)
def test_another_environment_or_a_wrapper_gets_a_new_interpreter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrong = [sys.executable, *SERVE, "serve", "--port", "not-a-port"]
    process = launch(wrong, stderr=tmp_path / "a.log", prefix=["prlimit", "--nofile=1024"])
    assert isinstance(process, subprocess.Popen)
    assert process.wait(30) == 2
    monkeypatch.setenv("ELFERRAUS_PURE", "1")  # read when the engine is imported: the template's would not do
    process = launch(wrong, stderr=tmp_path / "b.log")
    assert isinstance(process, subprocess.Popen)
    assert process.wait(30) == 2
