"""The page's words are the terminal's: the same positions, worded by the page and by ``elferraus.table.words``.

Two people play a round over real WebSockets, both driven from Python; a
player's page (seat 0, a German phone) and a spectator's page (an English
desktop) show it in a real browser.
At every position where nothing happens by itself (another's turn, a turn
after a lay, after draws, ...) and at the end, the status line, each
player's last turn, the move log and the note of a move made for the player
are read off both pages; afterwards the finished record is replayed to each
of those positions and worded as the terminal words it (``status_line``,
``describe_turn``, ``log_line``, ...). Then each page switches to the other's
language and the last position is compared once more.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from websockets.sync.client import ClientConnection, connect

from elferraus.game import Game
from elferraus.i18n import Lang, tr
from elferraus.record import read_record
from elferraus.server.client import whole_log
from elferraus.table.words import (
    describe_turn,
    is_opening,
    last_turns,
    log_line,
    made_for_done_line,
    status,
    status_line,
)
from tests.server.static.test_browser import (  # noqa: F401 (the browser tests' fixtures)
    DESKTOP_EN,
    PHONE_DE,
    Device,
    Problems,
    Server,
    contexts,
    open_device,
    problems,
    server,
    shot,
    wait_until,
)

NAMES = ["Anna", "Ben"]

# What a page shows of the game's words, read in one go.
READ = """() => {
  const q = (s) => document.querySelector(s);
  const text = (el) => (el ? el.textContent : null);
  const note = q('[data-testid="made-for"]');
  const result = q('[data-testid="result"]');
  return {
    lang: document.documentElement.lang,
    status: text(q('[data-testid="status"]')),
    last: Object.fromEntries([0, 1].map((s) => [s, text(q(`[data-testid="seat-${s}"] .seat-last`))])),
    log: [...document.querySelectorAll('[data-testid="log"] li')].map((li) => li.textContent),
    lastMove: text(q('[data-testid="last-move"]')),
    note: note && !note.hidden ? note.textContent : null,
    winner: result && !result.hidden ? text(q('[data-testid="winner"]')) : null,
  };
}"""


class Player:
    """One WebSocket connection to the room (a seat's token, or none to watch), read without waiting."""

    def __init__(self, socket: ClientConnection, token: str | None) -> None:
        self.socket = socket
        self.socket.send(json.dumps({"type": "hello", "token": token, "lang": "en"}))
        self.state: dict[str, Any] = {}
        self.errors: list[dict[str, Any]] = []

    def drain(self, quiet: float) -> None:
        """Take every frame until none comes for ``quiet`` seconds."""
        while True:
            try:
                message = json.loads(self.socket.recv(timeout=quiet))
            except TimeoutError:
                return
            if message["type"] == "state":
                whole_log(message, self.state)  # a connection sends each move once
                self.state = message
            elif message["type"] == "error":
                self.errors.append(message)

    def move(self, move: str) -> None:
        self.socket.send(json.dumps({"type": "move", "move": move, "seq": self.state["seq"]}))


def settle(players: list[Player], deadline: float, after: int | None = None) -> dict[str, Any]:
    """Wait until nothing happens by itself any more: the round is over, or the seat to move has a choice
    (a person's only legal move is made for him by the table: its view names the move ``making``), or
    nothing has changed for a while (then the test makes that move). Returns the newest state of seat 0.

    ``after``: the room's change number when the test sent its last move. Until a newer state comes, that
    move is still on its way (on a loaded machine it may take longer than any quiet spell), so the state
    at hand is not yet the one to read the page by."""
    seq, since = None, time.monotonic()
    while True:
        if time.monotonic() > deadline:
            states = [{key: player.state.get(key) for key in ("seq", "view", "game")} for player in players]
            raise AssertionError(f"the game did not settle in time: {json.dumps(states)[:3000]}")
        for player in players:
            player.drain(0.04)
        anna = players[0].state
        if not anna or anna["game"] is None or anna["room"]["status"] == "waiting":
            continue
        if len({player.state["seq"] for player in players}) > 1 or anna["seq"] == after:
            continue
        if anna["seq"] != seq:
            seq, since = anna["seq"], time.monotonic()
        if anna["room"]["status"] != "playing":
            return anna
        mover = players[anna["game"]["turn"]].state
        if mover["view"]["making"] is not None:
            continue  # the table makes that move itself, however long a loaded machine takes
        if len(mover["view"]["legal"]) >= 2 or time.monotonic() - since > 0.15:
            return anna


def choose(legal: list[str], rng: random.Random) -> str:
    """Mostly lay, sometimes draw while laying is possible, end the turn when nothing else is wanted."""
    lays = [move for move in legal if move not in ("draw", "pass")]
    roll = rng.random()
    if "draw" in legal and (not lays or roll < 0.25):
        return "draw"
    if lays and ("pass" not in legal or roll < 0.7):
        return rng.choice(lays)
    return "pass" if "pass" in legal else legal[0]


def read(page: Page, moves: int) -> dict[str, Any]:
    """What the page shows once it has drawn the position after ``moves`` moves."""
    try:
        wait_until(page, f"document.querySelectorAll('[data-testid=\"log\"] li').length === {moves}")
    except AssertionError as error:
        body = page.evaluate("document.body.innerText")
        raise AssertionError(f"{error}; the page shows {page.evaluate(READ)} at {page.url}: {body[:500]}") from None
    shown: dict[str, Any] = page.evaluate(READ)
    return shown


@dataclass
class Seen:
    moves: int
    player: dict[str, Any]
    watcher: dict[str, Any]


def position(record: dict[str, Any], moves: int) -> Game:
    """The game after the first ``moves`` moves of the finished ``record``."""
    done = moves == len(record["moves"])
    return read_record({**record, "moves": record["moves"][:moves], "result": record["result"] if done else None})


def expected_player(game: Game, lang: Lang) -> dict[str, Any]:
    """Seat 0's words, as the terminal words them."""
    view = game.view(0)
    moves = list(view.moves)
    if game.winner is not None:
        line = tr("winner_you", lang) if game.winner == 0 else tr("winner_other", lang, name=NAMES[game.winner])
    elif game.turn == 0:
        line = status_line(view, lang)
    else:
        line = tr("status_other", lang, name=NAMES[game.turn])
    log = [log_line(text, NAMES, lang, you=0, show_draws=True) for text in moves]
    ben = describe_turn(last_turns(moves, 2)[1], opening=is_opening(moves, 1), lang=lang)
    return {
        "status": line,
        "last": {"1": ben or None},
        "log": log,
        "lastMove": log[-1] if log else "",
        "winner": line if game.winner is not None else None,
    }


def expected_watcher(game: Game, lang: Lang) -> dict[str, Any]:
    """A spectator's words: nobody is "you", every drawn card hidden."""
    moves = [" ".join(text.split()[:2]) if " draw " in text else text for text in game.record_moves()]
    if game.winner is not None:
        line = tr("winner_other", lang, name=NAMES[game.winner])
    else:
        line = tr("status_other", lang, name=NAMES[game.turn])
    log = [log_line(text, NAMES, lang, you=None, show_draws=False) for text in game.record_moves()]
    turns = last_turns(moves, 2)
    return {
        "status": line,
        "last": {
            str(seat): describe_turn(turns[seat], opening=is_opening(moves, seat), lang=lang) or None for seat in (0, 1)
        },
        "log": log,
        "lastMove": log[-1] if log else "",
        "winner": line if game.winner is not None else None,
    }


def made_for_note(game: Game, lang: Lang) -> str | None:
    """The note of the move made for seat 0 that ended its latest turn, if it had no choice there."""
    history = game.history()
    for index in range(len(history) - 1, -1, -1):
        if history[index][0] == 0:
            probe = game.copy()
            while probe.move_count > index + 1:
                probe.pop()
            after = probe.view(0)
            move = probe.pop()
            if len(probe.legal_moves()) != 1:
                return None
            return made_for_done_line(probe.view(0), move, after, lang)
    return None


def compare(seen: Seen, record: dict[str, Any], lang: Lang, watcher_lang: Lang) -> list[str]:
    """Every difference between the pages' words and the terminal's at this position: the player's page
    in ``lang``, the spectator's in ``watcher_lang``."""
    game = position(record, seen.moves)
    found = []
    for who, shown, expected, shown_lang in (
        ("player", seen.player, expected_player(game, lang), lang),
        ("spectator", seen.watcher, expected_watcher(game, watcher_lang), watcher_lang),
    ):
        assert shown["lang"] == shown_lang, shown
        for key, value in expected.items():
            got = {seat: shown["last"][seat] for seat in value} if key == "last" else shown[key]
            if got != value:
                found.append(f"after {seen.moves} moves, the {who}'s {key}: page {got!r}, words {value!r}")
    note = seen.player["note"]
    if note is not None and note != made_for_note(game, lang):
        found.append(f"after {seen.moves} moves, the note: page {note!r}, words {made_for_note(game, lang)!r}")
    return found


def lang_of(device: Device) -> Lang:
    return "de" if device.lang == "de" else "en"


@pytest.mark.timeout(240)
def test_the_page_words_every_position_as_the_terminal_does(
    server: Server,  # noqa: F811 (the fixtures imported above)
    browser: Browser,
    contexts: list[BrowserContext],  # noqa: F811
    problems: Problems,  # noqa: F811
) -> None:
    """The player on a German phone, the spectator on an English desktop; at the end both switch."""
    device, watcher_device = PHONE_DE, DESKTOP_EN
    lang, watcher_lang = lang_of(device), lang_of(watcher_device)
    room = server.post(
        "/api/rooms",
        {"name": NAMES[0], "players": 2, "rules": "classic", "seats": [{"kind": "open"}], "away": 600, "pace": 0},
    )
    ben = server.post(f"/api/rooms/{room['code']}/join", {"name": NAMES[1], "seat": 1})
    page = open_device(browser, contexts, device, problems, "player")
    page.goto(server.base + room["link"] + "&s=0")
    watcher = open_device(browser, contexts, watcher_device, problems, "spectator")
    watcher.goto(f"{server.base}/r/{room['code']}")
    address = server.base.replace("http://", "ws://") + f"/ws/{room['code']}"
    with connect(address) as anna_socket, connect(address) as ben_socket:
        players = [Player(anna_socket, room["token"]), Player(ben_socket, ben["token"])]
        expect(page.get_by_test_id("start")).to_be_visible()
        page.get_by_test_id("start").click()
        rng = random.Random(device.name)
        seen: list[Seen] = []
        deadline = time.monotonic() + 180
        sent = None
        while True:
            state = settle(players, deadline, sent)
            moves = len(state["game"]["moves"])
            seen.append(Seen(moves, read(page, moves), read(watcher, moves)))
            if state["room"]["status"] != "playing":
                break
            mover = players[state["game"]["turn"]]
            sent = state["seq"]
            mover.move(choose(mover.state["view"]["legal"], rng))
            mover.drain(0.05)
            assert all(error["code"] == "stale" for error in mover.errors), mover.errors
        shot(page, f"words-{device.name}-player-end")
        shot(watcher, f"words-{watcher_device.name}-spectator-end")
        game_id = state["game"]["id"]
        record = server.get(f"/api/games/{game_id}/record")

        found = [problem for item in seen for problem in compare(item, record, lang, watcher_lang)]
        assert not found, "\n".join(found[:20])

        # the positions were of every kind: another's turn, after a lay, after a draw, the end
        kinds = set()
        for item in seen[:-1]:
            game = position(record, item.moves)
            kinds.add(status(game.view(0))[0] if game.turn == 0 else "other")
        assert {"other", "status_laid"} <= kinds, kinds
        assert kinds & {"status_drawn_fits", "status_draw_done", "status_draw_again"}, kinds
        assert position(record, seen[-1].moves).winner is not None
        assert any(item.player["last"]["1"] for item in seen)

        # the same words in the other language, from the same frame
        for shown, now in ((page, watcher_lang), (watcher, lang)):
            shown.get_by_test_id("lang-switch").click()
            wait_until(shown, f"document.documentElement.lang === '{now}'")
        again = Seen(seen[-1].moves, read(page, seen[-1].moves), read(watcher, seen[-1].moves))
        found = compare(again, record, watcher_lang, lang)
        assert not found, "\n".join(found)
