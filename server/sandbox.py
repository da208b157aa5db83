"""The kernel-enforced file sandbox of a translation worker.

A text filter over the upload (``server.includes``) can always be missed: the preprocessor builds
file names from macros (``__has_include(P)``, ``_Pragma("GCC dependency ...")``), and a lexer that
desynchronises once stops seeing what follows.  So the guarantee comes from the kernel instead.
Before it reads the upload, the worker enters a mount namespace of its own whose root is an empty
read-only tmpfs holding bind mounts of exactly:

- the request's directory (writable: the syntax check writes the translation there);
- the headers a translation may read: cuda2cpu's, MocCUDA's and the host compiler's include
  directories;
- what the worker itself runs: the Python modules it has loaded and the standard library (for
  imports made later), and the host compiler's driver, ``cc1plus`` and their shared libraries (for
  ``/v1/check``);
- ``/dev/null``.

Each is mounted at its own path, so every path the worker prints or checks is unchanged.  Nothing
else exists in that namespace: ``/etc/passwd`` or ``/proc/self/environ`` are "no such file" whether
or not the server has them, so a probe learns nothing about the server's files.  There is no
``/proc``, and ``pivot_root`` detaches the old root, so nothing is left to climb back into.

Entering needs ``CLONE_NEWNS``: as root directly, otherwise inside a new user namespace (in which
the worker is root with no rights outside it).  Where the kernel allows neither, :func:`confine`
raises :class:`SandboxUnavailable`, and the service refuses to start rather than run unconfined.
"""

from __future__ import annotations

import ctypes
import functools
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MNT_DETACH = 2
# pivot_root has no glibc wrapper; its number differs between the architectures we run on.
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}.get(platform.machine())

_libc = ctypes.CDLL(None, use_errno=True)


class SandboxUnavailable(RuntimeError):
    """The kernel refused a namespace or mount the sandbox needs."""


@dataclass(frozen=True)
class Tree:
    """One path made visible inside the sandbox, read-only unless ``writable``."""
    path: str
    writable: bool = False


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise SandboxUnavailable(f"{what}: {os.strerror(err)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    _check(_libc.mount(source and source.encode(), target.encode(), fstype and fstype.encode(),
                       ctypes.c_ulong(flags), data and data.encode()), f"mount {source or fstype} on {target}")


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def _enter_namespace() -> None:
    """A private mount namespace; through a user namespace where this process is not root."""
    if os.geteuid() == 0:
        _check(_libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
        return
    uid, gid = os.geteuid(), os.getegid()
    _check(_libc.unshare(CLONE_NEWUSER | CLONE_NEWNS), "unshare(CLONE_NEWUSER | CLONE_NEWNS)")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")


def _links_on_the_way(path: str, new_root: str) -> str:
    """Recreate under ``new_root`` every symbolic link met on the way to ``path`` (``/lib64`` ->
    ``usr/lib64`` -> ...), so that the path works as spelled inside the sandbox; return the real
    path, which is where the file itself is mounted."""
    walked = ""
    parts = [p for p in path.split(os.sep) if p]
    for i, part in enumerate(parts):
        walked = f"{walked}/{part}"
        if not os.path.islink(walked):
            continue
        target = os.readlink(walked)
        link = new_root + walked
        os.makedirs(os.path.dirname(link), exist_ok=True)
        if not os.path.lexists(link):
            os.symlink(target, link)
        resolved = os.path.normpath(os.path.join(os.path.dirname(walked), target))
        return _links_on_the_way(os.path.join(resolved, *parts[i + 1:]), new_root)
    return walked or "/"


def _place(tree: Tree, new_root: str) -> None:
    """Bind ``tree`` at its own path under ``new_root`` (read-only unless writable)."""
    source = _links_on_the_way(os.path.abspath(tree.path), new_root)
    target = new_root + source
    if os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if not os.path.exists(target):
            open(target, "w").close()
    _mount(source, target, None, MS_BIND | MS_REC)
    if not tree.writable:
        _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def confine(trees: Iterable[Tree], mount_point: str) -> None:
    """Make ``trees`` the only files this process (and its children) can see.

    ``mount_point`` is an empty directory the new root is built on; it may lie inside a writable
    tree.  The process must be single-threaded (``unshare`` of a user namespace requires it).
    """
    if SYS_PIVOT_ROOT is None:
        raise SandboxUnavailable(f"no pivot_root number known for {platform.machine()}")
    trees = [t for t in trees if os.path.exists(t.path)]
    _enter_namespace()
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing below propagates back to the host
    _mount("tmpfs", mount_point, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
    # Deeper paths last, so a tree inside another is mounted over it and not hidden by it.
    for tree in sorted(trees, key=lambda t: os.path.realpath(t.path).count(os.sep)):
        _place(tree, mount_point)
    old = os.path.join(mount_point, ".old-root")
    os.mkdir(old)
    _check(_libc.syscall(SYS_PIVOT_ROOT, mount_point.encode(), old.encode()), "pivot_root")
    os.chdir("/")
    _check(_libc.umount2(b"/.old-root", MNT_DETACH), "umount the old root")
    os.rmdir("/.old-root")
    _mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


# ------------------------------------------------------------------ what a worker needs to see

def _library_files(executable: str) -> list[str]:
    """The shared libraries (and the loader) an executable maps, from ``ldd``."""
    try:
        out = subprocess.run(["ldd", executable], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    found = []
    for line in out.splitlines():
        for word in line.split():
            if word.startswith("/") and os.path.exists(word):
                found.append(word)  # as the loader asks for it: the links on the way are recreated
    return found


@functools.cache
def compiler_trees(cxx: str) -> tuple[str, ...]:
    """The host compiler's driver, its program directory (``cc1plus``, specs) and the libraries
    they load: what ``g++ -fsyntax-only`` needs to run."""
    driver = shutil.which(cxx)
    if driver is None:
        return ()
    paths = [driver, *_library_files(driver)]
    try:
        cc1plus = subprocess.run([driver, "-print-prog-name=cc1plus"], capture_output=True, text=True,
                                 timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        cc1plus = ""
    if os.path.isabs(cc1plus) and os.path.exists(cc1plus):
        paths += [os.path.dirname(cc1plus), *_library_files(cc1plus)]
    return tuple(dict.fromkeys(paths))


@functools.cache
def python_trees() -> tuple[str, ...]:
    """The standard library and the directories of every module loaded so far: enough for the
    worker to go on running (and to import what it imports lazily) once confined.  Cached: the
    fork server asks once, after its preload, and every worker forked from it has those modules."""
    stdlib = os.path.dirname(os.__file__)
    paths = [stdlib, os.path.join(stdlib, "lib-dynload"), os.path.realpath(sys.executable)]
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if not file or not os.path.isabs(file):
            continue
        package_dir = os.path.dirname(file)
        name = getattr(module, "__name__", "")
        # The top of the module's package: site-packages/clang/cindex.py gives site-packages/clang.
        for _ in range(name.count(".")):
            package_dir = os.path.dirname(package_dir)
        if os.path.basename(package_dir) in ("site-packages", "dist-packages") or package_dir == stdlib:
            paths.append(file)  # a single-file module: only that file, not the whole directory
        else:
            paths.append(package_dir)
    return tuple(dict.fromkeys(os.path.realpath(p) for p in paths))


def probe() -> str | None:
    """Whether this machine lets a worker confine itself: None, or why not (tried in a child)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="cuda2cpu-sandbox-probe-") as scratch:
        mount_point = os.path.join(scratch, "root")
        os.mkdir(mount_point)
        reader, writer = os.pipe()
        child = os.fork()
        if child == 0:
            os.close(reader)
            try:
                confine([Tree(scratch, writable=True)], mount_point)
                message = b""
            except (SandboxUnavailable, OSError) as exc:
                message = str(exc).encode()
            os.write(writer, message)
            os._exit(0)
        os.close(writer)
        with os.fdopen(reader, "rb") as answer:
            message = answer.read().decode()
        os.waitpid(child, 0)
    return message or None
