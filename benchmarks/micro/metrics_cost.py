"""What counting and scraping cost: plain ints (tgfast's hot path) vs prometheus_client.

    python benchmarks/micro/metrics_cost.py

Per-update counters are bumped on the hot path (received, handled, the latency
histogram): this compares a ``defaultdict(int)`` bump with ``Counter.labels(...).inc()``
and a bound child's ``.inc()``, and one scrape rendered by tgfast's collector through
``prometheus_client.generate_latest`` against the old hand-written renderer's cost.
"""

from __future__ import annotations

import timeit
from collections import defaultdict

from machine import machine_line


def main() -> None:
    import prometheus_client as pc

    from tgfast.server.metrics import Histogram, Metrics, metrics_registry

    counts: defaultdict[str, int] = defaultdict(int)
    registry = pc.CollectorRegistry()
    counter = pc.Counter("c", "c", ["kind"], registry=registry)
    child = counter.labels("message")
    hist = pc.Histogram("h", "h", registry=registry)
    ours = Histogram()
    n = 200_000

    def per(stmt: object) -> float:
        return min(timeit.repeat(stmt, number=n, repeat=5)) / n * 1e9  # type: ignore[arg-type]

    def bump() -> None:
        counts["message"] += 1

    rows = [
        ("int counter: counts[kind] += 1", per(bump)),
        (
            "prometheus_client: counter.labels(kind).inc()",
            per(lambda: counter.labels("message").inc()),
        ),
        ("prometheus_client: child.inc()", per(child.inc)),
        ("tgfast Histogram.observe", per(lambda: ours.observe(0.012))),
        ("prometheus_client Histogram.observe", per(lambda: hist.observe(0.012))),
    ]
    metrics = Metrics()
    for kind in ("message", "callback_query", "edited_message"):
        metrics.received[kind] += 5
        metrics.handled[kind] += 5
    for method in ("sendMessage", "answerCallbackQuery", "getMe"):
        metrics.api_call(method, 200)
    own = metrics_registry(metrics, app_registry=None)
    scrape = min(timeit.repeat(lambda: pc.generate_latest(own), number=200, repeat=5)) / 200
    full = metrics_registry(metrics)
    scrape_all = min(timeit.repeat(lambda: pc.generate_latest(full), number=200, repeat=5)) / 200
    print(machine_line())
    for name, ns in rows:
        print(f"{name:<50} {ns:8.0f} ns")
    print(f"{'scrape, tgfast families (prometheus_client)':<50} {scrape * 1e6:8.0f} us")
    print(f"{'scrape, + process/GC/platform/build/app':<50} {scrape_all * 1e6:8.0f} us")


if __name__ == "__main__":
    main()
