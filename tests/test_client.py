"""The Bot client against FakeTelegram, over real sockets."""

from __future__ import annotations

import asyncio
import html
import inspect
import io
import logging
import os
import pickle
import re
import string
import time
import urllib.parse
from collections.abc import AsyncIterator, Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from redis_server import free_port

import tgfast
from tgfast import (
    Bot,
    BotDefaults,
    BotSession,
    RetryPolicy,
    TelegramAPIError,
    TelegramBadRequest,
    TelegramConflict,
    TelegramEntityTooLarge,
    TelegramForbidden,
    TelegramMigrateToChat,
    TelegramNetworkError,
    TelegramNotFound,
    TelegramRetryAfter,
    TelegramServer,
    TelegramServerError,
    TelegramUnauthorized,
    TgfastError,
)
from tgfast.client import NO_RETRY, Limit, LocalRateLimiter
from tgfast.client.bot import _ERRORS
from tgfast.client.redaction import TokenRedactor
from tgfast.methods import METHOD_CLASSES, METHODS, SendMessage
from tgfast.methods.base import Returns
from tgfast.testing import Call, FakeTelegram
from tgfast.types import (
    BufferedInputFile,
    CallbackQuery,
    File,
    FSInputFile,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputMediaDocument,
    InputMediaPhoto,
    Message,
    ReactionTypeEmoji,
    User,
)
from tgfast.types.binding import current_bot

FAST_RETRY = RetryPolicy(backoff=0.01, max_backoff=0.02)


@pytest.fixture(autouse=True, params=["aiohttp", "fast"])
def transport(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test here runs over both transports: a ``Bot`` that builds its own session
    builds the one ``TGFAST_TRANSPORT`` names (tests that pass a session keep theirs)."""
    kind: str = request.param
    monkeypatch.setenv("TGFAST_TRANSPORT", kind)
    return kind


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as server:
        server.respond("getChat", _chat_full_info)
        yield server
        assert server.errors == []


def _chat_full_info(call: Call) -> dict[str, object]:
    gifts = dict.fromkeys(
        ("unlimited_gifts", "limited_gifts", "unique_gifts", "premium_subscription",
         "gifts_from_channels"), False,
    )  # fmt: skip
    return {"id": call.params["chat_id"], "type": "private", "accent_color_id": 0,
            "max_reaction_count": 11, "accepted_gift_types": gifts}  # fmt: skip


@pytest.fixture
async def bot(fake: FakeTelegram) -> AsyncIterator[Bot]:
    async with Bot(fake.token, server=fake.url, rate_limiter=None, retry=FAST_RETRY) as b:
        yield b


# -- the generated surface ---------------------------------------------------------------


def test_every_method_of_the_spec_is_on_bot_with_all_its_parameters() -> None:
    assert len(METHODS) == 185
    for name, md in METHODS.items():
        fn = getattr(Bot, md.attr)
        assert md.attr == _snake(name)
        assert inspect.iscoroutinefunction(fn), name
        sig = inspect.signature(fn)
        expected = {p.attr for p in md.params} | {"self", "request_timeout"}
        assert set(sig.parameters) == expected, name
        for p in md.params:
            param = sig.parameters[p.attr]
            assert (param.default is inspect.Parameter.empty) == p.required, (name, p.attr)
        assert md.href in (fn.__doc__ or ""), name


def test_every_method_has_a_method_class() -> None:
    assert set(METHOD_CLASSES) == set(METHODS)
    for name, cls in METHOD_CLASSES.items():
        assert cls.__api_method__ == name
        assert cls.__returns__ == METHODS[name].returns
        assert [row[0] for row in cls.__tg_fields__] == [p.name for p in METHODS[name].params]


# -- calls and results --------------------------------------------------------------------


async def test_send_message_round_trip(fake: FakeTelegram, bot: Bot) -> None:
    markup = InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text="go", callback_data="page:2")]]
    )
    msg = await bot.send_message(42, "hello", reply_markup=markup)
    assert isinstance(msg, Message)
    assert (msg.chat.id, msg.text, msg.message_id) == (42, "hello", 1)
    assert msg.reply_markup == markup
    call = fake.calls_to("sendMessage")[-1]
    assert call.content_type == "application/json"
    assert call.params == {
        "chat_id": 42,
        "text": "hello",
        "reply_markup": {"inline_keyboard": [[{"text": "go", "callback_data": "page:2"}]]},
    }
    second = await bot.send_message(42, "again")
    assert second.message_id == 2


async def test_get_me_and_me_is_asked_once(fake: FakeTelegram, bot: Bot) -> None:
    me = await bot.me()
    assert isinstance(me, User)
    assert me.id == bot.id == int(fake.token.split(":")[0])
    assert await bot.me() is me
    assert len(fake.calls_to("getMe")) == 1


async def test_method_objects_and_webhook_reply(fake: FakeTelegram, bot: Bot) -> None:
    method = SendMessage(chat_id=7, text="via object")
    msg = await bot(method)
    assert isinstance(msg, Message) and msg.text == "via object"
    assert method.as_webhook_reply() == {
        "method": "sendMessage",
        "chat_id": 7,
        "text": "via object",
    }
    assert "DEFAULT" not in repr(method)
    assert method.to_dict() == {"chat_id": 7, "text": "via object"}


async def test_bot_defaults_apply_unless_overridden(fake: FakeTelegram) -> None:
    defaults = BotDefaults(parse_mode="HTML", protect_content=True)
    async with Bot(fake.token, server=fake.url, defaults=defaults, rate_limiter=None) as bot:
        await bot.send_message(1, "<b>a</b>")
        await bot.send_message(1, "b", parse_mode=None)
        await bot.send_message(1, "c", parse_mode="MarkdownV2", protect_content=False)
        await bot(SendMessage(chat_id=1, text="d"))
        await bot.send_poll(1, "q?", [{"text": "a"}, {"text": "b"}])  # type: ignore[list-item]
    sent = [c.params for c in fake.calls]
    assert sent[0]["parse_mode"] == "HTML" and sent[0]["protect_content"] is True
    assert "parse_mode" not in sent[1]
    assert sent[2]["parse_mode"] == "MarkdownV2" and sent[2]["protect_content"] is False
    assert sent[3]["parse_mode"] == "HTML"
    assert sent[4]["question_parse_mode"] == "HTML"


async def test_datetimes_become_unix_times(fake: FakeTelegram, bot: Bot) -> None:
    until = datetime(2030, 1, 1, tzinfo=timezone.utc)
    await bot.ban_chat_member(-100, 5, until_date=until)  # type: ignore[arg-type]
    assert fake.calls[-1].params["until_date"] == int(until.timestamp())
    before = int(time.time())
    await bot.ban_chat_member(-100, 5, until_date=timedelta(hours=1))  # type: ignore[arg-type]
    assert before + 3600 <= fake.calls[-1].params["until_date"] <= int(time.time()) + 3600


async def test_result_types_follow_the_spec(fake: FakeTelegram, bot: Bot) -> None:
    assert await bot.send_chat_action(1, "typing") is True
    await bot.send_message(3, "x")
    copied = await bot.copy_message(4, 3, 1)
    assert copied.message_id >= 1
    group = await bot.send_media_group(
        5, [InputMediaPhoto(media="id-1"), InputMediaPhoto(media="id-2")]
    )
    assert len(group) == 2 and all(isinstance(m, Message) for m in group)
    assert group[0].media_group_id == group[1].media_group_id is not None


# -- errors -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "cls"),
    [
        (400, TelegramBadRequest),
        (401, TelegramUnauthorized),
        (403, TelegramForbidden),
        (404, TelegramNotFound),
        (409, TelegramConflict),
        (413, TelegramEntityTooLarge),
        (418, TelegramAPIError),
        (500, TelegramServerError),
        (503, TelegramServerError),
    ],
)
async def test_every_error_code_maps_to_its_class(
    fake: FakeTelegram, bot: Bot, code: int, cls: type[TelegramAPIError]
) -> None:
    fake.fail("sendMessage", error_code=code, description=f"Error {code}: injected")
    with pytest.raises(cls) as info:
        await bot.send_message(1, "x")
    assert type(info.value) is cls  # not a more specific class by accident
    assert (info.value.method, info.value.error_code) == ("sendMessage", code)
    assert info.value.description == f"Error {code}: injected"
    assert isinstance(info.value, TgfastError)
    assert len(fake.calls_to("sendMessage")) == 1  # a send is never repeated after 5xx
    assert set(_ERRORS) <= {400, 401, 403, 404, 409, 413}


async def test_retry_after_and_migrate_carry_their_parameters(
    fake: FakeTelegram, fake_bot_no_retry: Bot
) -> None:
    fake.fail("sendMessage", error_code=429, retry_after=7)
    with pytest.raises(TelegramRetryAfter) as info:
        await fake_bot_no_retry.send_message(1, "x")
    assert info.value.retry_after == 7
    assert "retry after 7" in str(info.value)
    fake.fail("sendMessage", error_code=400, description="Bad Request: group chat was upgraded",
              migrate_to_chat_id=-1001234)  # fmt: skip
    with pytest.raises(TelegramMigrateToChat) as migrated:
        await fake_bot_no_retry.send_message(-5, "x")
    assert migrated.value.migrate_to_chat_id == -1001234
    assert isinstance(migrated.value, TelegramBadRequest)
    for exc in (info.value, migrated.value):
        again = pickle.loads(pickle.dumps(exc))
        assert (type(again), str(again)) == (type(exc), str(exc))


@pytest.fixture
async def fake_bot_no_retry(fake: FakeTelegram) -> AsyncIterator[Bot]:
    async with Bot(fake.token, server=fake.url, rate_limiter=None, retry=NO_RETRY) as b:
        yield b


async def test_unknown_method_and_real_telegram_400s(fake: FakeTelegram, bot: Bot) -> None:
    with pytest.raises(TelegramNotFound):
        await bot._call("noSuchMethod", {}, Returns("bool"))
    with pytest.raises(TelegramBadRequest, match="message to edit not found"):
        await bot.edit_message_text("new", chat_id=1, message_id=999)


async def test_a_non_json_answer_is_a_server_error(fake: FakeTelegram, bot: Bot) -> None:
    fake.http_error("sendMessage", status=502)
    with pytest.raises(TelegramServerError, match="not a Bot API answer") as info:
        await bot.send_message(1, "x")
    assert info.value.error_code == 502


async def test_a_wrong_token_is_unauthorized_and_never_shown(fake: FakeTelegram) -> None:
    wrong = "987654321:WRONG-secret-that-must-not-leak"
    async with Bot(wrong, server=fake.url, rate_limiter=None) as bot:
        with pytest.raises(TelegramUnauthorized) as info:
            await bot.get_me()
    assert "WRONG-secret" not in str(info.value) + repr(info.value)


async def test_the_token_appears_in_no_error_repr_or_log(
    fake: FakeTelegram, caplog: pytest.LogCaptureFixture
) -> None:
    secret = fake.token.split(":")[1]
    caplog.set_level(logging.DEBUG)
    texts: list[str] = []
    async with Bot(fake.token, server=fake.url, rate_limiter=None, retry=FAST_RETRY) as bot:
        texts.append(repr(bot))
        fake.drop("getMe", times=5)  # retried, then a network error
        fake.http_error("getChat", status=500, body=fake.token.encode(), times=5)
        fake.fail("sendMessage", error_code=400, description=f"Bad Request: {fake.token}")
        for call in (bot.get_me(), bot.get_chat(1), bot.send_message(1, "x")):
            with pytest.raises(TgfastError) as info:
                await call
            texts += [str(info.value), repr(info.value), repr(info.value.args)]
            # no chained exception carries the URL into a traceback
            assert info.value.__cause__ is None
            assert info.value.__context__ is None or info.value.__suppress_context__
    # a closed port: the connection error names host and port, not the path
    async with Bot(fake.token, server=f"http://127.0.0.1:{free_port()}", retry=NO_RETRY) as bot:
        with pytest.raises(TelegramNetworkError) as info:
            await bot.get_me()
        texts.append(str(info.value))
    texts += [r.getMessage() for r in caplog.records]
    assert texts and caplog.records  # the retries were logged
    for text in texts:
        assert secret not in text, text
    assert any("<token>" in t for t in texts)


def _decoded(text: str) -> str:
    """``text`` with every encoding the redactor knows undone, over and over: an
    oracle written apart from the redactor's pattern."""
    for _ in range(8):
        before = text
        text = html.unescape(text)
        text = re.sub(r"%u00([0-9a-fA-F]{2})", lambda m: chr(int(m[1], 16)), text)
        text = urllib.parse.unquote(text)
        text = re.sub(r"\\+u00([0-9a-fA-F]{2})", lambda m: chr(int(m[1], 16)), text)
        text = re.sub(r"\\+x([0-9a-fA-F]{2})", lambda m: chr(int(m[1], 16)), text)
        if text == before:
            break
    return text


def _encodings() -> list[Callable[[str], str]]:
    return [
        lambda c: c,
        lambda c: c.upper(),
        lambda c: c.lower(),
        lambda c: f"%{ord(c):02X}",
        lambda c: f"%{ord(c):02x}",
        lambda c: f"%25{ord(c):02X}",
        lambda c: f"%2525{ord(c):02x}",
        lambda c: f"%u00{ord(c):02x}",
        lambda c: f"\\u00{ord(c):02x}",
        lambda c: f"\\\\u00{ord(c):02X}",
        lambda c: f"\\x{ord(c):02x}",
        lambda c: f"&#{ord(c)};",
        lambda c: f"&#x{ord(c):x};",
        lambda c: f"&#X{ord(c):02X};",
    ]


_SECRET_CHARS = string.ascii_letters + string.digits + "_-"


@st.composite
def _encoded_tokens(draw: st.DrawFn) -> tuple[str, str]:
    """(token, the token written with each character in a form drawn for it)."""
    bot_id = draw(st.integers(1, 2**40))
    secret = draw(st.text(_SECRET_CHARS, min_size=8, max_size=46))
    token = f"{bot_id}:{secret}"
    encodings = _encodings()
    uniform = draw(st.booleans())  # an encoder applied to the whole, or char by char
    if uniform:
        encode = draw(st.sampled_from(encodings))
        written = "".join(encode(c) for c in token)
    else:
        written = "".join(draw(st.sampled_from(encodings))(c) for c in token)
    return token, written


@given(
    _encoded_tokens(),
    st.text(string.printable, max_size=40),
    st.text(string.printable, max_size=40),
    st.sampled_from(["bare", "repr", "json", "secret alone"]),
)
def test_the_token_is_redacted_in_every_encoding(
    token_and_written: tuple[str, str], before: str, after: str, frame: str
) -> None:
    token, written = token_and_written
    secret = token.partition(":")[2]
    assume(secret.lower() not in _decoded(before + after).lower())
    if frame == "secret alone":
        written = written[written.lower().index(":") + 1 :] if ":" in written else written
        assume(secret.lower() in _decoded(written).lower())
    text = before + written + after
    if frame == "repr":
        text = repr(text)
    elif frame == "json":
        text = orjson.dumps({"description": text}).decode()
    # the oracle sees it before (unless the text around changed how it decodes: "%" + "00")
    assume(secret.lower() in _decoded(text).lower())
    redacted = TokenRedactor(token)(text)
    assert secret.lower() not in _decoded(redacted).lower(), (text, redacted)
    assert "<token>" in redacted


@given(st.text(_SECRET_CHARS, min_size=8, max_size=46), st.text(string.printable, max_size=80))
def test_redaction_leaves_other_text_alone(secret: str, text: str) -> None:
    assume(secret.lower() not in _decoded(text).lower())
    assert TokenRedactor(f"42:{secret}")(text) == text


async def test_an_echoed_encoded_token_is_in_no_error_or_repr(
    fake: FakeTelegram, caplog: pytest.LogCaptureFixture
) -> None:
    token = fake.token
    secret = token.split(":")[1]
    quoted = urllib.parse.quote(token, safe="")
    texts: list[str] = []
    caplog.set_level(logging.DEBUG)
    async with Bot(token, server=fake.url, rate_limiter=None, retry=FAST_RETRY) as bot:
        texts += [repr(bot), str(bot), repr(bot.session), repr(bot.server)]
        fake.fail("getMe", error_code=404, description=f"Not Found: /bot{quoted}/getMe")
        # a proxy's HTML page, the token deep enough to be cut at the snippet's end
        page = f"<html>{'x' * 90} /bot{quoted}/getChat {secret.lower()} &#58;{secret}</html>"
        fake.http_error("getChat", status=502, body=page.encode(), times=5)
        escaped = token.replace(":", "\\u003a")  # as a JSON encoder may write it
        body = b'{"error": "/bot' + escaped.encode() + b'/sendMessage"}'
        fake.http_error("sendMessage", status=500, body=body, content_type="text/plain")
        for call in (bot.get_me(), bot.get_chat(1), bot.send_message(1, "x")):
            with pytest.raises(TgfastError) as info:
                await call
            texts += [str(info.value), repr(info.value), repr(info.value.args)]
            texts += [repr(getattr(info.value, "description", ""))]
    texts += [r.getMessage() for r in caplog.records]
    for text in texts:
        assert secret not in _decoded(text), text
        assert secret.lower() not in _decoded(text).lower(), text
        assert secret[:6] not in text, text  # not even a prefix left by a cut
    assert sum("<token>" in t for t in texts) >= 3


def test_a_malformed_token_is_refused_without_echoing_it() -> None:
    for token in ("", "no-colon-here", "abc:def", "123:bad token"):
        with pytest.raises(TgfastError) as info:
            Bot(token)
        assert not token or token not in str(info.value)


# -- retries ------------------------------------------------------------------------------


async def test_429_waits_and_other_chats_are_not_blocked(fake: FakeTelegram) -> None:
    fake.fail("sendMessage", error_code=429, retry_after=1, chat_id=1)
    async with Bot(fake.token, server=fake.url) as bot:  # the default rate limiter is on
        start = time.monotonic()
        slow = asyncio.create_task(bot.send_message(1, "flooded"))
        await asyncio.sleep(0.05)
        other = await bot.send_message(2, "other chat")
        other_done = time.monotonic() - start
        flooded = await slow
        slow_done = time.monotonic() - start
    assert other.chat.id == 2 and flooded.text == "flooded"
    assert other_done < 0.5 <= 1.0 <= slow_done < 3
    assert [c.params["chat_id"] for c in fake.calls_to("sendMessage")] == [1, 2, 1]


async def test_429_retries_are_bounded(fake: FakeTelegram) -> None:
    fake.fail("sendMessage", error_code=429, retry_after=0, times=10)
    policy = RetryPolicy(retry_after_attempts=2)
    async with Bot(fake.token, server=fake.url, rate_limiter=None, retry=policy) as bot:
        with pytest.raises(TelegramRetryAfter):
            await bot.send_message(1, "x")
    assert len(fake.calls_to("sendMessage")) == 3


async def test_a_retry_after_longer_than_allowed_is_raised_at_once(fake: FakeTelegram) -> None:
    fake.fail("sendMessage", error_code=429, retry_after=3600)
    async with Bot(fake.token, server=fake.url, rate_limiter=None) as bot:
        with pytest.raises(TelegramRetryAfter) as info:
            await asyncio.wait_for(bot.send_message(1, "x"), 5)
    assert info.value.retry_after == 3600


async def test_5xx_is_retried_for_repeatable_methods_only(fake: FakeTelegram, bot: Bot) -> None:
    fake.http_error(status=502, times=1)
    chat = await bot.get_chat(1)
    assert chat.id == 1
    assert len(fake.calls_to("getChat")) == 2
    fake.fail(error_code=500, description="Internal Server Error", times=1)
    with pytest.raises(TelegramServerError):
        await bot.send_message(1, "never twice")
    assert len(fake.calls_to("sendMessage")) == 1


async def test_a_dropped_connection_is_retried_only_when_repeatable(
    fake: FakeTelegram, bot: Bot
) -> None:
    fake.drop("sendMessage")
    with pytest.raises(TelegramNetworkError, match="sendMessage"):
        await bot.send_message(1, "maybe sent")
    assert len(fake.calls_to("sendMessage")) == 1
    fake.drop("getChat")
    assert (await bot.get_chat(1)).id == 1
    assert len(fake.calls_to("getChat")) == 2
    fake.drop("getChat", times=10)
    with pytest.raises(TelegramNetworkError):
        await bot.get_chat(1)
    assert len(fake.calls_to("getChat")) == 2 + 1 + FAST_RETRY.attempts


async def test_a_refused_connection_is_retried_even_for_sends(
    caplog: pytest.LogCaptureFixture, transport: str
) -> None:
    caplog.set_level(logging.WARNING, logger="tgfast.client")
    refused = "ClientConnectorError" if transport == "aiohttp" else "ConnectFailed: cannot connect"
    async with Bot("1:abc", server=f"http://127.0.0.1:{free_port()}", retry=FAST_RETRY) as bot:
        with pytest.raises(TelegramNetworkError, match=refused):
            await bot.send_message(1, "x")
    retries = [r.getMessage() for r in caplog.records if "retrying" in r.getMessage()]
    assert len(retries) == FAST_RETRY.attempts
    assert all(m.startswith("sendMessage failed") for m in retries)


async def test_request_timeout(fake: FakeTelegram, bot: Bot) -> None:
    fake.delay("sendMessage", seconds=2, times=1)
    start = time.monotonic()
    with pytest.raises(TelegramNetworkError, match="no answer within 0.3s"):
        await bot.send_message(1, "slow", request_timeout=0.3)
    assert time.monotonic() - start < 1.5
    assert len(fake.calls_to("sendMessage")) == 1


async def test_long_poll_extends_the_timeout(fake: FakeTelegram) -> None:
    session = BotSession(timeout=0.5)
    async with session, Bot(fake.token, server=fake.url, session=session) as bot:
        start = time.monotonic()
        assert await bot.get_updates(timeout=1) == []
        assert time.monotonic() - start >= 0.9
        fake.add_update(
            {
                "message": {
                    "message_id": 1,
                    "date": 1,
                    "chat": {"id": 1, "type": "private"},
                    "text": "hi",
                }
            }
        )
        updates = await bot.get_updates(timeout=1)
        assert updates[0].message is not None and updates[0].message.text == "hi"


# -- uploads and downloads ----------------------------------------------------------------


async def test_uploads_arrive_intact(fake: FakeTelegram, bot: Bot, tmp_path: Path) -> None:
    content = bytes(range(256)) * 1000
    path = tmp_path / "cat.jpg"
    path.write_bytes(content)
    msg = await bot.send_photo(1, FSInputFile(path), caption="a cat")
    call = fake.calls_to("sendPhoto")[-1]
    assert call.content_type == "multipart/form-data"
    assert call.files["photo"].data == content
    assert call.files["photo"].filename == "cat.jpg"
    assert call.params["caption"] == "a cat" and call.params["chat_id"] == 1
    assert msg.photo
    await bot.send_document(1, BufferedInputFile(b"%PDF-1.7 ...", "doc.pdf"))
    assert fake.calls_to("sendDocument")[-1].files["document"].data == b"%PDF-1.7 ..."


async def test_a_file_id_or_url_goes_as_json(fake: FakeTelegram, bot: Bot) -> None:
    await bot.send_photo(1, "AgACAgIAAxkBAAIB")
    await bot.send_photo(1, "https://example.org/cat.jpg")
    assert [c.content_type for c in fake.calls_to("sendPhoto")] == ["application/json"] * 2


async def test_media_group_uploads_use_attach(fake: FakeTelegram, bot: Bot) -> None:
    media = [
        InputMediaDocument(media=BufferedInputFile(b"first", "a.txt")),
        InputMediaDocument(media="known-file-id"),
        InputMediaDocument(media=BufferedInputFile(b"second", "b.txt"), caption="two"),
    ]
    sent = await bot.send_media_group(1, media)  # type: ignore[arg-type]
    call = fake.calls_to("sendMediaGroup")[-1]
    refs = [item["media"] for item in call.params["media"]]
    assert refs[1] == "known-file-id"
    attached = {ref.removeprefix("attach://"): call.files[ref.removeprefix("attach://")].data
                for ref in (refs[0], refs[2])}  # fmt: skip
    assert sorted(attached.values()) == [b"first", b"second"]
    assert call.params["media"][2]["caption"] == "two"
    assert len(sent) == 3


async def test_a_retried_upload_is_sent_whole(fake: FakeTelegram, bot: Bot, tmp_path: Path) -> None:
    path = tmp_path / "sticker.webp"
    path.write_bytes(b"RIFF" + b"\0" * 70000)
    fake.respond("uploadStickerFile", {"file_id": "f", "file_unique_id": "u"})
    fake.http_error("uploadStickerFile", status=502)
    await bot.upload_sticker_file(1, FSInputFile(path), "static")
    calls = fake.calls_to("uploadStickerFile")
    assert len(calls) == 2 and calls[-1].files["sticker"].data == path.read_bytes()


async def test_downloads(fake: FakeTelegram, bot: Bot, tmp_path: Path) -> None:
    content = b"file content " * 10000
    info = fake.add_file(content)
    # no destination: a new BytesIO, rewound (aiogram's rule)
    memory = await bot.download(info["file_id"])
    assert isinstance(memory, io.BytesIO) and memory.tell() == 0
    assert memory.read() == content
    target = await bot.download(info["file_id"], tmp_path / "out.bin")
    assert target == tmp_path / "out.bin" and target.read_bytes() == content
    assert not list(tmp_path.glob("*.part"))
    stream = io.BytesIO()
    await bot.download(await bot.get_file(info["file_id"]), stream)
    assert stream.getvalue() == content
    chunks = [c async for c in bot.stream_file(info["file_path"], chunk_size=1000)]
    assert b"".join(chunks) == content
    with pytest.raises(TelegramNotFound):
        await bot.download_file("nope/missing.bin", tmp_path / "missing.bin")
    assert not (tmp_path / "missing.bin").exists()
    with pytest.raises(TelegramBadRequest):
        await bot.download("no-such-file-id")


async def test_a_download_never_writes_through_a_planted_symlink(
    fake: FakeTelegram, bot: Bot, tmp_path: Path
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious")
    target = tmp_path / "out.bin"
    # every name the old code, or an obvious scheme, would open beside the target
    for name in ("out.bin.part", ".out.bin.part", "out.bin.tmp", "out.bin"):
        (tmp_path / name).symlink_to(victim)
    info = fake.add_file(b"downloaded")
    assert await bot.download(info["file_id"], target) == target
    assert victim.read_bytes() == b"precious"
    assert not target.is_symlink() and target.read_bytes() == b"downloaded"
    left = {p.name for p in tmp_path.iterdir()}
    assert left == {"victim.txt", "out.bin", "out.bin.part", ".out.bin.part", "out.bin.tmp"}
    # the partial file is the process's own: created exclusively, with the umask's mode
    mode = target.stat().st_mode & 0o777
    umask = os.umask(0o022)
    os.umask(umask)
    assert mode == 0o666 & ~umask


async def test_a_failed_download_leaves_no_partial_file(
    fake: FakeTelegram, bot: Bot, tmp_path: Path
) -> None:
    (tmp_path / "keep.bin").write_bytes(b"old")
    with pytest.raises(TelegramNotFound):
        await bot.download_file("nope/missing.bin", tmp_path / "keep.bin")
    assert [p.name for p in tmp_path.iterdir()] == ["keep.bin"]
    assert (tmp_path / "keep.bin").read_bytes() == b"old"


async def test_local_server_mode_reads_only_inside_its_directory(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    root = tmp_path / "bot-api"
    (root / fake.token / "documents").mkdir(parents=True)
    inside = root / fake.token / "documents" / "file_0.txt"
    inside.write_bytes(b"on this disk")
    outside = tmp_path / "secret.txt"
    outside.write_bytes(b"not the bot's")
    (root / fake.token / "documents" / "link.txt").symlink_to(outside)
    (root / fake.token / "photos").symlink_to(tmp_path)
    os.mkfifo(root / "fifo")
    with pytest.raises(ValueError, match="local_dir"):
        TelegramServer(fake.url, local=True)
    server = TelegramServer(fake.url, local=True, local_dir=str(root))
    async with Bot(fake.token, server=server, rate_limiter=None) as bot:
        assert (await bot.download_file(str(inside))).getvalue() == b"on this disk"
        refused = [
            str(outside),  # an absolute path anywhere on the machine
            "/etc/hostname",
            f"{root}/../secret.txt",  # out through ..
            f"{root}-sibling/x",  # a prefix of the name is not the directory
            str(root),
            str(root / fake.token / "documents" / "link.txt"),  # a symlink in it, out
            str(root / fake.token / "photos" / "secret.txt"),  # a symlinked directory
            str(root / "fifo"),  # not a regular file: would block
        ]
        refused.append(str(root / fake.token / "documents" / "missing.txt"))
        secret = fake.token.split(":")[1]
        for path in refused:
            with pytest.raises(TgfastError, match="refusing to read|cannot read") as info:
                await bot.download_file(path)
            # a local server names a bot's directory after its token
            assert secret not in str(info.value) + repr(info.value)
            target = tmp_path / "copy.bin"
            with pytest.raises(TgfastError, match="refusing to read|cannot read"):
                await bot.download(File(file_id="f", file_unique_id="u", file_path=path), target)
            assert not target.exists()
        # a relative path still goes to the server
        info = fake.add_file(b"remote")
        assert (await bot.download_file(info["file_path"])).getvalue() == b"remote"


def test_a_bad_server_url_is_refused_at_once() -> None:
    for base in ("http://[::1", "http://127.0.0.1:99999", "http://h:0", "ftp://h", "h:8081"):
        with pytest.raises(ValueError, match=re.escape(base)):
            TelegramServer(base)
    assert TelegramServer("http://[::1]:8081/").base_url == "http://[::1]:8081"


# -- sessions -----------------------------------------------------------------------------


async def test_a_shared_session_outlives_its_bots(fake: FakeTelegram) -> None:
    session = BotSession(limit=4)
    one = Bot(fake.token, server=fake.url, session=session, rate_limiter=None)
    two = Bot(fake.token, server=fake.url, session=session, rate_limiter=None)
    async with one:
        await one.get_me()
        await two.get_me()
        assert one.session.client is two.session.client
    assert not session.closed
    await two.get_me()
    await session.close()
    assert session.closed


async def test_leaving_async_with_closes_the_bots_own_session(fake: FakeTelegram) -> None:
    bot = Bot(fake.token, server=fake.url, rate_limiter=None)
    async with bot:
        await bot.get_me()
        client = bot.session.client
    assert client.closed
    # a closed bot opens a new pool if used again, and closes it again
    async with bot.context():
        await bot.get_me()
    assert bot.session.closed


async def test_bot_close_is_the_bot_api_close(fake: FakeTelegram) -> None:
    # as in aiogram: the Bot API's close (before moving a bot to a local server); the
    # HTTP session stays open until bot.session.close()
    bot = Bot(fake.token, server=fake.url, rate_limiter=None)
    assert await bot.close() is True
    assert [call.method for call in fake.calls] == ["close"]
    assert not bot.session.closed
    await bot.session.close()
    assert bot.session.closed


# -- shortcuts ----------------------------------------------------------------------------


async def test_message_shortcuts(fake: FakeTelegram, bot: Bot) -> None:
    msg = await bot.send_message(10, "original")
    reply = await msg.reply("a reply")
    # as aiogram's reply: the chat is named too
    assert fake.calls[-1].params["reply_parameters"] == {
        "message_id": msg.message_id,
        "chat_id": 10,
    }
    assert reply.chat.id == 10
    await msg.answer("an answer")
    assert "reply_parameters" not in fake.calls[-1].params
    edited = await msg.edit_text("edited")
    assert isinstance(edited, Message) and edited.text == "edited"
    await msg.react([ReactionTypeEmoji(emoji="👍")])
    assert fake.calls[-1].params["reaction"] == [{"type": "emoji", "emoji": "👍"}]
    forwarded = await msg.forward(11)
    assert forwarded.chat.id == 11
    assert fake.calls[-1].params["from_chat_id"] == 10
    await msg.copy_to(12)
    assert await msg.delete() is True
    photo = await msg.answer_photo("file-id-1", caption="c")
    assert photo.chat.id == 10 and fake.calls[-1].method == "sendPhoto"
    assert [c.method for c in fake.calls] == [
        "sendMessage", "sendMessage", "sendMessage", "editMessageText", "setMessageReaction",
        "forwardMessage", "copyMessage", "deleteMessage", "sendPhoto",
    ]  # fmt: skip


async def test_decoded_objects_use_the_current_bot(fake: FakeTelegram, bot: Bot) -> None:
    query = tgfast.convert(
        CallbackQuery,
        {"id": "q1", "from": {"id": 1, "is_bot": False, "first_name": "A"}, "chat_instance": "c"},
    )
    with pytest.raises(TgfastError, match="not bound to a Bot"):
        await query.answer("no bot")
    token = current_bot.set(bot)
    try:
        assert await query.answer("Done") is True
    finally:
        current_bot.reset(token)
    assert fake.calls[-1].params == {"callback_query_id": "q1", "text": "Done"}


# -- rate limiting ------------------------------------------------------------------------


async def test_the_rate_limiter_spaces_sends_to_one_chat(fake: FakeTelegram) -> None:
    limiter = LocalRateLimiter(private=Limit(10, 1.0, 1), group=None, overall=None)
    async with Bot(fake.token, server=fake.url, rate_limiter=limiter) as bot:
        start = time.monotonic()
        await asyncio.gather(*(bot.send_message(1, str(i)) for i in range(4)))
        one_chat = time.monotonic() - start
        start = time.monotonic()
        await asyncio.gather(*(bot.send_message(100 + i, "x") for i in range(4)))
        many_chats = time.monotonic() - start
        start = time.monotonic()
        await asyncio.gather(*(bot.get_chat(1) for _ in range(4)))
        not_limited = time.monotonic() - start
    assert one_chat >= 0.28  # three gaps of 0.1 s
    assert many_chats < 0.25 and not_limited < 0.25
    assert [c.params["text"] for c in fake.calls_to("sendMessage")[:4]] == ["0", "1", "2", "3"]
