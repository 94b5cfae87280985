"""Arrow tables from the native module as pandas DataFrames (no CSV in between)."""

from __future__ import annotations

from typing import Any, Optional

import pandas as pd
import pyarrow as pa


def frame(table: Any) -> "Any":
    """The pandas DataFrame of a native table (imported through ``__arrow_c_stream__``).

    Column types follow the Arrow schema: ``uint64`` counts, ``float64`` measurements,
    ``bool`` flags, text as ``object``; a nullable integer field (a count that may be absent,
    empty in the CSV) becomes pandas' nullable ``UInt64`` (``<NA>`` where absent) whether or
    not this table has an absent value, so a column's type never depends on the data.
    """
    t = pa.RecordBatchReader.from_stream(table).read_all()
    df = t.to_pandas()
    for i, field in enumerate(t.schema):
        if field.nullable and pa.types.is_unsigned_integer(field.type):
            df[field.name] = pd.array(t.column(i).to_pylist(), dtype="UInt64")
    return df


def maybe_frame(table: Optional[Any]) -> "Optional[Any]":
    """:func:`frame`, or None when there is no table."""
    return None if table is None else frame(table)
