"""Building a pandas DataFrame from record batches with one copy of the data.

pandas keeps same-typed columns together in 2-D blocks. Handing it 1-D arrays makes it
copy them into such blocks, after the copy that joins the batches; here each batch's
values are copied straight into their place in the block instead, as pyarrow does.
"""

import numpy as np

from .convert import empty_numpy, rows_as_objects, to_numpy


def _column_parts(schema, batches, i):
    parts = [to_numpy(b._batch.columns[i]) for b in batches] or [empty_numpy(schema.fields[i].type)]
    if any(p.ndim == 2 for p in parts):
        return [rows_as_objects(np.concatenate(parts) if len(parts) > 1 else parts[0])]
    return parts


def _joined(parts):
    if not parts:
        return np.empty(0, dtype=object)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _blocked(schema, parts_by_column, rows):
    """A DataFrame whose numeric, bool and object columns go straight into blocks."""
    import pandas as pd
    from pandas.core.internals import BlockManager
    from pandas.core.internals.api import make_block

    groups, later = {}, []
    for i, parts in enumerate(parts_by_column):
        dtype = np.result_type(*[p.dtype for p in parts]) if parts else None
        if dtype is not None and (dtype.kind in "biuf" or dtype == object):
            groups.setdefault(dtype, []).append(i)
        else:
            later.append(i)
    names = schema.names
    in_blocks = sorted(i for cols in groups.values() for i in cols)
    slot = {i: k for k, i in enumerate(in_blocks)}
    blocks = []
    for dtype, cols in groups.items():
        block = np.empty((len(cols), rows), dtype=dtype)
        for j, i in enumerate(cols):
            pos = 0
            for part in parts_by_column[i]:
                block[j, pos : pos + len(part)] = part
                pos += len(part)
        blocks.append(make_block(block, placement=[slot[i] for i in cols]))
    manager = BlockManager(blocks, [pd.Index([names[i] for i in in_blocks]), pd.RangeIndex(rows)])
    df = pd.DataFrame(manager)
    for i in later:
        df.insert(i, names[i], _joined(parts_by_column[i]))
    return df


def to_dataframe(schema, batches):
    import pandas as pd

    rows = sum(b.num_rows for b in batches)
    parts_by_column = [_column_parts(schema, batches, i) for i in range(len(schema))]
    try:
        df = _blocked(schema, parts_by_column, rows)
    except ImportError:
        # A pandas without these internals: let it build the blocks itself.
        df = pd.DataFrame({n: _joined(p) for n, p in zip(schema.names, parts_by_column)}, columns=schema.names)
    for f in schema.fields:
        if f.type.name == "timestamp" and f.type.tz:
            df[f.name] = df[f.name].dt.tz_localize("UTC").dt.tz_convert(f.type.tz)
    return df
