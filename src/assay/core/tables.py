"""Parquet evidence: frozen records in, one typed table out, with a schema derived from the record.

Deriving the Arrow schema from the record's annotations keeps empty tables typed and column
types stable, so DuckDB queries see the same schema whatever a run produced.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

if TYPE_CHECKING:
    import pyarrow as pa

# pyarrow loads on first use (about 0.2 s of CPU): a stage that reads only JSON records (the
# self-test, authorize) does not pay for it at start-up


def _scalar(annotation: Any) -> pa.DataType | None:
    import pyarrow as pa

    scalars: dict[Any, pa.DataType] = {
        str: pa.string(),
        int: pa.int64(),
        float: pa.float64(),
        bool: pa.bool_(),
    }
    return scalars.get(annotation)


def _arrow_type(annotation: Any) -> pa.DataType:
    import pyarrow as pa

    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        if len(members) == 1:
            return _arrow_type(members[0])
    if origin is Literal:
        return pa.string()
    if origin in (tuple, list):
        return pa.list_(_arrow_type(get_args(annotation)[0]))
    scalar = _scalar(annotation)
    if scalar is not None:
        return scalar
    raise TypeError(f"no Arrow type for {annotation!r}")


def schema_for(model: type[BaseModel]) -> pa.Schema:
    import pyarrow as pa

    hints = typing.get_type_hints(model)
    return pa.schema([(name, _arrow_type(hints[name])) for name in model.model_fields])


def write_records(path: Path, model: type[BaseModel], records: Sequence[BaseModel]) -> None:
    """Write records of one model to ``path`` as Parquet (parents created)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    schema = schema_for(model)
    rows = [r.model_dump(mode="python") for r in records]
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)


def read_records(path: Path, model: type[BaseModel]) -> list[Any]:
    import pyarrow.parquet as pq

    return [model.model_validate(row) for row in pq.read_table(path).to_pylist()]
