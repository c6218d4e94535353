"""Keep benchmarks out of ordinary test runs.

The project's pytest config points at tests/ only, but if something ever
collects this directory without asking for benchmarks (a bare ``pytest`` with
no testpaths, an IDE, ``pytest .``), nothing here is imported or run.
Benchmarks run only with ``--benchmark-only``, which benchmarks/run.py and
benchmarks/micro/pytest.ini pass.
"""

from pathlib import Path

_HERE = Path(__file__).parent


def pytest_ignore_collect(collection_path, config):
    if not config.getoption("benchmark_only", default=False) and _HERE in (
        collection_path,
        *collection_path.parents,
    ):
        return True
    return None
