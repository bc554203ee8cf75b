"""The web: the ASGI app (``app.py``) and its routes (``api.py``, ``pages.py``), refusals (``refusals.py``),
the OpenAPI document (``openapi.py``), middleware (``headers.py``, ``proxies.py``), the origins a WebSocket may
come from (``origins.py``), the limits on connections (``limits.py``), the service worker (``worker.py``)."""
