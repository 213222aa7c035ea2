"""A small JSON Schema validator for the subset shflx/schemas/report.schema.json uses (draft
2020-12: type, enum, const, properties, required, additionalProperties, items, $ref into $defs,
anyOf, oneOf). Written here instead of adding `jsonschema` (and its attrs / referencing /
rpds-py wheels) as a test dependency for one test; a keyword it does not know is an error, so the
schema cannot quietly grow past what this checks."""
from __future__ import annotations

from typing import Any

KNOWN = {"$schema", "$id", "$ref", "$defs", "title", "description", "type", "enum", "const", "properties",
         "required", "additionalProperties", "items", "anyOf", "oneOf"}
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def _is(value: Any, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, TYPES[name])


def errors(value: Any, schema: dict, root: dict | None = None, path: str = "$") -> list[str]:
    """Every violation, as 'path: reason' (empty: valid)."""
    root = root if root is not None else schema
    unknown = set(schema) - KNOWN
    if unknown:
        raise ValueError(f"schema keyword(s) {sorted(unknown)} at {path} are not supported by this checker")
    out: list[str] = []
    if "$ref" in schema:
        target: Any = root
        for part in schema["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        out += errors(value, target, root, path)
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is(value, n) for n in names):
            return out + [f"{path}: expected {' or '.join(names)}, got {type(value).__name__} {value!r:.60}"]
    if "const" in schema and (value != schema["const"] or type(value) is not type(schema["const"])):
        out.append(f"{path}: expected {schema['const']!r}, got {value!r:.60}")
    if "enum" in schema and not any(value == e and type(value) is type(e) for e in schema["enum"]):
        out.append(f"{path}: {value!r:.60} is not one of {schema['enum']}")
    for key in ("anyOf", "oneOf"):
        if key in schema:
            passing = [s for s in schema[key] if not errors(value, s, root, path)]
            if not passing or (key == "oneOf" and len(passing) > 1):
                out.append(f"{path}: matches {len(passing)} of the {key} alternatives")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                out.append(f"{path}: missing '{name}'")
        for name, v in value.items():
            if name in props:
                out += errors(v, props[name], root, f"{path}.{name}")
            elif schema.get("additionalProperties") is False:
                out.append(f"{path}: unexpected key '{name}'")
            elif isinstance(schema.get("additionalProperties"), dict):
                out += errors(v, schema["additionalProperties"], root, f"{path}.{name}")
    if isinstance(value, list) and "items" in schema:
        for k, v in enumerate(value):
            out += errors(v, schema["items"], root, f"{path}[{k}]")
    return out
