"""Every word the server sends the page is a message of the catalogue, in both languages, and says what
the terminal says.

Whole games are played (every preset, 2-6 players); at each position every
payload the page may get (each seat's ``VIEW``, with and without a move
made for it, the ``GAME``, the replay, the presets) is searched for
messages (``{"key", "params"}``), and each is checked: its keys are in
``messages.toml`` in English and German and every placeholder is filled.
Then the words are compared with the terminal's (``elferraus.table.words``).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from elferraus.game import Game
from elferraus.i18n import LANGUAGES, MESSAGES, Lang
from elferraus.moves import DRAW
from elferraus.record import write_record
from elferraus.server.rooms.payloads import (
    game_payload,
    game_text,
    hidden_moves,
    presets_payload,
    replay_payload,
    spectator_log,
    view_payload,
    view_text,
)
from elferraus.table.words import describe_turn, is_opening, last_turns, log_line, made_for_done, say, status_line

NAMES = ["Anna", "Ben", "Cleo", "Dora", "Emil", "Fritz"]
PLACEHOLDER = re.compile(r"\{\w+\}")


def messages(data: Any) -> Iterator[dict[str, Any]]:
    """Every message (a dict with ``key`` and ``params``) anywhere in a payload."""
    if isinstance(data, dict):
        if set(data) >= {"key", "params"} and isinstance(data["key"], str):
            yield data
            return
        for value in data.values():
            yield from messages(value)
    elif isinstance(data, list):
        for value in data:
            yield from messages(value)


def word(message: dict[str, Any], lang: Lang, *, you: int | None = None, names: list[str] = NAMES) -> str:
    """A message as the page words it (docs/web-protocol.md): ``seat``/``seats`` as names, ``you`` for the
    reader at ``params.seat``."""
    key = message["key"]
    if message.get("you") and you is not None and message["params"].get("seat") == you:
        key = message["you"]
    return say(key, message["params"], names, lang)


def check(message: dict[str, Any], players: int) -> None:
    assert set(message) <= {"key", "params", "you"}, message
    for key in filter(None, (message["key"], message.get("you"))):
        assert key in MESSAGES, f"{key} is not in messages.toml"
        english, german = MESSAGES[key]
        assert english, key
        assert german, key
    params = message["params"]
    assert all(isinstance(value, str | int | list) for value in params.values()), message
    if "seat" in params:
        assert 0 <= params["seat"] < players
    for lang in LANGUAGES:
        for you in (None, params.get("seat")):
            text = word(message, lang, you=you)
            assert text, (message, lang)
            assert not PLACEHOLDER.search(text), (message, lang, text)


def games(seed: int, rules: str, players: int) -> Iterator[Game]:
    """A game played at random, as the server holds it (names, computers, a match of two rounds), at every
    position."""
    rng = random.Random(seed)
    game = Game.deal(players, seed, rules)
    game.metadata.update(
        names=NAMES[:players],
        bots=["human", *["easy"] * (players - 1)],
        match={"rounds": 2, "target": None, "scores": [[rng.randrange(30) for _ in range(players)]]},
    )
    yield game
    while not game.is_over():
        game.push(rng.choice(game.legal_moves()))
        yield game


CASES = [
    (seed, rules, players)
    for seed, (rules, players) in enumerate(
        [("classic", 2), ("classic", 4), ("ravensburger", 3), ("ravensburger", 6), ("beginners", 2), ("beginners", 5)]
    )
]


@pytest.mark.parametrize(("seed", "rules", "players"), CASES)
def test_every_message_of_every_payload_is_in_the_catalogue(seed: int, rules: str, players: int) -> None:
    keys: set[str] = set()
    for game in games(seed, rules, players):
        payloads: list[Any] = [
            game_payload(game, 1, hidden_moves(game), stand_ins={1}),
            spectator_log(hidden_moves(game)),
        ]
        for seat in range(players):
            payloads.append(view_payload(game.view(seat)))
        if not game.is_over() and len(game.legal_moves()) == 1:  # a move the table would make for a person
            seat, (move,) = game.turn, game.legal_moves()
            before = game.view(seat)
            payloads.append(view_payload(before, making=move))
            after = game.copy()
            after.push(move)
            note = made_for_done(before, move, after.view(seat))
            payloads.append(view_payload(after.view(seat), made_for=note))
        for payload in payloads:
            for message in messages(payload):
                check(message, players)
                keys.add(message["key"])
    payloads = [replay_payload(write_record(game), 1), presets_payload()]
    for message in messages(payloads[0]):
        check(message, players)
        keys.add(message["key"])
    for preset in payloads[1]["presets"]:
        assert preset["key"] in MESSAGES
    # what a round says, from its first move to its result
    assert {"did_lay", "did_pass", "you_lay", "you_pass", "winner_other", "match_over_other"} <= keys
    if any(" draw " in text for text in game.record_moves()):
        assert {"did_draw", "did_draw_card", "you_draw"} <= keys
    assert keys & {"status_opening", "status_fresh", "status_fresh_must"}
    assert {"made_soon_open", "made_open"} <= keys  # the opening 11 is always made for its holder


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize(("seed", "rules", "players"), CASES[:4])
def test_the_payloads_words_are_the_terminals(seed: int, rules: str, players: int, lang: Lang) -> None:
    """What the page shows, worded from the payloads, is what ``elferraus.table.words`` says for the same position."""
    names = NAMES[:players]
    for game in games(seed, rules, players):
        shared = game_payload(game, 1, hidden_moves(game))
        public = hidden_moves(game)
        turns = last_turns(public, players)
        for seat in range(players):
            shown = word(shared["turns"][seat], lang, names=names) if shared["turns"][seat] else ""
            assert shown == describe_turn(turns[seat], opening=is_opening(public, seat), lang=lang)
        log = [log_line(text, names, lang, you=None, show_draws=False) for text in game.record_moves()]
        assert [word(line, lang, names=names) for line in spectator_log(public)] == log
        for seat in range(players):
            view = game.view(seat)
            data = view_payload(view)
            own = [log_line(text, names, lang, you=seat, show_draws=True) for text in view.moves]
            assert [word(line, lang, you=seat, names=names) for line in data["log"]] == own
            status = data["prompt"] or shared["status"]
            if game.winner is not None:
                expected = say(
                    *(("winner_you", {}) if game.winner == seat else ("winner_other", {"seat": game.winner})),
                    names,
                    lang,
                )
            elif game.turn == seat:
                expected = status_line(view, lang)
            else:
                expected = say("status_thinking" if game.turn else "status_other", {"seat": game.turn}, names, lang)
            assert word(status, lang, you=seat, names=names) == expected


@pytest.mark.parametrize(("seed", "rules", "players"), CASES[:3])
def test_the_payloads_sent_as_text_are_the_payloads(seed: int, rules: str, players: int) -> None:
    """The JSON text the rooms send (joined from cached pieces) holds exactly the payloads' data."""
    for game in games(seed, rules, players):
        moves = hidden_moves(game)
        shared = game_payload(game, 1, moves)
        assert json.loads(game_text(shared, spectator=False)) == {**shared, "log_from": 0}
        log = spectator_log(moves)
        assert json.loads(game_text(shared, spectator=True)) == {**shared, "log_from": 0, "log": log}
        start = len(moves) // 2  # a connection that has sent the first half of the moves sends the rest
        assert json.loads(game_text(shared, spectator=False, log_from=start)) == {
            **shared,
            "log_from": start,
            "moves": moves[start:],
        }
        assert json.loads(game_text(shared, spectator=True, log_from=start)) == {
            **shared,
            "log_from": start,
            "moves": moves[start:],
            "log": log[start:],
        }
        for seat in range(players):
            view = game.view(seat)
            for made_for in (None, made_for_done(view, DRAW, view) if view.draws else ("made_pass", {})):
                whole = view_payload(view, made_for=made_for)
                assert json.loads(view_text(view, made_for=made_for)) == whole
                rest = json.loads(view_text(view, made_for=made_for, log_from=start))
                assert rest == {
                    **whole,
                    "log_from": start,
                    "moves": whole["moves"][start:],
                    "log": whole["log"][start:],
                }


@pytest.mark.parametrize(("seed", "rules", "players"), CASES)
def test_the_note_of_a_move_made_for_a_seat_is_gone_once_the_game_is_over(seed: int, rules: str, players: int) -> None:
    """While the game is under way the note says what was made for the seat; at its end the result speaks, and
    a note left from the last turn ("nothing else is possible: your turn ends") would only confuse."""
    for game in games(seed, rules, players):
        for seat in range(players):
            view = game.view(seat)
            for made_for in (("made_pass", {}), ("made_lay", {"card": "R12"})):
                note = view_payload(view, made_for=made_for)["made_for"]
                assert (note is None) == game.is_over(), (game.move_count, seat, made_for, note)
                assert json.loads(view_text(view, made_for=made_for))["made_for"] == note
