"""``discrank info``: what a saved model says."""

from __future__ import annotations

import argparse

from discrank.cli._models import coefficient_lines, load_model, verdict

__all__ = ["add", "run"]


def run(args: argparse.Namespace) -> int:
    """``discrank info``: the model, its parameters, its coefficients with their standard errors
    (:func:`discrank.cli._models.coefficient_lines`) and its summary of the fit."""
    model = load_model(args.model)
    print(f"{type(model).__name__}, {len(model.labels_)} players, parameters {model.get_params()}")
    conv = getattr(model, "converged_", None)
    if conv is not None:
        loss = getattr(model, "loss_", None)
        print(f"converged: {bool(conv)}" + ("" if loss is None else f"; final loss {loss:.10f}"))
    for line in coefficient_lines(model):
        print(line)
    print(verdict(model))
    return 0


def add(sub) -> None:
    """The ``info`` command."""
    p = sub.add_parser("info", help="what a saved model says: coefficients and standard errors, components")
    p.add_argument("model")
    p.set_defaults(func=run)
