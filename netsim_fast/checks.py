"""The house checks of user input: one-line ``ConfigError`` messages that name the option, the
value found and what is allowed (``--vcs 40: must be <= 32``).

On the ground floor so that every validator (the ``Config`` concerns, the workloads' own
checks, the studies' specs) words its errors the same way without importing ``config``.
"""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path

from netsim_fast.errors import ConfigError


def bad(option: str, value, allowed: str) -> ConfigError:
    """The house error: ``--option value: what is allowed``."""
    flag = f"--{option.replace('_', '-')}"
    if value is True or value is None:  # a flag given, or a value missing: nothing to show
        return ConfigError(f"{flag}: {allowed}")
    shown = ",".join(map(str, value)) if isinstance(value, tuple) else value
    if isinstance(shown, str) and not shown.isprintable():  # a newline or control character: keep one line
        shown = repr(shown)
    return ConfigError(f"{flag} {shown}: {allowed}")


def unknown_choice(option: str, value: str, choices) -> ConfigError:
    close = difflib.get_close_matches(str(value), list(choices), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return bad(option, value, f"unknown; choose one of {', '.join(choices)}{hint}")


def parse_int_list(option: str, text) -> tuple[int, ...]:
    """'8,8,4' -> (8, 8, 4); tuples and lists pass through; errors name the option."""
    if text is None:
        return None
    if isinstance(text, (tuple, list)):
        items = list(text)
    else:
        # commas or spaces separate ("8,8", "8, 8", "8 8"): never glue "8 8" into 88
        items = [t for t in re.split(r"[,\s]+", str(text).strip()) if t != ""]
    try:
        values = tuple(int(t) for t in items)
    except (TypeError, ValueError):
        raise bad(option, text, "expected comma-separated integers such as 8,8,4") from None
    if not values:
        raise bad(option, text, "expected at least one integer")
    return values


def require_int(option: str, value, low: int | None = None, high: int | None = None, what: str = "") -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise bad(option, value, f"expected an integer{what}")
    if low is not None and value < low:
        raise bad(option, value, f"must be >= {low}{what}")
    if high is not None and value > high:
        raise bad(option, value, f"must be <= {high}{what}")


def _nearest_folder(path: Path) -> Path:
    folder = path
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def _can_create_in(folder: Path) -> bool:
    """Whether a folder can be made in ``folder``: tried, not guessed (``os.access`` says yes to
    root everywhere, /proc included), and removed at once, so nothing is left behind."""
    import tempfile

    if not folder.is_dir():
        return False
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".netsim-fast-probe-", dir=folder))
    except OSError:
        return False
    return True


def check_writable_file(option: str, path) -> str:
    """``path`` as a string, once it is known that a file can be written there: not a folder,
    and its nearest existing folder writable (missing folders are created when writing)."""
    if not isinstance(path, (str, os.PathLike)) or not str(path).strip():
        raise bad(option, path, "expected a file path")
    path = Path(path)
    if path.is_dir():
        raise bad(option, str(path), "is a folder; give a file path")
    folder = _nearest_folder(path.parent)
    if not _can_create_in(folder) or (path.exists() and not os.access(path, os.W_OK)):
        raise bad(option, str(path), f"cannot be written: {folder} is not a writable folder")
    return str(path)


def check_writable_folder(option: str, path) -> str:
    """``path`` as a string, once it is known that a folder can be used there: an existing
    writable folder, or a path whose nearest existing folder is writable (created when writing)."""
    if not isinstance(path, (str, os.PathLike)) or not str(path).strip():
        raise bad(option, path, "expected a folder path")
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise bad(option, str(path), "is a file; give a folder")
    folder = _nearest_folder(path)
    if not _can_create_in(folder):
        raise bad(option, str(path), f"cannot be written: {folder} is not a writable folder")
    return str(path)


def require_finite(option: str, value, low: float | None = None, high: float | None = None,
                   what: str = "", low_open: bool = False) -> None:
    """A finite real number (not NaN or inf) in ``[low, high]`` (``(low, high]`` with ``low_open``)."""
    import math

    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise bad(option, value, f"expected a finite number{what}")
    if low is not None and (value <= low if low_open else value < low):
        raise bad(option, value, f"must be {'>' if low_open else '>='} {low:g}{what}")
    if high is not None and value > high:
        raise bad(option, value, f"must be <= {high:g}{what}")
