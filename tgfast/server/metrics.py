"""Counters for ``/metrics``, exposed through ``prometheus_client``.

What is counted per update is a plain ``int``/``float`` bumped in place by the one
event-loop thread: a dict lookup and an add, 3-4 times cheaper than
``prometheus_client``'s ``Counter.labels(...).inc()`` with its lock
(``benchmarks/micro/metrics_cost.py``). A ``prometheus_client`` collector reads them when
scraped, beside the process, GC and platform metrics and the app's own metrics of
``prometheus_client``'s default registry (or the one given), so one ``/metrics``
serves them all, rendered by ``prometheus_client.generate_latest``.
"""

from __future__ import annotations

import platform
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)

if TYPE_CHECKING:
    from ..client.hooks import ApiCall

__all__ = [
    "CONTENT_TYPE",
    "LATENCY_BUCKETS",
    "Histogram",
    "Metrics",
    "MetricsCollector",
    "Rejected",
    "metrics_registry",
]

LATENCY_BUCKETS: tuple[float, ...] = (
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
)  # fmt: skip
"""Upper bounds (seconds) of the handler latency buckets; ``+Inf`` is implied."""

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class Rejected:
    """Why a request or an update was not taken: the ``reason`` label of ``rejected``."""

    FORBIDDEN_IP = "forbidden_ip"  # 403: the client is not in the IP allow-list
    SECRET = "secret"  # 403: missing or wrong X-Telegram-Bot-Api-Secret-Token
    METHOD = "method"  # 405: not a POST
    PATH = "path"  # 404: nothing there
    TOO_LARGE = "too_large"  # 413: the body is over the limit
    BAD_BODY = "bad_body"  # 400: the body is not an update, or could not be read (encoding)
    BAD_HTTP = "bad_http"  # 400 from the HTTP parser: not a well-formed request
    HEADER_TIMEOUT = "header_timeout"  # closed: no complete request head in time
    BODY_TIMEOUT = "body_timeout"  # 408: the body did not arrive in time
    ABORTED = "aborted"  # the client went away before its body was read
    CONNECTIONS = "connections"  # 503 before reading: open connections at their bound
    READ_BUDGET = "read_budget"  # 503: bodies being read at the byte budget
    OVERLOADED = "overloaded"  # 503: in-flight work at its bound
    LAGGING = "lagging"  # 503: the event loop runs late (UpdateProcessor.max_lag)
    DRAINING = "draining"  # 503: shutting down
    DUPLICATE = "duplicate"  # 200, but dropped: a redelivery of an update already handled
    BUSY = "busy"  # 503: a redelivery of an update still being handled
    UNAVAILABLE = "unavailable"  # 503: SeenUpdates could not say whether it is a redelivery


class Histogram:
    """A cumulative-on-render histogram: one counter per bucket, a sum and a count."""

    __slots__ = ("bounds", "count", "counts", "sum")

    def __init__(self, bounds: Iterable[float] = LATENCY_BUCKETS) -> None:
        self.bounds = tuple(sorted(bounds))
        self.counts = [0] * (len(self.bounds) + 1)  # the last one is +Inf
        self.sum = 0.0
        self.count = 0

    def observe(self, value: float) -> None:
        self.counts[bisect_left(self.bounds, value)] += 1
        self.sum += value
        self.count += 1

    def cumulative(self) -> list[tuple[str, int]]:
        """``(le, observations <= le)`` for each bucket, ``+Inf`` last."""
        out, total = [], 0
        for bound, n in zip((*map(_number, self.bounds), "+Inf"), self.counts, strict=True):
            total += n
            out.append((bound, total))
        return out


class Metrics:
    """What the serving layer counts. One instance per server (or poller).

    ``app_registry``: the ``prometheus_client`` registry whose metrics the same
    ``/metrics`` serves (its default one; None: tgfast's alone).
    ``received``/``handled``/``failed``/``unhandled`` are by update kind; ``rejected``
    by reason (``Rejected``); ``api_calls`` by ``(method, HTTP status)``, 0 meaning
    no answer (bumped by the ``Bot`` itself, see ``UpdateProcessor``). Gauges are read
    when rendered.
    """

    def __init__(
        self, namespace: str = "tgfast", app_registry: CollectorRegistry | None = REGISTRY
    ) -> None:
        self.namespace = namespace
        self.app_registry = app_registry
        self._registry: CollectorRegistry | None = None
        self.received: defaultdict[str, int] = defaultdict(int)
        self.handled: defaultdict[str, int] = defaultdict(int)
        self.failed: defaultdict[str, int] = defaultdict(int)
        self.unhandled: defaultdict[str, int] = defaultdict(int)
        self.rejected: defaultdict[str, int] = defaultdict(int)
        self.api_calls: defaultdict[tuple[str, int], int] = defaultdict(int)
        self.latency = Histogram()
        self._gauges: dict[str, tuple[str, Callable[[], float]]] = {}

    def on_api_call(self, call: ApiCall) -> None:
        """A ``Bot.api_call_hooks`` hook: counts the attempt."""
        self.api_calls[call.method, call.status] += 1

    def api_call(self, method: str, status: int) -> None:
        """One attempt of ``method`` answered with ``status``."""
        self.api_calls[method, status] += 1

    @property
    def flood_waits(self) -> int:
        """Answers 429 (flood control), whichever the method."""
        return sum(n for (_method, status), n in self.api_calls.items() if status == 429)

    def gauge(self, name: str, help: str, read: Callable[[], float]) -> None:
        """Report ``read()`` as ``<namespace>_<name>`` on every scrape (the last one
        registered under a name wins)."""
        self._gauges[name] = (help, read)

    def render(self) -> str:
        """The Prometheus text exposition (format 0.0.4) of these counters, the build
        info, and what ``app_registry`` holds (see :func:`metrics_registry`)."""
        registry = self._registry
        if registry is None:
            registry = self._registry = metrics_registry(self, self.app_registry)
        return generate_latest(registry).decode()


class MetricsCollector:
    """A ``prometheus_client`` collector of one :class:`Metrics`' counters, read at
    scrape time (register it in a registry of your own to export them elsewhere)."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[Metric]:
        m = self.metrics
        ns = m.namespace
        by_kind = (
            ("updates_received", m.received, "Updates taken for handling, by kind."),
            ("updates_handled", m.handled, "Updates a handler took, by kind."),
            ("updates_failed", m.failed,
             ("Updates whose handler raised (and no errors handler took it) or whose reply "
              "could not be sent, by kind.")),
            ("updates_unhandled", m.unhandled, "Updates no handler matched, by kind."),
        )  # fmt: skip
        for name, counts, help in by_kind:
            family = CounterMetricFamily(f"{ns}_{name}", help, labels=["kind"])
            for kind, n in sorted(counts.items()):
                family.add_metric([kind], n)
            yield family
        latency = m.latency
        yield HistogramMetricFamily(
            f"{ns}_handler_latency_seconds", "Time from a handler's start to its end.",
            buckets=latency.cumulative(), sum_value=latency.sum,
        )  # fmt: skip
        family = CounterMetricFamily(
            f"{ns}_rejected", "Requests or updates refused, by reason.", labels=["reason"]
        )
        for reason, n in sorted(m.rejected.items()):
            family.add_metric([reason], n)
        yield family
        family = CounterMetricFamily(
            f"{ns}_api_calls", "Bot API call attempts by method and HTTP status (0: no answer).",
            labels=["method", "status"],
        )  # fmt: skip
        for (method, status), n in sorted(m.api_calls.items()):
            family.add_metric([method, str(status)], n)
        yield family
        yield CounterMetricFamily(
            f"{ns}_api_flood_waits", "Bot API answers 429 Too Many Requests.", m.flood_waits
        )
        for name, (help, read) in m._gauges.items():
            yield GaugeMetricFamily(f"{ns}_{name}", help, read())
        yield _build_info(ns)


def _build_info(ns: str) -> GaugeMetricFamily:
    from .. import __speedups__, __version__
    from ..types import API_VERSION

    family = GaugeMetricFamily(
        f"{ns}_build_info", "tgfast's version, build (compiled or pure), Bot API and Python.",
        labels=["version", "build", "bot_api", "python"],
    )  # fmt: skip
    build = "compiled" if __speedups__ else "pure"
    family.add_metric([__version__, build, API_VERSION, platform.python_version()], 1)
    return family


class _Forward:
    """Another registry's families, collected into ours at scrape time."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry

    def collect(self) -> Iterator[Metric]:
        yield from self.registry.collect()


def metrics_registry(
    metrics: Metrics, app_registry: CollectorRegistry | None = REGISTRY
) -> CollectorRegistry:
    """A registry of ``metrics`` (with ``<namespace>_build_info``) and of what
    ``app_registry`` holds when scraped: by default ``prometheus_client``'s own, where
    its process (CPU, memory, descriptors), GC and platform collectors live and the
    app's ``Counter(...)``s go unless told otherwise."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(MetricsCollector(metrics))
    if app_registry is not None:
        registry.register(_Forward(app_registry))
    return registry


def _number(value: float) -> str:
    if isinstance(value, int) or value.is_integer():
        return str(int(value))
    return repr(value)
