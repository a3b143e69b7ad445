"""The option audit of the commands other than ``run`` (issue "every input answered"): each
fixed problem has its test here. A bad input ends with one line on stderr naming the option and
its value, exit code 2, no traceback, and nothing written."""

from __future__ import annotations

import pytest

from netsim_fast.cli import main


def answer(argv, capsys):
    """Exit code and stderr lines of the console script on ``argv``."""
    with pytest.raises(SystemExit) as exit_:
        main([str(a) for a in argv])
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    return exit_.value.code, err


def refused(argv, capsys, *needles):
    code, err = answer(argv, capsys)
    assert code == 2 and len(err) == 1 and err[0].startswith("error: "), (code, err)
    for needle in needles:
        assert needle in err[0], err[0]
    return err[0]


def test_a_config_file_with_an_integer_past_pythons_digit_limit_is_refused(tmp_path, capsys):
    # was: run --config FILE with k = <5000 digits> -> ValueError traceback from tomllib's int()
    path = tmp_path / "big.toml"
    path.write_text("k = " + "1" * 5000 + "\n")
    refused(["run", "--config", path, "--cycles", "10", "--quiet"], capsys, "--config", "more than 4300 digits")


def test_a_missing_value_is_not_shown_as_none(capsys):
    # was: model rrg -> "error: --nodes None: --topology rrg needs --nodes N"
    line = refused(["model", "rrg"], capsys, "--nodes:")
    assert "None" not in line


@pytest.mark.parametrize("path", ["/proc/netsim-x/y.png", "/sys/netsim-x.png"])
def test_unwritable_places_are_found_by_trying_not_by_os_access(path):
    # was: os.access says yes to root for /proc, so --out /proc/x/y passed the check and failed after the work
    from netsim_fast.checks import check_writable_file, check_writable_folder
    from netsim_fast.errors import ConfigError

    for check in (check_writable_file, check_writable_folder):
        with pytest.raises(ConfigError, match="not a writable folder"):
            check("out", path)


def test_the_writability_probe_leaves_nothing_behind(tmp_path):
    from netsim_fast.checks import check_writable_file, check_writable_folder

    check_writable_file("out", tmp_path / "a" / "b.png")
    check_writable_folder("out", tmp_path / "sweep")
    assert list(tmp_path.iterdir()) == []


# -- logp --------------------------------------------------------------------------------------

HUGE = 10**30


@pytest.mark.parametrize("args,needles", [
    # were tracebacks (OverflowError, ValueError from numpy) or runs that never ended
    (["--L", HUGE], ["--L", "must be <="]),
    (["--p", HUGE], ["--p", "must be <="]),
    (["--h", HUGE], ["--h", "must be <="]),
    (["--beta", "nan"], ["--beta nan", "finite"]),
    (["--beta", "inf"], ["--beta inf", "finite"]),
    (["--beta", "1e300"], ["--beta", "must be <= 100"]),
    (["--seed", "-1"], ["--seed -1", ">= 0"]),
    (["--G", "1"], ["--G 1", "max(2, o) <= G <= L"]),
    (["--relation", "perms"], ["--relation perms", "choose one of"]),
    # options the protocol does not read were silently ignored
    (["--protocol", "cb", "--h", "3"], ["--h 3", "does not apply to --protocol cb"]),
    (["--protocol", "cb", "--relation", "random"], ["--relation random", "--protocol cb"]),
    (["--protocol", "cb", "--beta", "2"], ["--beta 2.0", "--protocol cb"]),
    (["--protocol", "deterministic", "--beta", "2"], ["--beta 2.0", "randomized only"]),
    # a sort-based run that would need tens of GiB (it took the machine down): refused from the estimate
    (["--protocol", "deterministic", "--p", "1048576", "--h", "4096"], ["--p 1048576", "MiB", "memory available"]),
])
def test_logp_checks_every_option_first(args, needles, capsys):
    refused(["logp", *args], capsys, *needles)


# -- params ------------------------------------------------------------------------------------

SMALL = ["--topology", "torus", "--k", "4"]


@pytest.mark.parametrize("args,needles", [
    (["--o", HUGE], ["--o", "must be <= 100000"]),  # was an OverflowError traceback
    (["--o", "1000000000"], ["--o", "must be <= 100000"]),  # was a run that did not end
    (["--reps", HUGE], ["--reps", "must be <= 1000"]),  # was a loop that did not end
    (["--pairs", HUGE], ["--pairs", "must be <= 100000"]),  # was a numpy ValueError traceback
    (["--h", "1,100000000000"], ["--h", "each <= 4096"]),
    (["--engine", "packet", "--vcs", "4"], ["--vcs 4", "flit engine only"]),  # the default value was let through
    (["--engine", "packet", "--packet-flits", "8"], ["--packet-flits 8", "flit engine only"]),
    (["--graph-seed", "5"], ["--graph-seed 5", "rrg only"]),
])
def test_params_checks_every_option_first(args, needles, capsys):
    refused(["params", *SMALL, *args], capsys, *needles)


def test_params_refuses_a_network_whose_distance_table_does_not_fit(capsys, tmp_path):
    # was: a MemoryError (exit 1) after the topology was built; now exit 2 from the estimate
    refused(["params", "--topology", "torus", "--k", "1000"], capsys, "--dims 1000,1000", "N x N distance table")
    path = tmp_path / "path.txt"
    path.write_text("".join(f"{i} {i + 1}\n" for i in range(200_000)))
    refused(["params", "--topology", "edgelist", "--file", path], capsys, "--file", "200001 nodes")


# -- topo ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("args,needles", [
    # the seeds draw a random graph: on the others they were silently ignored
    (["--topology", "torus", "--k", "4", "--seed", "5"], ["--seed 5", "rrg only"]),
    (["--topology", "torus", "--k", "4", "--graph-seed", "5"], ["--graph-seed 5", "rrg only"]),
    (["--topology", "rrg", "--nodes", "16", "--degree", "4", "--seed", "5", "--graph-seed", "3"], ["--seed 5", "unused"]),
    # sizes whose metrics never finished (or filled the memory)
    (["--topology", "complete", "--nodes", "1048576"], ["--nodes 1048576", "links"]),
    (["--topology", "rrg", "--nodes", "1048576", "--degree", "4"], ["--nodes 1048576", "vertex-transitive"]),
    (["--topology", "mesh", "--k", "1024"], ["--dims 1024,1024", "vertex-transitive"]),
])
def test_topo_checks_every_option_first(args, needles, capsys):
    import time

    start = time.perf_counter()
    refused(["topo", *args], capsys, *needles)
    assert time.perf_counter() - start < 5  # refused before the graph is built


def test_topo_keeps_the_seed_of_a_random_graph(capsys):
    code, _ = answer(["topo", "--topology", "rrg", "--nodes", "16", "--degree", "4", "--seed", "5", "--json"], capsys)
    assert code == 0


def test_the_graph_seed_of_a_deterministic_topology_is_refused_by_run_too(capsys):
    refused(["run", "--topology", "torus", "--k", "4", "--graph-seed", "5", "--cycles", "10"], capsys,
            "--graph-seed 5", "rrg only")


@pytest.mark.parametrize("digits_line", ["0 {big}\n", "nodes {big}\n0 1\n", "{big} 1\n"])
def test_edge_list_ids_past_pythons_digit_limit_are_refused(tmp_path, capsys, digits_line):
    # was: ValueError traceback from int() of more than 4300 digits
    path = tmp_path / "g.txt"
    path.write_text(digits_line.format(big="1" * 5000))
    refused(["topo", "--topology", "edgelist", "--file", path], capsys, "--file", "5000 digits")


def test_a_long_bad_line_of_a_messages_file_is_quoted_cut(tmp_path, capsys):
    path = tmp_path / "m.txt"
    path.write_text("0 1 x" + "1" * 5000 + "\n")
    line = refused(["run", "--engine", "packet", "--topology", "ring", "--nodes", "8", "--pattern", "file",
                    "--messages-file", path, "--quiet"], capsys, "fields must be integers")
    assert len(line) < 300


# -- bmg -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("args,needles", [
    # --loops was silently ignored by every routing but bmg-equiclass
    (["overhead", "--routing", "bmg-cbe", "--nodes-from", "16", "--nodes-to", "32", "--loops", "3"],
     ["--loops 3", "bmg-equiclass only"]),
    (["route", "--nodes", "16", "--src", "0", "--dst", "5", "--routing", "chord", "--loops", "4"],
     ["--loops 4", "bmg-equiclass only"]),
    # --max-loops out of range was reported as "loops must be between ..."
    (["proof", "--nodes-from", "16", "--nodes-to", "32", "--max-loops", HUGE], ["--max-loops", "must be <= 64"]),
])
def test_bmg_checks_every_option_first(args, needles, capsys):
    refused(["bmg", *args], capsys, *needles)


def test_bmg_equiclass_keeps_its_loops(capsys):
    code, _ = answer(["bmg", "route", "--nodes", "16", "--src", "0", "--dst", "5", "--routing", "bmg-equiclass",
                      "--loops", "3", "--json"], capsys)
    assert code == 0


# -- sweep ---------------------------------------------------------------------------------------

SPEC = '[base]\ntopology = "torus"\nk = 4\ncycles = 50\n[grid]\nrate = [0.05, 0.1]\n'


@pytest.fixture
def spec(tmp_path):
    path = tmp_path / "spec.toml"
    path.write_text(SPEC)
    return path


@pytest.mark.parametrize("args,needles", [
    # were exit 1 (OSError) after the spec was read, or a run in the current folder for ''
    (["--out", "/proc/netsim-x/y"], ["--out /proc/netsim-x/y", "not a writable folder"]),
    (["--out", "{spec}"], ["is a file; give a folder"]),
    (["--out", ""], ["--out", "expected a folder path"]),
    # was a MemoryError (exit 1) while Dask sized the cluster
    (["--out", "{out}", "--workers", HUGE], ["--workers", "must be <= 1024"]),
    # --dry-run checked none of these
    (["--out", "{out}", "--dry-run", "--workers", "0"], ["--workers 0", ">= 1"]),
    (["--out", "{out}", "--dry-run", "--timeout", "nan"], ["--timeout nan", "finite"]),
    (["--out", "{out}", "--dry-run", "--timeout", "inf"], ["--timeout inf", "finite"]),
    (["--out", "{out}", "--dry-run", "--timeout", "-1"], ["--timeout -1.0", "> 0"]),
    (["--out", "{out}", "--dry-run", "--format", "xlsx"], ["--format xlsx", "choose one of csv, parquet"]),
    (["--out", "{out}", "--dry-run", "--scheduler", "tcp://127.0.0.1:1", "--workers", "2"], ["--workers/--threads"]),
    # '' fell back to a local cluster
    (["--out", "{out}", "--dry-run", "--scheduler", ""], ["--scheduler ''"]),
    # was a ValueError traceback (int() of more than 4300 digits in the TOML value)
    (["--out", "{out}", "--dry-run", "--set", "k=" + "1" * 5000], ["[base] k", "expected an integer"]),
])
def test_sweep_checks_every_option_first(args, needles, spec, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["sweep", spec, *[a.format(spec=spec, out=out) if isinstance(a, str) else a for a in args]]
    refused(argv, capsys, *needles)
    assert not out.exists()


def test_sweep_specs_that_are_not_text_or_hold_huge_integers_are_refused(tmp_path, capsys):
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe[base]\n")  # was a UnicodeDecodeError traceback
    refused(["sweep", binary, "--out", tmp_path / "out", "--dry-run"], capsys, "not UTF-8 text")
    huge = tmp_path / "huge.toml"
    huge.write_text("[base]\nk = " + "1" * 5000 + "\n")  # was a ValueError traceback
    refused(["sweep", huge, "--out", tmp_path / "out", "--dry-run"], capsys, "more than 4300 digits")


def test_a_sweep_whose_scheduler_does_not_answer_writes_nothing(spec, tmp_path, capsys):
    # was: sweep.json and an empty results.csv written before the connection failed
    out = tmp_path / "out"
    refused(["sweep", spec, "--out", out, "--scheduler", "no-port-here", "--quiet"], capsys, "--scheduler no-port-here")
    assert not out.exists()


def test_a_results_table_cut_inside_a_multibyte_character_is_read(tmp_path):
    # a kill -9 can cut the last line anywhere, also inside a UTF-8 character: was UnicodeDecodeError
    from netsim_fast.sweep.table import read_rows

    path = tmp_path / "results.csv"
    row = "a,b\n1,x\n2,é".encode()
    path.write_bytes(row[:-1])  # the last line ends in the first byte of 'é'
    header, rows, partial = read_rows(path)
    assert header == ["a", "b"] and rows == [{"a": "1", "b": "x"}] and partial


def test_stale_temporaries_of_a_killed_sweep_are_removed(tmp_path):
    from netsim_fast.sweep.execute import remove_stale_temporaries

    for name in (".results.csv.4242.tmp", ".sweep.json.tmp", "keep.txt"):
        (tmp_path / name).write_text("x")
    remove_stale_temporaries(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


# -- plot ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    import netsim_fast as nf

    path = tmp_path_factory.mktemp("trace") / "run.h5"
    nf.simulate(nf.Config(topology="torus", k=4, cycles=100, trace=str(path)))
    return path


@pytest.mark.parametrize("args,needles", [
    (["--out", "/proc/netsim-x/y.png"], ["not a writable folder"]),  # was exit 1 after drawing
    (["--out", "{folder}"], ["is a folder"]),  # was: wrote FOLDER.png and printed FOLDER
    (["--out", ""], ["--out", "expected a file path"]),  # was: the default path, silently
    (["--out", "{folder}/p.txt"], ["--out", "ending in .png"]),  # was a matplotlib ValueError traceback
    (["--out", "{folder}/p"], ["--out", "ending in .png"]),  # was: wrote p.png and printed p
])
def test_plot_checks_its_output_first(args, needles, trace, tmp_path, capsys):
    refused(["plot", trace, *[a.format(folder=tmp_path) for a in args]], capsys, *needles)
    assert list(tmp_path.iterdir()) == []


def test_plot_refuses_empty_paths_and_column_names(trace, capsys):
    refused(["plot", ""], capsys, "plot ''")  # was: the current folder
    refused(["plot", trace, "--x", "", "--y", "latency_mean"], capsys, "--x", "column name")


def test_run_checks_the_format_of_the_curve_picture_before_the_curve(tmp_path, capsys):
    # was: the whole latency-load curve, then a matplotlib ValueError traceback
    refused(["run", "--topology", "torus", "--k", "4", "--cycles", "50", "--sweep-rates", "0.1",
             "--plot", tmp_path / "curve.txt", "--quiet"], capsys, "--plot", "ending in .png")


def test_a_damaged_trace_is_refused_in_one_line(trace, tmp_path, capsys):
    import h5py

    damaged = tmp_path / "damaged.h5"
    with h5py.File(damaged, "w") as h5:  # HDF5 with the mark of a trace and nothing else
        h5.attrs["schema_version"] = 2
    refused(["plot", damaged, "--out", tmp_path / "p.png"], capsys, "damaged or not a netsim-fast trace")


def test_a_trace_changed_after_it_was_written_is_refused_before_hdf5_reads_it(trace, tmp_path, capsys):
    # found by the reader fuzz: HDF5 can loop forever, in C and deaf to signals, on a damaged file
    # (plot hung on a mutated trace); the digest in the user block is checked first
    import h5py

    import netsim_fast as nf

    with h5py.File(trace) as h5:  # still plain HDF5 for h5py and other tools
        assert int(h5.attrs["schema_version"]) >= 2
    data = bytearray(trace.read_bytes())
    data[len(data) // 2] ^= 0x10
    changed = tmp_path / "changed.h5"
    changed.write_bytes(bytes(data))
    refused(["plot", changed, "--out", tmp_path / "p.png"], capsys, "is damaged", "digest")
    cut = tmp_path / "cut.h5"
    cut.write_bytes(trace.read_bytes()[:-100])
    refused(["plot", cut, "--out", tmp_path / "p.png"], capsys, "is damaged")
    assert nf.open_trace(trace).packets is not None


def test_traces_written_before_the_digest_are_still_read(trace, tmp_path):
    import h5py

    import netsim_fast as nf

    old = tmp_path / "old.h5"  # the same HDF5 content without the user block, as before
    with h5py.File(trace) as src, h5py.File(old, "w") as dst:
        for key, value in src.attrs.items():
            dst.attrs[key] = value
        for name in src:
            src.copy(src[name], dst, name=name)
    assert old.read_bytes()[:4] == b"\x89HDF"
    assert len(nf.open_trace(old).packets) == len(nf.open_trace(trace).packets)


def test_an_edge_list_line_of_separators_only_is_refused(tmp_path, capsys):
    # found by the reader fuzz: a line ',' was an IndexError traceback
    path = tmp_path / "g.txt"
    path.write_text(",\n0 1\n")
    refused(["topo", "--topology", "edgelist", "--file", path], capsys, "line 1 ','")


def test_a_value_with_a_newline_still_gives_one_line(tmp_path, capsys):
    # found by the reader fuzz: a multi-line TOML string made the error two lines
    path = tmp_path / "run.toml"
    path.write_text('topology = """multi\nline"""\n')
    refused(["run", "--config", path, "--cycles", "10"], capsys, r"--topology 'multi\nline'")


@pytest.mark.parametrize("cell,needle", [("0/34", "not numbers (such as '0/34')"), ("inf", "infinite value")])
def test_a_results_table_with_a_damaged_metric_is_refused(tmp_path, capsys, cell, needle):
    # found by the reader fuzz: a cell '0/34' in offered_load was a ValueError traceback while drawing
    columns = "point_id,repeat,rate,offered_load,accepted_load,latency_mean,saturated,status,error"
    rows = ["a,0,0.1,0.1,0.1,20.0,False,ok,", f"b,0,0.3,{cell},0.28,31.0,False,ok,"]
    (tmp_path / "results.csv").write_text("\n".join([columns, *rows]) + "\n")
    refused(["plot", tmp_path, "--out", tmp_path / "p.png"], capsys, "--y offered_load", needle)
    assert not (tmp_path / "p.png").exists()


# -- the last gaps of the hardening audit -------------------------------------------------------


def test_graph_seed_in_a_file_for_a_topology_that_is_not_random_is_refused(tmp_path, capsys):
    path = tmp_path / "run.toml"
    path.write_text('topology = "torus"\nk = 4\ngraph_seed = 5\ncycles = 10\n')
    refused(["run", "--config", path], capsys, "--graph-seed 5", "rrg only")


def test_model_rrg_alone_simulates_nothing_so_needs_no_run_memory(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["model", "rrg", "--nodes", "1000000", "--degree", "4", "--json"])
    assert exit_.value.code == 0 and '"n_nodes": 1000000' in capsys.readouterr().out


def test_a_release_cycle_no_run_could_reach_is_refused(tmp_path, capsys):
    path = tmp_path / "m.txt"
    path.write_text(f"0 1 {1 << 40}\n")
    refused(["run", "--topology", "mesh", "--k", "4", "--pattern", "file", "--messages-file", path],
            capsys, "release_cycle must be < 2^36")


def test_an_edge_list_too_big_to_read_is_refused_before_reading(tmp_path, capsys):
    path = tmp_path / "big.txt"
    with open(path, "wb") as fh:
        fh.truncate(1 << 31)  # sparse: 2 GiB of zeros, never read
    refused(["run", "--topology", "edgelist", "--file", path, "--cycles", "10", "--memory-limit", "1000"], capsys,
            "2,147,483,648 bytes", "--memory-limit (1,000 MiB)")


def test_time_series_of_a_very_long_run_count_in_the_memory_estimate(capsys):
    refused(["run", "--topology", "mesh", "--k", "4", "--rate", "0", "--cycles", str(10**12), "--window", "1",
             "--memory-limit", "20000"], capsys, "needs about", "MiB")
