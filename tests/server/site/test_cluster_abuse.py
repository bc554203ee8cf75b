"""The single server's privacy and abuse tests, run against three processes behind nginx.

Each client reaches the site through nginx, which spreads the connections of one room over the processes,
so a room's players and spectators sit on different ones: whichever process tells a client of a move, the
client sees only what its seat may see; whichever process a hostile frame reaches, it is refused, answered
and changes nothing. The checks are those of ``tests/server/rooms/test_privacy.py`` and ``test_fuzz_ws.py``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given

from tests.server.rooms import test_fuzz_ws as fuzz_ws
from tests.server.rooms import test_privacy as privacy
from tests.support.cluster_helpers import Cluster, cluster
from tests.support.fuzz_helpers import (
    THREADS_USE_RANDOM,
    VOLUME,
    Burst,
    FirstFrame,
    LoopThread,
    Send,
    Tally,
    every_wrong_type,
    fuzz_settings,
    log_problems,
)

FUZZ_SHARE = 4
"""The cluster's fuzzing sends a quarter of the single server's frames (the generator is the same; what is new
here is the way through nginx and the processes)."""


@pytest.fixture(scope="module")
def site() -> Iterator[Cluster]:
    with cluster(3) as running:
        yield running


def spread(running: Cluster, code: str, at_least: int) -> set[str]:
    """The processes that served the WebSockets of room ``code``, from nginx's log, which has a line for a
    WebSocket once it is closed (waiting a moment for ``at_least`` of them)."""
    deadline = time.monotonic() + 15  # nginx writes the line when it gets to it; a busy machine makes it wait
    while len(served := set(running.nginx.served(f"/ws/{code}"))) < at_least and time.monotonic() < deadline:
        time.sleep(0.05)
    return served


def assert_quiet(running: Cluster) -> None:
    problems = [problem for process in running.processes for problem in log_problems(process.log())]
    assert not problems, running.logs()


PRIVACY_TABLES = [
    pytest.param(
        {
            "people": 3,
            "langs": ["en", "de", "en"],
            "settings": {
                "players": 4,
                "rules": "ravensburger",
                "seats": [{"kind": "open"}, {"kind": "open"}, {"kind": "computer", "level": "easy"}],
            },
        },
        id="three-people-one-computer",
    ),
    pytest.param(
        {
            "people": 2,
            "langs": ["de", "en"],
            "settings": {
                "players": 3,
                "rules": "beginners",
                "rounds": 2,
                "seats": [{"kind": "open"}, {"kind": "computer", "level": "medium"}],
            },
        },
        id="beginners-two-rounds",
    ),
]


@pytest.mark.timeout(180)
@pytest.mark.parametrize("table", PRIVACY_TABLES)
def test_no_frame_from_any_process_shows_a_card_hidden_from_its_reader(site: Cluster, table: dict[str, Any]) -> None:
    async def main() -> dict[str, Any]:
        return await privacy.play_and_check(
            site.url, table["people"], table["langs"], spectator=True, name="Anna", **table["settings"]
        )

    seen = asyncio.run(main())
    assert sum(bad.refused for bad in seen["mischief"]) > 0  # illegal moves were answered, by words that leak nothing
    code = seen["clients"][0].url.rsplit("/", 1)[-1]
    processes = spread(site, code, 2)
    assert len(processes) >= 2, f"the room's clients all sat on one process: {processes}"
    assert_quiet(site)


@THREADS_USE_RANDOM
@pytest.mark.timeout(VOLUME.timeout)
def test_fuzzed_frames_through_nginx_are_refused_answered_and_change_nothing(
    site: Cluster, record_property: Any
) -> None:
    tally = Tally()
    with LoopThread() as loop:
        harness = loop.run(fuzz_ws.Harness.open(site.url, tally), 60)

        def fuzz(examples: int) -> None:
            @fuzz_settings(examples)
            @given(batch=fuzz_ws.batches)
            def run(batch: tuple[list[Send], list[FirstFrame], Burst]) -> None:
                loop.run(harness.submit(batch))

            run()

        try:
            each = every_wrong_type()
            hellos = [FirstFrame(frame) for frame in each if frame.value.get("type") != "move"]
            sends = [Send(frame, role) for frame in each for role in ("mover", "other", "watcher")]
            loop.run(harness.submit((sends, hellos, Burst(fuzz_ws.BURST + 10))))
            examples = VOLUME.ws_frames // (VOLUME.ws_batch + fuzz_ws.FIRST_FRAMES) // FUZZ_SHARE
            for start_at in range(0, examples, fuzz_ws.CHUNK):
                fuzz(min(fuzz_ws.CHUNK, examples - start_at))
        finally:
            matches = loop.run(harness.finish(), 600)
    for process in site.processes:
        for problem in log_problems(process.log()):
            tally.find(f"a traceback in the log of {process.name}", problem)
    tally.add("matches_elsewhere", matches)
    tally.publish(record_property)
    print(tally.report())
    if matches < 1:
        tally.find("the game in the other room never ended", f"{matches} matches")
    processes = spread(site, harness.room.code, 3)
    assert len(processes) == 3, f"the fuzzing connections did not reach every process: {processes}"
    assert not tally.findings, tally.report()
