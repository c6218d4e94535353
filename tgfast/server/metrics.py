"""Counters for ``/metrics``, rendered by hand in the Prometheus text format.

Everything is a plain ``int``/``float`` bumped in place by the one event-loop thread,
so counting costs a dict lookup and an add; the text is built only when scraped.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from collections.abc import Callable, Iterable

__all__ = ["LATENCY_BUCKETS", "Histogram", "Metrics", "Rejected"]

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

    ``received``/``handled``/``failed``/``unhandled`` are by update kind; ``rejected``
    by reason (``Rejected``); ``api_calls`` by ``(method, HTTP status)``, 0 meaning
    no answer (fed by ``Bot.on_api_call``). Gauges are read when rendered.
    """

    def __init__(self, namespace: str = "tgfast") -> None:
        self.namespace = namespace
        self.received: defaultdict[str, int] = defaultdict(int)
        self.handled: defaultdict[str, int] = defaultdict(int)
        self.failed: defaultdict[str, int] = defaultdict(int)
        self.unhandled: defaultdict[str, int] = defaultdict(int)
        self.rejected: defaultdict[str, int] = defaultdict(int)
        self.api_calls: defaultdict[tuple[str, int], int] = defaultdict(int)
        self.flood_waits = 0
        self.latency = Histogram()
        self._gauges: dict[str, tuple[str, Callable[[], float]]] = {}

    def api_call(self, method: str, status: int) -> None:
        """``Bot.on_api_call``: one attempt of ``method`` answered with ``status``."""
        self.api_calls[method, status] += 1
        if status == 429:
            self.flood_waits += 1

    def gauge(self, name: str, help: str, read: Callable[[], float]) -> None:
        """Report ``read()`` as ``<namespace>_<name>`` on every scrape (the last one
        registered under a name wins)."""
        self._gauges[name] = (help, read)

    def render(self) -> str:
        """The Prometheus text exposition (format 0.0.4)."""
        ns = self.namespace
        lines: list[str] = []

        def family(name: str, kind: str, help: str) -> str:
            full = f"{ns}_{name}"
            lines.append(f"# HELP {full} {help}")
            lines.append(f"# TYPE {full} {kind}")
            return full

        by_kind = (
            ("updates_received_total", self.received, "Updates taken for handling, by kind."),
            ("updates_handled_total", self.handled, "Updates a handler took, by kind."),
            ("updates_failed_total", self.failed,
             ("Updates whose handler raised (and no errors handler took it) or whose reply "
              "could not be sent, by kind.")),
            ("updates_unhandled_total", self.unhandled, "Updates no handler matched, by kind."),
        )  # fmt: skip
        for name, counts, help in by_kind:
            full = family(name, "counter", help)
            for kind, n in sorted(counts.items()):
                lines.append(f'{full}{{kind="{_label(kind)}"}} {n}')

        full = family(
            "handler_latency_seconds", "histogram", "Time from a handler's start to its end."
        )
        for le, n in self.latency.cumulative():
            lines.append(f'{full}_bucket{{le="{le}"}} {n}')
        lines.append(f"{full}_sum {_number(self.latency.sum)}")
        lines.append(f"{full}_count {self.latency.count}")

        full = family("rejected_total", "counter", "Requests or updates refused, by reason.")
        for reason, n in sorted(self.rejected.items()):
            lines.append(f'{full}{{reason="{_label(reason)}"}} {n}')

        full = family(
            "api_calls_total", "counter",
            "Bot API call attempts by method and HTTP status (0: no answer).",
        )  # fmt: skip
        for (method, status), n in sorted(self.api_calls.items()):
            lines.append(f'{full}{{method="{_label(method)}",status="{status}"}} {n}')

        full = family("api_flood_waits_total", "counter", "Bot API answers 429 Too Many Requests.")
        lines.append(f"{full} {self.flood_waits}")

        for name, (help, read) in self._gauges.items():
            full = family(name, "gauge", help)
            lines.append(f"{full} {_number(read())}")
        lines.append("")
        return "\n".join(lines)


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _number(value: float) -> str:
    if isinstance(value, int) or value.is_integer():
        return str(int(value))
    return repr(value)
