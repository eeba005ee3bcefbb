"""The data folder of the tests: ``$DISCRANK_DATA`` when set, else ``<repo>/../shared/data``.

The real data sets are never shipped, so a user's clone has no ``../shared``. A test that reads the
folder is marked ``@pytest.mark.data(file, ...)`` with the files it reads, relative to the folder:
tests/conftest.py skips it, naming the first missing file, when one is absent. ``@pytest.mark.data()``,
with no file, marks a test that runs either way and reads the data only when it is there (the code
blocks of the docs). ``.ci/run`` runs the marked tests (``pytest -m data``) a second time with
``DISCRANK_DATA`` pointing at an empty folder, as a clone without the data would run them.
"""

from __future__ import annotations

import os
from pathlib import Path

DATA = Path(os.environ.get("DISCRANK_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data").absolute()


def missing(*files: str) -> Path | None:
    """The first of ``files`` (paths relative to ``DATA``) that is not there, or None."""
    return next((DATA / f for f in files if not (DATA / f).exists()), None)
