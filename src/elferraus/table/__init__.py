"""The table: what every front end shares to play a match of people and computers.

:mod:`~elferraus.table.session` is the turn driver (:class:`~elferraus.table.session.Table`), which every
front end drives; :mod:`~elferraus.table.seating` the seats, :mod:`~elferraus.table.saving` the save files,
:mod:`~elferraus.table.words` the game in words, :mod:`~elferraus.table.hints` the hint in words.
"""
