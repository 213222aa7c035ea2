"""The JSON Schema of shflx's machine-readable outputs (report.schema.json, package data).

compile and ptx reports are lists of entries, each with `schema_version`; `lower --json` prints one
Plan and `verify --json` one result per line, both with `schema_version` too. Bump SCHEMA_VERSION
(and the schema's `const`) on every change a reader could trip over; docs/report-schema.md."""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

SCHEMA_VERSION = 1


@lru_cache(maxsize=1)
def report_schema() -> dict[str, Any]:
    return json.loads(resources.files(__name__).joinpath("report.schema.json").read_text())


def versioned(entry: dict[str, Any]) -> dict[str, Any]:
    """`entry` with `schema_version` first."""
    return {"schema_version": SCHEMA_VERSION, **entry}
