"""What every concern's validation shares: setting a field of the frozen ``Config`` while it
normalises itself, and refusing options that do not apply."""

from __future__ import annotations

from dataclasses import fields

from netsim_fast.checks import bad


def set_field(cfg, name: str, value) -> None:
    """Set ``cfg.name`` on a frozen dataclass (normalisation inside ``__post_init__``)."""
    object.__setattr__(cfg, name, value)


def reject_unless_default(cfg, names, why: str) -> None:
    """Options that do not apply here must keep their defaults: a given value is an error."""
    defaults = {f.name: f.default for f in fields(cfg)}
    for name in names:
        value = getattr(cfg, name)
        if value is not None and value != defaults[name]:
            raise bad(name, value, why)
