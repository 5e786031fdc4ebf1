"""BlobFile: a read-only binary file over one blob, fetched lazily by byte ranges."""

import io


class BlobFile(io.RawIOBase):
    """A seekable, read-only file over the bytes of one blob.

    Only the ranges read are fetched (with read-ahead for small sequential reads), so
    a decoder can seek around a large video and touch a few of its bytes. Works with
    anything that takes a binary file object: ``av.open(f)``, ``PIL.Image.open(f)``,
    ``io.BufferedReader(f)``.
    """

    def __init__(self, reader):
        super().__init__()
        self._reader = reader

    def readable(self):
        return True

    def seekable(self):
        return True

    def writable(self):
        return False

    def size(self):
        """The blob's length in bytes."""
        self._check_open()
        return self._reader.size()

    def tell(self):
        self._check_open()
        return self._reader.tell()

    def seek(self, offset, whence=io.SEEK_SET):
        self._check_open()
        if whence == io.SEEK_SET:
            target = offset
        elif whence == io.SEEK_CUR:
            target = self._reader.tell() + offset
        elif whence == io.SEEK_END:
            target = self._reader.size() + offset
        else:
            raise ValueError(f"invalid whence {whence}")
        if target < 0:
            raise ValueError(f"negative seek position {target}")
        # Past the end reads as end of file, as with a regular file.
        self._reader.seek(min(target, self._reader.size()))
        return target

    def readinto(self, buffer):
        self._check_open()
        return self._reader.readinto(buffer)

    def read(self, size=-1):
        self._check_open()
        return self._reader.read(-1 if size is None else size)

    def readall(self):
        return self.read(-1)

    def close(self):
        if not self.closed:
            self._reader.close()
        super().close()

    def _check_open(self):
        if self.closed:
            raise ValueError("I/O operation on closed blob file")

    def __repr__(self):
        state = "closed" if self.closed else f"size={self._reader.size()}"
        return f"<lancet.BlobFile {state}>"
