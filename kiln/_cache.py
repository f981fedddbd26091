"""The per-user cache of compiled modules used by ``kiln.compile``.

Layout: one directory (mode 0700, owned by the user) holding, per key,
``<key><EXT_SUFFIX>`` (the extension module) and ``<key>.json`` (a sidecar
with the module's sha256 and a summary of the report). An entry is loaded
only when both files are regular files owned by the user, not writable by
group or others, and the module's bytes hash to the recorded value; anything
else is treated as a miss and rebuilt (never loaded). Writes are atomic.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Mapping

from kiln import KilnError, __version__

# Distribution names under which each framework may be installed.
_FRAMEWORK_DISTS: dict[str, tuple[str, ...]] = {
    "torch": ("torch",),
    "tensorflow": ("tensorflow", "tensorflow-cpu", "tensorflow-intel", "tf-nightly"),
}


def ext_suffix() -> str:
    return sysconfig.get_config_var("EXT_SUFFIX") or ".so"


def framework_versions() -> dict[str, str | None]:
    """Installed framework versions, read from package metadata (no import)."""
    out: dict[str, str | None] = {}
    for name, dists in _FRAMEWORK_DISTS.items():
        out[name] = None
        for dist in dists:
            try:
                out[name] = metadata.version(dist)
                break
            except metadata.PackageNotFoundError:
                continue
    return out


def cache_dir() -> Path:
    """The cache directory, created with mode 0700 and checked to be ours."""
    env = os.environ.get("KILN_CACHE_DIR")
    if env:
        path = Path(env)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
        path = base / "kiln"
    return ensure_private_dir(path)


def ensure_private_dir(path: Path) -> Path:
    path = path.absolute()
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.lstat(path)
    except OSError as exc:
        raise KilnError(f"kiln: cannot create the cache directory {path}: {exc}") from exc
    if not stat.S_ISDIR(st.st_mode):
        raise KilnError(f"kiln: refusing the cache directory {path}: not a directory "
                        "(set KILN_CACHE_DIR to another place)")
    if st.st_uid != os.getuid():
        raise KilnError(f"kiln: refusing the cache directory {path}: it is owned by uid "
                        f"{st.st_uid}, not by you (uid {os.getuid()}); "
                        "set KILN_CACHE_DIR to a directory of your own")
    if stat.S_IMODE(st.st_mode) != 0o700:
        os.chmod(path, 0o700)
    return path


def cache_key(source: bytes, filename: str, flags: int,
              extra: Mapping[str, Any] | None = None) -> str:
    """sha256 over everything the compiled module depends on."""
    parts: dict[str, Any] = {
        "source": hashlib.sha256(source).hexdigest(),
        "filename": filename,  # the generated code quotes it in errors and tracebacks
        "kiln": __version__,
        "abi": f"{sys.implementation.cache_tag}{ext_suffix()}",
        "frameworks": framework_versions(),
        "flags": flags,
        "extra": dict(extra or {}),
    }
    blob = json.dumps(parts, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(blob).hexdigest()


def file_sha256(path: str | os.PathLike[str]) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@dataclass(frozen=True)
class Entry:
    so_path: Path
    meta: dict[str, Any]


def _trusted(path: Path) -> bool:
    """A regular file (not a symlink) owned by us, not group/world-writable."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return (stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid()
            and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def _paths(directory: Path, key: str) -> tuple[Path, Path]:
    return directory / f"{key}{ext_suffix()}", directory / f"{key}.json"


def lookup(key: str, directory: Path | None = None) -> Entry | None:
    """The verified entry for *key*, or None (missing or untrustworthy)."""
    directory = directory or cache_dir()
    so_path, meta_path = _paths(directory, key)
    if not (_trusted(so_path) and _trusted(meta_path)):
        return None
    try:
        meta = json.loads(meta_path.read_text())
        if not isinstance(meta, dict) or meta.get("sha256") != file_sha256(so_path):
            return None
    except (OSError, ValueError):
        return None
    return Entry(so_path, meta)


def _atomic_write(target: Path, data: bytes, mode: int) -> None:
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=target.suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def store(key: str, so_file: str | os.PathLike[str], meta: Mapping[str, Any],
          directory: Path | None = None) -> Entry:
    """Copy the built module *so_file* into the cache under *key*."""
    directory = directory or cache_dir()
    so_path, meta_path = _paths(directory, key)
    data = Path(so_file).read_bytes()
    full_meta = dict(meta)
    full_meta["sha256"] = hashlib.sha256(data).hexdigest()
    _atomic_write(so_path, data, 0o700)
    _atomic_write(meta_path, json.dumps(full_meta, sort_keys=True).encode(), 0o600)
    return Entry(so_path, full_meta)
