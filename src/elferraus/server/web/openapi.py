"""The OpenAPI document (``/openapi.json``) as FastAPI makes it, told the truth about refusals."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi


def published(app: FastAPI) -> dict[str, Any]:
    """The OpenAPI document as FastAPI makes it, told the truth about refusals: a failed check is a 400
    (never FastAPI's 422), and 429 and 503 come with ``Retry-After``."""
    if app.openapi_schema is not None:
        return app.openapi_schema
    document = get_openapi(title=app.title, version=app.version, summary=app.summary, routes=app.routes)
    retry_after = {"Retry-After": {"description": "seconds to wait before asking again", "schema": {"type": "integer"}}}
    for operations in document["paths"].values():
        for operation in operations.values():
            responses = operation.get("responses", {})
            responses.pop("422", None)
            for status in ("429", "503"):
                if status in responses:
                    responses[status]["headers"] = retry_after
    schemas = document.get("components", {}).get("schemas", {})
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    app.openapi_schema = document
    return document


__all__ = ["published"]
