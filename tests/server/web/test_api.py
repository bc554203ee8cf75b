"""The HTTP API of the web game: rooms, joining, records, words, health and the page."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import re
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from elferraus.i18n import MESSAGES, tr
from elferraus.record import parse_record_move, read_record
from elferraus.rules import PRESETS, Rules
from elferraus.server.client import RoomClient, ServerError, create_room, join_room
from elferraus.server.rooms import settings
from elferraus.server.web.app import STATIC
from tests.support.server_helpers import get, look, play_round, post, room_with_people, start, wait_online
from tests.support.web_helpers import serving

CODE = re.compile(r"^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{6}$")
TOKEN = re.compile(r"^[A-Za-z0-9_-]{43}$")


def run(tmp_path: Path, test: Callable[[str], Awaitable[None]]) -> None:
    """Run ``test(base)`` against a fresh server."""

    async def main() -> None:
        async with serving(str(tmp_path / "rooms.db")) as base:
            await test(base)

    asyncio.run(main())


def refused(answer: httpx.Response, status: int, error: str, message: str, field: str | None = None) -> None:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/json")
    expected = {"error": error, "message": message}
    if field is not None:
        expected["field"] = field
    assert answer.json() == expected


# -- creating a room ---------------------------------------------------------------


def test_create_a_room(tmp_path: Path) -> None:
    async def test(base: str) -> None:
        answer = await post(base, "/api/rooms", json={"name": "  Anna   Lena ", "players": 3, "pace": 0})
        assert answer.status_code == 201
        room = answer.json()
        assert set(room) == {"code", "seat", "token", "invite", "link"}
        assert CODE.match(room["code"])
        assert TOKEN.match(room["token"])
        assert room["seat"] == 0
        assert room["invite"] == f"/r/{room['code']}"
        assert room["link"] == f"/r/{room['code']}#t={room['token']}"
        shown = await get(base, f"/api/rooms/{room['code']}")
        assert shown.status_code == 200
        assert room["token"] not in shown.text
        data = shown.json()
        assert data["code"] == room["code"]
        assert data["status"] == "waiting"
        assert data["players"] == 3
        assert [data[key] for key in ("rules", "rounds", "fill", "away", "pace")] == ["classic", 1, "medium", 60, 0]
        assert data["round"] == 0
        assert data["host"] == 0
        assert data["scores"] == []
        assert data["totals"] == [0, 0, 0]
        host = {"seat": 0, "name": "Anna Lena", "kind": "person", "level": None, "online": False, "auto": False}
        assert data["seats"][0] == host
        # (an open seat's "online" says nothing: nobody sits there; the page shows it as free)
        for seat in (1, 2):
            assert {key: data["seats"][seat][key] for key in ("seat", "name", "kind", "level", "auto")} == {
                "seat": seat,
                "name": "",
                "kind": "open",
                "level": None,
                "auto": False,
            }
        other = (await post(base, "/api/rooms", json={"name": "Ben"})).json()
        assert other["code"] != room["code"]
        assert other["token"] != room["token"]
        assert (await get(base, f"/api/rooms/{other['code']}")).json()["players"] == 4

    run(tmp_path, test)


def test_a_room_created_to_start_at_once_has_its_game_and_computers_in_the_open_seats(tmp_path: Path) -> None:
    """The lobby's "Play now": no waiting room; the open seats went to computers of the fill level."""

    async def test(base: str) -> None:
        seats = [{"kind": "computer", "level": "easy"}, {"kind": "open"}]
        answer = await post(base, "/api/rooms", json={"name": "Anna", "players": 3, "seats": seats, "start": True})
        assert answer.status_code == 201
        data = (await get(base, f"/api/rooms/{answer.json()['code']}")).json()
        assert data["status"] == "playing"
        assert [(seat["kind"], seat["level"]) for seat in data["seats"]] == [
            ("person", None),
            ("computer", "easy"),
            ("computer", "medium"),
        ]

    run(tmp_path, test)


def test_one_address_cannot_create_rooms_without_end(tmp_path: Path) -> None:
    """20 rooms at once, then 10 a minute: the 21st is refused with the reason and when to come back.
    Refused requests do not count: a person correcting the form is never locked out."""

    async def main() -> None:
        async with serving(str(tmp_path / "rooms.db")) as base:
            for _ in range(30):
                assert (await post(base, "/api/rooms", json={"name": "", "players": 2})).status_code == 400
            codes = []
            for _ in range(20):
                made = await post(base, "/api/rooms", json={"name": "Anna", "players": 2})
                assert made.status_code == 201
                codes.append(made.json()["code"])
            answer = await post(base, "/api/rooms", json={"name": "Anna", "players": 2})
            refused(answer, 429, "too_many_rooms", "too many new games from your address: wait a minute and try again")
            assert 1 <= int(answer.headers["retry-after"]) <= 6
            german = await post(base, "/api/rooms?lang=de", json={"name": "Anna", "players": 2})
            assert german.status_code == 429
            assert german.json()["message"].startswith("zu viele neue Spiele")
            for code in codes:  # the rooms made before the limit are all there, open to join
                joined = await post(base, f"/api/rooms/{code}/join", json={"seat": 1, "name": "Ben"})
                assert joined.status_code == 200, joined.text

    asyncio.run(main())


def test_the_room_limit_refills_and_can_be_turned_off(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(str(tmp_path / "fast.db"), rooms_per_minute=60) as base:  # one more every second
            made = 0
            while (answer := await post(base, "/api/rooms", json={"name": "Anna", "players": 2})).status_code == 201:
                made += 1
                assert made <= 40, "the limit never came"
            assert made >= 20
            assert answer.status_code == 429
            assert answer.headers["retry-after"] == "1"
            await asyncio.sleep(1.05)
            assert (await post(base, "/api/rooms", json={"name": "Anna", "players": 2})).status_code == 201
        async with serving(str(tmp_path / "open.db"), rooms_per_minute=0) as base:
            for _ in range(40):
                assert (await post(base, "/api/rooms", json={"name": "Anna", "players": 2})).status_code == 201

    asyncio.run(main())


def test_create_with_every_setting(tmp_path: Path) -> None:
    async def test(base: str) -> None:
        body = {
            "name": "Anna",
            "players": 6,
            "rules": "beginners",
            "rounds": 20,
            "fill": "easy",
            "seats": [{"kind": "computer", "level": "hard"}, {"kind": "open"}, {"kind": "computer"}],
            "away": 5,
            "pace": 5,
        }
        room = (await post(base, "/api/rooms", json=body)).json()
        data = (await get(base, f"/api/rooms/{room['code']}")).json()
        assert (data["players"], data["rules"], data["rounds"], data["fill"]) == (6, "beginners", 20, "easy")
        assert (data["away"], data["pace"]) == (5, 5)
        kinds = [(seat["kind"], seat["level"]) for seat in data["seats"]]
        free = ("open", None)
        assert kinds == [("person", None), ("computer", "hard"), free, ("computer", "easy"), free, free]
        assert data["seats"][1]["name"] == "Computer 2"
        assert data["seats"][1]["online"] is True

    run(tmp_path, test)


LEVELS = ("easy", "medium", "hard", "expert", "master")
"""The levels a room offers, weakest first: ``master`` the strongest."""


def test_every_level_fills_the_table_or_takes_a_seat(tmp_path: Path) -> None:
    assert LEVELS == settings.LEVELS

    async def test(base: str) -> None:
        for level in LEVELS:
            body = {"name": "Anna", "players": 3, "fill": level, "seats": [{"kind": "computer", "level": level}]}
            room = (await post(base, "/api/rooms", json=body)).json()
            data = (await get(base, f"/api/rooms/{room['code']}")).json()
            assert data["fill"] == level
            seats = [(seat["kind"], seat["level"]) for seat in data["seats"]]
            assert seats == [("person", None), ("computer", level), ("open", None)]

    run(tmp_path, test)


@pytest.mark.timeout(90)
def test_master_plays_a_round_in_a_room(tmp_path: Path) -> None:
    """The strongest level at a web table: its moves are made and stored like any computer's."""

    async def test(base: str) -> None:
        code, tokens = await room_with_people(
            base, 1, name="Anna", players=2, pace=0, seats=[{"kind": "computer", "level": "master"}]
        )
        async with RoomClient(base, code, tokens[0]) as anna:
            await start(anna)
            game_id = anna.state["game"]["id"]
            end = await play_round(anna)
        assert end["game"]["result"]["winner"] in (0, 1)
        record = (await get(base, f"/api/games/{game_id}/record")).json()
        assert record["bots"] == ["human", "master"]
        game = read_record(record)
        assert game.is_over()
        assert any(seat == 1 and move.card is not None for seat, move, _card in game.history())

    run(tmp_path, test)


def test_the_store_keeps_only_the_tokens_hash(tmp_path: Path) -> None:
    async def test(base: str) -> None:
        room = await create_room(base, name="Anna", players=2)
        with contextlib.closing(sqlite3.connect(tmp_path / "rooms.db")) as db:
            stored = db.execute("SELECT token_hash FROM seats WHERE code = ? AND seat = 0", (room["code"],)).fetchone()
        assert stored[0] == hashlib.sha256(room["token"].encode()).hexdigest()
        for file in tmp_path.glob("rooms.db*"):
            assert room["token"].encode() not in file.read_bytes()

    run(tmp_path, test)


INVALID: list[tuple[dict[str, Any], str, str]] = [
    # (a change to a good body, the field the refusal names, the words it says about that field)
    ({"players": 1}, "players", "web_error_players"),
    ({"players": 7}, "players", "web_error_players"),
    ({"players": 0}, "players", "web_error_players"),
    ({"players": -4}, "players", "web_error_players"),
    ({"players": 10**40}, "players", "web_error_players"),
    ({"players": True}, "players", "web_error_players"),
    ({"players": "4"}, "players", "web_error_players"),
    ({"players": 4.5}, "players", "web_error_players"),
    ({"players": None}, "players", "web_error_players"),
    ({"rules": "chaos"}, "rules", "web_error_rules"),
    ({"rules": "Classic"}, "rules", "web_error_rules"),
    ({"rules": ["classic"]}, "rules", "web_error_rules"),
    ({"rounds": 0}, "rounds", "web_error_rounds"),
    ({"rounds": 21}, "rounds", "web_error_rounds"),
    ({"rounds": False}, "rounds", "web_error_rounds"),
    ({"rounds": 2.5}, "rounds", "web_error_rounds"),
    ({"fill": "godlike"}, "fill", "web_error_level"),
    ({"fill": "EASY"}, "fill", "web_error_level"),
    ({"fill": "Meister"}, "fill", "web_error_level"),  # a level's German name is no level
    ({"fill": "grandmaster"}, "fill", "web_error_level"),
    ({"fill": "greedy"}, "fill", "web_error_level"),  # the yardsticks are not offered on the web
    ({"away": 4}, "away", "web_error_away"),
    ({"away": 3601}, "away", "web_error_away"),
    ({"away": True}, "away", "web_error_away"),
    ({"away": "60"}, "away", "web_error_away"),
    ({"pace": -0.1}, "pace", "web_error_pace"),
    ({"pace": 5.5}, "pace", "web_error_pace"),
    ({"pace": None}, "pace", "web_error_pace"),
    ({"seats": "open"}, "seats", "web_error_seats"),
    ({"seats": {"kind": "open"}}, "seats", "web_error_seats"),
    ({"seats": [{"kind": "open"}] * 4}, "seats", "web_error_seats"),
    ({"seats": [{"kind": "robot"}]}, "seats.0.kind", "web_error_seats"),
    ({"seats": [{"kind": "person"}]}, "seats.0.kind", "web_error_seats"),
    ({"seats": [1]}, "seats.0", "web_error_seats"),
    ({"seats": [{}]}, "seats.0.kind", "web_error_seats"),
    ({"seats": [{"kind": "computer", "level": "godlike"}]}, "seats.0.level", "web_error_level"),
    ({"seats": [{"kind": "computer", "level": 3}]}, "seats.0.level", "web_error_level"),
    ({"seats": [{"kind": "computer", "level": "random"}]}, "seats.0.level", "web_error_level"),
    ({"seats": [{"kind": "computer", "level": "expert-reads"}]}, "seats.0.level", "web_error_level"),
    ({"seats": [{"kind": "computer", "level": "master "}]}, "seats.0.level", "web_error_level"),
    ({"name": ""}, "name", "web_error_name"),
    ({"name": "   "}, "name", "web_error_name"),
    ({"name": "x" * 21}, "name", "web_error_name"),
    ({"name": None}, "name", "web_error_name"),
    ({"name": 7}, "name", "web_error_name"),
    ({"name": ["Anna"]}, "name", "web_error_name"),
    ({"name": "Anna\x00"}, "name", "web_error_name"),
    ({"name": "An\x07na"}, "name", "web_error_name"),
    ({"name": "\x1b[31mAnna"}, "name", "web_error_name"),
    ({"name": "Anna\u202e"}, "name", "web_error_name"),
    ({"name": "An\u200bna"}, "name", "web_error_name"),
]


def test_invalid_settings_are_refused_with_the_reason(tmp_path: Path) -> None:
    async def test(base: str) -> None:
        wrong = []
        for change, field, key in INVALID:
            body = {"name": "Anna", "players": 4, **change}
            for lang in ("en", "de"):
                answer = await post(base, f"/api/rooms?lang={lang}", json=body)
                message = tr("web_error_in_field", lang, field=field, problem=tr(key, lang))
                expected = {"error": "bad_request", "message": message, "field": field}
                if answer.status_code != 400 or answer.json() != expected:
                    wrong.append(f"{change} ({lang}): {answer.status_code} {answer.text}, expected {expected}")
        assert not wrong
        # none of them made a room
        with contextlib.closing(sqlite3.connect(tmp_path / "rooms.db")) as db:
            assert db.execute("SELECT COUNT(*) FROM rooms").fetchone() == (0,)

    run(tmp_path, test)


def test_the_messages_name_what_was_wrong() -> None:
    assert "2 to 6" in tr("web_error_players", "en")
    assert "classic" in tr("web_error_rules", "en")
    assert "1 to 20" in tr("web_error_rounds", "en")
    assert "easy" in tr("web_error_level", "en")
    assert "master" in tr("web_error_level", "en")
    assert "master" in tr("web_error_level", "de")
    assert "5 to 3600" in tr("web_error_away", "en")
    assert "0 to 5" in tr("web_error_pace", "en")
    assert "0 to 5" in tr("web_error_seat_number", "en")
    assert "kind" in tr("web_error_seats", "en")
    assert "1 to 20 printable" in tr("web_error_name", "en")
    assert "JSON object" in tr("web_error_json", "en")


def test_valid_edge_values_are_accepted(tmp_path: Path) -> None:
    async def test(base: str) -> None:
        for change in [
            {"players": 2},
            {"players": 6},
            {"players": 6.0},  # a number without fraction is an integer (JSON Schema)
            {"rounds": 3.0},
            {"rounds": 1},
            {"rounds": 20},
            {"away": 5},
            {"away": 3600},
            {"pace": 0},
            {"pace": 5.0},
            {"name": "x" * 20},
            {"name": "Ä" * 20},
            {"name": "A\tB"},
            {"seats": []},
            {"rules": "ravensburger"},
        ]:
            answer = await post(base, "/api/rooms", json={"name": "Anna", **change})
            assert answer.status_code == 201, (change, answer.text)
        room = (await post(base, "/api/rooms", json={"name": "A\t\nB"})).json()
        assert (await get(base, f"/api/rooms/{room['code']}")).json()["seats"][0]["name"] == "A B"

    run(tmp_path, test)


def test_a_body_that_is_not_a_json_object_is_refused(tmp_path: Path) -> None:
    async def test(base: str) -> None:
        message = tr("web_error_json", "en")
        headers = {"content-type": "application/json"}
        for body in [b"{name: Anna}", b"[1, 2]", b'["name", "Anna"]', b"42", b'"Anna"', b"null", b"\xff\xfe", b"{"]:
            refused(await post(base, "/api/rooms", content=body, headers=headers), 400, "bad_request", message)
        deep = b"[" * 4000 + b"]" * 4000
        refused(await post(base, "/api/rooms", content=deep, headers=headers), 400, "bad_request", message)
        # no body at all is an empty object: then the name is missing
        name = tr("web_error_in_field", "en", field="name", problem=tr("web_error_name", "en"))
        refused(await post(base, "/api/rooms"), 400, "bad_request", name, "name")

    run(tmp_path, test)


def test_a_body_over_8_kb_is_refused(tmp_path: Path) -> None:
    async def test(base: str) -> None:
        too_big = tr("web_error_too_big", "en")
        body = json.dumps({"name": "Anna", "pad": "x" * 9000}).encode()
        refused(await post(base, "/api/rooms", content=body), 413, "too_big", too_big)

        async def chunks() -> AsyncIterator[bytes]:
            yield b'{"name": "Anna", "pad": "'
            for _ in range(10):
                yield b"x" * 1000
            yield b'"}'

        # sent in chunks, without a length: refused while reading
        refused(await post(base, "/api/rooms", content=chunks()), 413, "too_big", too_big)
        exact = {"name": "Anna", "players": 2, "pad": ""}
        exact["pad"] = "x" * (8192 - len(json.dumps(exact)))
        answer = await post(base, "/api/rooms", content=json.dumps(exact).encode())
        assert len(json.dumps(exact)) == 8192
        assert answer.status_code == 201
        room = await create_room(base, name="Anna", players=2)
        join = json.dumps({"name": "Ben", "seat": 1, "pad": "x" * 9000}).encode()
        refused(await post(base, f"/api/rooms/{room['code']}/join", content=join), 413, "too_big", too_big)

    run(tmp_path, test)


# -- showing a room -------------------------------------------------------------------


def test_show_a_room(tmp_path: Path) -> None:
    async def test(base: str) -> None:
        room = await create_room(base, name="Anna", players=2)
        code = room["code"]
        assert (await get(base, f"/api/rooms/{code}")).json()["code"] == code
        # a code typed in lower case finds the room
        answer = await get(base, f"/api/rooms/{code.lower()}")
        assert answer.status_code == 200
        assert answer.json()["code"] == code
        missing = tr("web_error_no_room", "en")
        for unknown in ["ZZZZZZ", code[:5], code + "A", "......", "%C3%84BCDEF"]:
            refused(await get(base, f"/api/rooms/{unknown}"), 404, "no_room", missing)
        refused(await get(base, "/api/rooms/ZZZZZZ?lang=de"), 404, "no_room", tr("web_error_no_room", "de"))

    run(tmp_path, test)


# -- joining -----------------------------------------------------------------------


def test_join_a_seat(tmp_path: Path) -> None:
    async def test(base: str) -> None:
        room = await create_room(
            base, name="Anna", players=4, seats=[{"kind": "open"}, {"kind": "computer", "level": "easy"}]
        )
        code = room["code"]
        joined = await post(base, f"/api/rooms/{code.lower()}/join", json={"name": "Ben", "seat": 1})
        assert joined.status_code == 200
        data = joined.json()
        assert set(data) == {"seat", "token", "link"}
        assert data["seat"] == 1
        assert TOKEN.match(data["token"])
        assert data["token"] != room["token"]
        assert data["link"] == f"/r/{code}#t={data['token']}"
        seats = (await get(base, f"/api/rooms/{code}")).json()["seats"]
        assert seats[1] == {"seat": 1, "name": "Ben", "kind": "person", "level": None, "online": False, "auto": False}
        async with RoomClient(base, code, data["token"]) as ben:
            state = await ben.until(lambda s: s["room"]["seats"][1]["online"])
            assert state["room"]["seats"][1]["name"] == "Ben"

    run(tmp_path, test)


def test_joining_a_seat_that_is_not_free(tmp_path: Path) -> None:
    async def test(base: str) -> None:
        room = await create_room(
            base, name="Anna", players=4, seats=[{"kind": "open"}, {"kind": "computer", "level": "easy"}]
        )
        code = room["code"]
        await join_room(base, code, 1, "Ben")
        before = await look(base, code)
        for seat in [0, 1, 2]:
            answer = await post(base, f"/api/rooms/{code}/join", json={"name": "Carl", "seat": seat})
            refused(answer, 409, "seat_taken", tr("web_error_seat_taken", "en", seat=seat))
        # a seat that does not exist is a bad request
        answer = await post(base, f"/api/rooms/{code}/join", json={"name": "Carl", "seat": 4})
        refused(answer, 400, "bad_request", tr("web_error_no_seat", "en", seat=4))
        number = tr("web_error_in_field", "en", field="seat", problem=tr("web_error_seat_number", "en"))
        for bad in [99, -1, 10**30, True, "3", 3.5, None, [3]]:
            answer = await post(base, f"/api/rooms/{code}/join", json={"name": "Carl", "seat": bad})
            refused(answer, 400, "bad_request", number, "seat")
        refused(await post(base, f"/api/rooms/{code}/join", json={"name": "Carl"}), 400, "bad_request", number, "seat")
        name = tr("web_error_in_field", "en", field="name", problem=tr("web_error_name", "en"))
        for bad in ["", "x" * 21, "Carl\x00", 5]:
            answer = await post(base, f"/api/rooms/{code}/join", json={"name": bad, "seat": 3})
            refused(answer, 400, "bad_request", name, "name")
        answer = await post(base, f"/api/rooms/{code}/join", content=b"[3]")
        refused(answer, 400, "bad_request", tr("web_error_json", "en"))
        answer = await post(base, "/api/rooms/ZZZZZZ/join", json={"name": "Carl", "seat": 3})
        refused(answer, 404, "no_room", tr("web_error_no_room", "en"))
        # nothing of that changed the room; seat 3 is still free
        assert (await look(base, code)) == before
        assert (await join_room(base, code, 3, "Carl"))["seat"] == 3

    run(tmp_path, test)


# (name sent, what the table answers: "ok" with the name kept, or the refusal's code)
NAMES_AT_THE_TABLE = [
    ("Ben", "ok", "Ben"),
    ("Zoe\u0308", "ok", "Zo\u00eb"),  # NFD is kept as NFC
    ("  Ben \u2800 Bo\u3164 ", "ok", "Ben Bo"),  # blank-looking characters are white space
    ("Computerfan", "ok", "Computerfan"),
    ("Anna", "name_taken", "Anna"),  # the host's own name
    ("ANNA", "name_taken", "Anna"),
    ("\u0410nna", "name_taken", "Anna"),  # a Cyrillic capital A
    ("\uff21\uff4e\uff4e\uff41", "name_taken", "Anna"),  # full-width letters
    ("A\u2800nna", "ok", "A nna"),  # a visible gap: another name
    ("Anna\u2800", "name_taken", "Anna"),
    ("Computer 3", "computer", None),  # the computer's own name
    ("Computer (easy)", "computer", None),
    ("c0mputer 3 (leicht)", "computer", None),
    ("Computer", "computer", None),
    ("\u3164", "invisible", None),
    ("\u2800\u2800", "invisible", None),
    ("\u115f\u1160 \uffa0", "invisible", None),
    ("\u0301", "invisible", None),  # a mark on nothing
]


@pytest.mark.parametrize(("sent", "outcome", "kept"), NAMES_AT_THE_TABLE)
def test_a_name_is_normalised_and_never_looks_like_another_seats(
    tmp_path: Path, sent: str, outcome: str, kept: str | None
) -> None:
    async def test(base: str) -> None:
        room = await create_room(
            base, name="Anna", players=4, seats=[{"kind": "open"}, {"kind": "computer", "level": "easy"}]
        )
        code = room["code"]
        answer = await post(base, f"/api/rooms/{code}/join", json={"name": sent, "seat": 1})
        seats = (await get(base, f"/api/rooms/{code}")).json()["seats"]
        if outcome == "ok":
            assert answer.status_code == 200, answer.text
            assert seats[1]["name"] == kept
            return
        assert seats[1]["kind"] == "open"  # nothing was taken
        if outcome == "name_taken":
            problem = tr("web_error_name_taken", "en", name=kept)
            refused(answer, 409, "name_taken", tr("web_error_in_field", "en", field="name", problem=problem), "name")
        else:
            key = "web_error_name_computer" if outcome == "computer" else "web_error_name"
            problem = tr("web_error_in_field", "en", field="name", problem=tr(key, "en"))
            refused(answer, 400, "bad_request", problem, "name")
            host = await post(base, "/api/rooms", json={"name": sent, "players": 3})
            refused(host, 400, "bad_request", problem, "name")

    run(tmp_path, test)


def test_a_second_guest_cannot_take_the_first_guests_name(tmp_path: Path) -> None:
    async def test(base: str) -> None:
        room = await create_room(base, name="Anna", players=4)
        code = room["code"]
        await join_room(base, code, 1, "Zoë")
        answer = await post(base, f"/api/rooms/{code}/join?lang=de", json={"name": "Zoe\u0308", "seat": 2})
        problem = tr("web_error_name_taken", "de", name="Zoë")
        refused(answer, 409, "name_taken", tr("web_error_in_field", "de", field="name", problem=problem), "name")
        assert (await post(base, f"/api/rooms/{code}/join", json={"name": "Zoé", "seat": 2})).status_code == 200

    run(tmp_path, test)


def test_joining_after_the_start_is_refused(tmp_path: Path) -> None:
    async def test(base: str) -> None:
        room = await create_room(base, name="Anna", players=3, pace=0, fill="easy")
        async with RoomClient(base, room["code"], room["token"]) as anna:
            await wait_online(anna, [0])
            await start(anna)
        with pytest.raises(ServerError) as refusal:
            await join_room(base, room["code"], 1, "Ben")
        assert refusal.value.status == 409
        assert refusal.value.code == "wrong_status"
        answer = await post(base, f"/api/rooms/{room['code']}/join?lang=de", json={"name": "Ben", "seat": 2})
        refused(answer, 409, "wrong_status", tr("web_error_started", "de"))

    run(tmp_path, test)


# -- records -------------------------------------------------------------------------


@pytest.mark.timeout(60)
def test_a_games_record_once_it_is_over(tmp_path: Path) -> None:
    async def test(base: str) -> None:
        code, tokens = await room_with_people(
            base, 1, name="Anna", players=2, pace=0, seats=[{"kind": "computer", "level": "easy"}]
        )
        async with RoomClient(base, code, tokens[0]) as anna:
            await start(anna)
            game_id = anna.state["game"]["id"]
            assert isinstance(game_id, int)
            missing = tr("web_error_no_game", "en")
            refused(await get(base, f"/api/games/{game_id}/record"), 404, "no_game", missing)
            end = await play_round(anna)
        answer = await get(base, f"/api/games/{game_id}/record")
        assert answer.status_code == 200
        assert answer.headers["content-disposition"] == f'attachment; filename="elferraus-{game_id}.json"'
        record = answer.json()
        assert record["format"] == "elferraus/1"
        game = read_record(record)
        assert game.is_over()
        result = end["game"]["result"]
        assert game.winner == result["winner"] == record["result"]["winner"]
        assert game.penalties() == result["penalties"] == record["result"]["penalties"]
        assert [[str(card) for card in game.hand(seat)] for seat in range(2)] == result["hands"]
        assert len(record["moves"]) == len(end["game"]["moves"])
        assert record["names"] == ["Anna", "Computer 2"]
        for unknown in [str(game_id + 1), "0", "-1", "abc", "1" * 12, "99999999999"]:
            refused(await get(base, f"/api/games/{unknown}/record"), 404, "no_game", missing)

    run(tmp_path, test)


def test_a_games_replay_once_it_is_over(tmp_path: Path) -> None:
    """Every position of a finished game, from the deal to the end, as the record replays it."""

    async def test(base: str) -> None:
        code, tokens = await room_with_people(
            base, 1, name="Anna", players=2, pace=0, seats=[{"kind": "computer", "level": "easy"}]
        )
        async with RoomClient(base, code, tokens[0]) as anna:
            await start(anna)
            game_id = anna.state["game"]["id"]
            missing = tr("web_error_no_game", "en")
            refused(await get(base, f"/api/games/{game_id}/replay"), 404, "no_game", missing)
            await play_round(anna)
        answer = await get(base, f"/api/games/{game_id}/replay")
        assert answer.status_code == 200
        assert answer.headers["content-encoding"] == "gzip"
        replay = answer.json()
        record = (await get(base, f"/api/games/{game_id}/record")).json()
        moves = record["moves"]
        assert set(replay) == {"game", "players", "names", "rules", "steps", "result"}
        assert (replay["game"], replay["players"], replay["names"]) == (game_id, 2, ["Anna", "Computer 2"])
        assert replay["rules"] == {"name": "classic", "key": "rules_classic", **Rules().to_dict()}
        assert len(replay["steps"]) == len(moves) + 1
        game = read_record({**record, "moves": [], "result": None})
        for index, step in enumerate(replay["steps"]):
            if index:
                game.push(parse_record_move(moves[index - 1])[1])
            hands = [[str(card) for card in game.hand(seat)] for seat in range(2)]
            fitting = game.fitting_cards()
            assert step == {
                "rows": {color.value: [low, high] for color, (low, high) in game.rows().items()},
                "slots": {letter: [c.number for c in fitting if c.color.value == letter] for letter in "RYGB"},
                "hands": hands,
                "fits": [str(card) for card in fitting if any(str(card) in hand for hand in hands)],
                "pile": game.pile_size(),
                "turn": None if game.is_over() else game.turn,
                "move": None if not index else message_of_move(moves[index - 1]),
                "last_lay": last_lay_of(moves[:index]),
            }, index
        winner = record["result"]["winner"]
        assert replay["result"] == {
            "winner": winner,
            "penalties": record["result"]["penalties"],
            "status": {"key": "winner_other", "params": {"seat": winner}},
        }
        for unknown in [str(game_id + 1), "0", "abc"]:
            refused(await get(base, f"/api/games/{unknown}/replay"), 404, "no_game", missing)

    run(tmp_path, test)


def message_of_move(text: str) -> dict[str, Any]:
    seat, action, *card = text.split()
    if action == "pass":
        return {"key": "did_pass", "params": {"seat": int(seat)}}
    if action == "draw":
        return {"key": "did_draw_card", "params": {"seat": int(seat), "card": card[0]}}
    return {"key": "did_lay", "params": {"seat": int(seat), "card": action}}


def last_lay_of(moves: list[str]) -> dict[str, Any] | None:
    lays = [text.split() for text in moves if text.split()[1] not in ("draw", "pass")]
    return {"seat": int(lays[-1][0]), "card": lays[-1][1]} if lays else None


def test_the_rules_presets(tmp_path: Path) -> None:
    async def test(base: str) -> None:
        answer = await get(base, "/api/rules")
        assert answer.status_code == 200
        data = answer.json()
        assert data["default"] == "classic"
        assert [preset["name"] for preset in data["presets"]] == list(PRESETS)
        for preset in data["presets"]:
            rules = PRESETS[preset["name"]]
            assert preset == {"name": preset["name"], "key": f"rules_{preset['name']}", **rules.to_dict()}
            assert preset["key"] in MESSAGES
        assert (await get(base, "/api/rules?lang=de")).json() == data

    run(tmp_path, test)


# -- words, health, the page ------------------------------------------------------------


def test_the_word_catalogue(tmp_path: Path) -> None:
    async def test(base: str) -> None:
        english = await get(base, "/api/messages")
        assert english.status_code == 200
        data = english.json()
        assert data["lang"] == "en"
        assert data["messages"]["web_error_no_room"] == "there is no room with this code"
        assert data["colors"]["R"] == "red"
        assert set(data["messages"]) == set(MESSAGES)
        german = (await get(base, "/api/messages?lang=de")).json()
        assert german["lang"] == "de"
        assert german["messages"]["web_error_no_room"] == "es gibt keinen Raum mit diesem Code"
        assert german["colors"] == {"R": "Rot", "Y": "Gelb", "G": "Grün", "B": "Blau"}
        assert german["messages"] == {key: pair[1] for key, pair in MESSAGES.items()}
        assert (await get(base, "/api/messages?lang=fr")).json() == data

    run(tmp_path, test)


def test_health(tmp_path: Path) -> None:
    async def test(base: str) -> None:
        answer = await get(base, "/healthz")
        assert answer.status_code == 200
        assert answer.text == "ok"

    run(tmp_path, test)


def test_the_page_routes(tmp_path: Path) -> None:
    async def test(base: str) -> None:
        room = await create_room(base, name="Anna", players=2)
        index = STATIC / "index.html"
        for path in ["/", f"/r/{room['code']}", "/r/ZZZZZZ", "/replay/1", "/rules", "/rules?lang=de"]:
            answer = await get(base, path)
            if index.exists():  # the page is being written elsewhere; only then can it be served
                assert answer.status_code == 200, path
                assert answer.headers["content-type"].startswith("text/html")
                assert answer.headers["cache-control"] == "no-cache"
                assert answer.text == index.read_text(encoding="utf-8")
        assert (await get(base, "/static/no-such-file.js")).status_code == 404
        assert (await get(base, "/api/no-such-route")).status_code == 404
        assert (await get(base, "/api/rooms")).status_code == 405

    run(tmp_path, test)


# -- the published API, headers, hostile input ------------------------------------


def test_the_api_is_published_as_an_openapi_document(tmp_path: Path) -> None:
    async def test(base: str) -> None:
        answer = await get(base, "/openapi.json")
        assert answer.status_code == 200
        document = answer.json()
        assert document["openapi"].startswith("3.")
        assert set(document["paths"]) == {
            "/api/rooms",
            "/api/rooms/{code}",
            "/api/rooms/{code}/join",
            "/api/games/{game}/record",
            "/api/games/{game}/replay",
            "/api/rules",
            "/api/messages",
            "/healthz",
        }
        schemas = document["components"]["schemas"]
        players = schemas["NewRoom"]["properties"]["players"]
        assert (players["minimum"], players["maximum"]) == (2, 6)
        assert schemas["Join"]["required"] == ["name", "seat"]
        assert set(schemas["Refusal"]["properties"]) == {"error", "message", "field"}
        create = document["paths"]["/api/rooms"]["post"]
        assert {"201", "400", "413", "429", "503"} <= set(create["responses"])
        record = document["paths"]["/api/games/{game}/record"]["get"]
        (game,) = [parameter for parameter in record["parameters"] if parameter["name"] == "game"]
        assert game["in"] == "path"
        assert game["schema"]["minimum"] == 1

    run(tmp_path, test)


def test_every_answer_carries_the_security_headers(tmp_path: Path) -> None:
    async def test(base: str) -> None:
        for path in ["/", "/r/ABCDEF", "/rules", "/static/js/app.js", "/healthz", "/openapi.json", "/api/rooms/ZZZZZZ"]:
            answer = await get(base, path)
            policy = answer.headers["content-security-policy"]
            assert "script-src 'self';" in policy, path
            assert "unsafe-inline" not in policy
            assert "unsafe-eval" not in policy
            assert "frame-ancestors 'none'" in policy
            assert answer.headers["x-content-type-options"] == "nosniff"
            assert answer.headers["referrer-policy"] == "no-referrer"
        created = await post(base, "/api/rooms", json={"name": "Anna"})
        assert created.headers["x-content-type-options"] == "nosniff"

    run(tmp_path, test)


@pytest.mark.parametrize(
    ("path", "location"),
    [
        ("/static", "/static/"),
        ("/static?lang=de", "/static/?lang=de"),
        ("/rules/", "/rules"),
        ("/rules/?lang=de", "/rules?lang=de"),
        ("/r/ABC234/", "/r/ABC234"),
        ("/api/rooms/", "/api/rooms"),
    ],
)
def test_a_redirect_never_names_the_host_the_request_sent(tmp_path: Path, path: str, location: str) -> None:
    """A forged ``Host`` is not reflected: every redirect is a path on the site itself."""

    async def test(base: str) -> None:
        async with httpx.AsyncClient(base_url=base, timeout=10) as http:
            for host in ("evil.example", "evil.example:8443", "127.0.0.1"):
                answer = await http.get(path, headers={"Host": host}, follow_redirects=False)
                assert answer.status_code == 307, (path, host)
                assert answer.headers["location"] == location, (path, host)
            followed = await http.get(path, follow_redirects=True)
            assert followed.url.path == location.partition("?")[0]

    run(tmp_path, test)


def test_the_pages_files_are_checked_by_etag_alone(tmp_path: Path) -> None:
    """The documents and the static files are revalidated on every load by their ETag: no Last-Modified,
    no Accept-Ranges (a range of a file is not a range of its compressed body), and a 304 when unchanged."""

    async def test(base: str) -> None:
        async with httpx.AsyncClient(base_url=base, timeout=10) as http:
            for path in ["/", "/r/ABCDEF", "/static/js/app.js", "/static/css/app.css", "/static/icons/favicon.svg"]:
                answer = await http.get(path, headers={"accept-encoding": "gzip"})
                assert answer.status_code == 200, path
                assert answer.headers["cache-control"] == "no-cache", path
                assert "last-modified" not in answer.headers, path
                assert "accept-ranges" not in answer.headers, path
                again = await http.get(path, headers={"if-none-match": answer.headers["etag"]})
                assert again.status_code == 304, path
                assert again.content == b"", path

    run(tmp_path, test)


def test_hostile_numbers_and_characters_get_a_clear_refusal(tmp_path: Path) -> None:
    async def test(base: str) -> None:
        missing = tr("web_error_no_game", "en")
        for game in ["²", "①", "١٢", "0", "-1", "1.5", "1e3", "9" * 30, "%00", "%F0%9F%83%8F"]:
            refused(await get(base, f"/api/games/{game}/record"), 404, "no_game", missing)
        for code in ["²²²²²²", "ABCDE①", "ABCDEFG", "%00%00%00%00%00%00"]:
            refused(await get(base, f"/api/rooms/{code}"), 404, "no_room", tr("web_error_no_room", "en"))
        headers = {"content-type": "application/json"}
        huge = b"1" * 5001
        body = b'{"name": "Anna", "players": ' + huge + b"}"
        refused(
            await post(base, "/api/rooms", content=body, headers=headers),
            400,
            "bad_request",
            tr("web_error_json", "en"),
        )
        room = (await post(base, "/api/rooms", json={"name": "Anna"})).json()
        body = b'{"name": "Ben", "seat": ' + huge + b"}"
        answer = await post(base, f"/api/rooms/{room['code']}/join", content=body, headers=headers)
        refused(answer, 400, "bad_request", tr("web_error_json", "en"))
        name = tr("web_error_in_field", "en", field="name", problem=tr("web_error_name", "en"))
        for text in [b'"\\ud800"', b'"Anna\\udfff"', b'"\\u0000"']:
            body = b'{"name": ' + text + b', "seat": 1}'
            answer = await post(base, f"/api/rooms/{room['code']}/join", content=body, headers=headers)
            refused(answer, 400, "bad_request", name, "name")
        # nothing of that took the seat
        assert (await get(base, f"/api/rooms/{room['code']}")).json()["seats"][1]["kind"] == "open"

    run(tmp_path, test)
