"""What the research frameworks share: action ids, observation tensors, and worlds resampled from one seat's
knowledge. The frameworks' own entry points are :mod:`elferraus.openspiel`, :mod:`elferraus.pettingzoo` and
:mod:`elferraus.gym` (docs/research.md).

Everything here is built from one seat's :class:`~elferraus.SeatView`: an observation never holds a card
that seat may not know.
"""
