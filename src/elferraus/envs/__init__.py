"""The research frameworks' adapters and what they share: action ids, observation tensors, and worlds resampled
from one seat's knowledge. The adapters, ``openspiel.py``, ``pettingzoo.py`` and ``gym.py``, translate and hold no
game logic; users import them by their public paths :mod:`elferraus.openspiel`, :mod:`elferraus.pettingzoo` and
:mod:`elferraus.gym` (docs/research.md).

Everything here is built from one seat's :class:`~elferraus.SeatView`: an observation never holds a card
that seat may not know.
"""
