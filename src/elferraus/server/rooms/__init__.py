"""The rooms and what they are made of: a room around a ``Table``, the lobby that keeps them, one client's
connection, what each seat is told, the reactions, the names people give.

``room.py`` (with ``settings.py``, ``driver.py`` and ``replica.py``), ``lobby.py``, ``connection.py``,
``payloads.py``, ``reactions.py``, ``names.py``. The rooms rely on a ``Store`` (``server/storage/``) and a
``Bus`` (``server/site/``) and never know which.
"""
