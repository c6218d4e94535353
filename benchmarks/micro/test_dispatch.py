"""Dispatch benchmarks: twenty Command handlers, every update for the last one.

Paths:
* ``dispatch_20``: feed an already decoded update (decoded outside the timing);
* ``decode_dispatch_20``: feed the raw webhook body: decode plus dispatch, the
  webhook path minus HTTP.

One benchmark round is one ``loop.run_until_complete`` of a coroutine that
feeds a batch of updates (distinct update ids) one by one, on one long-lived
uvloop loop shared by every contender; the renderer divides by the batch size
(``extra_info["batch"]``), so the figure is per dispatch with the loop's entry
cost spread over the batch.

These are benchmarks, not tests: the only assertions are correctness checks
(every timed update reached ``/cmd19``, no other handler ran, nobody called
the Bot API), never timings.  Run them through ``python benchmarks/run.py``.
"""

import os

import dispatch_contenders as dc
import pytest

PATHS = ("dispatch_20", "decode_dispatch_20")

# run.py measures tgfast-pure in a second pytest process (TGFAST_NO_EXTENSIONS=1)
# and names the contenders each process runs here; by default all of them.
CONTENDERS = tuple(
    name for name in os.environ.get("TGFAST_BENCH_DISPATCH", ",".join(dc.NAMES)).split(",") if name
)
assert set(CONTENDERS) <= set(dc.NAMES), CONTENDERS


@pytest.fixture(scope="module")
def loop():
    loop = dc.new_loop()
    yield loop
    loop.close()


@pytest.mark.parametrize("contender_name", CONTENDERS)
@pytest.mark.parametrize("path", PATHS)
def test_dispatch(benchmark, loop, path, contender_name):
    try:
        contender = dc.load(contender_name)
    except dc.Missing as exc:
        pytest.skip(f"{contender_name} missing: {exc}")

    raw = dc.bodies(contender.batch)
    if path == "dispatch_20":
        items, feed = [contender.decode(body) for body in raw], contender.dispatch
    else:
        items, feed = raw, contender.decode_dispatch

    # Correctness first: a dispatcher that misroutes must not report a (fast) time.
    loop.run_until_complete(feed(items))
    contender.expect(len(items))

    batches = 0

    def one_batch() -> None:
        nonlocal batches
        loop.run_until_complete(feed(items))
        batches += 1

    benchmark.group = f"dispatch: {path}"
    benchmark.extra_info.update(
        section="dispatch",
        contender=contender_name,
        path=path,
        batch=len(items),
        no_extensions=bool(os.environ.get(dc.PURE_ENV)),
    )
    benchmark(one_batch)
    contender.expect((batches + 1) * len(items))
