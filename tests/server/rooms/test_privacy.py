"""No frame a client receives while a round runs shows a card hidden from it.

Whole games are played over real WebSockets, recording every frame each
client gets; afterwards the true game is rebuilt from its finished record
and every frame is checked against where each card was at that moment.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from elferraus.cards import CARDS
from elferraus.deal import derive_seed
from elferraus.game import Game
from elferraus.record import write_record
from elferraus.rules import Rules
from elferraus.server.client import RoomClient, whole_log
from tests.support.server_helpers import (
    CARD_TOKEN,
    OVER,
    act,
    get,
    leaks,
    play_round,
    room_with_people,
    start,
    wait_online,
)
from tests.support.web_helpers import serving


def illegal_move(view: dict[str, Any], kind: int) -> str | None:
    """A move the seat may not make now, of one of four kinds (tried from ``kind`` on)."""
    hand, legal = view["hand"], view["legal"]
    laid = {f"{color}{n}" for color, (low, high) in view["rows"].items() for n in range(low, high + 1)}
    options = [
        next((card for card in hand if card not in legal), None),
        "pass" if "pass" not in legal else None,
        "draw" if "draw" not in legal else None,
        next((str(card) for card in CARDS if str(card) not in hand and str(card) not in laid), None),
    ]
    for step in range(len(options)):
        option = options[(kind + step) % len(options)]
        if option is not None:
            return option
    return None


class Mischief:
    """Before some of a person's moves, an illegal one (whose answer must leak nothing either)."""

    def __init__(self) -> None:
        self.named: set[str] = set()
        self.refused = 0
        self._done: set[tuple[int, int]] = set()
        self._kinds = itertools.count()

    async def __call__(self, client: RoomClient, state: dict[str, Any]) -> None:
        view = state["view"]
        at = (state["game"]["id"], len(view["moves"]))
        if at[1] % 3 or at in self._done:
            return
        self._done.add(at)
        move = illegal_move(view, next(self._kinds))
        if move is None:
            return
        self.named.update(CARD_TOKEN.findall(move))
        answer = await act(client, move)
        assert answer["type"] == "error", answer
        assert answer["code"] in ("illegal", "stale"), answer
        self.refused += answer["code"] == "illegal"


def words_of(frames: list[str], seat: int | None) -> int:
    """Check the words each state carries (the scan of :func:`leaks` covers every field of them): the
    shared ones say nothing only a seat may know, the seat's own ones nothing of another seat's draws.
    Returns how many states of running rounds were checked."""
    checked = 0
    previous = None
    for text in frames:
        message = json.loads(text)
        if message["type"] == "state":
            whole_log(message, previous)  # a connection sends each move once
            previous = message
        if message["type"] != "state" or message["game"] is None or message["room"]["status"] != "playing":
            continue
        game, view = message["game"], message["view"]
        assert {"turns", "status", "slots", "last_lay", "rules"} <= set(game)
        assert ("log" in game) == (seat is None)  # a player reads his own log in VIEW
        assert len(game.get("log", game["moves"])) == len(game["moves"])
        assert len(game["turns"]) == len(game["hand_counts"])
        for line in game.get("log", []):  # a spectator's log: nobody is "you", no drawn card is named
            assert not line["key"].startswith("you_"), line
            assert line["key"] != "did_draw_card", line
            assert set(line["params"]) <= {"seat", "card"}
        assert all(set(turn["params"]) <= {"n", "cards", "card"} for turn in game["turns"] if turn)
        if seat is None:
            assert view is None
        else:
            assert {"log", "made_for", "prompt"} <= set(view)
            for line, text_of_move in zip(view["log"], view["moves"], strict=True):
                mover = int(text_of_move.split()[0])
                assert line["key"] != "did_draw_card", line  # another seat's drawn card, never
                assert line["key"].startswith("you_") == (mover == seat), line
        checked += 1
    return checked


async def play_and_check(
    base: str, people: int, langs: list[str], *, spectator: bool, **settings: Any
) -> dict[str, Any]:
    """Play a whole match; check every frame of every client; return what happened."""
    code, tokens = await room_with_people(base, people, pace=0, **settings)
    clients = [RoomClient(base, code, token, lang) for token, lang in zip(tokens, langs, strict=True)]
    watchers = [RoomClient(base, code, None)] if spectator else []
    mischief = [Mischief() for _ in clients]
    for client in (*clients, *watchers):
        await client.__aenter__()
    try:
        await wait_online(clients[0], list(range(people)))
        await start(clients[0], *clients[1:], *watchers)
        running = clients[0].state["game"]["id"]
        for path in ("record", "replay"):  # a game's record and replay are public once it is over, not before
            assert (await get(base, f"/api/games/{running}/{path}")).status_code == 404
        game_ids = []
        while True:
            results = await asyncio.gather(
                *(play_round(client, before=bad) for client, bad in zip(clients, mischief, strict=True)),
                *(watcher.until(lambda s: s["room"]["status"] in OVER, 60) for watcher in watchers),
            )
            game_ids.append(results[0]["game"]["id"])
            if results[0]["room"]["status"] == "match_over":
                break
            await clients[0].send({"type": "next"})
            for client in (*clients, *watchers):
                await client.until(lambda s: s["room"]["status"] == "playing", 10)
        records = {}
        for game_id in game_ids:
            answer = await get(base, f"/api/games/{game_id}/record")
            assert answer.status_code == 200
            records[game_id] = answer.json()
        checked = []
        for seat, (client, bad) in enumerate(zip(clients, mischief, strict=True)):
            found, count = leaks(client.received, seat, records, frozenset(bad.named))
            assert not found
            checked.append(count)
        for seat, client in enumerate(clients):
            assert words_of(client.received, seat) > 10
        for watcher in watchers:
            found, count = leaks(watcher.received, None, records)
            assert not found
            checked.append(count)
            assert words_of(watcher.received, None) > 10
            for text in watcher.received:
                message = json.loads(text)
                if message["type"] == "state" and message["game"] is not None:
                    assert message["view"] is None
        # every client saw (and had checked) many frames of running rounds, errors among them
        assert min(checked) > 10
        return {"records": records, "clients": clients, "watchers": watchers, "mischief": mischief}
    finally:
        for client in (*clients, *watchers):
            await client.close()


@pytest.mark.timeout(120)
def test_two_people_two_computers_classic(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(str(tmp_path / "rooms.db")) as base:
            seen = await play_and_check(
                base,
                2,
                ["en", "de"],
                spectator=False,
                name="Anna",
                players=4,
                rules="classic",
                seats=[
                    {"kind": "open"},
                    {"kind": "computer", "level": "medium"},
                    {"kind": "computer", "level": "easy"},
                ],
            )
            assert len(seen["records"]) == 1
            assert sum(bad.refused for bad in seen["mischief"]) > 0

    asyncio.run(main())


@pytest.mark.timeout(120)
def test_three_people_one_computer_and_a_spectator(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(str(tmp_path / "rooms.db")) as base:
            seen = await play_and_check(
                base,
                3,
                ["en", "de", "en"],
                spectator=True,
                name="Anna",
                players=4,
                rules="ravensburger",
                seats=[{"kind": "open"}, {"kind": "open"}, {"kind": "computer", "level": "easy"}],
            )
            assert sum(bad.refused for bad in seen["mischief"]) > 0
            watcher = seen["watchers"][0]
            assert watcher.state["game"]["result"] is not None

    asyncio.run(main())


@pytest.mark.timeout(120)
def test_beginners_two_rounds_with_a_spectator(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(str(tmp_path / "rooms.db")) as base:
            seen = await play_and_check(
                base,
                2,
                ["de", "en"],
                spectator=True,
                name="Anna",
                players=3,
                rules="beginners",
                rounds=2,
                seats=[{"kind": "open"}, {"kind": "computer", "level": "medium"}],
            )
            assert len(seen["records"]) == 2
            for record in seen["records"].values():
                assert all(not card.startswith("B") for hand in record["hands"] for card in hand)

    asyncio.run(main())


def test_the_check_itself_finds_a_leak() -> None:
    """The checker is not blind: a frame naming a card hidden from its reader is reported."""
    game = Game.deal(players=2, seed=3)
    game.push(game.legal_moves()[0])
    record = write_record(game)
    mover = 1 - game.turn
    secret = str(game.hand(game.turn)[0])
    laid = record["moves"][0].split()[1]

    def frame(note: str, kind: str = "state") -> str:
        game_part = {"id": 7, "moves": record["moves"], "result": None, "note": note}
        return json.dumps({"type": kind, "seq": 1, "room": {"status": "playing"}, "view": None, "game": game_part})

    records = {7: record}
    assert leaks([frame(secret)], mover, records)[0]
    assert leaks([frame(secret)], None, records)[0]
    assert not leaks([frame(secret)], game.turn, records)[0]
    assert leaks([frame(laid)], None, records) == ([], 1)
    error = json.dumps({"type": "error", "code": "illegal", "message": f"you do not hold {secret}", "seq": 1})
    assert leaks([frame(""), error], mover, records)[0]
    assert leaks([frame(""), error], mover, records, frozenset({secret})) == ([], 2)


@pytest.mark.timeout(90)
def test_a_finished_rounds_record_does_not_give_away_the_next_deal(tmp_path: Path) -> None:
    """While round 2 runs, round 1's public record must not let anyone compute round 2's hands."""

    async def main() -> None:
        async with serving(str(tmp_path / "rooms.db")) as base:
            code, tokens = await room_with_people(
                base, 1, name="Anna", players=2, rounds=2, pace=0, seats=[{"kind": "computer", "level": "easy"}]
            )
            async with RoomClient(base, code, tokens[0]) as host:
                await start(host)
                first = await play_round(host)
                await host.send({"type": "next"})
                second = await host.until(lambda s: s["room"]["status"] == "playing" and s["room"]["round"] == 2)
                answer = await get(base, f"/api/games/{first['game']['id']}/record")
                assert answer.status_code == 200
                record = answer.json()
                # the seat's own round-2 hand: if the record's seed reproduces it, it reproduces every hand and the pile
                my_hand = sorted(second["view"]["hand"])
                seed = record.get("match", {}).get("seed")
                if seed is not None:
                    guess = Game.deal(2, derive_seed(seed, 1), Rules.from_dict(record["rules"]))
                    assert sorted(str(card) for card in guess.hand(0)) != my_hand, (
                        "round 1's record holds the match seed, from which round 2's deal (the computer's hand "
                        "and the pile order) follows while round 2 is still being played"
                    )

    asyncio.run(main())
