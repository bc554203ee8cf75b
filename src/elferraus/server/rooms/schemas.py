"""Every input the server takes, declared once: HTTP bodies, path parameters and WebSocket frames.

The HTTP routes declare these models, so FastAPI checks each request against
them and publishes them as the OpenAPI document; the WebSocket reads each
frame with ``read_frame``. Nothing reaches a room unchecked, and a refusal
names the field at fault (``refusal``), in the client's language.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from elferraus.i18n import Lang, tr
from elferraus.rules import PRESETS
from elferraus.server.rooms.names import is_visible, tidy_name
from elferraus.server.rooms.reactions import REACTIONS, Reaction
from elferraus.server.rooms.settings import CODE_ALPHABET, CODE_LENGTH, LEVELS, RoomError

MAX_SEATS = 6
MAX_GAME_ID = 2**53 - 1
"""The largest game number a JavaScript client can hold exactly."""
TOKEN_LENGTH = 43
"""A seat token: 32 random bytes, URL-safe base64 without padding."""

Level = Literal["easy", "medium", "hard", "expert", "master"]
RulesName = Literal["classic", "ravensburger", "beginners"]
assert set(LEVELS) == set(Level.__args__)  # type: ignore[attr-defined]
assert set(PRESETS) == set(RulesName.__args__)  # type: ignore[attr-defined]


def _name_characters(*, space: bool) -> str:
    """The characters a name may hold, as the body of a regular expression class: in the Basic
    Multilingual Plane every printable one, and with ``space`` white space too (which the name's
    tidying turns into single spaces); without it only the visible ones (``names.is_visible``), from
    Unicode's tables. A list of what is allowed, not of what is not, so that generators of test data
    (schemathesis) draw from it directly; and ``\\uXXXX`` escapes, which every JSON Schema reader
    understands. The pattern is the check itself: the published schema and the server agree exactly."""
    ranges: list[tuple[int, int]] = []
    for point in range(0x10000):
        char = chr(point)
        if not ((char.isprintable() or char.isspace()) if space else is_visible(char)):
            continue
        if ranges and ranges[-1][1] == point - 1:
            ranges[-1] = (ranges[-1][0], point)
        else:
            ranges.append((point, point))
    return "".join(f"\\u{low:04x}" + (f"-\\u{high:04x}" if high > low else "") for low, high in ranges)


_NAME_CHARACTERS, _VISIBLE_CHARACTERS = _name_characters(space=True), _name_characters(space=False)
NAME_PATTERN = f"^[{_NAME_CHARACTERS}]*[{_VISIBLE_CHARACTERS}][{_NAME_CHARACTERS}]*$"
"""A name: printable characters and white space, at least one that shows (no name of blanks alone)."""


Name = Annotated[
    str,
    StringConstraints(min_length=1, max_length=20, pattern=NAME_PATTERN),
    AfterValidator(tidy_name),
    Field(
        description="1 to 20 printable characters of the Basic Multilingual Plane (no emoji), at least one "
        "visible; taken in composed form (NFC), each run of white space (or of characters that draw nothing) "
        "becomes one space"
    ),
]
RoomCode = Annotated[
    str,
    StringConstraints(pattern=f"^[{CODE_ALPHABET}{CODE_ALPHABET.lower()}]{{{CODE_LENGTH}}}$"),
    Field(description="the room's code (6 characters, any case)", examples=["K7MPQ2"]),
]
GameId = Annotated[int, Field(ge=1, le=MAX_GAME_ID, description="a finished game's number", examples=[1])]
Language = Annotated[
    str,
    StringConstraints(max_length=35),
    Field(description="the language of the answer's words: de for German, else English"),
]


def _whole(value: object) -> object:
    """A number with no fraction is an integer, as in JSON Schema (``4.0`` is ``4``); anything else stays."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


Whole = Annotated[int, BeforeValidator(_whole)]
"""An integer field: a JSON number without fraction; not a string, not true or false."""


class _Input(BaseModel):
    # Unknown keys are ignored: an older server keeps serving a newer page.
    # Python's regular expressions: the name pattern names surrogates, which Rust's refuse.
    model_config = ConfigDict(strict=True, extra="ignore", allow_inf_nan=False, frozen=True, regex_engine="python-re")


class SeatChoice(_Input):
    """One seat after the host's, as the host sets it up."""

    kind: Literal["open", "computer"]
    level: Level | None = Field(None, description="a computer's level (default: the room's fill level)")


def _seats_fit_the_table() -> dict[str, Any]:
    """The rule no field states alone, in JSON Schema: at most one seat choice per seat after the host's."""
    rules: list[dict[str, Any]] = [
        {
            "if": {"properties": {"players": {"const": players}}, "required": ["players"]},
            "then": {"properties": {"seats": {"maxItems": players - 1}}},
        }
        for players in range(2, MAX_SEATS + 1)
    ]
    rules.append({"if": {"not": {"required": ["players"]}}, "then": {"properties": {"seats": {"maxItems": 3}}}})
    return {"allOf": rules}


class NewRoom(_Input):
    """``POST /api/rooms``: what the host chooses."""

    model_config = ConfigDict(json_schema_extra=_seats_fit_the_table())

    name: Name = Field(description="the host's name, 1 to 20 printable characters")
    players: Whole = Field(4, ge=2, le=MAX_SEATS)
    rules: RulesName = "classic"
    rounds: Whole = Field(1, ge=1, le=20)
    fill: Level = Field("medium", description="the level of the computers that take the seats nobody took")
    seats: list[SeatChoice] = Field(default_factory=list, max_length=MAX_SEATS - 1)

    @field_validator("seats")
    @classmethod
    def _seats_fit(cls, seats: list[SeatChoice], info: ValidationInfo) -> list[SeatChoice]:
        players = info.data.get("players", 4)
        if len(seats) > players - 1:
            raise ValueError(f"{players} players have {players - 1} seats after the host's")
        return seats

    away: float = Field(60.0, ge=5, le=3600, description="seconds a person may be away on his turn")
    pace: float = Field(
        0.8,
        ge=0,
        le=5,
        description="seconds a computer waits before each move (and the table before a person's only move)",
    )
    start: bool = Field(
        False, description="start the game at once, the open seats taken by computers (no waiting room)"
    )


class Join(_Input):
    """``POST /api/rooms/{code}/join``: a person takes an open seat."""

    name: Name
    seat: Whole = Field(ge=0, le=MAX_SEATS - 1, description="the seat to take (0 is the host's)")


class NewRoomAnswer(BaseModel):
    """The new room and the host's secret link."""

    code: str
    seat: int
    token: str
    invite: str
    link: str


class JoinAnswer(BaseModel):
    """The seat taken and its secret link."""

    seat: int
    token: str
    link: str


class Refusal(BaseModel):
    """Every refused request: a stable code, the reason in words, and the field at fault if there is one."""

    error: str
    message: str
    field: str | None = None


# -- WebSocket frames --------------------------------------------------------------

Token = Annotated[str, StringConstraints(pattern=f"^[A-Za-z0-9_-]{{{TOKEN_LENGTH}}}$")]


class Hello(_Input):
    """The first frame: a seat's token (or none: a spectator) and the client's language."""

    type: Literal["hello"]
    token: Token | None = None
    lang: Annotated[str, StringConstraints(max_length=35)] | None = None


class MoveFrame(_Input):
    """A move for the connection's seat, made at the ``seq`` of the newest state the client saw."""

    type: Literal["move"]
    seq: int  # checked first: a move meant for no moment of the game is stale, whatever it is
    move: Annotated[str, StringConstraints(max_length=8)]


class HintFrame(_Input):
    """Ask what ``master`` would do in the connection's seat's place at ``seq`` (the newest state it saw)."""

    type: Literal["hint"]
    seq: int


class Act(_Input):
    """A frame without fields: ``start``, ``next``, ``rematch``, ``ping``."""

    type: Literal["start", "next", "rematch", "ping"]


class ReactFrame(_Input):
    """A quick reaction of the connection's seat to the table, by its id (never free text)."""

    type: Literal["react"]
    reaction: Reaction


Frame = Annotated[Hello | MoveFrame | HintFrame | Act | ReactFrame, Field(discriminator="type")]
_FRAME: TypeAdapter[Hello | MoveFrame | HintFrame | Act | ReactFrame] = TypeAdapter(Frame)
FRAME_TYPES = ("hello", "move", "hint", "start", "next", "rematch", "ping", "react")

# The message key a field's refusal is worded with; a field not listed gets the general one.
_FIELD_MESSAGES = {
    "name": "web_error_name",
    "players": "web_error_players",
    "rules": "web_error_rules",
    "rounds": "web_error_rounds",
    "fill": "web_error_level",
    "level": "web_error_level",
    "away": "web_error_away",
    "pace": "web_error_pace",
    "seats": "web_error_seats",
    "kind": "web_error_seats",
    "seat": "web_error_seat_number",
    "code": "web_error_code",
    "game": "web_error_game_number",
    "lang": "web_error_lang",
    "token": "web_error_bad_token",
    "move": "web_error_bad_move",
    "seq": "web_error_seq",
    "reaction": "web_error_unknown_reaction",
}


def field_of(location: Sequence[int | str]) -> str:
    """The field an error's location names (``("body", "seats", 0, "level")`` → ``"seats.0.level"``)."""
    parts = [str(part) for part in location if part not in ("body", "path", "query", "header")]
    # A discriminated union adds the tag it chose ("move") before the field: drop it.
    if len(parts) > 1 and parts[0] in FRAME_TYPES:
        parts = parts[1:]
    return ".".join(parts)


def refusal(errors: Sequence[Any], code: str = "bad_request") -> RoomError:
    """The refusal for a failed validation: worded by its first error's field."""
    first = errors[0] if errors else {"loc": (), "type": "value_error"}
    location = tuple(first.get("loc", ()))
    field = field_of(location)
    if first.get("type") == "json_invalid" or not field:
        return RoomError(code, "web_error_json" if code == "bad_request" else "web_error_bad_frame")
    last = next((str(part) for part in reversed(location) if isinstance(part, str)), field)
    key = _FIELD_MESSAGES.get(last, "web_error_field")
    return RoomError(code, key, field=field)


MAX_NESTING = 32
"""The deepest nesting of arrays and objects a message may have; no real message nests more than 3."""


def too_deep(text: str | bytes, limit: int = MAX_NESTING) -> bool:
    """True if the JSON text nests arrays and objects deeper than ``limit`` (strings are skipped).

    Python's own parser recurses once per level; thousands of levels can exhaust the C stack. This
    scan does not recurse, so untrusted text is measured before any recursive parser sees it.
    """
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    depth = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > limit:
                return True
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return False


def read_frame(text: str) -> Hello | MoveFrame | HintFrame | Act | ReactFrame:
    """One WebSocket text frame, checked.

    Raises:
        RoomError: ``bad_frame`` naming the field (``unknown_type`` for a type that does not exist,
            ``unknown_reaction`` for a reaction not in the fixed set).
    """
    try:
        return _FRAME.validate_json(text)
    except ValidationError as error:
        errors = error.errors(include_input=False, include_url=False)
    if errors and errors[0]["type"] == "json_invalid":
        if too_deep(text):
            raise RoomError("bad_frame")
        # Python's parser reads what pydantic's refuses but JSON allows (a lone surrogate such as "\ud800"),
        # so that such a value is refused by the field it is in.
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            raise RoomError("bad_frame") from None
        try:
            return _FRAME.validate_python(data)
        except ValidationError as error:
            errors = error.errors(include_input=False, include_url=False)
    if errors and errors[0]["type"] in ("union_tag_invalid", "union_tag_not_found"):
        raise RoomError("unknown_type", field="type")
    refused = refusal(errors, "bad_frame")
    # Well-formed frames that name no move, no moment of the game or no seat have codes of their own.
    field = refused.details.get("field")
    if field == "move":
        raise RoomError("bad_move", field="move")
    if field == "seq":
        raise RoomError("stale", "web_error_seq", field="seq")
    if field == "token":
        raise RoomError("bad_token", field="token")
    if field == "reaction":
        raise RoomError("unknown_reaction", field="reaction", reactions=", ".join(REACTIONS))
    raise refused


def message_of(error: RoomError, lang: Lang) -> str:
    """A refusal in words, with the field named when the words do not say which."""
    text = error.message(lang)
    field = error.details.get("field")
    return tr("web_error_in_field", lang, field=field, problem=text) if field else text


__all__ = [
    "Act",
    "GameId",
    "Hello",
    "Join",
    "JoinAnswer",
    "Language",
    "MoveFrame",
    "NewRoom",
    "NewRoomAnswer",
    "ReactFrame",
    "Refusal",
    "RoomCode",
    "SeatChoice",
    "field_of",
    "message_of",
    "read_frame",
    "refusal",
]
