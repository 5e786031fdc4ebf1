"""Decoded video frames as numpy arrays."""

import numpy as np

_CHANNELS = {"rgb24": 3, "gray8": 1}


class FrameList(list):
    """The frames of one row: numpy uint8 arrays (height, width, channels), in index order.

    For yuv420p the arrays are 1-D (Y plane, then U, then V). ``indices`` (frame
    numbers in presentation order), ``pts`` (stream time base) and ``times``
    (seconds) are numpy arrays in the same order.
    """

    def __init__(self, images, indices, pts, times):
        super().__init__(images)
        self.indices = np.asarray(indices, dtype=np.uint64)
        self.pts = np.asarray(pts, dtype=np.int64)
        self.times = np.asarray(times, dtype=np.float64)


def _image(width, height, pixel_format, pixels):
    data = np.frombuffer(pixels, dtype=np.uint8)
    channels = _CHANNELS.get(pixel_format)
    if channels is None:
        return data
    return data.reshape(height, width, channels)


def frames_from_rows(rows):
    """FrameLists from _lancet.extract_frames' tuples; the arrays view the decoder's
    output without copying it."""
    out = []
    for row in rows:
        if row is None:
            out.append(None)
            continue
        images = [_image(w, h, fmt, pixels) for (_, _, _, w, h, fmt, pixels) in row]
        out.append(FrameList(images, [r[0] for r in row], [r[1] for r in row], [r[2] for r in row]))
    return out
