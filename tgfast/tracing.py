"""OpenTelemetry tracing of updates and Bot API calls (the ``tgfast[otel]`` extra).

    from tgfast import tracing
    tracing.instrument()            # after configuring the SDK: provider, exporter

Each update handled by the serving layer (webhook or polling) gets a span
``tgfast.update`` (attributes: ``tgfast.update.id``, ``tgfast.update.kind``,
``tgfast.chat.id``, ``tgfast.handler``, ``tgfast.outcome``) with children: its
decoding (``tgfast.decode``: the webhook's body, or the ``getUpdates`` answer's batch
it came in, with ``tgfast.decode.batch_size``; the span then starts there, and the
time queued behind the chat's earlier updates is in it), the routing (filters and
outer middlewares, up to the handler) and ``tgfast.handler`` around the handler (its
exception recorded). Every Bot API attempt
made while it runs is a child span ``telegram <method>`` (``telegram.method``,
``http.response.status_code``, ``tgfast.retries``, ``telegram.retry_after``, the
exception). Spans follow the update into the tasks its handler starts: the context
is a contextvar, which ``asyncio`` copies into each new task.

Cost: nothing unless ``instrument()`` was called (the processor checks one module
attribute per update; the webhook's decoder and the client's result decoder are
swapped for timed ones only by ``instrument()``); ``opentelemetry-api`` is imported
only by ``instrument()``.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer, TracerProvider

    from .client import Bot
    from .client.hooks import ApiCall
    from .dispatcher import Dispatcher
    from .types import Update

__all__ = ["enabled", "instrument", "uninstrument"]

tracer: Tracer | None = None
"""The tracer while instrumented; None (the default) turns every bit of this off."""

_update_started: ContextVar[int] = ContextVar("tgfast_update_started_ns", default=0)
# id(update) -> (update, decode start, decode end, batch size or 0 for a webhook body),
# from the timed decoders to the update's span; bounded: an update refused (503) is never fed and never popped
_decoded: dict[int, tuple[Any, int, int, int]] = {}
_DECODED_MAX = 4096
_plain_decode: Callable[[bytes], Any] | None = None
_DECODER = "decode_update"  # the name the webhook intake decodes a body with
_plain_convert: Callable[[Any, Any], Any] | None = None
_CONVERT = "convert"  # the name the Bot decodes an answer's result with
_UPDATES = "[Update]"  # getUpdates' result, in the language of tgfast.decoding
_HANDLER_MIDDLEWARE_KINDS_SKIPPED = frozenset({"update"})


def enabled() -> bool:
    """True between ``instrument()`` and ``uninstrument()``."""
    return tracer is not None


def instrument(tracer_provider: TracerProvider | None = None) -> None:
    """Trace updates and Bot API calls with ``tracer_provider`` (default: the global one
    that the OpenTelemetry SDK set). Call it before the server or poller is made: each
    one attaches to its dispatcher and bot when made."""
    global tracer
    try:
        from opentelemetry import trace
    except ImportError:
        raise ImportError(
            "tgfast.tracing needs opentelemetry-api: pip install 'tgfast[otel]'"
        ) from None
    from . import __version__

    tracer = trace.get_tracer("tgfast", __version__, tracer_provider)
    _time_the_webhook_decoder(True)
    _time_the_polling_decoder(True)


def uninstrument() -> None:
    """Stop tracing new updates (middlewares and hooks attached stay, and do nothing)."""
    global tracer
    tracer = None
    _time_the_webhook_decoder(False)
    _time_the_polling_decoder(False)
    _decoded.clear()


def _note_decoded(update: Any, started: int, ended: int, batch: int) -> None:
    if len(_decoded) >= _DECODED_MAX:
        _decoded.clear()
    _decoded[id(update)] = (update, started, ended, batch)


def _time_the_webhook_decoder(on: bool) -> None:
    """Swap the webhook servers' ``decode_update`` for one that notes when it ran: the
    aiohttp layer's (``server.intake``) and the one a ``WebhookServer`` hands tgfast's
    own intake when it is made (``server.webhook``)."""
    global _plain_decode
    from .server import intake, webhook

    if on and _plain_decode is None:
        plain = _plain_decode = getattr(intake, _DECODER)

        def decode_update(body: bytes) -> Any:
            started = time.time_ns()
            update = plain(body)
            _note_decoded(update, started, time.time_ns(), 0)
            return update

        for module in (intake, webhook):
            setattr(module, _DECODER, decode_update)
    elif not on and _plain_decode is not None:
        for module in (intake, webhook):
            setattr(module, _DECODER, _plain_decode)
        _plain_decode = None


def _time_the_polling_decoder(on: bool) -> None:
    """Swap the ``Bot``'s result decoder (``client.bot.convert``) for one that notes
    when the updates of a ``getUpdates`` answer were built (the other results pass
    through untouched): the poller's counterpart of the webhook's timed decoder."""
    global _plain_convert
    from .client import bot

    if on and _plain_convert is None:
        plain = _plain_convert = getattr(bot, _CONVERT)

        def convert(expr: Any, value: Any) -> Any:
            if expr != _UPDATES:
                return plain(expr, value)
            started = time.time_ns()
            updates = plain(expr, value)
            ended = time.time_ns()
            for update in updates:
                _note_decoded(update, started, ended, len(updates))
            return updates

        setattr(bot, _CONVERT, convert)
    elif not on and _plain_convert is not None:
        setattr(bot, _CONVERT, _plain_convert)
        _plain_convert = None


def attach(dispatcher: Dispatcher, bot: Bot) -> None:
    """Called by the processor when tracing is on: a span around each handler of every
    router (an inner middleware, added once; the dispatcher is not frozen yet) and one
    per Bot API attempt of ``bot``."""
    if _api_call_span not in bot.api_call_hooks:
        bot.api_call_hooks.append(_api_call_span)
    if getattr(dispatcher, "_table", None) is not None:
        return  # frozen: served before, handlers traced then (or never)
    for router in dispatcher.chain_tail:
        for kind, observer in router.observers.items():
            if kind in _HANDLER_MIDDLEWARE_KINDS_SKIPPED:
                continue
            if _handler_span not in observer.middlewares:
                observer.middleware(_handler_span)


async def traced_feed(
    feed: Callable[[Bot, Update], Awaitable[Any]], bot: Bot, update: Update, kind: str
) -> Any:
    """``feed(bot, update)`` inside the update's span."""
    from opentelemetry.trace import SpanKind, Status, StatusCode

    from .dispatcher import FAILED, UNHANDLED
    from .types.update_kinds import chat_of

    assert tracer is not None
    chat = chat_of(update)
    attributes: dict[str, Any] = {"tgfast.update.id": update.update_id, "tgfast.update.kind": kind}
    if chat is not None:
        attributes["tgfast.chat.id"] = chat.id
    decoded = _decoded.pop(id(update), None)
    if decoded is not None and decoded[0] is not update:
        decoded = None
    started = time.time_ns() if decoded is None else decoded[1]
    with tracer.start_as_current_span(
        "tgfast.update", kind=SpanKind.CONSUMER, attributes=attributes, start_time=started
    ) as span:
        if decoded is not None:
            batch = {"tgfast.decode.batch_size": decoded[3]} if decoded[3] else None
            decode = tracer.start_span("tgfast.decode", start_time=decoded[1], attributes=batch)
            decode.end(decoded[2])
        _update_started.set(time.time_ns())
        try:
            result = await feed(bot, update)
        except Exception:  # a handler's error no errors handler took (feed_update raises)
            span.set_attribute("tgfast.outcome", "failed")
            span.set_status(Status(StatusCode.ERROR, "the handler failed"))
            raise
        if result is UNHANDLED:
            span.set_attribute("tgfast.outcome", "unhandled")
        elif result is FAILED:
            span.set_attribute("tgfast.outcome", "failed")
            span.set_status(Status(StatusCode.ERROR, "the handler failed"))
        else:
            span.set_attribute("tgfast.outcome", "handled")
        return result


async def _handler_span(
    handler: Callable[[Any, dict[str, Any]], Awaitable[Any]], event: Any, data: dict[str, Any]
) -> Any:
    """An inner middleware: the routing span (feeding start to here) and the handler's."""
    current = tracer
    if current is None:
        return await handler(event, data)
    from opentelemetry import trace

    callback = getattr(data.get("handler"), "callback", None)
    name = _name(callback)
    update_span = trace.get_current_span()
    update_span.set_attribute("tgfast.handler", name)
    started = _update_started.get()
    if started:
        current.start_span("tgfast.routing", start_time=started).end()
    with current.start_as_current_span("tgfast.handler", attributes={"tgfast.handler": name}):
        return await handler(event, data)


def _name(callback: object) -> str:
    if callback is None:
        return "?"
    module = getattr(callback, "__module__", None) or "?"
    return f"{module}.{getattr(callback, '__qualname__', repr(callback))}"


def _api_call_span(call: ApiCall) -> None:
    """A ``Bot.api_call_hooks`` hook: the attempt as a finished child span."""
    current = tracer
    if current is None:
        return
    from opentelemetry.trace import SpanKind, Status, StatusCode

    end = time.time_ns()
    span = current.start_span(
        f"telegram {call.method}", kind=SpanKind.CLIENT,
        start_time=end - int(call.duration * 1e9),
        attributes={
            "telegram.method": call.method,
            "http.response.status_code": call.status,
            "tgfast.retries": call.attempt,
        },
    )  # fmt: skip
    if call.retry_after is not None:
        span.set_attribute("telegram.retry_after", call.retry_after)
    if call.exception is not None:
        span.record_exception(call.exception)
        span.set_status(Status(StatusCode.ERROR, type(call.exception).__name__))
    span.end(end)
