"""Sessions of one's own and request middlewares (aiogram's extension point): a
``BaseSession`` subclass gets every call as a method object, ``check_response`` turns
answers into results or tgfast's errors, ``prepare_value`` encodes form fields, and
request middlewares wrap every call; tgfast's own session without middlewares keeps
its direct path."""

from __future__ import annotations

import datetime
import json
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from enum import Enum
from typing import Any
from unittest.mock import AsyncMock, patch

import pytest

from tgfast import Bot
from tgfast.client.session.aiohttp import AiohttpSession
from tgfast.client.session.base import BaseSession
from tgfast.client.session.middlewares.base import (
    BaseRequestMiddleware,
    NextRequestMiddlewareType,
)
from tgfast.client.session.middlewares.request_logging import RequestLogging
from tgfast.client.telegram import TelegramAPIServer
from tgfast.defaults import DefaultBotProperties
from tgfast.errors import (
    ClientDecodeError,
    RestartingTelegram,
    TelegramAPIError,
    TelegramBadRequest,
    TelegramConflict,
    TelegramForbidden,
    TelegramMigrateToChat,
    TelegramNotFound,
    TelegramRetryAfter,
    TelegramServerError,
)
from tgfast.methods import GetMe, Response, SendMessage, TelegramMethod
from tgfast.testing import FakeTelegram
from tgfast.types import BufferedInputFile, LinkPreviewOptions, Message, User

ME = User(id=42, is_bot=True, first_name="Test")


class Recording(BaseSession):
    """aiogram's test-double pattern: queued answers, recorded method objects."""

    def __init__(self) -> None:
        super().__init__()
        self.answers: list[tuple[int, str]] = []
        self.requests: list[TelegramMethod[Any]] = []
        self.closed = False

    async def make_request(
        self, bot: Bot, method: TelegramMethod[Any], timeout: float | None = None
    ) -> Any:
        self.requests.append(method)
        status, content = self.answers.pop(0)
        return self.check_response(bot, method, status, content).result

    async def stream_content(
        self,
        url: str,
        headers: dict[str, Any] | None = None,
        timeout: float = 30,
        chunk_size: int = 65536,
        raise_for_status: bool = True,
    ) -> AsyncGenerator[bytes, None]:
        self.requests.append(url)  # type: ignore[arg-type]
        for part in (b"con", b"tent"):
            yield part

    async def close(self) -> None:
        self.closed = True


@pytest.fixture
def session() -> Recording:
    return Recording()


def test_a_session_must_implement_make_request() -> None:
    class Incomplete(BaseSession):
        async def close(self) -> None:
            pass

    with pytest.raises(TypeError, match="make_request"):
        Incomplete()  # type: ignore[abstract]
    with pytest.raises(TypeError, match="BaseSession"):
        Bot("42:TEST", session=object())  # type: ignore[arg-type]


async def test_a_custom_session_gets_method_objects_and_its_results(session: Recording) -> None:
    bot = Bot("42:TEST", session=session)
    answer = Response(ok=True, result=ME).model_dump_json()
    session.answers.append((200, answer))
    me = await bot.get_me()
    assert me == ME and me.bot is bot
    message = {"message_id": 1, "date": 1, "chat": {"id": 5, "type": "private"}, "text": "hi"}
    session.answers.append((200, json.dumps({"ok": True, "result": message})))
    sent = await bot.send_message(5, "hi", protect_content=True)
    assert isinstance(sent, Message) and sent.chat.id == 5
    get_me, send = session.requests
    assert type(get_me) is GetMe
    assert type(send) is SendMessage and (send.chat_id, send.text) == (5, "hi")
    assert send.protect_content is True
    # a method object given to the bot reaches the session as it is
    call = SendMessage(chat_id=5, text="again")
    session.answers.append((200, json.dumps({"ok": True, "result": message})))
    assert await bot(call) == sent
    assert session.requests[-1] is call
    async with bot:
        pass
    assert session.closed


async def test_a_custom_session_raises_tgfast_errors(session: Recording) -> None:
    bot = Bot("42:TEST", session=session)
    session.answers.append((400, '{"ok": false, "description": "Bad Request: no"}'))
    with pytest.raises(TelegramBadRequest, match="Bad Request: no") as caught:
        await bot.get_me()
    assert caught.value.method == "getMe" and caught.value.error_code == 400


@pytest.mark.parametrize(
    ("status", "content", "error"),
    [
        (400, '{"ok":false,"description":"x"}', TelegramBadRequest),
        (400, '{"ok":false,"description":"x","parameters":{"retry_after":3}}', TelegramRetryAfter),
        (
            400,
            '{"ok":false,"description":"x","parameters":{"migrate_to_chat_id":-42}}',
            TelegramMigrateToChat,
        ),
        (403, '{"ok":false,"description":"x"}', TelegramForbidden),
        (404, '{"ok":false,"description":"x"}', TelegramNotFound),
        (409, '{"ok":false,"description":"x"}', TelegramConflict),
        (500, '{"ok":false,"description":"restarting"}', RestartingTelegram),
        (502, '{"ok":false,"description":"x"}', TelegramServerError),
        (499, '{"ok":false,"description":"x"}', TelegramAPIError),
        (200, '{"ok":false,"description":"x"}', TelegramAPIError),
        (200, "not json", ClientDecodeError),
        (200, '{"ok": "yes"}', ClientDecodeError),
        (200, '{"ok": true, "result": {"id": "not an int"}}', ClientDecodeError),
    ],
)
def test_check_response_raises_what_the_answer_means(
    session: Recording, status: int, content: str, error: type[Exception]
) -> None:
    bot = Bot("42:TEST", session=session)
    with pytest.raises(error) as caught:
        session.check_response(bot, GetMe(), status, content)
    assert type(caught.value) is error
    if isinstance(caught.value, TelegramRetryAfter):
        assert caught.value.retry_after == 3
    if isinstance(caught.value, TelegramMigrateToChat):
        assert caught.value.migrate_to_chat_id == -42


def test_check_response_keeps_the_token_out_of_its_errors(session: Recording) -> None:
    bot = Bot("42:SECRET", session=session)
    with pytest.raises(ClientDecodeError) as caught:
        session.check_response(bot, GetMe(), 200, "oops 42:SECRET")
    assert "SECRET" not in str(caught.value)


class Color(Enum):
    RED = 16478047


def test_prepare_value_writes_form_fields(session: Recording) -> None:
    bot = Bot(
        "42:TEST", session=session, default=DefaultBotProperties(link_preview_is_disabled=True)
    )
    files: dict[str, Any] = {}
    when = datetime.datetime(2017, 5, 17, 4, 11, 42, tzinfo=datetime.timezone.utc)
    assert session.prepare_value(None, bot, files) is None
    assert session.prepare_value("text", bot, files) == "text"
    assert session.prepare_value(42, bot, files) == "42"
    assert session.prepare_value(True, bot, files) == "true"
    assert session.prepare_value(Color.RED, bot, files) == "16478047"
    assert session.prepare_value(when, bot, files) == "1494994302"
    assert session.prepare_value({"a": 1, "b": None}, bot, files) == '{"a": 1}'
    assert session.prepare_value([["x"], None], bot, files) == '[["x"]]'
    options = LinkPreviewOptions(url="https://example.com")  # the bot's default filled in
    expected = '{"is_disabled": true, "url": "https://example.com"}'
    assert session.prepare_value(options, bot, files) == expected
    upload = BufferedInputFile(b"data", filename="a.txt")
    assert session.prepare_value(upload, bot, files).startswith("attach://")
    assert list(files.values()) == [upload]


async def test_download_goes_through_the_sessions_stream_content(session: Recording) -> None:
    bot = Bot("42:TEST", session=session)
    assert (await bot.download_file("photos/a.jpg")).read() == b"content"
    assert session.requests == ["https://api.telegram.org/file/bot42:TEST/photos/a.jpg"]


class Tag(BaseRequestMiddleware):
    def __init__(self, seen: list[str], name: str) -> None:
        self.seen, self.name = seen, name

    async def __call__(
        self, make_request: NextRequestMiddlewareType, bot: Bot, method: TelegramMethod[Any]
    ) -> Any:
        self.seen.append(f"{self.name}:{type(method).__name__}")
        result = await make_request(bot, method)
        self.seen.append(f"/{self.name}")
        return result


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as server:
        yield server


async def test_middlewares_wrap_the_default_session_in_order(fake: FakeTelegram) -> None:
    session = AiohttpSession(api=TelegramAPIServer.from_base(fake.url))
    async with Bot(fake.token, session=session, rate_limiter=None) as bot:
        await bot.get_me()  # the direct path: no method object, no middleware
        seen: list[str] = []
        session.middleware(Tag(seen, "outer"))

        @session.middleware()
        async def inner(make_request: NextRequestMiddlewareType, b: Bot, m: Any) -> Any:
            seen.append("inner")
            return await make_request(b, m)

        assert list(session.middleware)[1] is inner
        sent = await bot.send_message(1, "hi")
        assert sent.text == "hi" and sent.bot is bot
        assert seen == ["outer:SendMessage", "inner", "/outer"]
        assert [call.method for call in fake.calls] == ["getMe", "sendMessage"]
        assert fake.calls[-1].params == {"chat_id": 1, "text": "hi"}


async def test_a_middleware_may_answer_without_sending(fake: FakeTelegram) -> None:
    session = AiohttpSession(api=TelegramAPIServer.from_base(fake.url))

    @session.middleware
    async def cached(make_request: NextRequestMiddlewareType, b: Bot, m: Any) -> Any:
        return ME if isinstance(m, GetMe) else await make_request(b, m)

    async with Bot(fake.token, session=session, rate_limiter=None) as bot:
        assert await bot.get_me() == ME
        assert (await bot.send_message(1, "x")).chat.id == 1
    assert [call.method for call in fake.calls] == ["sendMessage"]


async def test_request_logging_names_method_and_bot(
    session: Recording, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "tgfast.client.requests")
    bot = Bot("42:SECRET", session=session)
    session.middleware(RequestLogging(ignore_methods=[SendMessage]))
    session.answers.append((200, Response(ok=True, result=ME).model_dump_json()))
    await bot.get_me()
    assert "Make request with method='GetMe' by bot id=42" in caplog.text
    assert "SECRET" not in caplog.text


def test_response_is_the_bot_api_answer() -> None:
    response = Response[GetMe.__returning__](ok=True, result=ME)  # type: ignore[name-defined]
    assert GetMe.__returning__ is User
    assert SendMessage.__returning__ is Message
    assert json.loads(response.model_dump_json()) == {
        "ok": True,
        "result": {"id": 42, "is_bot": True, "first_name": "Test"},
        "description": None,
        "error_code": None,
        "parameters": None,
    }
    assert response == Response(ok=True, result=ME) != Response(ok=False)


async def test_a_patched_make_request_sees_every_call() -> None:
    # the way aiogram's users mock the network in their own tests
    bot = Bot("42:TEST")
    with patch.object(AiohttpSession, "make_request", new_callable=AsyncMock) as mocked:
        mocked.return_value = ME
        assert await bot.get_me() == ME
        call = SendMessage(chat_id=1, text="x")
        await bot(call)
    first, second = mocked.await_args_list
    assert type(first.args[1]) is GetMe and first.kwargs == {"timeout": None}
    assert second.args == (bot, call)
    await bot.session.close()


async def test_aiohttp_session_make_request_sends_through_itself(fake: FakeTelegram) -> None:
    # aiogram's form: a session sends a method for a bot, whichever session the bot has
    bot = Bot(fake.token, session=Recording())
    async with AiohttpSession(api=TelegramAPIServer.from_base(fake.url)) as session:
        me = await session.make_request(bot, GetMe())
    assert me.is_bot and me.bot is bot
    assert [call.method for call in fake.calls] == ["getMe"]
    assert bot.session.requests == []  # type: ignore[attr-defined]


async def test_async_with_opens_the_aiohttp_pool_and_closes_it() -> None:
    # aiogram's session opens its aiohttp session on entry (create_session)
    session = AiohttpSession()
    assert session.closed
    async with session as entered:
        assert entered is session and not session.closed
        client = session.client
    assert session.closed and client.closed
