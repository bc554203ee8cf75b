"""The players of the study: the built-in levels, and one whose readiness to hold back is a parameter."""

from __future__ import annotations

from elferraus.bots import Bot, MediumBot, make_bot
from elferraus.view import SeatView

HOLDBACK_PREFIX = "holdback:"


class HoldbackBot(MediumBot):
    """``medium`` with its price on opening a row for the others scaled by ``readiness``.

    ``medium`` scores each card it could lay as one card fewer, minus the
    cards the lay would let the others follow with. At readiness 0 that price
    is nothing, so it lays every card it can (it never holds back); at 1 it is
    ``medium``; above 1 it holds back more and more readily.
    """

    def __init__(self, seed: int = 0, readiness: float = 1.0) -> None:
        super().__init__(seed)
        if readiness < 0:
            raise ValueError(f"readiness to hold back must be at least 0, not {readiness}")
        self.readiness = readiness
        self.name = f"{HOLDBACK_PREFIX}{readiness:g}"

    def _release_weight(self, view: SeatView) -> float:  # type: ignore[override]
        return self.readiness * MediumBot._release_weight(view)


def study_bot(spec: str, seed: int) -> Bot:
    """The player a table's spec names: a level, or ``holdback:R`` for :class:`HoldbackBot` at readiness R.

    Raises:
        ValueError: an unknown level or a readiness that is not a number of at least 0.
    """
    if spec.startswith(HOLDBACK_PREFIX):
        text = spec.removeprefix(HOLDBACK_PREFIX)
        try:
            readiness = float(text)
        except ValueError:
            raise ValueError(f"holdback readiness {text!r} is not a number") from None
        return HoldbackBot(seed, readiness)
    return make_bot(spec, seed)
