"""Everything the server must not forget, behind one asynchronous interface.

``store.py``: the ``Store`` protocol the rooms rely on and ``open_store``;
``types.py``: what the stores and the rooms share (rows, errors, what a sweep
did); ``sqlite.py`` (the blocking calls) under ``sqlite_store.py`` (on their
own threads); ``postgres.py`` with its schema versions in ``pgschema.py``;
``expiry.py``: when rooms nobody uses expire; ``backup.py``: the copy
``elferraus backup`` makes of a SQLite database.
"""
