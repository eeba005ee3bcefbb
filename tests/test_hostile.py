"""The hostile-input battery: every case runs in its own process, so a crash of the interpreter (a
segfault, libgomp's exit on a failed allocation, an abort) is a failed case, not a dead test run.

A case is ``(name, code, expect)``. ``code`` runs with the names in ``PRELUDE`` in scope. ``expect`` is
one of:

- ``raises(ExceptionName, fragment)``: the code raises that exception (or a subclass, by name of any
  class in its MRO) and ``fragment`` is in its message (case-insensitive);
- ``warns(WarningName, fragment)``: the code finishes, and a warning of that category whose message holds
  ``fragment`` was emitted;
- ``ok(check)``: the code finishes and the boolean expression ``check`` holds in its namespace (a correct
  answer, not merely no error).

The children are forked from a forkserver that has already imported discrank, so a case costs a few
milliseconds, not an interpreter start-up.
"""

import multiprocessing as mp
import os
import textwrap

import pytest

PRELUDE = textwrap.dedent("""
    import io, os, sys, warnings, tempfile, pathlib
    import numpy as np
    import pandas as pd
    import discrank
    from discrank import (DiscDecomposition, DiscDecompositionCV, Elo, EloPlusPlus, GameLog, MElo,
                          PairwiseData, SchurDecomposition, _core, load)
    from discrank.online import online_disc, online_elo
    from discrank.cli import main as cli
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="hostile-"))

    def small():
        return PairwiseData.from_games(["x", "y", "z", "x", "y"], ["y", "z", "x", "z", "x"],
                                       [1.0, 0.0, 0.5, 1.0, 1.0])
""")


def raises(exc, fragment):
    return ("raises", exc, fragment)


def warns(category, fragment):
    return ("warns", category, fragment)


def ok(check):
    return ("ok", check, None)


CASES = []


def case(name, code, expect, env=None):
    """Add a case; ``env`` (a dict) runs it in a new interpreter with those environment variables."""
    CASES.append((name, textwrap.dedent(code).strip(), expect, env))


# ------------------------------------------------------------------ threads, the core's boundary, params
case("elo_n_jobs_zero", "Elo(n_jobs=0).fit(small())", raises("ValueError", "n_jobs=0"))
case("elo_draws_equal", "r = Elo(prior_scale=np.inf).fit(PairwiseData.from_games(['x', 'y'], ['y', 'x'], [0.5, 0.5]))",
     ok("abs(r.ratings_[0] - r.ratings_[1]) < 1e-9"))
case("omp_env_small", "r = Elo().fit(small())", ok("np.all(np.isfinite(r.ratings_))"), env={"OMP_NUM_THREADS": "1"})

# ------------------------------------------------------------------ labels and pairwise data

# ------------------------------------------------------------------ model files, readers and the CLI

# ------------------------------------------------------------------ models: separation, steps, interruption


# ------------------------------------------------------------------ the harness
def _child(code, check, conn):
    import warnings
    ns = {}
    caught = []
    try:
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            exec(compile(PRELUDE + "\n" + code, "<case>", "exec"), ns)
            holds = bool(eval(check, ns)) if check is not None else None
        caught = [([c.__name__ for c in type(w.message).__mro__], str(w.message)) for w in record]
        conn.send(("finished", None, None, caught, holds))
    except BaseException as e:  # noqa: BLE001 - a case reports whatever it raised
        conn.send(("raised", [c.__name__ for c in type(e).__mro__], f"{type(e).__name__}: {e}", caught, None))
    conn.close()


_DRIVER = """
import json, sys
sys.path.insert(0, {here!r})
import test_hostile

class _Conn:
    def send(self, message):
        self.message = message
    def close(self):
        print("@@RESULT@@" + json.dumps(self.message))

test_hostile._child({code!r}, {check!r}, _Conn())
"""


def _run(code, check=None, timeout=120.0, env=None):
    """Run ``code`` in a fresh process: forked from the forkserver, or, when the case sets environment
    variables that libraries read at load time, a new interpreter."""
    if env is not None:
        import json
        import subprocess
        import sys
        script = _DRIVER.format(here=os.path.dirname(os.path.abspath(__file__)), code=code, check=check)
        try:
            done = subprocess.run([sys.executable, "-c", script], env={**os.environ, **env}, capture_output=True,
                                  text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return ("hang", None)
        for line in done.stdout.splitlines():
            if line.startswith("@@RESULT@@"):
                message = json.loads(line[len("@@RESULT@@"):])
                return (message[0], message)
        return ("crash", f"{done.returncode}; stderr: {done.stderr[-500:]}")
    ctx = mp.get_context("forkserver")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(code, check, child))
    proc.start()
    child.close()
    if not parent.poll(timeout):
        proc.kill()
        proc.join()
        return ("hang", None)
    try:
        message = parent.recv()
    except EOFError:
        message = None
    proc.join(timeout)
    if message is None:
        return ("crash", proc.exitcode)
    return (message[0], message)


def _check(name, code, expect, env=None):
    kind, what, fragment = expect
    how, message = _run(code, check=what if kind == "ok" else None, env=env)
    assert how not in ("crash", "hang"), f"{name}: the interpreter {how}ed ({message})"
    if kind == "raises":
        assert how == "raised", f"{name}: expected {what}, but it finished"
        mro, text = message[1], message[2]
        assert what in mro, f"{name}: expected {what}, got {text}"
        assert "internal error" not in text.lower(), f"{name}: {text}"
        assert fragment.lower() in text.lower(), f"{name}: {fragment!r} not in {text!r}"
    elif kind == "warns":
        assert how == "finished", f"{name}: expected a {what} warning, but it raised {message[2]}"
        found = [m for (mro, m) in message[3] if what in mro]
        assert found, f"{name}: no {what} among {message[3]}"
        assert any(fragment.lower() in m.lower() for m in found), f"{name}: {fragment!r} not in {found}"
    else:
        assert how == "finished", f"{name}: expected a result, but it raised {message[2]}"
        assert message[4], f"{name}: {what} does not hold"


@pytest.fixture(scope="module", autouse=True)
def _forkserver():
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(["numpy", "pandas", "discrank", "discrank.cli", "discrank.online"])
    yield


@pytest.mark.parametrize("name,code,expect,env", CASES, ids=[c[0] for c in CASES])
def test_hostile_input(name, code, expect, env):
    _check(name, code, expect, env)


def test_the_battery_covers_every_class():
    assert len(CASES) >= 150, len(CASES)
    assert len({c[0] for c in CASES}) == len(CASES), "case names must be unique"
