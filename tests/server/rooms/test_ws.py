"""The room WebSocket: every message type, and everything a hostile client might send.

Most tests use a table of two people and no computer: nothing moves unless a
test moves it, so "the game did not change" is exact (same ``seq``, same
game), and afterwards the seat to move makes a real move to show the
server still serves.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from elferraus.cards import CARDS
from elferraus.i18n import explain, tr
from elferraus.server.client import RoomClient
from tests.support.server_helpers import (
    OVER,
    act,
    chooser,
    game_of,
    look,
    my_turn,
    play_round,
    raw,
    room_with_people,
    start,
    wait_online,
)
from tests.support.web_helpers import serving


@dataclass
class Table:
    """Two people at a started two-seat table: Anna (English) and Ben (German)."""

    base: str
    code: str
    tokens: list[str]
    clients: list[RoomClient]

    @property
    def mover(self) -> RoomClient:
        state = self.clients[0].state
        assert state is not None
        return self.clients[state["game"]["turn"]]

    @property
    def waiter(self) -> RoomClient:
        return self.clients[1 - self.clients.index(self.mover)]

    def seat(self, client: RoomClient) -> int:
        return self.clients.index(client)

    async def settled(self, *others: RoomClient) -> dict[str, Any]:
        """The newest state, once both people (and ``others``) have it."""
        now = await look(self.base, self.code)
        for client in (*self.clients, *others):
            await client.until(lambda state: state["seq"] >= now["seq"], 10)
        return now

    async def unchanged_and_alive(self, before: dict[str, Any], *, same_seq: bool = True) -> None:
        """Nothing of the game changed since ``before``, and the seat to move can still move."""
        after = await self.settled()
        assert game_of(after) == game_of(before)
        if same_seq:
            assert after["seq"] == before["seq"]
        mover, waiter = self.mover, self.waiter
        move = mover.state["view"]["legal"][0]
        answer = await act(mover, move)
        assert answer["type"] == "state", answer
        expected = [*before["game"]["moves"], f"{self.seat(mover)} {move}"]
        assert answer["game"]["moves"] == expected
        seen = await waiter.until(lambda state: len(state["game"]["moves"]) == len(expected), 10)
        assert seen["game"]["moves"] == expected


@contextlib.asynccontextmanager
async def two_people(tmp_path: Path, **settings: Any) -> AsyncIterator[Table]:
    """Anna and Ben at a two-seat table. The table makes a person's only legal move (the opening 11, say)
    after the room's pace, 5 s here: long enough for a test to make it, or to try another, first."""
    settings.setdefault("pace", 5)
    async with serving(str(tmp_path / "rooms.db")) as base:
        code, tokens = await room_with_people(base, 2, name="Anna", players=2, **settings)
        async with RoomClient(base, code, tokens[0], "en") as anna, RoomClient(base, code, tokens[1], "de") as ben:
            await wait_online(anna, [0, 1])
            await start(anna, ben)
            table = Table(base, code, tokens, [anna, ben])
            await table.settled()
            yield table


def move_frame(move: object, seq: object) -> dict[str, Any]:
    return {"type": "move", "move": move, "seq": seq}


# -- hello --------------------------------------------------------------------


def test_hello_as_player_and_as_spectator(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(str(tmp_path / "rooms.db")) as base:
            code, tokens = await room_with_people(base, 2, name="Anna", players=3, pace=0)
            async with RoomClient(base, code, tokens[1]) as ben, RoomClient(base, code, None) as spectator:
                waiting = await ben.until(lambda s: s["room"]["seats"][1]["online"])
                assert waiting["type"] == "state"
                assert waiting["room"]["code"] == code
                assert waiting["room"]["status"] == "waiting"
                assert waiting["view"] is None
                assert waiting["game"] is None
                assert [seat["kind"] for seat in waiting["room"]["seats"]] == ["person", "person", "open"]
                watching = await spectator.until(lambda s: True)
                assert watching["view"] is None
                async with RoomClient(base, code, tokens[0]) as anna:
                    await wait_online(anna, [0, 1])
                    await start(anna, ben, spectator)
                    for seat, client in enumerate([anna, ben]):
                        view = client.state["view"]
                        assert view["seat"] == seat
                        assert view["players"] == 3
                        assert len(view["hand"]) == client.state["game"]["hand_counts"][seat]
                    assert spectator.state["view"] is None
                    assert len(spectator.state["game"]["hand_counts"]) == 3
                    # the computer that took the open seat plays at the room's fill level
                    assert spectator.state["room"]["seats"][2]["kind"] == "computer"
                    assert spectator.state["room"]["seats"][2]["level"] == "medium"

    asyncio.run(main())


def test_every_frame_refused_for_rate_is_answered(tmp_path: Path) -> None:
    """Over the burst, each frame gets its own rate_limited answer (until a flood would close)."""

    async def main() -> None:
        async with serving(str(tmp_path / "rooms.db")) as base:
            code, tokens = await room_with_people(base, 1, name="Anna", players=2, pace=0)
            async with raw(base, code, {"type": "hello", "token": tokens[0]}) as client:
                assert (await client.receive())["type"] == "state"
                sent = 55  # the burst of 40 (the hello took one), then 16 refusals: fewer than the 20 of a flood
                for _ in range(sent):
                    await client.send({"type": "ping"})
                answers = [await client.reply() for _ in range(sent)]
                kinds = [answer["type"] if answer["type"] == "pong" else answer["code"] for answer in answers]
                assert kinds.count("pong") >= 39
                assert kinds.count("rate_limited") >= 10
                assert set(kinds) == {"pong", "rate_limited"}
                # still open: the next ping, once the bucket has refilled, is answered
                await asyncio.sleep(0.2)
                await client.send({"type": "ping"})
                assert await client.reply() == {"type": "pong"}

    asyncio.run(main())


def test_a_bad_token_is_refused_and_the_connection_closed(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(str(tmp_path / "rooms.db")) as base:
            code, _tokens = await room_with_people(base, 1, name="Anna", players=2, pace=0)
            _other, other_tokens = await room_with_people(base, 1, name="Olga", players=2, pace=0)
            for token in [
                "not-a-token",
                other_tokens[0],
                12345,
                ["x"],
                "A" * 500,
                "",
                "\ud800",
                "\ud800" * 43,
                "A" * 43,
            ]:
                async with raw(base, code, {"type": "hello", "token": token, "lang": "de"}) as client:
                    assert await client.until_closed() == 1008
                    assert [frame["code"] for frame in client.frames] == ["bad_token"]
                    assert client.frames[0]["message"] == tr("web_error_bad_token", "de")
            state = await look(base, code)
            assert not state["room"]["seats"][0]["online"]

    asyncio.run(main())


def test_the_first_frame_must_be_hello(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(str(tmp_path / "rooms.db")) as base:
            code, tokens = await room_with_people(base, 1, name="Anna", players=2, pace=0)
            for first in [json.dumps({"type": "ping"}), json.dumps(move_frame("R11", 0)), "{nope", b"\x00\x01"]:
                async with raw(base, code) as client:
                    await client.send(first)
                    assert await client.until_closed() == 1008
                    assert client.frames
                    assert {frame["code"] for frame in client.frames} == {"bad_frame"}
                    assert all(frame["type"] == "error" for frame in client.frames)
            # a good hello still works afterwards
            async with RoomClient(base, code, tokens[0]) as anna:
                assert (await anna.until(lambda s: s["room"]["seats"][0]["online"]))["type"] == "state"

    asyncio.run(main())


def test_an_unknown_room_is_refused(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(str(tmp_path / "rooms.db")) as base, raw(base, "ZZZZZZ") as client:
            assert await client.until_closed() == 1008
            assert client.frames[0]["code"] == "no_room"
            assert client.frames[0]["message"] == tr("web_error_no_room", "en")

    asyncio.run(main())


def test_a_lower_case_code_reaches_the_room(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(str(tmp_path / "rooms.db")) as base:
            code, tokens = await room_with_people(base, 1, name="Anna", players=2, pace=0)
            async with RoomClient(base, code.lower(), tokens[0]) as anna:
                state = await anna.until(lambda s: s["room"]["seats"][0]["online"])
                assert state["room"]["code"] == code

    asyncio.run(main())


@pytest.mark.parametrize(
    ("allowed", "origin", "admitted"),
    [
        ((), "https://evil.example", True),  # no list: any origin (a seat is a token, never a cookie)
        (("https://elfer.example",), "https://evil.example", False),
        (("https://elfer.example",), "https://elfer.example.evil.example", False),
        (("https://elfer.example",), "http://elfer.example", False),  # another scheme is another site
        (("https://elfer.example",), "null", False),  # a sandboxed frame or a local file
        (("https://elfer.example",), "HTTPS://Elfer.Example:443", True),
        (("https://elfer.example", "https://www.elfer.example"), "https://www.elfer.example", True),
        (("https://elfer.example",), None, True),  # no browser: it could have sent any Origin
    ],
)
def test_a_websocket_from_a_foreign_origin_is_refused_when_the_site_names_its_own(
    tmp_path: Path, allowed: tuple[str, ...], origin: str | None, admitted: bool
) -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus

    from elferraus.server.web.origins import parse_origins

    async def main() -> None:
        async with serving(str(tmp_path / "rooms.db"), allowed_origins=parse_origins(",".join(allowed))) as base:
            code, tokens = await room_with_people(base, 1, name="Anna", players=2, pace=0)
            url = base.replace("http://", "ws://") + f"/ws/{code}"
            headers = {} if origin is None else {"Origin": origin}
            if not admitted:
                with pytest.raises(InvalidStatus) as refused:
                    await connect(url, additional_headers=headers, open_timeout=10)
                assert refused.value.response.status_code == 403
                return
            async with connect(url, additional_headers=headers, open_timeout=10) as socket:
                await socket.send(json.dumps({"type": "hello", "token": tokens[0], "lang": "en"}))
                first = json.loads(await asyncio.wait_for(socket.recv(), 10))
                assert first["type"] == "state"
                assert (first["seat"], first["room"]["code"]) == (0, code)

    asyncio.run(main())


# -- ping, unknown types, hello twice ------------------------------------------


def test_ping_unknown_types_and_a_second_hello(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(str(tmp_path / "rooms.db")) as base:
            code, tokens = await room_with_people(base, 1, name="Anna", players=2, pace=0)
            async with raw(base, code, {"type": "hello", "token": tokens[0], "lang": "en"}) as client:
                assert (await client.receive())["type"] == "state"
                await client.send({"type": "ping"})
                assert await client.receive() == {"type": "pong"}
                for frame in [{"type": "dance"}, {}, {"type": 5}, {"type": None}, {"type": ["ping"]}]:
                    await client.send(frame)
                    answer = await client.receive()
                    assert answer["type"] == "error"
                    assert answer["code"] == "unknown_type"
                    assert answer["message"] == tr("web_error_unknown_type", "en")
                await client.send({"type": "hello", "token": tokens[0]})
                answer = await client.receive()
                assert answer["code"] == "wrong_status"
                assert answer["message"] == tr("web_error_hello_twice", "en")
                # none of that counted as a bad frame: the connection is still open
                await client.send({"type": "ping"})
                assert await client.receive() == {"type": "pong"}

    asyncio.run(main())


# -- start ----------------------------------------------------------------------


def test_only_the_host_starts_and_only_once(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(str(tmp_path / "rooms.db")) as base:
            code, tokens = await room_with_people(base, 2, name="Anna", players=3, pace=0, fill="easy")
            async with (
                RoomClient(base, code, tokens[0]) as anna,
                RoomClient(base, code, tokens[1], "de") as ben,
                RoomClient(base, code, None) as spectator,
            ):
                await wait_online(anna, [0, 1])
                before = await look(base, code)
                await ben.send({"type": "start"})
                await ben.until(lambda s: bool(ben.errors))
                assert ben.errors[-1]["code"] == "not_host"
                assert ben.errors[-1]["message"] == tr("web_error_not_host", "de")
                await spectator.send({"type": "start"})
                await spectator.until(lambda s: bool(spectator.errors))
                assert spectator.errors[-1]["code"] == "not_host"
                await anna.send(move_frame("R11", anna.state["seq"]))
                await anna.until(lambda s: bool(anna.errors))
                assert anna.errors[-1]["code"] == "wrong_status"
                assert (await look(base, code)) == before
                await start(anna, ben, spectator)
                seats = spectator.state["room"]["seats"]
                assert seats[2] == {
                    "seat": 2,
                    "name": "Computer 3",
                    "kind": "computer",
                    "level": "easy",
                    "online": True,
                    "auto": False,
                }
                assert spectator.state["room"]["round"] == 1
                await anna.send({"type": "start"})
                await anna.until(lambda s: len(anna.errors) == 2)
                assert anna.errors[-1]["code"] == "wrong_status"
                assert anna.errors[-1]["message"] == tr("web_error_started", "en")
                assert (await look(base, code))["room"]["status"] == "playing"

    asyncio.run(main())


# -- moves ------------------------------------------------------------------------


def test_a_persons_only_move_is_made_for_him_at_the_rooms_pace(tmp_path: Path) -> None:
    """The opening 11 is the starter's only legal move: the room says it will make it (``making``, and the
    note as the prompt), makes it after its pace, and then says it did (``made_for``), in his language."""

    async def main() -> None:
        async with two_people(tmp_path, pace=2.0) as table:
            starter = table.mover
            other = table.waiter
            view = starter.state["view"]
            (opening,) = view["legal"]
            assert view["making"] == opening
            coming = {"key": "made_soon_open", "params": {"card": opening}}
            note = {"key": "made_open", "params": {"card": opening}}
            assert view["prompt"] == coming
            assert view["made_for"] is None
            assert not my_turn(starter.state)
            assert other.state["view"]["making"] is None
            after = await starter.until(lambda s: len(s["game"]["moves"]) == 1, 10)
            assert after["game"]["moves"] == [f"{table.seat(starter)} {opening}"]
            assert after["view"]["making"] is None
            assert after["view"]["made_for"] == note
            seen = await other.until(lambda s: len(s["game"]["moves"]) == 1, 10)
            assert seen["view"]["made_for"] is None  # a note for the one it was made for only

    asyncio.run(main())


def test_a_connection_sends_each_move_once_and_a_new_one_all_of_them(tmp_path: Path) -> None:
    """Each state's ``moves`` and log (VIEW's and GAME's) hold the moves the connection has not sent yet (from
    ``log_from``); together they are the whole history, and a connection opened later starts with all of it."""

    async def main() -> None:
        async with serving(str(tmp_path / "rooms.db")) as base:
            code, tokens = await room_with_people(base, 2, name="Anna", players=2, pace=0)
            async with RoomClient(base, code, tokens[0]) as anna, RoomClient(base, code, tokens[1]) as ben:
                await wait_online(anna, [0, 1])
                await start(anna, ben)
                while len(anna.state["game"]["moves"]) < 12 and anna.state["room"]["status"] == "playing":
                    mover = await chooser([anna, ben])
                    await act(mover, mover.state["view"]["legal"][0])
                    await anna.until(lambda s, now=mover.state["seq"]: s["seq"] >= now)
                settled = await chooser([anna, ben])  # the table waits: no move comes by itself now
                await anna.until(lambda s, now=settled.state["seq"]: s["seq"] >= now)
                sent = 0
                for text in anna.received:
                    frame = json.loads(text)
                    if frame["type"] != "state" or frame["view"] is None:
                        continue
                    view, game = frame["view"], frame["game"]
                    assert view["log_from"] == game["log_from"] == sent
                    assert len(view["log"]) == len(view["moves"]) == len(game["moves"])
                    sent += len(view["log"])
                assert sent >= 12
                whole = anna.state["view"]
                assert len(whole["log"]) == len(whole["moves"]) == len(anna.state["game"]["moves"]) == sent
                async with RoomClient(base, code, tokens[0]) as again:
                    first = await again.until(lambda s: s["seq"] >= anna.state["seq"])
                    assert json.loads(again.received[-1])["view"]["log_from"] == 0
                    assert json.loads(again.received[-1])["game"]["log_from"] == 0
                    assert first["view"]["log"] == whole["log"]
                    assert first["view"]["moves"] == whole["moves"]
                    assert first["game"]["moves"] == anna.state["game"]["moves"]

    asyncio.run(main())


def test_an_accepted_move_reaches_everybody(tmp_path: Path) -> None:
    async def main() -> None:
        async with two_people(tmp_path) as table, RoomClient(table.base, table.code, None) as spectator:
            before = await table.settled(spectator)
            mover, waiter = table.mover, table.waiter
            move = mover.state["view"]["legal"][0]
            answer = await act(mover, move)
            assert answer["type"] == "state"
            assert answer["seq"] > before["seq"]
            expected = [f"{table.seat(mover)} {move}"]
            for client in [*table.clients, spectator]:
                state = await client.until(lambda s: s["seq"] > before["seq"])
                assert state["game"]["moves"] == expected
                assert state["game"]["rows"] == {move[0]: [11, 11]}
            assert move not in mover.state["view"]["hand"]
            assert mover.state["view"]["legal"] == []
            assert waiter.state["view"]["legal"]

    asyncio.run(main())


@pytest.mark.timeout(120)
def test_next_round_and_rematch_are_the_hosts(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(str(tmp_path / "rooms.db")) as base:
            code, tokens = await room_with_people(
                base, 2, name="Anna", players=3, rounds=2, pace=0, seats=[{"kind": "open"}, {"kind": "computer"}]
            )
            async with (
                RoomClient(base, code, tokens[0]) as anna,
                RoomClient(base, code, tokens[1]) as ben,
                RoomClient(base, code, None) as spectator,
            ):
                await wait_online(anna, [0, 1])
                await start(anna, ben, spectator)
                first_id = anna.state["game"]["id"]
                await anna.send({"type": "next"})
                await anna.until(lambda s: bool(anna.errors))
                assert anna.errors[-1]["code"] == "wrong_status"
                assert anna.errors[-1]["message"] == tr("web_error_not_round_over", "en")
                await anna.send({"type": "rematch"})
                await anna.until(lambda s: len(anna.errors) == 2)
                assert anna.errors[-1]["code"] == "wrong_status"

                ends = await asyncio.gather(play_round(anna), play_round(ben))
                assert {end["room"]["status"] for end in ends} == {"round_over"}
                over = await look(base, code)
                assert over["room"]["status"] == "round_over"
                assert len(over["room"]["scores"]) == 1
                assert over["game"]["result"] is not None
                for client in (ben, spectator):
                    errors = len(client.errors)
                    await client.send({"type": "next"})
                    await client.until(lambda s, c=client, n=errors: len(c.errors) > n)
                    assert client.errors[-1]["code"] == "not_host"
                assert (await look(base, code))["seq"] == over["seq"]
                await anna.send({"type": "next"})
                second = await ben.until(lambda s: s["room"]["status"] == "playing")
                await anna.until(lambda s: s["room"]["status"] == "playing")
                assert second["room"]["round"] == 2
                assert second["game"]["id"] != first_id
                assert second["game"]["moves"] == []

                ends = await asyncio.gather(play_round(anna), play_round(ben))
                assert {end["room"]["status"] for end in ends} == {"match_over"}
                final = await look(base, code)
                assert len(final["room"]["scores"]) == 2
                assert final["room"]["totals"] == [sum(points) for points in zip(*final["room"]["scores"], strict=True)]
                errors = len(anna.errors)
                await anna.send({"type": "next"})
                await anna.until(lambda s: len(anna.errors) > errors)
                assert anna.errors[-1]["code"] == "wrong_status"
                await ben.send({"type": "rematch"})
                await ben.until(lambda s: ben.errors and ben.errors[-1]["code"] == "not_host")
                await anna.send({"type": "rematch"})
                again = await spectator.until(lambda s: s["seq"] > final["seq"] and s["room"]["status"] == "playing")
                assert again["room"]["round"] == 1
                assert again["room"]["scores"] == []
                assert again["game"]["id"] not in (first_id, second["game"]["id"])
                assert again["game"]["moves"] == []

    asyncio.run(main())


# -- abuse: moves -------------------------------------------------------------------


def test_a_move_out_of_turn_is_refused(tmp_path: Path) -> None:
    async def main() -> None:
        async with two_people(tmp_path) as table:
            before = await table.settled()
            waiter = table.waiter
            for move in [waiter.state["view"]["hand"][0], "draw", "pass"]:
                answer = await act(waiter, move)
                assert answer["type"] == "error"
                assert answer["code"] == "not_your_turn"
                assert answer["message"] == tr("web_error_not_your_turn", waiter.lang)
                assert answer["seq"] == before["seq"]
            await table.unchanged_and_alive(before)

    asyncio.run(main())


def test_an_illegal_move_is_explained_in_the_connections_language(tmp_path: Path) -> None:
    async def main() -> None:
        async with two_people(tmp_path) as table:
            before = await table.settled()
            mover = table.mover
            token = table.tokens[table.seat(mover)]
            opening = mover.state["view"]["legal"][0]
            for lang in ("en", "de"):
                async with RoomClient(table.base, table.code, token, lang) as client:
                    await table.settled(client)
                    answer = await act(client, "pass")
                    assert answer["code"] == "illegal"
                    assert answer["message"] == explain("opening", {"card": opening}, lang)
                    assert opening in answer["message"]
            assert explain("opening", {"card": opening}, "en") != explain("opening", {"card": opening}, "de")
            # two clients came and went: seq moved on, the game did not
            await table.unchanged_and_alive(before, same_seq=False)
            # now the other seat is to move; a card it does not hold is explained too
            mover = table.mover
            await table.settled()
            hand = mover.state["view"]["hand"]
            foreign = next(str(card) for card in CARDS if str(card) not in hand and str(card)[1:] != "11")
            answer = await act(mover, foreign)
            assert answer["code"] == "illegal"
            assert answer["message"] == tr("not_in_hand", mover.lang, card=foreign)

    asyncio.run(main())


def test_a_stale_move_is_refused(tmp_path: Path) -> None:
    async def main() -> None:
        async with two_people(tmp_path) as table:
            before = await table.settled()
            mover = table.mover
            move = mover.state["view"]["legal"][0]
            for seq in [before["seq"] - 1, before["seq"] + 1, 0, -1, 10**30]:
                errors = len(mover.errors)
                await mover.send(move_frame(move, seq))
                await mover.until(lambda s, n=errors: len(mover.errors) > n)
                answer = mover.errors[-1]
                assert answer["code"] == "stale"
                assert answer["seq"] == before["seq"]
                assert str(before["seq"]) in answer["message"]
            await table.unchanged_and_alive(before)

    asyncio.run(main())


def test_the_same_move_sent_twice_is_made_once(tmp_path: Path) -> None:
    async def main() -> None:
        async with two_people(tmp_path) as table:
            before = await table.settled()
            mover = table.mover
            move = mover.state["view"]["legal"][0]
            frame = move_frame(move, before["seq"])
            await mover.send(frame)
            await mover.send(frame)
            await mover.until(lambda s: bool(mover.errors) and s["seq"] > before["seq"])
            assert [error["code"] for error in mover.errors] == ["stale"]
            after = await table.settled()
            assert after["game"]["moves"] == [f"{table.seat(mover)} {move}"]
            assert after["seq"] == before["seq"] + 1
            # and the game goes on from there
            await table.unchanged_and_alive(after)

    asyncio.run(main())


def test_a_spectator_cannot_act(tmp_path: Path) -> None:
    async def main() -> None:
        async with two_people(tmp_path) as table, RoomClient(table.base, table.code, None, "de") as spectator:
            before = await table.settled()
            state = await spectator.until(lambda s: s["seq"] >= before["seq"])
            legal = table.mover.state["view"]["legal"][0]
            answer = await act(spectator, legal)
            assert answer["code"] == "not_a_player"
            assert answer["message"] == tr("web_error_not_a_player", "de")
            for kind in ("start", "next", "rematch"):
                errors = len(spectator.errors)
                await spectator.send({"type": kind})
                await spectator.until(lambda s, n=errors: len(spectator.errors) > n)
                assert spectator.errors[-1]["code"] == "not_host"
            assert state["view"] is None
            await table.unchanged_and_alive(before)

    asyncio.run(main())


def test_hostile_values_in_a_move(tmp_path: Path) -> None:
    async def main() -> None:
        async with two_people(tmp_path) as table:
            before = await table.settled()
            mover = table.mover
            seq = before["seq"]
            legal = mover.state["view"]["legal"][0]
            bad_moves: list[object] = [42, 11.0, ["R11"], {"card": "R11"}, None, True, "", "R21", "R0", "lay R11"]
            bad_moves += ["R11" * 100, "\x00", "draw draw", "\u211d11"]
            for move in bad_moves:
                errors = len(mover.errors)
                await mover.send(move_frame(move, seq))
                await mover.until(lambda s, n=errors: len(mover.errors) > n)
                assert mover.errors[-1]["code"] == "bad_move", (move, mover.errors[-1])
                assert mover.errors[-1]["message"] == tr("web_error_bad_move", mover.lang)
            for bad_seq in [True, False, str(seq), float(seq), None, [seq], {"seq": seq}]:
                errors = len(mover.errors)
                await mover.send(move_frame(legal, bad_seq))
                await mover.until(lambda s, n=errors: len(mover.errors) > n)
                assert mover.errors[-1]["code"] == "stale", (bad_seq, mover.errors[-1])
            # a move frame missing its fields
            missing = [({"type": "move"}, "stale"), ({"type": "move", "move": legal}, "stale")]
            missing.append(({"type": "move", "seq": seq}, "bad_move"))
            for frame, code in missing:
                errors = len(mover.errors)
                await mover.send(frame)
                await mover.until(lambda s, n=errors: len(mover.errors) > n)
                assert mover.errors[-1]["code"] == code
            await table.unchanged_and_alive(before)

    asyncio.run(main())


# -- abuse: frames --------------------------------------------------------------------


def test_bad_frames_are_answered_and_change_nothing(tmp_path: Path) -> None:
    async def main() -> None:
        async with two_people(tmp_path) as table:
            before = await table.settled()
            mover = table.mover
            token = table.tokens[table.seat(mover)]
            legal = mover.state["view"]["legal"][0]
            padded = json.dumps({**move_frame(legal, before["seq"]), "pad": "x" * 5000})
            cases: list[tuple[str | bytes, str]] = [
                ("{not json", "bad_frame"),
                ("[1, 2]", "bad_frame"),
                ("42", "bad_frame"),
                ("null", "bad_frame"),
                ('"move"', "bad_frame"),
                ("[" * 3000 + "]" * 3000, "too_big"),
                ("[" * 2000 + "]" * 2000, "bad_frame"),
                (b'{"type": "ping"}', "bad_frame"),
                (b"\xff\xfe", "bad_frame"),
                ("x" * 5000, "too_big"),
                (padded, "too_big"),
            ]
            for text, code in cases:
                async with raw(table.base, table.code, {"type": "hello", "token": token, "lang": "de"}) as client:
                    assert (await client.receive())["type"] == "state"
                    await client.send(text)
                    answer = await client.reply()
                    assert answer["type"] == "error", text[:40]
                    assert answer["code"] == code, text[:40]
                    assert answer["message"] == tr(f"web_error_{code}", "de")
                    # one bad frame is not the end: the connection still answers
                    await client.send({"type": "ping"})
                    assert await client.reply() == {"type": "pong"}
            # clients came and went (seq moved on); the padded move was never made
            await table.unchanged_and_alive(before, same_seq=False)

    asyncio.run(main())


def test_a_frame_over_4_kb_of_utf8_is_too_big(tmp_path: Path) -> None:
    """4 KB is counted in bytes: 3,000 euro signs are 9,000 bytes."""

    async def main() -> None:
        async with (
            two_people(tmp_path) as table,
            raw(table.base, table.code, {"type": "hello", "token": None}) as client,
        ):
            assert (await client.receive())["type"] == "state"
            await client.send(json.dumps({"type": "ping", "pad": "€" * 3000}, ensure_ascii=False))
            answer = await client.reply()
            assert answer["type"] == "error"
            assert answer["code"] == "too_big"

    asyncio.run(main())


def test_five_bad_frames_close_the_connection(tmp_path: Path) -> None:
    async def main() -> None:
        async with two_people(tmp_path) as table:
            before = await table.settled()
            mover = table.mover
            token = table.tokens[table.seat(mover)]
            async with raw(table.base, table.code, {"type": "hello", "token": token}) as client:
                assert (await client.receive())["type"] == "state"
                for _ in range(4):
                    await client.send("{broken")
                    assert (await client.reply())["code"] == "bad_frame"
                await client.send(b"\x00")
                assert await client.until_closed() == 1008
                assert [frame["code"] for frame in client.errors()] == ["bad_frame"] * 5
            # five at once: closed too
            async with raw(table.base, table.code, {"type": "hello", "token": token}) as client:
                for _ in range(5):
                    await client.send("[]")
                assert await client.until_closed() == 1008
                assert client.frames[-1]["code"] == "bad_frame"
            # the seat's own page is still connected and plays on
            await table.unchanged_and_alive(before, same_seq=False)

    asyncio.run(main())


def test_four_bad_frames_and_good_ones_keep_the_connection(tmp_path: Path) -> None:
    async def main() -> None:
        async with (
            two_people(tmp_path) as table,
            raw(table.base, table.code, {"type": "hello", "token": None}) as client,
        ):
            assert (await client.receive())["type"] == "state"
            for _ in range(4):
                await client.send("{broken")
                assert (await client.reply())["code"] == "bad_frame"
                await client.send({"type": "ping"})
                assert await client.reply() == {"type": "pong"}
            assert len(client.errors("bad_frame")) == 4

    asyncio.run(main())


@pytest.mark.timeout(60)
def test_a_flood_is_refused_then_closed(tmp_path: Path) -> None:
    async def main() -> None:
        async with two_people(tmp_path) as table:
            before = await table.settled()
            mover = table.mover
            token = table.tokens[table.seat(mover)]
            async with raw(table.base, table.code, {"type": "hello", "token": token}) as client:
                state = await client.receive()
                frame = json.dumps(move_frame("pass", state["seq"]))
                started = time.monotonic()
                with contextlib.suppress(Exception):
                    for _ in range(400):
                        await client.send(frame)
                assert await client.until_closed() == 1008
                assert time.monotonic() - started < 10
                assert client.errors("rate_limited")
                # what got through before the limit was refused one by one, never made
                assert {frame["code"] for frame in client.errors()} <= {"illegal", "rate_limited", "stale"}
            await table.unchanged_and_alive(before, same_seq=False)

    asyncio.run(main())


def test_a_frame_over_the_transport_limit_closes_only_that_connection(tmp_path: Path) -> None:
    async def main() -> None:
        async with two_people(tmp_path) as table:
            before = await table.settled()
            async with raw(table.base, table.code, {"type": "hello", "token": None}) as client:
                assert (await client.receive())["type"] == "state"
                await client.send("x" * 100_000)
                assert await client.until_closed() == 1009
            await table.unchanged_and_alive(before)

    asyncio.run(main())


# -- absence ----------------------------------------------------------------------------


@pytest.mark.timeout(60)
def test_a_computer_stands_in_for_an_absent_person(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(str(tmp_path / "rooms.db")) as base:
            code, tokens = await room_with_people(base, 2, name="Anna", players=2, pace=0, away=5)
            async with RoomClient(base, code, tokens[0]) as anna:
                ben = RoomClient(base, code, tokens[1])
                await ben.__aenter__()
                await wait_online(anna, [0, 1])
                await start(anna, ben)
                # Anna plays until Ben is to choose a move (the table makes his only moves itself)
                while (mover := await chooser([anna, ben])) is anna:
                    await act(anna, anna.state["view"]["legal"][0])
                assert mover.state["game"]["turn"] == 1
                await anna.until(lambda s, now=mover.state["seq"]: s["seq"] >= now)
                made = len(anna.state["game"]["moves"])
                await ben.close()
                gone = time.monotonic()
                away = await anna.until(lambda s: not s["room"]["seats"][1]["online"], 10)
                assert not away["room"]["seats"][1]["auto"]
                await anna.until(lambda s: s["room"]["seats"][1]["auto"], 20)
                assert time.monotonic() - gone >= 4.5
                moved = await anna.until(lambda s: len(s["game"]["moves"]) > made, 20)
                assert moved["game"]["moves"][made].startswith("1 ")
                assert moved["room"]["seats"][1]["auto"]
                # Ben's stand-in finishes his turn; back at Anna's, he returns with his token
                await anna.until(lambda s: s["game"]["turn"] == 0 or s["room"]["status"] in OVER, 20)
                async with RoomClient(base, code, tokens[1]) as back:
                    state = await back.until(lambda s: s["room"]["seats"][1]["online"], 10)
                    assert state["room"]["seats"][1]["auto"] is False
                    view = state["view"]
                    assert view["seat"] == 1
                    assert len(view["hand"]) == state["game"]["hand_counts"][1]
                    assert len(view["moves"]) == len(state["game"]["moves"])
                    seen = await anna.until(lambda s: s["room"]["seats"][1]["online"], 10)
                    assert seen["room"]["seats"][1]["auto"] is False

    asyncio.run(main())
