"""What each client is told: built from its own seat's view, never from the whole game.

While a round runs, a person's payload holds his own hand and nothing of any
other hand or the pile order; a spectator's holds no hand at all and every
draw hidden. Once the round is over the hands are public.

Every word the page shows of the game comes from here as a *message*:
``{"key", "params"}``, a key of ``/api/messages`` with its parameters, made
by :mod:`elferraus.table.words` (a parameter ``seat`` stands for that seat's name,
``seats`` for several). A message shared by every reader may carry ``"you"``:
the key the reader holding ``params.seat`` reads instead ("You won!"). The
page only fills them in; it decides nothing about the game
(docs/web-protocol.md).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from elferraus.cards import Card, Color
from elferraus.game import Game
from elferraus.match import Match
from elferraus.moves import Move
from elferraus.record import read_record
from elferraus.rules import PRESETS, Rules
from elferraus.table.coach import moment
from elferraus.table.words import (
    Message,
    last_laid,
    last_turn_messages,
    log_message,
    made_for_coming,
    match_message,
    move_message,
    status,
    turn_status,
    winner_message,
)
from elferraus.view import SeatView


def message(words: Message, *, you: str | None = None) -> dict[str, Any]:
    """A message as sent: ``{"key", "params"}``, with ``"you"`` if the reader at ``params.seat`` reads another key."""
    key, params = words
    data: dict[str, Any] = {"key": key, "params": params}
    if you is not None:
        data["you"] = you
    return data


@functools.lru_cache(maxsize=32768)
def _log_entry(text: str, you: int | None, show_draws: bool) -> dict[str, Any]:
    """One line of a move log as sent; the same object for the same move (logs are rebuilt on every change,
    and there are few different moves). Shared: never change it."""
    return message(log_message(text, you=you, show_draws=show_draws))


_LOG_TEXTS: dict[tuple[int | None, bool], dict[str, str]] = {}


def _log_text(moves: Sequence[str], you: int | None, show_draws: bool, start: int = 0) -> str:
    """A move log as JSON text, joined from each line's text, made once per move: a long log is joined,
    not encoded, on every change. (At most a few thousand different lines per reader, so no bound.)"""
    known = _LOG_TEXTS.setdefault((you, show_draws), {})
    lines = moves[start:]
    try:
        return "[" + ",".join(map(known.__getitem__, lines)) + "]"
    except KeyError:
        for text in lines:
            if text not in known:
                known[text] = _json(_log_entry(text, you, show_draws))
        return "[" + ",".join(map(known.__getitem__, lines)) + "]"


def _json(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"))


def rules_payload(rules: Rules) -> dict[str, Any]:
    """``RULES``: the rules' fields, with the preset they equal (``name``) and its catalogue key, or nulls."""
    name = rules.preset_name
    return {"name": name, "key": f"rules_{name}" if name else None, **rules.to_dict()}


def presets_payload() -> dict[str, Any]:
    """``GET /api/rules``: every preset a room may be played with, the default first."""
    return {"default": "classic", "presets": [rules_payload(rules) for rules in PRESETS.values()]}


def _slots(fitting: Sequence[Card], colors: str) -> dict[str, list[int]]:
    """Where a card fits now, per colour: the numbers next to the ends of each open row, the 11 of the others."""
    slots: dict[str, list[int]] = {letter: [] for letter in colors}
    for card in fitting:
        slots[card.color.value].append(card.number)
    return slots


def _rows(rows: Mapping[Color, tuple[int, int]]) -> dict[str, list[int]]:
    return {color.value: [low, high] for color, (low, high) in rows.items()}


def _last_lay(moves: Sequence[str]) -> dict[str, Any] | None:
    laid = last_laid(moves)
    return None if laid is None else {"seat": laid[0], "card": str(laid[1])}


def view_payload(view: SeatView, *, made_for: Message | None = None, making: Move | None = None) -> dict[str, Any]:
    """A seat's ``VIEW``: the bot protocol's view plus what only this seat reads.

    ``legal``: its legal moves; ``making``: ``making``, the only legal move
    the table is about to make for it (:meth:`Table.made_for_person`), else
    null; ``prompt``: on its turn, what it may do now (the status line,
    :func:`elferraus.table.words.status`), or while ``making`` why its turn has no
    choice (:func:`elferraus.table.words.made_for_coming`);
    ``log``: the move log as this seat reads it (its own moves as "you", its
    own draws with the card); ``log_from``: the first move of ``moves`` and
    ``log`` here (0 here: all of them; :func:`view_text` sends a connection
    each move once); ``made_for``: ``made_for``, the words of the move the table made for this seat
    because it was its only legal move (:meth:`Table.made_for_note`), while the game is under way (else null);
    ``moment``: the rule that matters to this seat now, for the coach (:func:`elferraus.table.coach.moment`).
    """
    data = _view_fields(view, made_for, making)
    data["log_from"] = 0
    data["log"] = [_log_entry(text, view.seat, True) for text in view.moves]
    return data


def view_text(view: SeatView, *, made_for: Message | None = None, making: Move | None = None, log_from: int = 0) -> str:
    """:func:`view_payload` as compact JSON text, the same data but ``moves`` and the log only from move
    ``log_from`` on (those a connection was not sent yet); the log joined from its lines' cached text."""
    fields = _view_fields(view, made_for, making)
    fields.pop("moves")
    log = _log_text(view.moves, view.seat, True, log_from)
    return f'{_json(fields)[:-1]},{_from_text(view.moves, log_from)},"log":{log}}}'


def _from_text(moves: Sequence[str], log_from: int) -> str:
    """``log_from`` and the ``moves`` from there, as JSON members."""
    return f'"log_from":{log_from},"moves":{_json(moves[log_from:])}'


def _view_fields(view: SeatView, made_for: Message | None, making: Move | None) -> dict[str, Any]:
    data = view.to_dict()
    data["legal"] = [str(move) for move in view.legal]
    data["making"] = None if making is None else str(making)
    data["prompt"] = None
    if making is not None:
        data["prompt"] = message(made_for_coming(view, making))
    elif view.legal:
        data["prompt"] = message(status(view))
    data["made_for"] = None
    if made_for is not None and view.winner is None:  # once the game is over, the result speaks, not this note
        data["made_for"] = message(made_for)
    data["moment"] = moment(view)
    return data


def hidden_moves(game: Game) -> list[str]:
    """The history with every draw's card hidden (``"3 draw"``), as a spectator sees it."""
    return list(game.public_moves(None))


def _computers(game: Game) -> set[int]:
    """The seats computers play, as the table's deal names them (``bots``: a level, or ``"human"``)."""
    bots = game.metadata.get("bots")
    if not isinstance(bots, list):
        return set()
    return {seat for seat, level in enumerate(bots) if isinstance(level, str) and level != "human"}


def _match(game: Game) -> dict[str, Any] | None:
    """Who won the match, if this round ended it (from the match the deal belongs to), else None."""
    info = game.metadata.get("match")
    if not isinstance(info, Mapping):
        return None
    rounds, target, scores = info.get("rounds"), info.get("target"), info.get("scores")
    if not isinstance(scores, list) or (rounds == 1 and target is None):
        return None
    try:
        match = Match(game.players, game.rules, rounds, target, scores=[*scores, game.penalties()])
    except (TypeError, ValueError):
        return None
    if not match.is_over():
        return None
    leaders = match.leaders()
    words = match_message(leaders, match.totals[leaders[0]], you=None)
    return message(words, you="match_over_you" if len(leaders) == 1 else None)


def game_payload(
    game: Game, game_id: int | None, moves: Sequence[str], *, stand_ins: Collection[int] = ()
) -> dict[str, Any]:
    """The public ``GAME``: the table, and the words every reader shares (a spectator's words).

    ``moves`` is :func:`hidden_moves` of the game (passed in so it is built once per change);
    ``stand_ins``: seats of absent people a computer plays for now (their turns read "is thinking").
    Once the round is over: the result and every hand. The spectators' move log is not in it
    (:func:`spectator_log`): a player reads his own in ``VIEW``, and the frame stays small.
    """
    computers = _computers(game) | set(stand_ins)
    winner = game.winner
    if winner is not None:
        state = message(winner_message(winner, you=False), you="winner_you")
    else:
        state = message(turn_status(game.turn, computer=game.turn in computers))
    data: dict[str, Any] = {
        "rows": _rows(game.rows()),
        "slots": _slots(game.fitting_cards(), game.rules.colors),
        "hand_counts": list(game.hand_sizes()),
        "pile": game.pile_size(),
        "turn": game.turn,
        "laid": [str(card) for card in game.laid_this_turn()],
        "draws": game.draws_this_turn,
        "moves": list(moves),
        "winner": winner,
        "id": game_id,
        "rules": rules_payload(game.rules),
        "status": state,
        "turns": [None if words is None else message(words) for words in last_turn_messages(moves, game.players)],
        "last_lay": _last_lay(moves),
        "result": None,
    }
    if game.is_over():
        data["result"] = {
            "winner": winner,
            "penalties": game.penalties(),
            "hands": [[str(card) for card in game.hand(seat)] for seat in range(game.players)],
            "match": _match(game),
        }
    return data


def spectator_log(moves: Sequence[str]) -> list[dict[str, Any]]:
    """GAME's ``log`` for a spectator: a message per move of :func:`hidden_moves`, nobody "you", no card drawn."""
    return [_log_entry(text, None, False) for text in moves]


def game_text(game: Mapping[str, Any], *, spectator: bool, log_from: int = 0) -> str:
    """A :func:`game_payload` as compact JSON text, its ``moves`` from move ``log_from`` on (a connection
    sends each move once); a spectator's with its :func:`spectator_log` from there too."""
    moves = game["moves"]
    fields = {key: value for key, value in game.items() if key != "moves"}
    text = f"{_json(fields)[:-1]},{_from_text(moves, log_from)}"
    if not spectator:
        return text + "}"
    return f'{text},"log":{_log_text(moves, None, False, log_from)}}}'


# -- the replay of a finished game ---------------------------------------------------


def replay_payload(record: Mapping[str, Any], game_id: int) -> dict[str, Any]:
    """``REPLAY``: every position of a finished game's record, from the deal to the end, ready to draw.

    Raises:
        RecordError: the record does not replay.
    """
    game = read_record(record)
    moves = [str(text) for text in record["moves"]]
    names = record.get("names")
    steps: list[dict[str, Any]] = []
    for index in range(len(moves), -1, -1):
        steps.append(_step(game, moves[:index]))
        if index:
            game.pop()
    steps.reverse()
    result = record["result"] if isinstance(record["result"], Mapping) else None
    return {
        "game": game_id,
        "players": game.players,
        "names": names if isinstance(names, list) and all(isinstance(name, str) for name in names) else None,
        "rules": rules_payload(game.rules),
        "steps": steps,
        "result": None
        if result is None
        else {
            "winner": result["winner"],
            "penalties": result["penalties"],
            "status": message(winner_message(result["winner"], you=False)),
        },
    }


def _step(game: Game, moves: Sequence[str]) -> dict[str, Any]:
    """One position of a replay: after ``moves`` (the record's first moves)."""
    fitting = game.fitting_cards()
    hands = [game.hand(seat) for seat in range(game.players)]
    held = {card for hand in hands for card in hand}
    return {
        "rows": _rows(game.rows()),
        "slots": _slots(fitting, game.rules.colors),
        "hands": [[str(card) for card in hand] for hand in hands],
        "fits": [str(card) for card in fitting if card in held],
        "pile": game.pile_size(),
        "turn": None if game.is_over() else game.turn,
        "move": message(move_message(moves[-1])) if moves else None,
        "last_lay": _last_lay(moves),
    }
