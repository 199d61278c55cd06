"""Reading the user's data files: see :mod:`workbench.core.io` (one module per source)."""

from .io import SUPPORTED_SUFFIXES, FileInfo, inspect_file, profile_columns, read_table

__all__ = ["FileInfo", "SUPPORTED_SUFFIXES", "inspect_file", "profile_columns", "read_table"]
