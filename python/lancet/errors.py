"""Exceptions raised by lancet.

Every error carries the C++ library's message. Each class also derives from the
builtin exception a Python caller would expect, so ``except ValueError`` and
``except OSError`` work as they do with other libraries.
"""


class LancetError(Exception):
    """Base class of every error lancet raises."""


class InvalidArgumentError(LancetError, ValueError):
    """A bad argument: an unknown column, a filter that does not parse, a bad option."""


class NotFoundError(LancetError, FileNotFoundError):
    """A dataset, version or file that does not exist."""


class AlreadyExistsError(LancetError, FileExistsError):
    """Creating something that exists already (a dataset in mode="create", a tag)."""


class StorageError(LancetError, OSError):
    """An I/O error from the storage the dataset lives in."""


class CorruptionError(LancetError, OSError):
    """Bytes on storage that are not what the format says they must be."""


class NotSupportedError(LancetError, NotImplementedError):
    """A feature of the format or an argument combination lancet does not support."""


class OutOfRangeError(LancetError, IndexError):
    """A position past the end of what it indexes."""


class CommitConflict(LancetError):
    """A concurrent writer committed first and the retries ran out."""


# The keys _lancet uses for status codes (python/src/errors.cc).
ERROR_CLASSES = {
    "Base": LancetError,
    "InvalidArgument": InvalidArgumentError,
    "NotFound": NotFoundError,
    "AlreadyExists": AlreadyExistsError,
    "IOError": StorageError,
    "Corruption": CorruptionError,
    "NotSupported": NotSupportedError,
    "OutOfRange": OutOfRangeError,
    "CommitConflict": CommitConflict,
}
