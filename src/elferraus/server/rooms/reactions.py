"""Quick reactions between the players at one table: a fixed set of phrases and emoji, sent by id.

A reaction is never free text: a client names one of ``REACTIONS`` and every
client of the room is told who sent which (``reaction_text``); each page words
it in its reader's language (the catalogue's ``reaction_<id>``). Reactions are
not part of the game: they change no ``seq`` and are never stored. Each
seat may send one every ``REACTION_INTERVAL`` seconds on average, up to
``REACTION_BURST`` at once, counted across all of its connections (tabs,
devices) on every process of the site.
"""

from __future__ import annotations

import json
from typing import Literal, get_args

Reaction = Literal["well_played", "oops", "hurry", "thanks", "thumbs_up", "smile", "wow", "party"]
REACTIONS: tuple[str, ...] = get_args(Reaction)
"""Every reaction a player may send, in the order the page offers them: four phrases, four emoji."""
REACTION_INTERVAL = 2.0
"""Seconds between two reactions of one seat, on average."""
REACTION_BURST = 3
"""Reactions one seat may send at once before the average applies."""
MAX_QUEUED_REACTIONS = 16
"""Reactions waiting for a slow client at most; older ones are dropped (they are only shown a few seconds)."""


def reaction_text(seat: int, reaction: str) -> str:
    """The ``reaction`` frame every client of the room is sent, as JSON text.

    >>> reaction_text(1, "thanks")
    '{"type":"reaction","seat":1,"reaction":"thanks"}'
    """
    if reaction not in REACTIONS:
        raise ValueError(f"{reaction!r} is none of the reactions {', '.join(REACTIONS)}")
    return json.dumps({"type": "reaction", "seat": seat, "reaction": reaction}, separators=(",", ":"))


__all__ = ["MAX_QUEUED_REACTIONS", "REACTIONS", "REACTION_BURST", "REACTION_INTERVAL", "Reaction", "reaction_text"]
