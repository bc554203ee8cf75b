"""Three server processes on one PostgreSQL and one Redis, behind nginx: one site.

Any process serves any client of any room; a move accepted by one reaches the clients of the others at once;
the computers of a room are driven by one process only; the per-address limits count across the processes.
Everything is real (``tests/support/cluster_helpers.py``): the processes are ``elferraus serve`` subprocesses, nginx
runs the deployed ``deploy/nginx/elferraus.conf``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from elferraus.record import read_record
from elferraus.server.client import RoomClient, create_room, join_room
from elferraus.server.rooms.reactions import REACTION_INTERVAL
from elferraus.server.web.api import ROOMS_PER_MINUTE
from tests.support.cluster_helpers import Cluster, cluster
from tests.support.fuzz_helpers import log_problems
from tests.support.limit_helpers import close_all, flood_reactions, rush
from tests.support.nginx_helpers import SITE, Nginx, render_site
from tests.support.postgres_helpers import PostgresServer, postgres_server, query
from tests.support.server_helpers import OVER, my_turn, play_round, send_move, start, ws_url

REACH = 15.0
"""Seconds the tests wait for news to reach the clients of the other processes before they call it lost (it
takes milliseconds; how long is the benchmarks' to measure, not the tests' to assert)."""
ROOM_BURST = 20
"""Rooms one address may create at once (docs/web-protocol.md), here across all the processes."""
PER_ADDRESS = 6
"""``--max-connections-per-address`` of the cluster that tests the limits."""


@pytest.fixture(scope="module")
def logged_postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL that logs every statement that changes data, with its parameters: who stored which move."""
    with postgres_server() as server:
        query(server.url(), "ALTER SYSTEM SET log_statement = 'mod'")
        query(server.url(), "SELECT pg_reload_conf()")
        yield server


@pytest.fixture(scope="module")
def site(logged_postgres: PostgresServer) -> Iterator[Cluster]:
    """Three processes without limits that get in the way of a test's clients, all from 127.0.0.1."""
    with cluster(3, postgres=logged_postgres) as running:
        yield running


@pytest.fixture(scope="module")
def limited() -> Iterator[Cluster]:
    """Three processes with a room-creation limit (burst 20, then one a minute) and a small per-address cap."""
    with cluster(3, rooms_per_minute=1, per_address=PER_ADDRESS) as running:
        yield running


@pytest.fixture(scope="module")
def pair() -> Iterator[Cluster]:
    """Two processes with the default room-creation limit (burst 20, then 10 a minute), clients from 127.0.0.1
    (the proxy they trust)."""
    with cluster(2, rooms_per_minute=ROOMS_PER_MINUTE) as running:
        yield running


# -- the deployed nginx configuration -------------------------------------------------------------------


def test_nginx_accepts_the_deployed_configuration_rendered_for_the_tests(tmp_path: Path) -> None:
    nginx = Nginx(tmp_path, [8101, 8102, 8103], 8180)
    assert "test is successful" in nginx.test_config()
    rendered = nginx.site.read_text()
    servers = re.findall(r"^\s*server (127\.0\.0\.1:\d+) (.*);$", rendered, re.MULTILINE)
    assert [address for address, _ in servers] == ["127.0.0.1:8101", "127.0.0.1:8102", "127.0.0.1:8103"]
    assert {parameters for _, parameters in servers} == {"max_fails=0"}  # the deployed file's own parameters
    assert re.findall(r"^\s*listen (.*);$", rendered, re.MULTILINE) == ["127.0.0.1:8180"]
    # apart from those lines, what runs is what is deployed
    assert without_ports(rendered) == without_ports(SITE.read_text())


def without_ports(site: str) -> str:
    """A site file without its upstream servers and its listen line."""
    return re.sub(r"^\s*(server 127\.0\.0\.1:\d+ .*|listen .*);\n", "", site, flags=re.MULTILINE)


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        (lambda text: text.replace("upstream elferraus {", "upstream games {"), "no 'upstream elferraus"),
        (lambda text: re.sub(r"^\s*server 127.*$\n", "", text, flags=re.MULTILINE), "no 'server 127.0.0.1:PORT"),
        (lambda text: text.replace("listen 80;", "listen 8080;"), "found 0"),
        (lambda text: text.replace("listen 80;", "listen 80;\n    listen 80;"), "found 2"),
    ],
)
def test_a_deploy_file_the_tests_cannot_render_is_refused_in_words(change: Any, complaint: str) -> None:
    with pytest.raises(ValueError, match=complaint):
        render_site(change(SITE.read_text()), [8101], 8180)


# -- one site -------------------------------------------------------------------------------------------


def public(moves: list[str]) -> list[str]:
    """Record moves as every client reads them: a draw without its card."""
    return [" ".join(text.split()[:2]) for text in moves]


def assert_quiet(running: Cluster) -> None:
    """No process wrote a traceback to its log."""
    problems = [(process.name, problem) for process in running.processes for problem in log_problems(process.log())]
    assert not problems, running.logs()


async def people_online(client: RoomClient, people: int, timeout: float) -> None:
    """Wait until the client's state shows seats ``0..people-1`` taken by people and online, wherever each is
    connected; says what the client saw if it does not."""

    def online(state: dict[str, Any]) -> bool:
        return all(seat["kind"] == "person" and seat["online"] for seat in state["room"]["seats"][:people])

    try:
        await client.until(online, timeout)
    except TimeoutError:
        seats = client.state["room"]["seats"] if client.state else None
        raise AssertionError(f"{client.url}: not {people} people online after {timeout} s: {seats}") from None


def people_on_each_process(running: Cluster, code: str, tokens: list[str]) -> list[RoomClient]:
    """Seat ``n``'s client connected straight to process ``n % 3`` (not through nginx)."""
    processes = running.processes
    return [RoomClient(processes[n % len(processes)].url, code, token) for n, token in enumerate(tokens)]


@pytest.mark.timeout(120)
def test_each_persons_move_reaches_the_people_on_the_other_processes(
    site: Cluster, record_property: Callable[[str, object], None]
) -> None:
    chosen_each = 3  # moves each person chooses (the table's own moves for them come in between)

    async def main() -> list[float]:
        made = await create_room(site.url, name="Anna", players=3, rounds=1, pace=0)  # through nginx
        code = made["code"]
        tokens = [made["token"]]
        for seat in (1, 2):
            tokens.append((await join_room(site.url, code, seat, f"Person {seat + 1}"))["token"])
        clients = people_on_each_process(site, code, tokens)
        delays: list[float] = []
        movers: Counter[int] = Counter()
        async with contextlib.AsyncExitStack() as stack:
            for client in clients:
                await stack.enter_async_context(client)
            for client in clients:  # who is online is known on every process
                await people_online(client, 3, REACH)
            await start(clients[0], *clients[1:])
            loop = asyncio.get_running_loop()
            while min(movers[seat] for seat in range(3)) < chosen_each:
                mover = await chooser(clients)
                if mover is None:
                    break
                state = mover.state
                assert state is not None
                before = state["game"]["moves"]
                seqs = [client.state["seq"] for client in clients if client.state is not None]
                sent = loop.time()
                await send_move(mover, state["view"]["legal"][-1], state["seq"])
                errors = mover.errors
                count = len(before)
                acknowledged = await mover.until(
                    lambda s, n=count, errors=errors: len(s["game"]["moves"]) > n or errors
                )
                if [error["code"] for error in mover.errors] == ["stale"]:
                    # the room changed meanwhile (someone came or went): the person looks again and chooses again
                    now = mover.errors.pop()["seq"]
                    await mover.until(lambda s, now=now: s["seq"] >= now)
                    continue
                assert not mover.errors, mover.errors
                made_move = acknowledged["game"]["moves"][len(before)]
                movers[state["view"]["seat"]] += 1

                async def heard(
                    client: RoomClient, count: int = len(before), sent: float = sent, made_move: str = made_move
                ) -> float:
                    try:
                        await client.until(lambda s: len(s["game"]["moves"]) > count, REACH)
                    except TimeoutError:
                        raise AssertionError(f"{made_move!r} did not reach {client.url} in {REACH} s") from None
                    return loop.time() - sent

                others = [client for client in clients if client is not mover]
                delays += await asyncio.gather(*(heard(client) for client in others))
                for client, seq in zip(clients, seqs, strict=True):
                    assert client.state is not None
                    assert client.state["seq"] > seq, (
                        f"{client.url} was told of {made_move!r} (move {len(before)}) at the seq it had before, {seq}: "
                        f"{client.received[-3:]}"
                    )
                    assert client.state["game"]["moves"][: len(before) + 1] == [*before, made_move]
                if acknowledged["room"]["status"] in OVER:
                    break
        assert len(movers) == 3, f"seats that chose a move before the round ended: {movers}"
        return delays

    delays = asyncio.run(main())
    assert delays, "no move was made"
    record_property("slowest_reach_s", round(max(delays), 3))  # reported: a latency is not this test's to assert
    assert_quiet(site)


async def chooser(clients: list[RoomClient], timeout: float = 15) -> RoomClient | None:
    """The client whose seat chooses a move now (every client read meanwhile); None once the round is over."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        for client in clients:
            if client.state is not None and my_turn(client.state):
                return client
            if client.state is not None and client.state["room"]["status"] in OVER:
                return None
        assert asyncio.get_running_loop().time() < deadline, "nobody came to choose a move"
        for client in clients:
            with contextlib.suppress(TimeoutError):
                await client.receive(0.02)


@pytest.mark.timeout(60)
def test_processes_that_never_saw_a_room_serve_its_join_and_its_players(site: Cluster) -> None:
    first, second, third = site.processes

    async def main() -> None:
        made = await create_room(first.url, name="Anna", players=2, pace=0, rounds=1)
        code = made["code"]
        joined = await join_room(second.url, code, 1, "Ben")  # a process that has not served this room
        async with (
            RoomClient(first.url, code, made["token"]) as anna,
            RoomClient(third.url, code, joined["token"]) as ben,
        ):
            for client in (anna, ben):
                await people_online(client, 2, REACH)
                assert client.state is not None
                assert [seat["name"] for seat in client.state["room"]["seats"]] == ["Anna", "Ben"]
            assert ben.state is not None
            assert ben.state["seat"] == 1
            await start(anna, ben)
            assert ben.state is not None
            assert ben.state["view"]["hand"]
            answers = [httpx.get(f"{process.url}/api/rooms/{code}", timeout=10) for process in site.processes]
        assert [answer.status_code for answer in answers] == [200, 200, 200]
        rooms = [
            (room["status"], [(seat["name"], seat["kind"]) for seat in room["seats"]])
            for room in map(httpx.Response.json, answers)
        ]
        assert rooms == [("playing", [("Anna", "person"), ("Ben", "person")])] * 3

    asyncio.run(main())
    assert_quiet(site)


def stored_moves(log: Path, games: set[int]) -> Counter[tuple[int, int]]:
    """How often each move number of ``games`` was offered to the database (``INSERT INTO moves``), read from
    PostgreSQL's statement log."""
    offered: Counter[tuple[int, int]] = Counter()
    text = log.read_text(errors="replace")
    entry = r"\[(\d+)\] LOG:  execute [^:]+: INSERT INTO moves \(game, n, text\)[^\n]*\n"
    entry += r"[^\n]*\[\1\] DETAIL:  parameters: (.*)"  # the same backend's next line
    for match in re.finditer(entry, text):
        values = dict(re.findall(r"\$(\d+) = '([^']*)'", match.group(2)))
        game, number = int(values["1"]), int(values["2"])
        if game in games:
            offered[game, number] += 1
    return offered


@pytest.mark.timeout(120)
def test_computers_play_on_driven_by_one_process_while_the_people_sit_on_others(
    site: Cluster, logged_postgres: PostgresServer
) -> None:
    creator, *others = site.processes

    async def main() -> list[tuple[int, list[str]]]:
        seats = [{"kind": "open"}, {"kind": "computer", "level": "medium"}, {"kind": "computer", "level": "easy"}]
        made = await create_room(creator.url, name="Anna", players=4, rounds=2, pace=0, seats=seats)
        code = made["code"]
        joined = await join_room(creator.url, code, 1, "Ben")
        ends: list[tuple[int, list[str]]] = []
        # the people on the two processes that did not create the room; the creator has no client of it
        async with (
            RoomClient(others[0].url, code, made["token"]) as anna,
            RoomClient(others[1].url, code, joined["token"]) as ben,
        ):
            for client in (anna, ben):
                await people_online(client, 2, REACH)
            await start(anna, ben)
            while True:
                results = await asyncio.gather(play_round(anna, timeout=30), play_round(ben, timeout=30))
                assert results[0]["game"]["moves"] == results[1]["game"]["moves"]
                ends.append((results[0]["game"]["id"], results[0]["game"]["moves"]))
                if results[0]["room"]["status"] == "match_over":
                    return ends
                await anna.send({"type": "next"})
                for client in (anna, ben):
                    await client.until(lambda s: s["room"]["status"] == "playing" and not s["game"]["result"], 10)

    ends = asyncio.run(main())
    assert len(ends) == 2
    for game, seen in ends:
        answer = httpx.get(f"{site.url}/api/games/{game}/record", timeout=10)
        assert answer.status_code == 200, answer.text
        record = answer.json()
        replayed = read_record(record, game=game)  # every move legal where it stands: none doubled
        assert replayed.is_over()
        assert public(record["moves"]) == seen
        assert {int(text.split()[0]) for text in record["moves"]} == {0, 1, 2, 3}
    # each move was offered to the database once: no process made a move another had made (nor lost one)
    offered = stored_moves(logged_postgres.log, {game for game, _ in ends})
    expected = {(game, number) for game, seen in ends for number in range(len(seen))}
    assert set(offered) == expected
    twice = {move: count for move, count in offered.items() if count > 1}
    assert not twice, f"moves offered to the database more than once: {twice}"
    assert_quiet(site)


# -- the limits count across the processes --------------------------------------------------------------


@pytest.mark.timeout(60)
def test_the_room_creation_limit_counts_one_address_across_all_processes(limited: Cluster) -> None:
    def create(base: str, address: str | None) -> httpx.Response:
        headers = {"X-Forwarded-For": address} if address else {}
        return httpx.post(f"{base}/api/rooms", json={"name": "Anna"}, headers=headers, timeout=10)

    processes = limited.processes
    answers = [create(processes[n % 3].url, "198.51.100.7") for n in range(ROOM_BURST + 4)]
    statuses = [answer.status_code for answer in answers]
    # one process alone would let each of the three take 20
    assert statuses == [201] * ROOM_BURST + [429] * 4, statuses
    for refused in answers[ROOM_BURST:]:
        assert refused.json()["error"] == "too_many_rooms"
        assert int(refused.headers["Retry-After"]) >= 1
    assert create(processes[0].url, "198.51.100.8").status_code == 201  # another address is not held up
    # Through nginx every client is counted by the address nginx saw: a header of its own changes nothing.
    spoofed = [create(limited.url, f"203.0.113.{n}") for n in range(ROOM_BURST + 2)]
    assert [answer.status_code for answer in spoofed] == [201] * ROOM_BURST + [429] * 2
    assert_quiet(limited)


@pytest.mark.timeout(60)
def test_a_rush_of_room_creations_spread_over_the_processes_gets_the_burst_of_one_address(pair: Cluster) -> None:
    """120 requests of one forwarded client at once, half on each process: the site makes the burst and no more,
    and every other request is refused with a wait of at most one room's time, which is then enough."""
    rate = ROOMS_PER_MINUTE / 60
    address = {"X-Forwarded-For": "198.51.100.120"}
    urls = [process.url for process in pair.processes]
    answers, seconds = asyncio.run(rush(urls, 120, {"name": "Anna"}, headers=address))
    statuses = [answer.status for answer in answers]
    made = statuses.count(201)
    assert ROOM_BURST <= made <= ROOM_BURST + int(seconds * rate), f"{made} rooms made in {seconds:.2f} s"
    assert set(statuses) == {201, 429}, statuses
    longest = math.ceil(1 / rate)
    for refused in (answer for answer in answers if answer.status == 429):
        assert refused.json()["error"] == "too_many_rooms"
        assert 1 <= int(refused.headers["retry-after"]) <= longest, refused.headers
    with httpx.Client(headers=address, timeout=10) as client:
        refused_too = client.post(f"{urls[0]}/api/rooms", json={"name": "Anna"})
        assert refused_too.status_code == 429
        wait = int(refused_too.headers["retry-after"])
        assert 1 <= wait <= longest
        time.sleep(wait)
        assert client.post(f"{urls[1]}/api/rooms", json={"name": "Anna"}).status_code == 201
    assert_quiet(pair)


@pytest.mark.timeout(90)
def test_a_seats_reactions_are_limited_across_its_connections_on_every_process(pair: Cluster) -> None:
    """60 connections of one seat, half on each process, each sending as fast as its own connection may: the
    other player is told at most REACTION_BURST reactions plus one per REACTION_INTERVAL, as from one."""
    first, second = (process.url for process in pair.processes)

    async def main() -> None:
        made = await create_room(first, name="Anna", players=2, pace=5)
        code = made["code"]
        ben = (await join_room(first, code, 1, "Ben"))["token"]
        bens = [RoomClient((first, second)[n % 2], code, ben, "de") for n in range(60)]
        async with RoomClient(second, code, made["token"]) as anna:
            try:
                for client in bens:
                    await client.__aenter__()
                await people_online(anna, 2, REACH)
                await start(anna, *bens)
                flood = await flood_reactions(bens, 1, anna, seconds=3 * REACTION_INTERVAL)
            finally:
                await close_all(bens)
        flood.assert_within_one_seats_limit()

    asyncio.run(main())
    assert_quiet(pair)


@pytest.mark.timeout(60)
def test_the_connection_limit_counts_one_forwarded_address_across_all_processes(limited: Cluster) -> None:
    processes = limited.processes
    address = {"X-Forwarded-For": "198.51.100.9"}

    async def watch(n: int) -> Any:
        socket = await connect(ws_url(processes[n % 3].url, code), additional_headers=address)
        await socket.send('{"type": "hello", "token": null}')
        first = json.loads(await asyncio.wait_for(socket.recv(), 10))
        assert first["type"] == "state", first
        return socket

    host = {"X-Forwarded-For": "192.0.2.50"}  # an address of its own: 127.0.0.1 may have used up its rooms
    made = httpx.post(f"{processes[0].url}/api/rooms", json={"name": "Anna"}, headers=host, timeout=10)
    assert made.status_code == 201
    code = made.json()["code"]

    async def main() -> None:
        sockets = [await watch(n) for n in range(PER_ADDRESS)]  # two on each process
        try:
            for n in range(3):  # one more is refused on every process
                with pytest.raises(InvalidStatus) as refusal:
                    await watch(n)
                assert refusal.value.response.status_code == 403
            await sockets.pop().close()
            loop = asyncio.get_running_loop()
            deadline = loop.time() + REACH
            while True:  # the place is free again, on another process too
                try:
                    sockets.append(await watch(0))
                    break
                except InvalidStatus:
                    assert loop.time() < deadline, f"a closed connection still counted after {REACH:g} s"
                    await asyncio.sleep(0.05)
        finally:
            for socket in sockets:
                await socket.close()

    asyncio.run(main())
    assert_quiet(limited)
