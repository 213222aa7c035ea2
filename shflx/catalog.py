"""The named catalog of common shuffle patterns (patterns/catalog.toml), read once."""
from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from .errors import InputError, Location
from .pattern import parse_pattern


def patterns_dir() -> Path:
    """patterns/ in a checkout; shflx/patterns_data when installed (pyproject maps it there)."""
    here = Path(__file__).resolve().parent
    installed = here / "patterns_data"
    return installed if installed.is_dir() else here.parent / "patterns"


@dataclass(frozen=True)
class CatalogEntry:
    name: str
    text: str
    cls: str
    catalog: str


@lru_cache(maxsize=1)
def catalog() -> tuple[CatalogEntry, ...]:
    path = patterns_dir() / "catalog.toml"
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise InputError(f"cannot read the pattern catalog: {e}", Location(str(path))) from None
    out = []
    for k, row in enumerate(data.get("pattern", [])):
        try:
            entry = CatalogEntry(row["name"], row["text"], row["class"], row.get("catalog", ""))
        except KeyError as e:
            raise InputError(f"pattern #{k + 1} lacks {e}", Location(str(path))) from None
        parse_pattern(entry.text)            # a bad entry fails here, naming the pattern
        out.append(entry)
    return tuple(out)
