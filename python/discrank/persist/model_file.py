"""Saving and loading fitted models: a ``.npz`` (``numpy.savez_compressed``, never pickle; docs/models.md gives
the format field by field), holding:

- ``__discrank__``: a 0-d unicode array of JSON, ``{"format": 1, "discrank": version, "model": class name, "params":
  constructor parameters, "scalars": fitted scalar attributes, "labels": label kind}``, and where they apply
  ``"advantage"`` (the covariates' names, with the arrays ``beta_`` and ``beta_se_``), ``"label_sets"`` (the kinds of
  the class's other label sets, ``_fitted_labels``: ``context_labels_``, ``format_labels_``) and ``"records"``
  (``_fitted_json``: dicts as JSON, their number keys back as text, tuples as lists);
- ``labels_``: the players, of the kind they were fitted with (:mod:`discrank.persist._npz`; a header without
  ``"labels"``: ``<U`` or integer labels), and each other label set stored the same way under its own name;
- one array per declared fitted array (:class:`FittedArray`: ``ratings_``, ``u_``, ``v_`` ...; a whole-history model's
  games in time order and its player-periods' ratings and deviations, from which its ``_rebuild`` builds the history
  again, so that ``update`` goes on from the file). What is derived from them is derived again on loading.

Only discrank's model classes are loaded (:func:`register`), so a file can never run code. A class declares what its
file holds (``_fitted_arrays``, ``_fitted_records``, ``_fitted_scalars``, ``_fitted_json``, ``_choices``,
``_optional_params``); this module reads and writes those fields and imports no model module.

Everything is checked before it is used, and a file that fails a check is a ``ValueError`` naming the file, the field
and the value: the archive (npy headers against their members' sizes before any array is allocated; a zip bomb,
:data:`~discrank.persist._npz.MAX_COMPRESSION_RATIO`, before anything is decompressed); the header's keys, each
parameter by the rule the model checks it by (:data:`discrank._util.params.RULES`; missing ones take the
constructor's defaults) and each fitted scalar by type and range; the arrays' shapes against the labels' count and
``n_components``, their values finite, and no rating or disc coordinate beyond ``MAX_ABS_PARAMETER``.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from typing import Any, Callable, NoReturn, Optional

import numpy as np

from discrank._util.labels import show
from discrank.persist._npz import (LABEL_KINDS, MAX_COMPRESSION_RATIO, Refused, label_arrays,  # noqa: F401 - MAX_COMPRESSION_RATIO: importable from here
                           check_values, label_count, labels_to_save, open_archive, read_labels)
from discrank._util.params import MAX_NEGATIVE_N_JOBS, file_refusal, rule_of  # noqa: F401 - MAX_NEGATIVE_N_JOBS: importable from here

FORMAT = 1

#: The largest absolute value of a rating or a disc coordinate (logit units) that :func:`load` accepts: fitted
#: models are far below it; beyond it, products of coordinates overflow and predictions become NaN.
MAX_ABS_PARAMETER = 1e6

_HEADER_LIMIT = 1 << 20  # bytes of the JSON header


@dataclass(frozen=True)
class FittedArray:
    """A fitted array attribute that a model class declares and a model file holds.

    Attributes
    ----------
    name : str
        The attribute (``ratings_``, ``u_`` ...).
    shape : tuple of str
        Its shape in symbols: ``"n"`` the players, ``"k"`` the parameter ``n_components``.
    kind : {"f", "i", "t"}
        Floats (finite), integers (>= 0 when ``nonnegative`` says what they are), or times (numbers or
        datetimes, see ``ints``).
    required : bool
        Whether a file of the model must hold it.
    bound : float or None
        The largest absolute value accepted (floats).
    bound_text : str
        What a value beyond ``bound`` is, for the message.
    nonnegative : str or None
        For values that cannot be negative: what the value is, for the message.
    attr : str or None
        Where the model holds it, when not at the attribute ``name``: ``"games_.a"``, the field ``a`` of
        the fitted dataclass ``games_`` (the class's ``_fitted_records``).
    ints : str or None
        For times (``kind="t"``: numbers or datetimes): the file's name of their int64 form. Float times
        are written as ``name``, integer and datetime times as ``ints``, their dtype (a datetime64 unit,
        ``"int64"`` or ``"float64"``) in the fitted scalar ``time_dtype_``.
    """

    name: str
    shape: tuple
    kind: str = "f"
    required: bool = True
    bound: Optional[float] = MAX_ABS_PARAMETER
    bound_text: str = ("above MAX_ABS_PARAMETER = 1e6 in absolute value: not a fitted model (larger coordinates "
                       "overflow the predictions)")
    nonnegative: Optional[str] = None
    attr: Optional[str] = None
    ints: Optional[str] = None


#: The fitted scalar that holds the dtype of a model's times (``FittedArray(kind="t")``).
TIME_DTYPE = "time_dtype_"
#: The dtypes of times a model file holds: numpy datetimes by unit, or numbers.
TIME_DTYPES = tuple(f"datetime64[{u}]" for u in ("Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns")) + ("int64", "float64")


def field_of(model: Any, spec: FittedArray) -> Any:
    """The value of a declared fitted array of a model.

    Parameters
    ----------
    model : object
        A fitted model.
    spec : FittedArray
        The array, as its class declares it (an attribute, or a field of a fitted dataclass).

    Returns
    -------
    object
        The value; None where the model has none (an optional array).
    """
    owner, _, field = (spec.attr or spec.name).partition(".")
    value = getattr(model, owner, None)
    return getattr(value, field) if field and value is not None else value


def _times_to_save(spec: FittedArray, t: np.ndarray) -> tuple[str, np.ndarray, str]:
    """(file name, array, dtype) of the times ``t``: floats as they are, integers and datetimes as int64."""
    if t.dtype.kind == "M":
        return spec.ints, t.view(np.int64), str(t.dtype)
    if t.dtype.kind in "iu":
        return spec.ints, t.astype(np.int64), "int64"
    return spec.name, t.astype(np.float64), "float64"


def _saved_times(spec: FittedArray, arrays: dict, scalars: dict, refuse: Callable[[str], NoReturn]) -> Any:
    """The times of the declared ``spec`` (kind "t") in a file, in their dtype (``time_dtype_``), or None;
    the arrays ``name`` and ``ints`` are taken out of ``arrays``."""
    kind = scalars.get(TIME_DTYPE)
    floats, ints = arrays.pop(spec.name, None), arrays.pop(spec.ints, None)
    if kind is None:
        if floats is not None or ints is not None:
            refuse(f"the file holds times ({spec.name if floats is not None else spec.ints}) but no {TIME_DTYPE} to "
                   "read them")
        return None
    key, values = (spec.name, floats) if kind == "float64" else (spec.ints, ints)
    if values is None:
        refuse(f"{TIME_DTYPE} = {kind!r} needs {key}, which the file does not hold")
    if values.ndim != 1:
        refuse(f"{key} has shape {values.shape}, expected one time per entry")
    if kind == "float64":
        return np.ascontiguousarray(values, dtype=np.float64)
    values = np.ascontiguousarray(values, dtype=np.int64)
    return values if kind == "int64" else values.view(np.dtype(kind))


#: The model classes a file may name, by class name (:func:`register`).
_MODELS: dict[str, type] = {}


def register(cls: type) -> type:
    """Add a model class to the classes :func:`load` creates (the model base's ``__init_subclass__`` calls
    it).

    Parameters
    ----------
    cls : type
        A model class (a subclass of ``discrank.models._base.Model``) that declares ``_fitted_arrays``.

    Returns
    -------
    type
        ``cls``.
    """
    _MODELS[cls.__name__] = cls
    return cls


def _label_sets(cls: type) -> dict[str, str]:
    """The label sets besides the players' a model file of ``cls`` may hold (its ``_fitted_labels``): the
    attribute of each (``context_labels_``), and the symbol of its size in ``_fitted_arrays``' shapes."""
    return getattr(cls, "_fitted_labels", {})


def _specs(cls: type) -> dict[str, FittedArray]:
    return {spec.name: spec for spec in cls._fitted_arrays}


def _jsonable(value: Any) -> Any:
    """A parameter's value or a fitted record as JSON holds it: numpy scalars as Python's, tuples and arrays as lists,
    a dict's keys as text (JSON's object keys are strings: a class reading a dict parameter back keys it again, as
    the dynamic model keys its format_scales; a record's number keys come back as text)."""
    if isinstance(value, dict):
        return {(k if isinstance(k, str) else str(_jsonable(k))): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_jsonable(v) for v in (value.tolist() if isinstance(value, np.ndarray) else value)]
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def save(model: Any, path: Any) -> None:
    """Write a fitted model to ``path`` (``.npz`` added by numpy when missing).

    Parameters
    ----------
    model : Model
        A fitted model of discrank (a cross-validated one is saved as its refitted best estimator).
    path : str or path-like
        The file.

    Raises
    ------
    TypeError
        A model of a class that is not registered, or labels that cannot be stored without pickle.
    discrank._util.exceptions.NotFittedError
        The model is not fitted.
    """
    check = getattr(model, "_check_fitted", None)
    if check is not None:
        check()
        model = model._saved_model()
    name = type(model).__name__
    if _MODELS.get(name) is not type(model):
        raise TypeError(f"cannot save a {name}: only discrank's models ({sorted(_MODELS)}) are supported")
    label_kind, arrays = labels_to_save(np.asarray(model.labels_))
    label_sets = {}
    for attr in _label_sets(type(model)):
        value = getattr(model, attr, None)
        if value is not None:
            label_sets[attr], held = labels_to_save(np.asarray(value))
            arrays.update(zip(label_arrays(attr, label_sets[attr]), held.values()))
    scalars = {}
    for spec in model._fitted_arrays:
        value = field_of(model, spec)
        if value is None or np.ndim(value) == 0:
            continue
        if spec.kind == "t":
            key, value, dtype = _times_to_save(spec, np.asarray(value))
            if scalars.setdefault(TIME_DTYPE, dtype) != dtype:
                raise TypeError(f"{spec.name} holds times of dtype {dtype}, but the model's other times are "
                                f"{scalars[TIME_DTYPE]}: a model file holds times of one dtype")
            arrays[key] = value
        else:
            arrays[spec.name] = np.asarray(value)
    for attr in model._fitted_scalars:
        value = getattr(model, attr, None)
        if value is not None and np.ndim(value) == 0 and attr not in scalars:
            scalars[attr] = _jsonable(value)
    params = {k: _jsonable(v) for k, v in model.get_params().items()}
    if not (params.get("random_state") is None or isinstance(params["random_state"], int)):
        params["random_state"] = None  # a Generator or RandomState: not data; refits of the loaded model reseed
    meta = {"format": FORMAT, "discrank": _version(), "model": name, "params": params, "scalars": scalars,
            "labels": label_kind}
    records = {a: _jsonable(getattr(model, a)) for a in model._fitted_json if isinstance(getattr(model, a, None), dict)}
    meta.update({"label_sets": label_sets} if label_sets else {}, **({"records": records} if records else {}))
    if getattr(model, "beta_", None) is not None and np.size(model.beta_):
        meta["advantage"] = [str(v) for v in model.advantage_names_]
        arrays["beta_"] = np.asarray(model.beta_, dtype=np.float64)
        arrays["beta_se_"] = np.asarray(model.beta_se_, dtype=np.float64)
    np.savez_compressed(path, __discrank__=np.array(json.dumps(meta)), **arrays)


def _version() -> str:
    from discrank.core._core import __version__

    return __version__


def load(path: Any) -> Any:
    """Read a model written by :func:`save` (or ``model.save``); ready to ``predict_proba``.

    Every field is checked before it is used (see the module's documentation; the format: docs/models.md).

    Parameters
    ----------
    path : str or os.PathLike
        The model file.

    Returns
    -------
    Model
        The fitted model, of the class it was saved from.

    Raises
    ------
    ValueError
        A file that is not a discrank model, a tampered or corrupted one, or one whose declared sizes do
        not match its content (the message names the file, the field and the value).
    FileNotFoundError
        A missing file.
    """
    where = os.fsdecode(os.fspath(path))
    try:
        return _load(path, where)
    except Refused as exc:
        raise ValueError(str(exc)) from None


def _load(path: Any, where: str) -> Any:
    def refuse(message: str) -> NoReturn:
        raise Refused(f"{where}: {message}")

    with open_archive(path, where) as archive:
        headers = archive.headers
        if "__discrank__" not in headers:
            refuse("not a discrank model file (no __discrank__ header)")
        shape, dtype = headers["__discrank__"]
        if shape != () or dtype.kind != "U" or dtype.itemsize > _HEADER_LIMIT:
            refuse(f"the __discrank__ header is {dtype} of shape {shape}, expected a 0-d unicode string of at most "
                   f"{_HEADER_LIMIT // 4} characters")
        try:
            meta = json.loads(str(archive.read("__discrank__")))
        except ValueError as exc:
            refuse(f"corrupted header: not JSON ({exc})")
        name, params, scalars, label_kind = _check_meta(meta, refuse)
        names, label_sets = meta.get("advantage"), meta.get("label_sets", {})
        expected = _expected_shapes(_MODELS[name], params, headers, label_kind, refuse, names, label_sets)
        arrays = {key: archive.read(key) for key in expected}
    beta = {key: arrays.pop(key) for key in _ADVANTAGE_ARRAYS if key in arrays}
    if names is not None:
        _check_beta(beta["beta_"], beta["beta_se_"], refuse)
    cls = _MODELS[name]
    model = cls()
    model.set_params(**params)
    labels = read_labels(arrays.pop("labels_"), arrays.pop("labels_ends_", None), refuse)
    n = labels.shape[0]
    specs = _specs(cls)
    for attr, value in scalars.items():
        if attr == "n_players_" and value != n:
            refuse(f"scalars.n_players_ = {show(value)}, but labels_ holds {n} players")
    fields = {attr: read_labels(arrays.pop(attr), arrays.pop(label_arrays(attr, "utf8")[1], None), refuse, attr)
              for attr in label_sets}
    for spec in specs.values():
        if spec.kind == "t":
            fields[spec.attr or spec.name] = _saved_times(spec, arrays, scalars, refuse)
        elif spec.name in arrays:
            value = arrays[spec.name]
            check_values(spec, value, refuse)
            fields[spec.attr or spec.name] = np.ascontiguousarray(value, dtype=np.int64 if spec.kind == "i" else np.float64)
        elif spec.attr is not None:  # an optional field of a fitted dataclass: None
            fields[spec.attr] = None
    if TIME_DTYPE not in cls._fitted_scalars:  # (read with the times, unless the class keeps it as a scalar)
        scalars = {k: v for k, v in scalars.items() if k != TIME_DTYPE}
    advantage = () if names is None else ((tuple(names),) + tuple(
        np.ascontiguousarray(beta[key], dtype=np.float64) for key in _ADVANTAGE_ARRAYS),)
    try:
        model._load_state(labels, fields, scalars, *advantage)
    except ValueError as exc:  # a state that contradicts itself: the class's check names the field
        refuse(str(exc))
    for attr in cls._fitted_json:  # the tuning's records, as JSON holds them (None where the file has none)
        setattr(model, attr, meta.get("records", {}).get(attr))
    return model


def _check_beta(beta: np.ndarray, se: np.ndarray, refuse: Callable[[str], NoReturn]) -> None:
    """The advantage coefficients finite and within ``MAX_ABS_PARAMETER``; their standard errors >= 0 or
    infinite (a coefficient the data do not pin)."""
    bad = ~np.isfinite(beta) | (np.abs(beta) > MAX_ABS_PARAMETER)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        refuse(f"beta_[{k}] = {show(beta[k])} is not a finite coefficient within MAX_ABS_PARAMETER = 1e6")
    bad = np.isnan(se) | (se < 0)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        refuse(f"beta_se_[{k}] = {show(se[k])} is not a standard error (>= 0)")


_META_KEYS = ("format", "discrank", "model", "params", "scalars", "labels", "advantage", "label_sets", "records")
#: The arrays of a model fitted with advantage covariates (one value per covariate).
_ADVANTAGE_ARRAYS = ("beta_", "beta_se_")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_real(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and not (isinstance(v, float) and math.isnan(v))


#: What the fitted scalars of a model must be, by name.
_SCALAR_RULES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "n_players_": (lambda v: _is_int(v) and v >= 1, "a positive integer"),
    "n_iter_": (lambda v: _is_int(v) and v >= 0, "an integer >= 0"),
    "converged_": (lambda v: isinstance(v, bool), "true or false"),
    "grad_measure_": (lambda v: _is_real(v) and math.isfinite(v) and v >= 0, "a finite number >= 0"),
    "loss_": (lambda v: _is_real(v) and math.isfinite(v), "a finite number"),
    "transitive_": (lambda v: isinstance(v, bool), "true or false"),
    "tol_": (lambda v: _is_real(v) and math.isfinite(v) and v > 0, "a positive finite number"),
    "prior_scale_": (lambda v: _is_real(v) and v > 0, "a positive number or Infinity"),
    "drift_": (lambda v: _is_real(v) and math.isfinite(v) and v > 0, "a positive finite number"),
    "variance_scale_": (lambda v: _is_real(v) and math.isfinite(v) and v > 0, "a positive finite number"),
    **{key: (lambda v: _is_real(v) and math.isfinite(v) and v > 0, "a positive finite number")
       for key in ("context_scale_", "margin_scale_", "disc_scale_", "draw_propensity_scale_")},
    "step_": (lambda v: _is_real(v) and math.isfinite(v) and v > 0, "a positive finite number"),
    "n_cg_": (lambda v: _is_int(v) and v >= 0, "an integer >= 0"),
    "gradient_": (lambda v: _is_real(v) and math.isfinite(v) and v >= 0, "a finite number >= 0"),
    "objective_": (lambda v: _is_real(v) and math.isfinite(v), "a finite number"),
    "draw_eta_": (lambda v: _is_real(v) and math.isfinite(v), "a finite number (the draw parameter)"),
    "draw_eta_se_": (lambda v: _is_real(v) and v >= 0, "a standard error (a number >= 0)"),
}


def _json_scalar(v: Any) -> bool:
    return v is None or isinstance(v, (bool, str)) or (_is_real(v) and math.isfinite(v))


def _param_rule(cls: type, key: str) -> tuple[Callable[[Any], bool], str]:
    """The rule of the parameter ``key`` of ``cls``: one of the class's ``_choices``, else the rule the model
    checks it by (:func:`discrank._util.params.rule_of`), else any JSON scalar; None allowed too for the class's
    ``_optional_params``."""
    if key in cls._choices:
        choices = tuple(cls._choices[key])
        rule, what = (lambda v: isinstance(v, str) and v in choices), f"one of {choices}"
    else:
        own = rule_of(cls, key)
        rule, what = (own.accepts, own.what) if own is not None else (_json_scalar,
                                                                     "a number, a string, true, false or null")
    if key in cls._optional_params:
        return (lambda v: v is None or rule(v)), f"None or {what}"
    return rule, what


def _scalar_rule(cls: type, key: str) -> tuple[Callable[[Any], bool], str]:
    """The rule of the fitted scalar ``key`` of ``cls``: one of the class's ``_choices``, else the rule of
    :data:`_SCALAR_RULES`, else any JSON scalar."""
    if key in cls._choices or (key == TIME_DTYPE and key not in cls._fitted_scalars):  # (the dtype of its times)
        choices = tuple(cls._choices[key] if key in cls._choices else TIME_DTYPES)
        return (lambda v: isinstance(v, str) and v in choices), " or ".join(map(repr, choices))
    return _SCALAR_RULES.get(key, (_json_scalar, "a number, a string, true, false or null"))


def _check_meta(meta: Any, refuse: Callable[[str], NoReturn]) -> tuple[str, dict, dict, Optional[str]]:
    """The header's model name, parameters (checked, by name), fitted scalars (checked) and label kind."""
    if not isinstance(meta, dict):
        refuse(f"corrupted header: {show(meta)} is not a JSON object")
    extra = [k for k in meta if k not in _META_KEYS]
    if extra:
        refuse(f"corrupted header: unexpected key {show(extra[0])}; a header has {_META_KEYS}")
    for key in ("format", "model", "params", "scalars"):
        if key not in meta:
            refuse(f"corrupted header: no {key!r}")
    fmt = meta["format"]
    if not _is_int(fmt) or fmt != FORMAT:
        refuse(f"format {show(fmt)} is not supported (this discrank reads format {FORMAT})")
    if "discrank" in meta and not isinstance(meta["discrank"], str):
        refuse(f"the header's discrank version {show(meta['discrank'])} is not a string")
    name = meta["model"]
    if not isinstance(name, str) or name not in _MODELS:
        refuse(f"unknown model {show(name)}; expected one of {sorted(_MODELS)}")
    cls = _MODELS[name]
    params, scalars = meta["params"], meta["scalars"]
    for key, value in (("params", params), ("scalars", scalars)):
        if not isinstance(value, dict):
            refuse(f"corrupted header: {key} is {show(value)}, not a JSON object")
    valid = cls._param_names()
    for key, value in params.items():
        if key not in valid:
            refuse(f"params.{key} is not a parameter of {name} (its parameters: {valid})")
        rule, what = _param_rule(cls, key)
        if not rule(value):
            refuse(file_refusal(cls, key, value, what))
    timed = any(spec.kind == "t" for spec in cls._fitted_arrays)
    held = tuple(cls._fitted_scalars) + ((TIME_DTYPE,) if timed else ())
    for key, value in scalars.items():
        if key not in held:
            refuse(f"scalars.{key} is not a fitted attribute a {name} file holds ({held})")
        rule, what = _scalar_rule(cls, key)
        if not rule(value):
            refuse(f"scalars.{key} = {show(value)} is not {what}")
    names = meta.get("advantage")
    if names is not None:
        if (not isinstance(names, list) or not names or not all(isinstance(v, str) for v in names)
                or len(set(names)) != len(names)):
            refuse(f"the header's advantage {show(names)} is not a list of distinct covariate names")
    kinds = tuple(LABEL_KINDS.values()) + ("utf8",)
    kind = meta.get("labels")
    if kind is not None and kind not in kinds:
        refuse(f"the header's label kind {show(kind)} is not one of {kinds}")
    records = meta.get("records", {})
    bad = [k for k in records if k not in cls._fitted_json] if isinstance(records, dict) else ["(not an object)"]
    if bad or not all(isinstance(v, dict) for v in records.values()):
        refuse(f"records.{(bad or list(records))[0]} is not a record a {name} file holds ({tuple(cls._fitted_json)})")
    sets = meta.get("label_sets", {})
    if not isinstance(sets, dict):
        refuse(f"corrupted header: label_sets is {show(sets)}, not a JSON object")
    for key, value in sets.items():
        if key not in _label_sets(cls):
            refuse(f"label_sets.{key} is not a label set a {name} file holds ({tuple(_label_sets(cls))})")
        if value not in kinds or value == "bytes":
            refuse(f"label_sets.{key} = {show(value)} is not one of {tuple(k for k in kinds if k != 'bytes')} (a log's "
                   "contexts and formats are text or numbers)")
    return name, params, scalars, kind


def _expected_shapes(cls: type, params: dict, headers: dict, label_kind: Optional[str],
                     refuse: Callable[[str], NoReturn], advantage: Optional[list] = None,
                     label_sets: Optional[dict] = None) -> dict[str, tuple]:
    """Check each array's declared shape and dtype (from its npy header, before reading it) against the
    labels' count, the label sets' counts and the header's ``n_components``, as the class's ``_fitted_arrays``
    declare them; returns the arrays to read (``advantage``: the header's covariate names, whose ``beta_`` and
    ``beta_se_`` are then required; ``label_sets``: the header's label sets by attribute, with their kinds)."""
    name = cls.__name__
    specs = _specs(cls)
    label_sets = label_sets or {}
    set_arrays = tuple(key for attr, kind in label_sets.items() for key in label_arrays(attr, kind))
    label_arrays_ = label_arrays("labels_", label_kind) + set_arrays
    names = advantage or []
    beta_arrays = _ADVANTAGE_ARRAYS if names else ()
    time_ints = tuple(spec.ints for spec in specs.values() if spec.ints)
    for key in headers:
        if (key != "__discrank__" and key not in label_arrays_ and key not in specs and key not in beta_arrays
                and key not in time_ints):
            refuse(f"unexpected array {show(key)} for {name} (it holds {label_arrays_ + tuple(specs) + time_ints + beta_arrays}"
                   f"{'' if names else '; beta_ and beta_se_ only with the header advantage'})")
    for key in beta_arrays:
        if key not in headers:
            refuse(f"missing array {key!r}: the header names the advantage covariates {names}")
        shape, dtype = headers[key]
        if shape != (len(names),) or dtype.kind != "f":
            refuse(f"{key} has shape {shape} and dtype {dtype}, expected shape ({len(names)},) of floats (one per "
                   f"advantage covariate {names})")
    for key in label_arrays_ + tuple(k for k, spec in specs.items() if spec.required):
        if key not in headers:
            refuse(f"missing array {key!r} for a {name}")
    n = label_count("labels_", label_kind, headers, refuse)
    sizes = {"n": n}
    symbols = _label_sets(cls)
    for attr, kind in label_sets.items():
        sizes[symbols[attr]] = label_count(attr, kind, headers, refuse, "labels")
    by_components = [spec for spec in specs.values() if "k" in spec.shape and spec.required]
    if by_components:
        k = params.get("n_components")
        if k is None:  # (a header without it: the default, 1, unless the first array of k columns says otherwise)
            first = headers[by_components[0].name][0]
            k = first[1] if len(first) == 2 else 1
            params["n_components"] = k
        if 2 * k > n:
            refuse(f"params.n_components = {k} needs at least {2 * k} players, but labels_ holds {n}")
        sizes["k"] = k
    for key, (shape, dtype) in headers.items():
        spec = specs.get(key)
        if key in time_ints and (len(shape) != 1 or dtype.kind not in "iu"):
            refuse(f"{key} has shape {shape} and dtype {dtype}, expected 1 dimension(s) of integers")
        if spec is None:
            continue
        good_kinds = "iu" if spec.kind == "i" else "f"
        unlabelled = [attr for attr, symbol in symbols.items() if symbol in spec.shape and symbol not in sizes]
        if unlabelled:
            refuse(f"{key} has one entry per label of {unlabelled[0]}, which the file does not hold")
        if any(symbol not in sizes for symbol in spec.shape):  # sizes the class checks (_load_state)
            if len(shape) != len(spec.shape) or dtype.kind not in good_kinds:
                kind = "integers" if spec.kind == "i" else "floats"
                refuse(f"{key} has shape {shape} and dtype {dtype}, expected {len(spec.shape)} dimension(s) of {kind}")
            continue
        good_shape = tuple(sizes[symbol] for symbol in spec.shape)
        if shape != good_shape or dtype.kind not in good_kinds:
            kind = "integers" if spec.kind == "i" else "floats"
            said = {"n": f"{n} players", "k": f"n_components={sizes.get('k')}",
                    **{symbol: f"{sizes[symbol]} labels in {attr}" for attr, symbol in symbols.items() if symbol in sizes}}
            sizes_said = ", ".join(said[symbol] for symbol in spec.shape if symbol in said)
            refuse(f"{key} has shape {shape} and dtype {dtype}, expected shape {good_shape} of {kind} ({sizes_said})")
    return {key: headers[key] for key in headers if key != "__discrank__"}
