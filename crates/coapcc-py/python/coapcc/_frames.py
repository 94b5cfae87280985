"""Arrow tables from the native module as pandas DataFrames (no CSV in between)."""

from __future__ import annotations

from typing import Any, Optional

import pyarrow as pa


def frame(table: Any) -> "Any":
    """The pandas DataFrame of a native table (imported through ``__arrow_c_stream__``)."""
    return pa.RecordBatchReader.from_stream(table).read_all().to_pandas()


def maybe_frame(table: Optional[Any]) -> "Optional[Any]":
    """:func:`frame`, or None when there is no table."""
    return None if table is None else frame(table)
