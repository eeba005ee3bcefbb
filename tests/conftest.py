"""The ``data`` marker: tests that read the data folder (tests/_data.py) skip, with the reason, without it."""

import pytest

from _data import missing


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "data(*files): reads these files of the data folder ($DISCRANK_DATA, else ../shared/data); skipped, "
        "naming the first missing file, when one is absent (no file: runs either way)",
    )


def pytest_runtest_setup(item):
    for marker in item.iter_markers("data"):
        gone = missing(*marker.args)
        if gone is not None:
            pytest.skip(f"needs {gone} (the data folder: $DISCRANK_DATA, else ../shared/data)")
