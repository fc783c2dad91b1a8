"""Output files of ``svmbound tune``: each path checked before the search, written by rename."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _destination(path) -> Path:
    """Where writing ``path`` lands: the file a symbolic link points to (replacing the link by
    a file would change what the user gave)."""
    p = Path(path).expanduser()
    return Path(os.path.realpath(p)) if p.is_symlink() else p


def check_output_path(path, option: str) -> None:
    """Raise a ValueError naming ``option`` unless ``path`` can be written the way
    :func:`write_atomic` writes it: not a folder; its folder exists and a file can be created
    there (probed with a temporary file, removed at once); an existing regular file must be
    writable. Called before a search, so that a typo in an output path does not cost the whole
    search."""
    p = _destination(path)
    if p.is_dir():
        raise ValueError(f"{option} {path} is a folder, not a file name")
    folder = p.parent
    if not folder.is_dir():
        raise ValueError(f"{option} {path}: folder {folder} does not exist")
    if p.exists() and not p.is_file():        # /dev/null, a pipe: written in place
        if not os.access(p, os.W_OK):
            raise ValueError(f"{option} {path}: cannot write there (not writable)")
        return
    if p.exists() and not os.access(p, os.W_OK):
        raise ValueError(f"{option} {path}: the file exists and is not writable")
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=f".{p.name}.", suffix=".probe")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ValueError(f"{option} {path}: cannot write there ({exc.strerror or exc})") from None


def write_atomic(path, option: str, write) -> None:
    """``write(tmp)`` writes the file at the path ``tmp``, a new file in the folder of ``path``
    with the same suffix (matplotlib picks the image format by it); once it has written and
    synced, ``tmp`` replaces ``path`` (``os.replace``): a full disk or an error leaves no
    partial file, and an existing file as it was. The new file has the permissions an
    ordinary ``open`` gives it (or those of the file it replaces). A path that exists and is
    not a regular file (``/dev/null``, a pipe) is written in place. Errors: an ``OSError``
    naming ``option`` and the path."""
    p = _destination(path)
    if p.exists() and not p.is_file():
        try:
            write(os.fspath(p))
        except OSError as exc:
            raise _write_error(exc, f"{option} {path}: cannot write ({exc.strerror or exc})") \
                from None
        return
    try:
        mode = p.stat().st_mode & 0o7777
    except OSError:
        mode = 0o666 & ~_umask()
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=p.suffix)
        os.close(fd)
        write(tmp)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.chmod(tmp, mode)
        os.replace(tmp, p)
        tmp = None
    except OSError as exc:
        raise _write_error(exc, f"{option} {path}: cannot write ({exc.strerror or exc}); "
                           f"{'the file is unchanged' if p.exists() else 'no file was written'}") \
            from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def _write_error(exc: OSError, message: str) -> OSError:
    """An OSError whose text is ``message`` alone, with the errno of ``exc``."""
    err = OSError(message)
    err.errno = exc.errno
    return err


def write_text_atomic(path, option: str, text: str) -> None:
    """:func:`write_atomic` of an ASCII text."""
    def write(tmp):
        with open(tmp, "w", encoding="ascii") as fh:
            fh.write(text)

    write_atomic(path, option, write)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def append_text_atomic(path, option: str, text: str) -> None:
    """:func:`write_atomic` of the file at ``path`` (if it is a regular file) followed by the
    ASCII ``text`` on lines of its own."""
    p = _destination(path)
    old = p.read_bytes() if p.is_file() else b""
    if old and not old.endswith(b"\n"):
        old += b"\n"
    data = old + text.encode("ascii")

    def write(tmp):
        with open(tmp, "wb") as fh:
            fh.write(data)

    write_atomic(path, option, write)
