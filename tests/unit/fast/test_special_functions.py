"""The special functions load without ``scipy.special``'s package and are its very objects.

Each scenario runs in a fresh interpreter: in this one scipy.special may be loaded already.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from typing import Any

# Grids over the arguments the intervals use (and beyond): counts, effective counts,
# tail probabilities, degrees of freedom.
VALUES = """
import itertools
counts = [0.5, 1, 1.5, 2, 3, 7, 10.25, 20, 99, 100, 1000, 12345.5, 1e6]
probs = [1e-12, 1e-6, 0.0005, 0.005, 0.025, 0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 0.95, 0.975,
         0.995, 0.9995, 1 - 1e-6]
dfs = [0.5, 1, 2, 3, 4.5, 9, 29, 30, 100, 1e4, 1e7]
def values(betaincinv, ndtri, stdtrit):
    out = [float(betaincinv(a, b, p)) for a, b, p in itertools.product(counts, counts, probs)]
    out += [float(ndtri(p)) for p in probs]
    out += [float(stdtrit(df, p)) for df, p in itertools.product(dfs, probs)]
    return [repr(v) for v in out]
"""


def _run(body: str) -> dict[str, Any]:
    script = VALUES + textwrap.dedent(body)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_the_functions_load_without_the_package_and_equal_scipy_special() -> None:
    got = _run(
        """
        import json, sys
        from assay._fast.special_functions import special
        fns = special()
        loaded = sorted(sys.modules)
        ours = values(*fns)
        import scipy.special
        theirs = values(scipy.special.betaincinv, scipy.special.ndtri, scipy.special.stdtrit)
        print(json.dumps({
            "package_before": "scipy.special" in loaded,
            "heavy_before": [m for m in ("numpy.f2py", "numpy.testing") if m in loaded],
            "same": [fns.betaincinv is scipy.special.betaincinv,
                     fns.ndtri is scipy.special.ndtri, fns.stdtrit is scipy.special.stdtrit],
            "ufuncs_module": scipy.special._ufuncs is sys.modules["scipy.special._ufuncs"],
            "other": repr(float(scipy.special.gammaln(5.5))),
            "n": len(ours), "equal": ours == theirs,
        }))
        """
    )
    assert got["package_before"] is False
    assert got["heavy_before"] == []
    assert got["same"] == [True, True, True]
    assert got["ufuncs_module"] is True
    assert math.isclose(float(got["other"]), math.lgamma(5.5), rel_tol=1e-12)
    assert got["n"] > 2000
    assert got["equal"] is True


def test_any_failure_falls_back_to_the_package() -> None:
    got = _run(
        """
        import importlib.util, json, sys
        def broken(spec):
            raise ImportError("no loading today")
        importlib.util.module_from_spec = broken  # the normal import does not use this name
        from assay._fast.special_functions import special
        fns = special()
        import scipy.special
        print(json.dumps({
            "package": "scipy.special" in sys.modules,
            "same": fns.betaincinv is scipy.special.betaincinv,
            "equal": values(*fns) == values(
                scipy.special.betaincinv, scipy.special.ndtri, scipy.special.stdtrit),
        }))
        """
    )
    assert got == {"package": True, "same": True, "equal": True}


def test_a_package_already_imported_is_used() -> None:
    got = _run(
        """
        import json
        import scipy.special
        from assay._fast.special_functions import special
        print(json.dumps({"same": special().stdtrit is scipy.special.stdtrit}))
        """
    )
    assert got == {"same": True}


def test_another_thread_importing_the_package_meanwhile_gets_the_real_one() -> None:
    got = _run(
        """
        import json, threading
        from assay._fast.special_functions import special
        seen = {}
        def user():
            import scipy.special
            seen["betaincinv"] = scipy.special.betaincinv
            seen["full"] = hasattr(scipy.special, "gammaln")
        threads = [threading.Thread(target=special), threading.Thread(target=user)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        print(json.dumps({
            "same": special().betaincinv is seen["betaincinv"], "full": seen["full"],
        }))
        """
    )
    assert got == {"same": True, "full": True}
