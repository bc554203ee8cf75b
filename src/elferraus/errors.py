"""The exceptions the engine raises; all are ``ValueError`` subclasses."""

from __future__ import annotations


class ElferRausError(ValueError):
    """Base class of every error the engine raises on bad input."""


class NotationError(ElferRausError):
    """A card, move, position or rules text could not be read."""


class IllegalMoveError(ElferRausError):
    """A well-formed move that the rules do not allow in this position.

    ``reason`` is a stable code (see :mod:`elferraus.explain`) and ``details``
    its parameters, so that a user interface can word the message in the
    player's language.
    """

    def __init__(
        self, message: str, *, reason: str, details: dict[str, object] | None = None, explanation: str = ""
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.details: dict[str, object] = dict(details or {})
        self.explanation = explanation or message
        """Why the move is illegal, in English, without the position."""


class RecordError(ElferRausError):
    """A game record breaks the ``elferraus/1`` format or the rules.

    ``game`` is the 1-based game (line) number when known, ``move`` the
    1-based move number when the fault lies in a move, ``column`` the 1-based
    column of the line where its JSON breaks.
    """

    def __init__(
        self, problem: str, *, game: int | None = None, move: int | None = None, column: int | None = None
    ) -> None:
        self.problem = problem
        self.game = game
        self.move = move
        self.column = column
        where = []
        if game is not None:
            where.append(f"game {game}")
        if move is not None:
            where.append(f"move {move}")
        if column is not None:
            where.append(f"column {column}")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {problem}" if prefix else problem)

    def located(self, game: int) -> RecordError:
        """Return the same error, naming game (line) number ``game``."""
        return RecordError(self.problem, game=game, move=self.move, column=self.column)
