"""The echo bot of ``tgfast_echo.py`` as an operated bot runs it: the ``tgfast-ops``
contender (``bots.py``), which also logs at info (``--log-level info``; the plain
``tgfast`` contender logs at warning).

OpenTelemetry's SDK is installed and its ``TracerProvider`` set, as an app that
exports traces sets it, and ``tgfast.tracing`` is imported, but ``instrument()`` is
never called: tracing is disabled. Beside ``tgfast`` in one run (``run.py --contender
tgfast --contender tgfast-ops``, or ``instructions.py`` for instruction counts) this
shows what logging at info and tracing switched off cost per update.
"""

from __future__ import annotations

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from tgfast_echo import dp

from tgfast import tracing

trace.set_tracer_provider(TracerProvider())
assert not tracing.enabled(), "tgfast-ops measures tracing switched off"

__all__ = ["dp"]
