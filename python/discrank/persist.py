"""Saving and loading fitted models: a documented ``.npz`` format, never pickle.

File format (``numpy.savez_compressed``, read back with ``allow_pickle=False``):

- ``__discrank__``: a 0-d unicode array holding JSON: ``{"format": 1, "discrank": version, "model":
  class name, "params": constructor parameters, "scalars": fitted scalar attributes}``;
- ``labels_``: the players, as a unicode (``<U``) or integer array;
- one array per fitted array attribute (``ratings_``, ``u_``, ``v_`` ...); what is derived from them
  (a disc model's strength, consistency, angle, radius, ranking) is derived again on loading.

Only the models of discrank are loaded (the class name is looked up in a fixed table), so a file can
never run code. A truncated or corrupted file, an unknown format or model, or arrays of the wrong
shape raise ``ValueError`` naming the file.
"""

from __future__ import annotations

import json
import os
import zipfile
from typing import Any

import numpy as np

FORMAT = 1

# Fitted attributes kept per model family: the arrays predictions and readouts need.
_ARRAYS = {
    "Elo": ("ratings_",),
    "EloPlusPlus": ("ratings_",),
    "DiscDecomposition": ("u_", "v_", "n_iter_", "grad_measure_"),
    "MElo": ("u_", "v_", "n_iter_", "grad_measure_", "_base"),
    "SchurDecomposition": ("u_", "v_"),
}
_SCALARS = ("n_players_", "n_iter_", "converged_", "grad_measure_", "loss_", "transitive_", "solver_", "tol_",
            "linear_solver_", "prior_scale_")


def _model_classes() -> dict[str, type]:
    from discrank.models import DiscDecomposition, Elo, EloPlusPlus, MElo, SchurDecomposition

    return {c.__name__: c for c in (Elo, EloPlusPlus, DiscDecomposition, MElo, SchurDecomposition)}


def _jsonable(value: Any) -> Any:
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def save(model: Any, path: Any) -> None:
    """Write a fitted model to ``path`` (``.npz`` added by numpy when missing)."""
    name = type(model).__name__
    if name == "DiscDecompositionCV":
        model = model.best_estimator_
        name = type(model).__name__
    if name not in _ARRAYS:
        raise TypeError(f"cannot save a {name}: only discrank's models ({sorted(_ARRAYS)}) are supported")
    model._check_fitted()
    labels = np.asarray(model.labels_)
    if labels.dtype.kind == "O":
        kinds = {type(v) for v in labels.tolist()}
        if kinds <= {str}:
            labels = labels.astype(str)
        elif all(issubclass(k, (int, np.integer)) for k in kinds):
            labels = labels.astype(np.int64)
        else:
            raise TypeError(f"labels of types {sorted(k.__name__ for k in kinds)} cannot be saved; use str or int labels")
    if labels.dtype.kind not in "iuU":
        labels = labels.astype(str)
    arrays = {"labels_": labels}
    for attr in _ARRAYS[name]:
        value = getattr(model, attr, None)
        if value is not None and np.ndim(value) > 0:
            arrays[attr] = np.asarray(value)
    scalars = {}
    for attr in _SCALARS:
        value = getattr(model, attr, None)
        if value is not None and np.ndim(value) == 0:
            scalars[attr] = _jsonable(value)
    params = {k: _jsonable(v) for k, v in model.get_params().items()}
    meta = {"format": FORMAT, "discrank": _version(), "model": name, "params": params, "scalars": scalars}
    np.savez_compressed(path, __discrank__=np.array(json.dumps(meta)), **arrays)


def _version() -> str:
    from discrank import __version__

    return __version__


def load(path: Any) -> Any:
    """Read a model written by :func:`save` (or ``model.save``); ready to ``predict_proba``."""
    where = os.fspath(path)
    try:
        with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as z:
            files = {k: z[k] for k in z.files}
    except FileNotFoundError:
        raise
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, KeyError) as exc:
        raise ValueError(f"{where}: not a readable discrank model file ({type(exc).__name__}: {exc})") from None
    if "__discrank__" not in files:
        raise ValueError(f"{where}: not a discrank model file (no __discrank__ header)")
    try:
        meta = json.loads(str(files.pop("__discrank__")))
        fmt, name, params, scalars = meta["format"], meta["model"], meta["params"], meta["scalars"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{where}: corrupted header ({exc})") from None
    if fmt != FORMAT:
        raise ValueError(f"{where}: format {fmt!r} is not supported (this discrank reads format {FORMAT})")
    classes = _model_classes()
    if name not in classes:
        raise ValueError(f"{where}: unknown model {name!r}; expected one of {sorted(classes)}")
    model = classes[name]()
    try:
        model.set_params(**params)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    if "labels_" not in files:
        raise ValueError(f"{where}: no labels_ array")
    labels = files.pop("labels_")
    n = labels.shape[0]
    if labels.ndim != 1 or n < 1:
        raise ValueError(f"{where}: labels_ has shape {labels.shape}")
    for attr, value in files.items():
        if attr not in _ARRAYS[name]:
            raise ValueError(f"{where}: unexpected array {attr!r} for a {name}")
        if attr in ("ratings_", "u_", "v_", "_base"):
            if value.shape[0] != n or value.dtype.kind != "f":
                raise ValueError(f"{where}: {attr} has shape {value.shape} and dtype {value.dtype}, "
                                 f"expected ({n}, ...) floats for {n} players")
            if not np.all(np.isfinite(value)):
                raise ValueError(f"{where}: {attr} holds non-finite values")
        setattr(model, attr, value)
    needed = {"Elo": "ratings_", "EloPlusPlus": "ratings_"}.get(name, "u_")
    if needed not in files:
        raise ValueError(f"{where}: missing array {needed!r} for a {name}")
    for attr, value in scalars.items():
        if attr not in _SCALARS:
            raise ValueError(f"{where}: unexpected attribute {attr!r}")
        setattr(model, attr, value)
    model.labels_ = labels
    model.n_players_ = n
    model._label_index = None
    model._n_threads = 0
    if name == "MElo" and not hasattr(model, "_base"):
        raise ValueError(f"{where}: missing array '_base' for an MElo")
    if name != "MElo":
        model._base = None
    if name in ("DiscDecomposition", "SchurDecomposition"):  # their fits end with the same readout
        from discrank.models.disc import describe_first_component

        describe_first_component(model)  # transitive_, strength_, consistency_, ranking_, angle_, radius_
    return model
