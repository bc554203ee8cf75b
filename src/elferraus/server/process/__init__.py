"""What one server process needs whatever it serves, below the web, the rooms, the stores and the bus.

``collector.py`` paces Python's garbage collector, ``logsummary.py`` keeps
repeated log records from flooding, ``urls.py`` hides the password of a URL
the process prints. They import nothing else of the server, so every part of
it may use them.
"""
