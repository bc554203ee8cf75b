"""The web server: load, failover, faults of its database, its parts alone, slow clients, the page's first table."""
