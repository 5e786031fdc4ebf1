"""Building a pandas DataFrame from record batches with one copy of the data.

pandas keeps same-typed columns together in 2-D blocks. Handing it 1-D arrays makes it
copy them into such blocks, after the copy that joins the batches; here each batch's
numeric values are copied straight into their place in a block instead, as pyarrow does.
When the number of rows is known up front, a scan is converted as it streams: each batch
is copied and dropped while the scan decodes the next ones, so the scan's buffers are
reused rather than all held at once.
"""

import numpy as np

from .convert import _numpy_dtype, empty_numpy, rows_as_objects, to_numpy


def _block_dtype(t):
    """The dtype of a column that can live in a numeric block, or None."""
    dtype = _numpy_dtype(t)
    return dtype if dtype is not None and dtype.kind in "biuf" else None


def _joined(parts):
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


class FrameBuilder:
    """Accumulates batches of `schema` into pandas blocks sized for `rows` rows."""

    def __init__(self, schema, rows):
        self._schema = schema
        self._capacity = max(int(rows), 0)
        self._rows = 0
        self._slot = {}  # column index -> (dtype, row in that dtype's block)
        self._parts = {}  # column index -> numpy parts, for columns outside the blocks
        groups = {}
        for i, f in enumerate(schema.fields):
            dtype = _block_dtype(f.type)
            if dtype is None:
                self._parts[i] = []
            else:
                self._slot[i] = (dtype, len(groups.setdefault(dtype, [])))
                groups[dtype].append(i)
        self._blocks = {dtype: np.empty((len(cols), self._capacity), dtype=dtype) for dtype, cols in groups.items()}

    def add(self, batch):
        """Copies one lancet RecordBatch in (numeric values) or keeps its views (others)."""
        n = batch.num_rows
        if self._rows + n > self._capacity:
            self._grow(self._rows + n)
        start, end = self._rows, self._rows + n
        for i, column in enumerate(batch._batch.columns):
            values = to_numpy(column)
            slot = self._slot.get(i)
            if slot is not None and values.dtype != slot[0]:
                # Nulls turned ints into floats or bools into objects: the column leaves
                # its block with what it holds so far.
                self._parts[i] = [self._blocks[slot[0]][slot[1], :start].copy()]
                del self._slot[i]
                slot = None
            if slot is None:
                self._parts[i].append(values)
            else:
                self._blocks[slot[0]][slot[1], start:end] = values
        self._rows = end

    def _grow(self, needed):
        capacity = max(needed, 2 * self._capacity)
        for dtype, block in self._blocks.items():
            bigger = np.empty((block.shape[0], capacity), dtype=dtype)
            bigger[:, : self._rows] = block[:, : self._rows]
            self._blocks[dtype] = bigger
        self._capacity = capacity

    def _column(self, i):
        parts = self._parts[i] or [empty_numpy(self._schema.fields[i].type)]
        values = _joined(parts)
        return rows_as_objects(values) if values.ndim == 2 else values

    def finish(self):
        import pandas as pd

        try:
            df = self._blocked()
        except ImportError:
            # A pandas without these internals: let it build the blocks itself.
            data = {}
            for i, name in enumerate(self._schema.names):
                slot = self._slot.get(i)
                data[name] = self._blocks[slot[0]][slot[1], : self._rows] if slot else self._column(i)
            df = pd.DataFrame(data, columns=self._schema.names)
        for f in self._schema.fields:
            if f.type.name == "timestamp" and f.type.tz:
                df[f.name] = df[f.name].dt.tz_localize("UTC").dt.tz_convert(f.type.tz)
        return df

    def _blocked(self):
        import pandas as pd
        from pandas.core.internals import BlockManager
        from pandas.core.internals.api import make_block

        names = self._schema.names
        others = {i: self._column(i) for i in self._parts}
        # Object columns become blocks of their own as they are (pandas would copy them
        # on insert); datetimes are inserted, so that pandas gives them its own units.
        objects = [i for i, values in others.items() if values.dtype == object]
        in_blocks = sorted(list(self._slot) + objects)
        position = {i: k for k, i in enumerate(in_blocks)}
        blocks = []
        for dtype, block in self._blocks.items():
            members = sorted((row, i) for i, (d, row) in self._slot.items() if d == dtype)
            if not members:
                continue
            values = block[:, : self._rows]
            if len(members) != block.shape[0]:
                values = values[[row for row, _ in members]]
            blocks.append(make_block(values, placement=[position[i] for _, i in members]))
        for i in objects:
            blocks.append(make_block(others[i].reshape(1, -1), placement=[position[i]]))
        manager = BlockManager(blocks, [pd.Index([names[i] for i in in_blocks]), pd.RangeIndex(self._rows)])
        df = pd.DataFrame(manager)
        for i in sorted(set(others) - set(objects)):
            df.insert(i, names[i], others[i])
        return df


def to_dataframe(schema, batches, rows=None):
    """A DataFrame of `batches` (an iterable of lancet RecordBatch); `rows`, when known,
    sizes the blocks so that an iterator is converted as it is consumed."""
    if rows is None:
        batches = list(batches)
        rows = sum(b.num_rows for b in batches)
    builder = FrameBuilder(schema, rows)
    for b in batches:
        builder.add(b)
    return builder.finish()
