"""``netsim-fast warmup``: compile or load every kernel now; ``--clear`` empties the cache first."""

from __future__ import annotations

from typing import Annotated

import typer

from netsim_fast.cli._app import app, echo_json, guarded
from netsim_fast.cli.options import JsonOpt


@app.command()
@guarded
def warmup(
    *,
    clear: Annotated[bool, typer.Option("--clear", help="Delete Numba's cached kernels of this package first "
                                        "(to free the space; edited kernels recompile anyway).")] = False,
    json: JsonOpt = False,
) -> None:
    """Compile (or load from the on-disk cache) every kernel, so later runs start at once."""
    from netsim_fast.warmup import cache_locations, clear_cache, warmup as do_warmup

    removed = clear_cache() if clear else 0
    timings = do_warmup()
    if json:
        echo_json({"cleared_files": removed, "seconds": timings, "cache": [str(p) for p in cache_locations()]})
        return
    if clear:
        typer.echo(f"cleared {removed} cached file(s)")
    for name, seconds in timings.items():
        typer.echo(f"{name:10s} {seconds:7.2f} s")
    typer.echo(f"total      {sum(timings.values()):7.2f} s  (cache: {', '.join(map(str, cache_locations()))})")
