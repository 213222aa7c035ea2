"""NVIDIA side: PTX emission for shuffle patterns (and later PTX parsing and rewriting)."""
