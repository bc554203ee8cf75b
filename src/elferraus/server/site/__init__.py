"""What the processes of one site share besides the database: ``bus.py`` (the ``Bus`` protocol, what it
carries, and a process's own ``LocalBus``) and ``redis.py`` (``RedisBus`` on Redis, and ``open_bus``)."""
