"""``netsim-fast sweep``: a grid of experiments on Dask, one results table (README, "Sweeps")."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from netsim_fast.cli._app import app, echo_json, guarded

_G, _X, _O = "Grid (instead of or on top of SPEC)", "Execution", "Output"

EXIT_INTERRUPTED = 130


def _opt(*names, panel, help):
    return typer.Option(*names, rich_help_panel=panel, help=help)


@app.command()
@guarded
def sweep(
    spec: Annotated[Optional[str], typer.Argument(help="Sweep spec (TOML with \\[base], \\[grid], \\[\\[points]], \\[sweep]).")] = None,
    *,
    out: Annotated[str, _opt("--out", panel=_O, help="Folder of the sweep: results.csv, sweep.json, traces/.")] = ...,
    set_: Annotated[Optional[list[str]], _opt("--set", panel=_G, help="KEY=VALUE added to \\[base] (repeatable), e.g. --set topology=torus --set k=8.")] = None,
    grid: Annotated[Optional[list[str]], _opt("--grid", panel=_G, help="KEY=V1,V2,... added to \\[grid] (repeatable), e.g. --grid rate=0.1,0.2; a TOML list for values with commas: 'dims=[\"8,8\",\"4,4,4\"]'.")] = None,
    repeats: Annotated[Optional[int], _opt("--repeats", panel=_G, help="Repeats per point (\\[sweep] repeats).")] = None,
    seed: Annotated[Optional[int], _opt("--seed", panel=_G, help="Base seed S; repeat r runs with a seed derived from (S, r) (\\[sweep] seed).")] = None,
    workers: Annotated[Optional[int], _opt("--workers", panel=_X, help="Workers of the local cluster \\[default: one per core].")] = None,
    threads: Annotated[bool, _opt("--threads", panel=_X, help="Local workers are threads of this process, not processes.")] = False,
    scheduler: Annotated[Optional[str], _opt("--scheduler", panel=_X, help="Address of an existing Dask scheduler, e.g. tcp://host:8786 \\[default: $NETSIM_FAST_SCHEDULER or Dask config, else a local cluster].")] = None,
    timeout: Annotated[Optional[float], _opt("--timeout", panel=_X, help="Seconds per point; a point still running then is recorded as timeout.")] = None,
    resume: Annotated[bool, _opt("--resume", panel=_X, help="Complete the sweep in --out: run only the rows results.csv lacks.")] = False,
    retry_failed: Annotated[bool, _opt("--retry-failed", panel=_X, help="With --resume: run failed and timed-out rows again.")] = False,
    dry_run: Annotated[bool, _opt("--dry-run", panel=_X, help="Validate the spec and list its points; run nothing.")] = False,
    traces: Annotated[bool, _opt("--traces", panel=_O, help="Write each run's HDF5 trace to --out/traces/.")] = False,
    format_: Annotated[str, _opt("--format", panel=_O, help="csv, or parquet (results.parquet as well; needs pyarrow).")] = "csv",
    json: Annotated[bool, _opt("--json", panel=_O, help="Print the sweep report as one JSON object.")] = False,
    quiet: Annotated[bool, _opt("--quiet", panel=_O, help="No progress bar.")] = False,
) -> None:
    """Run a grid of experiments on Dask; rows land in OUT/results.csv as they finish.

    Example: [bold]netsim-fast sweep curves.toml --out runs/curves --workers 2[/bold]
    """
    from netsim_fast.checks import check_writable_folder
    from netsim_fast.errors import ConfigError
    from netsim_fast.sweep import load_spec, run_sweep
    from netsim_fast.sweep.execute import check_options
    from netsim_fast.sweep.spec import parse_assignment

    check_writable_folder("out", out)
    check_options(timeout=timeout, fmt=format_, workers=workers, threads=threads, scheduler=scheduler)

    base = dict(parse_assignment(text, "set") for text in set_ or [])
    grid_values = dict(parse_assignment(text, "grid", as_list=True) for text in grid or [])
    settings = {k: v for k, v in (("repeats", repeats), ("seed", seed)) if v is not None}
    if spec is None and not grid_values and not base:
        raise ConfigError("sweep: give a SPEC file or the grid as options (--set KEY=VALUE, --grid KEY=V1,V2)")
    if retry_failed and not resume:
        raise ConfigError("--retry-failed reruns rows of an earlier sweep, so it needs --resume")
    parsed = load_spec(spec, base=base, grid=grid_values, sweep=settings)
    if dry_run:
        _list_points(parsed, as_json=json)
        return
    try:
        with _progress(quiet or json) as (progress, notify):
            report = run_sweep(parsed, out, workers=workers, threads=threads, scheduler=scheduler, resume=resume,
                               retry_failed=retry_failed, timeout=timeout, traces=traces, fmt=format_,
                               progress=progress, notify=notify)
    except KeyboardInterrupt:
        typer.secho(f"interrupted: the finished rows are in {out}/results.csv; rerun with --resume to complete it",
                    fg=typer.colors.YELLOW, err=True)
        raise typer.Exit(code=EXIT_INTERRUPTED) from None
    if json:
        from dataclasses import asdict

        echo_json({k: (str(v) if k in ("out_dir", "results_path") else v) for k, v in asdict(report).items()})
    else:
        _render(report)


def _list_points(spec, *, as_json: bool) -> None:
    rows = [{"point_id": p.point_id, **{k: p.config.to_dict()[k] for k in spec.varied}} for p in spec.points]
    seeds = [spec.seed_of(r) for r in range(spec.repeats)]
    if as_json:
        echo_json({"points": rows, "repeats": spec.repeats, "seeds": seeds, "fingerprint": spec.fingerprint})
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{len(rows)} points x {spec.repeats} repeat(s) = {len(rows) * spec.repeats} runs")
    for col in ["point_id", *spec.varied]:
        table.add_column(col)
    for row in rows:
        table.add_row(*(str(v) for v in row.values()))
    table.caption = f"seeds per repeat: {', '.join(map(str, seeds))}; fingerprint {spec.fingerprint}"
    Console().print(table)


class _Bar:
    """Sweep-wide progress bar on stderr: rows done of total, failed so far, elapsed, ETA."""

    def __init__(self, progress_cls):
        self.bar, self.task = progress_cls, None

    def __call__(self, done: int, failed: int, total: int) -> None:
        if self.task is None:
            self.task = self.bar.add_task("sweep", total=total, failed=0)
        self.bar.update(self.task, completed=done, failed=failed)


def _progress(quiet: bool):
    import contextlib

    @contextlib.contextmanager
    def manager():
        if quiet:
            yield None, None
            return
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                                   TimeRemainingColumn)

        console = Console(stderr=True)
        with Progress(TextColumn("sweep"), BarColumn(), MofNCompleteColumn(), TextColumn("runs"),
                      TextColumn("[red]{task.fields[failed]} failed"), TimeElapsedColumn(), TextColumn("ETA"),
                      TimeRemainingColumn(), console=console, transient=True) as bar:
            yield _Bar(bar), lambda message: console.print(message, style="dim")

    return manager()


def _render(report) -> None:
    from rich.console import Console
    from rich.table import Table

    counts = report.counts
    table = Table(title=f"sweep {report.out_dir}", show_header=False)
    table.add_column("what", style="bold")
    table.add_column("value", justify="right")
    table.add_row("runs in the spec", str(report.total))
    table.add_row("already in results.csv (resume)", str(report.skipped))
    table.add_row("computed now", str(report.computed))
    table.add_row("table: ok / failed / timeout",
                  f"{counts.get('ok', 0)} / {counts.get('failed', 0)} / {counts.get('timeout', 0)}")
    if report.cluster:
        table.add_row("ran on", report.cluster)
    for w in report.workers:
        note = f" ({'; '.join(w['errors'])})" if w["errors"] else ""
        table.add_row(f"warm-up {w['worker']}", f"compile {w['compile_seconds']:.2f} s, total {w['seconds']:.2f} s{note}")
    table.add_row("seconds: runs / whole call", f"{report.run_seconds:.2f} / {report.wall_seconds:.2f}")
    table.caption = f"results: {report.results_path}"
    console = Console()
    console.print(table)
    for failure in report.failures[:10]:
        console.print(f"[red]{failure['status']}[/red] point {failure['point_id']} repeat {failure['repeat']}: "
                      f"{failure['error']}", highlight=False)
    if len(report.failures) > 10:
        console.print(f"... and {len(report.failures) - 10} more (column 'error' of results.csv)")
