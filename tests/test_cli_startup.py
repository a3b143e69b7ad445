"""What a CLI process loads: Numba without its BLAS probe for commands, nothing of Numba for
``--help`` (cli/__init__.py ``_import_numba_without_blas_probe``)."""

import subprocess
import sys


def _last_line(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip().splitlines()[-1]


def test_a_command_loads_numba_without_importing_scipy_linalg():
    code = ("import sys\nfrom netsim_fast.cli import main\n"
            "try:\n    main(['run', '--topology', 'torus', '--k', '4', '--cycles', '20', '--quiet'])\n"
            "except SystemExit:\n    pass\n"
            "import numba.np.arraymath as a\n"
            "print(a._HAVE_BLAS, 'scipy.linalg' in sys.modules, 'scipy.linalg.cython_blas' in sys.modules)")
    assert _last_line(code) == "False False False"


def test_help_does_not_load_numba():
    code = ("import sys\nfrom netsim_fast.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print('numba' in sys.modules)")
    assert _last_line(code) == "False"
