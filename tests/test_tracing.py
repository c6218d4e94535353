"""OpenTelemetry tracing (issue #27): a span per update with the routing and the handler
as children, a child span per Bot API attempt, the context kept in the tasks a handler
starts; nothing imported or done when not instrumented. The SDK's in-memory exporter
records what a real exporter would receive."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator

import aiohttp
import pytest
from opentelemetry.sdk import trace as sdk_trace
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode
from server_support import make_bot, message, post, served, subprocess_env

from tgfast import Bot, Dispatcher, tracing
from tgfast.client import RetryPolicy
from tgfast.server import Poller
from tgfast.testing import FakeTelegram
from tgfast.types import Message

LOCALS = "test_spans_of_an_update_its_handler_and_its_calls.<locals>"


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.instrument(provider)
    try:
        yield exporter
    finally:
        tracing.uninstrument()
        provider.shutdown()


async def test_spans_of_an_update_its_handler_and_its_calls(
    fake: FakeTelegram, exporter: InMemorySpanExporter
) -> None:
    dp = Dispatcher()
    background: list[asyncio.Task[None]] = []

    @dp.message(lambda m: m.text == "hi")
    async def greet(message: Message) -> None:
        await message.answer("hello")

        async def later() -> None:  # a task of the handler's: still the update's trace
            await message.answer("later")

        background.append(asyncio.create_task(later()))

    @dp.message(lambda m: m.text == "boom")
    async def boom(message: Message) -> None:
        raise RuntimeError("handler failed")

    async with make_bot(fake) as bot, aiohttp.ClientSession() as http:
        bot.retry = RetryPolicy(retry_after_attempts=1)
        async with served(dp, bot, secret_token="t") as server:
            fake.fail("sendMessage", error_code=429, retry_after=0)
            assert (await post(http, server.url or "", message(7, 42, "hi"), secret="t"))[0] == 200
            await server.processor.join()
            await asyncio.gather(*background)
            assert (await post(http, server.url or "", message(8, 42, "boom"), secret="t"))[
                0
            ] == 200
            await server.processor.join()

    spans = exporter.get_finished_spans()
    updates = {s.attributes["tgfast.update.id"]: s for s in spans if s.name == "tgfast.update"}
    assert set(updates) == {7, 8}
    first = updates[7]
    assert dict(first.attributes or {}) == {
        "tgfast.update.id": 7, "tgfast.update.kind": "message", "tgfast.chat.id": 42,
        "tgfast.handler": f"test_tracing.{LOCALS}.greet", "tgfast.outcome": "handled",
    }  # fmt: skip
    trace_id = first.context.trace_id
    mine = [s for s in spans if s.context.trace_id == trace_id]
    by_name: dict[str, list[sdk_trace.ReadableSpan]] = {}
    for span in mine:
        by_name.setdefault(span.name, []).append(span)
    (decode,) = by_name["tgfast.decode"]
    assert "tgfast.decode.batch_size" not in (decode.attributes or {})  # one body, one update
    (routing,) = by_name["tgfast.routing"]
    (handler,) = by_name["tgfast.handler"]
    assert decode.parent is not None and decode.parent.span_id == first.context.span_id
    assert first.start_time == decode.start_time <= decode.end_time <= routing.start_time
    assert routing.end_time <= handler.start_time <= handler.end_time <= first.end_time
    assert routing.parent is not None and routing.parent.span_id == first.context.span_id
    assert handler.parent is not None and handler.parent.span_id == first.context.span_id
    calls = by_name["telegram sendMessage"]
    assert len(calls) == 3  # 429, its retry, and the background task's call
    assert all(c.parent is not None and c.parent.span_id == handler.context.span_id for c in calls)
    flood = [c for c in calls if c.attributes["http.response.status_code"] == 429]
    assert len(flood) == 1 and flood[0].attributes["telegram.retry_after"] == 0
    assert flood[0].status.status_code is StatusCode.ERROR
    assert sorted(c.attributes["tgfast.retries"] for c in calls) == [0, 0, 1]
    assert all(c.start_time <= c.end_time for c in calls)

    failed = updates[8]
    assert failed.attributes["tgfast.outcome"] == "failed"
    assert failed.status.status_code is StatusCode.ERROR
    (failed_handler,) = [
        s
        for s in spans
        if s.name == "tgfast.handler" and s.parent and s.parent.span_id == failed.context.span_id
    ]
    assert failed_handler.attributes["tgfast.handler"] == f"test_tracing.{LOCALS}.boom"
    assert any(e.name == "exception" for e in failed_handler.events)


async def test_nothing_is_traced_when_not_instrumented(fake: FakeTelegram) -> None:
    exporter = InMemorySpanExporter()
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    dp = Dispatcher()

    @dp.message()
    async def echo(message: Message) -> None:
        await message.answer("x")

    assert not tracing.enabled()
    from tgfast.decoding import decode_update
    from tgfast.server import intake

    assert intake.decode_update is decode_update  # the plain decoders: nothing timed
    from tgfast.client import bot as client_bot
    from tgfast.decoding import convert

    assert client_bot.convert is convert
    async with make_bot(fake) as bot, aiohttp.ClientSession() as http:
        async with served(dp, bot, secret_token="t") as server:
            assert (await post(http, server.url or "", message(1, 1, "a"), secret="t"))[0] == 200
            await server.processor.join()
            assert tracing._api_call_span not in bot.api_call_hooks
            assert all(tracing._handler_span not in o.middlewares for o in dp.observers.values())
    assert exporter.get_finished_spans() == ()


async def test_a_polled_update_has_the_webhook_s_spans(
    fake: FakeTelegram, exporter: InMemorySpanExporter
) -> None:
    """Polling: the same span per update, with its decoding (the getUpdates answer's
    batch it came in), its routing and its handler as children."""
    dp = Dispatcher()

    @dp.message()
    async def echo(message: Message) -> None:
        await message.answer(message.text or "")

    for chat in (5, 6):  # pending before the first poll: one getUpdates answer holds both
        update = message(0, chat, f"to {chat}")
        del update["update_id"]  # numbered by the fake
        fake.add_update(update)
    async with Bot(fake.token, server=fake.url, rate_limiter=None) as bot:
        poller = Poller(dp, bot, timeout=1)
        running = asyncio.ensure_future(poller.run())
        for _ in range(1000):
            if len(fake.calls_to("sendMessage")) == 2:
                break
            await asyncio.sleep(0.01)
        poller.stop()
        await running
    assert len(fake.calls_to("sendMessage")) == 2

    spans = exporter.get_finished_spans()
    updates = [s for s in spans if s.name == "tgfast.update"]
    assert sorted(s.attributes["tgfast.chat.id"] for s in updates) == [5, 6]
    decodes = []
    for update in updates:
        assert update.attributes["tgfast.update.kind"] == "message"
        assert update.attributes["tgfast.outcome"] == "handled"
        assert update.attributes["tgfast.handler"].endswith("<locals>.echo")
        children: dict[str, list[sdk_trace.ReadableSpan]] = {}
        for span in spans:
            if span.parent is not None and span.parent.span_id == update.context.span_id:
                children.setdefault(span.name, []).append(span)
        assert set(children) == {"tgfast.decode", "tgfast.routing", "tgfast.handler"}
        (decode,), (routing,), (handler,) = (
            children["tgfast.decode"],
            children["tgfast.routing"],
            children["tgfast.handler"],
        )
        assert decode.attributes == {"tgfast.decode.batch_size": 2}
        assert update.start_time == decode.start_time <= decode.end_time <= routing.start_time
        assert routing.end_time <= handler.start_time <= handler.end_time <= update.end_time
        (call,) = [s for s in spans if s.parent and s.parent.span_id == handler.context.span_id]
        assert call.name == "telegram sendMessage"
        decodes.append((decode.start_time, decode.end_time))
    assert decodes[0] == decodes[1]  # decoded together, in one batch


def test_without_opentelemetry_nothing_is_imported_and_instrument_says_what_to_install() -> None:
    code = (
        "import sys\n"
        "sys.modules['opentelemetry'] = None\n"
        "import tgfast, tgfast.server, tgfast.tracing, tgfast.cli\n"
        "assert not tgfast.tracing.enabled()\n"
        "try:\n"
        "    tgfast.tracing.instrument()\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=subprocess_env(), capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "tgfast.tracing needs opentelemetry-api: pip install 'tgfast[otel]'"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, tgfast, tgfast.server, tgfast.cli; "
         "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))"],
        env=subprocess_env(), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert loaded.stdout.strip() == "[]", loaded.stdout
