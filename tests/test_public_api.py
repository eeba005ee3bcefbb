"""The public API, walked: every name of ``discrank.__all__`` and of the public modules ``discrank.dynamic``,
``discrank.online``, ``discrank.scan``, ``discrank.dask``, ``discrank.exceptions`` and ``discrank.analysis``, as
6868cbe (the last commit before the package moved into subpackages) listed them, is there, by ``import`` in a
fresh interpreter, and the ``discrank`` command has its commands. (Model files written by 6868cbe load and
predict as they did: tests/test_model_files.py.)"""

from __future__ import annotations

import json
import subprocess
import sys

from discrank.cli import main

#: The ``__all__`` of each public module at 6868cbe.
PUBLIC = {
    "discrank": ["ArenaBoard", "ConvergenceWarning", "DiscDecomposition", "DiscDecompositionCV",
                 "DisconnectedGraphWarning", "DynamicElo", "Elo", "EloPlusPlus", "Evaluation", "GameLog",
                 "InvalidRowsWarning", "IsolatedPlayerWarning", "MElo", "NotFittedError", "NumericalError",
                 "OnlineDisc", "PairwiseData", "PeriodGames", "SchurDecomposition", "UnknownPlayerError",
                 "Validation", "__version__", "analysis", "arena_board", "bootstrap", "evaluate", "load",
                 "progress", "read_arena", "read_football", "read_pgn", "read_tennis", "scan_games"],
    "discrank.dynamic": ["DRIFT_GRID", "DynamicElo", "PRIOR_GRID", "VARIANCE_GRID"],
    "discrank.online": ["ELO_K32_STEP", "OnlineElo", "OnlineRatings", "STEP_GRID", "online_disc", "online_elo"],
    "discrank.scan": ["FORMATS", "parse_bytes", "scan_games"],
    "discrank.dask": ["DistributedObjective", "DistributedRows", "PartGroup", "aggregate", "fit"],
    "discrank.exceptions": ["CoinWarning", "ConvergenceWarning", "DisconnectedGraphWarning", "InvalidRowsWarning",
                            "IsolatedPlayerWarning", "NotFittedError", "NumericalError", "OneSidedLogWarning",
                            "SeparationWarning", "ThreadCountWarning", "TruncatedFileWarning", "TuningWarning",
                            "UnknownPlayerError", "UnusedColumnWarning"],
    "discrank.analysis": ["DiscVerdict", "Reparametrization", "TransitivitySummary", "disc_verdict", "is_transitive",
                          "nash_clustering", "normal_decomposition", "reparametrize", "transitivity_summary"],
}

_WALK = """
import importlib, json, sys
public = json.loads(sys.argv[1])
found = {}
for name, names in public.items():
    __import__(name)                      # import discrank.online, as a user writes it
    module = sys.modules[name]
    found[name] = {"missing": [n for n in names if not hasattr(module, n)],
                   "all": sorted(getattr(module, "__all__", [])),
                   "from": [n for n in names if n not in vars(importlib.import_module(name))]}
import discrank
found["attributes"] = [n for n in ("analysis", "dynamic", "exceptions", "online", "scan") if not hasattr(discrank, n)]
found["bootstrap"] = callable(discrank.bootstrap) and discrank.bootstrap.__module__
print(json.dumps(found))
"""


def test_every_public_name_is_there_in_a_fresh_interpreter():
    out = subprocess.run([sys.executable, "-c", _WALK, json.dumps(PUBLIC)], capture_output=True, text=True, check=True)
    found = json.loads(out.stdout)
    for name, names in PUBLIC.items():
        assert found[name]["missing"] == [] and found[name]["from"] == [], name
        assert set(names) <= set(found[name]["all"]), (name, sorted(set(names) - set(found[name]["all"])))
    assert found["attributes"] == []
    assert found["bootstrap"] == "discrank.evaluation._bootstrap"  # the function; its module is not public


def test_the_public_modules_are_the_modules_that_hold_the_code():
    import discrank
    import discrank.dynamic
    import discrank.online

    assert discrank.dynamic.DynamicElo is discrank.DynamicElo
    assert discrank.online.OnlineElo.__module__ == "discrank.models.online._elo"
    assert sys.modules["discrank.scan"].scan_games is discrank.scan_games


def test_the_command_has_its_commands(capsys):
    try:
        main(["--help"])
    except SystemExit as exc:
        assert exc.code == 0
    text = capsys.readouterr().out
    commands = text[text.index("{") + 1:text.index("}")].split(",")
    assert commands == ["demo", "fit", "evaluate", "predict", "info", "plot", "arena"]
