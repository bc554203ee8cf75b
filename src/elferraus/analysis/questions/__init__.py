"""The study's questions, each a module with ``NAME``, ``tables``, ``measure`` and ``section``.

``tables(sizes)`` lists the tables it needs played (tables may be shared with
other questions by key), ``measure(data, sizes, seed)`` turns the played games
into the question's entries of ``results.json``, and ``section(results,
words)`` writes its part of the report from those entries alone.
"""
