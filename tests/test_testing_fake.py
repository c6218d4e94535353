"""FakeTelegram over real sockets, driven by a bare aiohttp client (not tgfast's Bot).

Every successful result goes through ``tgfast.convert`` with the method's declared
return type, so the fake can never hand a client something Telegram would not.
"""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import orjson
import pytest
from aiohttp import test_utils, web

from tgfast import convert
from tgfast.methods import METHODS
from tgfast.testing import DEFAULT_TOKEN, Call, FakeTelegram

KEYBOARD = {"inline_keyboard": [[{"text": "Yes", "callback_data": "yes"}]]}
USER = {"id": 77, "is_bot": False, "first_name": "Ann"}
PRIVATE = {"id": 77, "type": "private", "first_name": "Ann"}
QUERY = {"callback_query": {"id": "q1", "from": USER, "chat_instance": "ci", "data": "yes"}}
# A kind Telegram holds back unless the bot asks for it in allowed_updates.
REACTIONS = {
    "message_reaction_count": {"chat": PRIVATE, "message_id": 1, "date": 1, "reactions": []}
}


def message(message_id: int, text: str = "hi", chat: dict[str, Any] = PRIVATE) -> dict[str, Any]:
    return {"message_id": message_id, "date": 1, "chat": chat, "from": USER, "text": text}


class Api:
    """What a bot's HTTP layer does, written out by hand."""

    def __init__(self, fake: FakeTelegram, http: aiohttp.ClientSession) -> None:
        self.fake = fake
        self.http = http

    def url(self, method: str) -> str:
        return f"{self.fake.url}/bot{self.fake.token}/{method}"

    async def raw(self, method: str, **kw: Any) -> tuple[int, dict[str, Any]]:
        async with self.http.post(self.url(method), **kw) as resp:
            assert resp.content_type == "application/json"
            return resp.status, orjson.loads(await resp.read())

    async def ok(self, method: str, /, **params: Any) -> Any:
        return self.result(method, *await self.raw(method, json=params))

    @staticmethod
    def result(method: str, status: int, body: dict[str, Any]) -> Any:
        assert (status, body["ok"]) == (200, True), body
        convert(METHODS[method].returns, body["result"])  # raises DecodeError when invalid
        return body["result"]

    async def error(self, method: str, /, **params: Any) -> tuple[int, str]:
        status, body = await self.raw(method, json=params)
        assert body["ok"] is False and body["error_code"] == status, body
        return status, body["description"]

    async def download(self, file_path: str) -> tuple[int, bytes]:
        url = f"{self.fake.url}/file/bot{self.fake.token}/{file_path}"
        async with self.http.get(url) as resp:
            return resp.status, await resp.read()


@pytest.fixture
async def api(fake: FakeTelegram) -> AsyncIterator[Api]:
    async with aiohttp.ClientSession() as http:
        yield Api(fake, http)


def form(**fields: Any) -> aiohttp.FormData:
    data = aiohttp.FormData(default_to_multipart=True)
    for name, value in fields.items():
        if isinstance(value, tuple):
            data.add_field(name, value[1], filename=value[0], content_type=value[2])
        else:
            data.add_field(name, value)
    return data


def as_form_value(value: Any) -> str:
    """How a form-encoding client writes a typed value."""
    if isinstance(value, (dict, list)):
        return orjson.dumps(value).decode()
    return str(value).lower() if isinstance(value, bool) else str(value)


# --- identity and refusals --------------------------------------------------------


async def test_get_me(api: Api, fake: FakeTelegram) -> None:
    me = await api.ok("getMe")
    assert me == fake.bot_user
    assert (me["id"], me["is_bot"], me["username"]) == (123456789, True, "tgfast_test_bot")
    assert fake.token == DEFAULT_TOKEN and fake.url.startswith("http://127.0.0.1:")


async def test_chosen_token_and_username() -> None:
    async with (
        FakeTelegram(token="42:secret", username="other_bot") as fake,
        aiohttp.ClientSession() as http,
    ):
        me = await Api(fake, http).ok("getMe")
    assert (me["id"], me["username"]) == (42, "other_bot")
    with pytest.raises(ValueError):
        FakeTelegram(token="no-colon")


async def test_wrong_token_is_401(api: Api, fake: FakeTelegram) -> None:
    async with api.http.post(f"{fake.url}/bot1:wrong/getMe") as resp:
        assert resp.status == 401
        assert await resp.json() == {"ok": False, "error_code": 401, "description": "Unauthorized"}
    async with api.http.get(f"{fake.url}/file/bot1:wrong/documents/file_1") as resp:
        assert resp.status == 401
    assert [c.method for c in fake.calls] == ["getMe"]


async def test_unknown_method_and_path_are_404(api: Api, fake: FakeTelegram) -> None:
    assert await api.error("sendTelepathy", chat_id=1) == (404, "Not Found")
    async with api.http.get(f"{fake.url}/nothing/here") as resp:
        assert resp.status == 404
        assert (await resp.json())["description"] == "Not Found"
    assert fake.calls_to("sendTelepathy")[0].params == {"chat_id": 1}


async def test_method_names_are_case_insensitive(api: Api, fake: FakeTelegram) -> None:
    await api.ok("getMe")
    status, body = await api.raw("SENDMESSAGE", json={"chat_id": 1, "text": "hi"})
    api.result("sendMessage", status, body)
    assert [c.method for c in fake.calls_to("sendmessage")] == ["sendMessage"]


async def test_missing_required_parameter(api: Api) -> None:
    assert await api.error("sendMessage", chat_id=1) == (
        400,
        'Bad Request: parameter "text" is required',
    )
    status, _ = await api.error("getFile")
    assert status == 400


async def test_bad_bodies(api: Api, fake: FakeTelegram) -> None:
    headers = {"Content-Type": "application/json"}
    status, body = await api.raw("sendMessage", data=b"{not json", headers=headers)
    assert (status, body["error_code"]) == (400, 400)
    status, body = await api.raw("sendMessage", data=b"[1, 2]", headers=headers)
    assert status == 400
    status, body = await api.raw(
        "sendMessage", data={"chat_id": "1", "text": "x", "reply_markup": "{oops"}
    )
    assert (status, body["description"]) == (
        400,
        "Bad Request: can't parse reply_markup JSON object",
    )
    assert len(fake.calls_to("sendMessage")) == 3 and fake.sent_messages() == []


async def test_body_over_50_mb_is_413(api: Api) -> None:
    size = 50 * 1024 * 1024 + 1

    async def chunked() -> AsyncIterator[bytes]:  # no Content-Length: refused while reading
        for _ in range(size // 2**20 + 1):
            yield bytes(2**20)

    for body in (io.BytesIO(bytes(size)), chunked()):
        status, answer = await api.raw(
            "sendDocument", data=body, headers={"Content-Type": "application/json"}
        )
        assert (status, answer) == (
            413,
            {"ok": False, "error_code": 413, "description": "Request Entity Too Large"},
        )


async def test_sending_methods_need_a_real_chat(api: Api) -> None:
    assert await api.error("sendMessage", chat_id=0, text="x") == (
        400,
        "Bad Request: chat not found",
    )


# --- parameters ---------------------------------------------------------------------


async def test_every_encoding_gives_the_same_params(api: Api, fake: FakeTelegram) -> None:
    typed = {
        "chat_id": -1001,
        "message_thread_id": 5,
        "text": "héllo & <b>",
        "disable_notification": True,
        "protect_content": False,
        "reply_markup": KEYBOARD,
        "link_preview_options": {"is_disabled": True},
    }
    as_text = {k: as_form_value(v) for k, v in typed.items()}
    api.result("sendMessage", *await api.raw("sendMessage", json=typed))
    api.result("sendMessage", *await api.raw("sendMessage", data=as_text))
    api.result("sendMessage", *await api.raw("sendMessage", data=form(**as_text)))
    async with api.http.get(api.url("sendMessage"), params=as_text) as resp:
        api.result("sendMessage", resp.status, await resp.json())
    calls = fake.calls_to("sendMessage")
    assert [c.params for c in calls] == [typed] * 4
    assert [c.content_type for c in calls] == [
        "application/json",
        "application/x-www-form-urlencoded",
        "multipart/form-data",
        None,
    ]
    assert [c.http_method for c in calls] == ["POST", "POST", "POST", "GET"]
    assert {m["text"] for m in fake.sent_messages()} == {"héllo & <b>"}


async def test_text_values_take_the_parameter_type(api: Api, fake: FakeTelegram) -> None:
    await api.raw("sendMessage", data={"chat_id": "@news", "text": "12", "protect_content": "1"})
    await api.raw("sendLocation", data={"chat_id": "5", "latitude": "1.5", "longitude": "-2"})
    await api.raw("getUpdates", params={"offset": "-1", "allowed_updates": '["message"]'})
    params = [c.params for c in fake.calls]
    assert params[0] == {"chat_id": "@news", "text": "12", "protect_content": True}
    assert params[1] == {"chat_id": 5, "latitude": 1.5, "longitude": -2.0}
    assert params[2] == {"offset": -1, "allowed_updates": ["message"]}
    assert type(params[1]["longitude"]) is float


async def test_multipart_parts_without_a_file_name(api: Api, fake: FakeTelegram) -> None:
    data = aiohttp.MultipartWriter("form-data")
    for name, value, content_type in (
        ("chat_id", b"1", "text/plain"),
        ("reply_markup", orjson.dumps(KEYBOARD), "application/json"),
        ("document", b"\x00\x01binary", "application/octet-stream"),
    ):
        part = data.append(value, {"Content-Type": content_type})
        part.set_content_disposition("form-data", name=name)
    sent = api.result("sendDocument", *await api.raw("sendDocument", data=data))
    call = fake.calls_to("sendDocument")[0]
    assert call.params == {"chat_id": 1, "reply_markup": KEYBOARD, "document": "attach://document"}
    assert call.files["document"].filename is None
    assert call.files["document"].data == b"\x00\x01binary"
    assert sent["reply_markup"] == KEYBOARD and sent["document"]["file_size"] == 8


# --- sending --------------------------------------------------------------------------


async def test_message_ids_count_per_chat(api: Api, fake: FakeTelegram) -> None:
    ids = [(await api.ok("sendMessage", chat_id=c, text="x"))["message_id"] for c in (1, 2, 1, 1)]
    assert ids == [1, 1, 2, 3]
    assert [m["message_id"] for m in fake.sent_messages(chat_id=1)] == [1, 2, 3]
    assert len(fake.sent_messages()) == 4


async def test_chats_users_groups_and_channels(api: Api, fake: FakeTelegram) -> None:
    private = await api.ok("sendMessage", chat_id=10, text="a")
    group = await api.ok("sendMessage", chat_id=-100500, text="b")
    first = await api.ok("sendMessage", chat_id="@News", text="c")
    again = await api.ok("sendMessage", chat_id="@news", text="d")
    assert private["chat"]["type"] == "private" and private["from"] == fake.bot_user
    assert group["chat"]["type"] == "supergroup" and group["chat"]["title"]
    channel = first["chat"]
    assert channel["type"] == "channel" and channel["username"] == "News" and channel["id"] < 0
    assert again["chat"]["id"] == channel["id"] and again["message_id"] == 2
    assert "from" not in first and first["sender_chat"] == channel
    by_id = await api.ok("sendMessage", chat_id=channel["id"], text="e")
    assert by_id["message_id"] == 3
    assert len(fake.sent_messages(chat_id="@news")) == 3


async def test_sent_message_echoes_what_was_sent(api: Api, fake: FakeTelegram) -> None:
    entities = [{"type": "bold", "offset": 0, "length": 2}]
    reply_keyboard = {"keyboard": [[{"text": "a"}]]}
    msg = await api.ok(
        "sendMessage",
        chat_id=1,
        text="hi there",
        entities=entities,
        reply_markup=KEYBOARD,
        message_thread_id=9,
        protect_content=True,
        link_preview_options={"is_disabled": True},
    )
    assert msg["text"] == "hi there" and msg["entities"] == entities
    assert msg["reply_markup"] == KEYBOARD and msg["message_thread_id"] == 9
    assert msg["has_protected_content"] is True
    assert msg["link_preview_options"] == {"is_disabled": True}
    assert abs(msg["date"] - time.time()) < 5
    plain = await api.ok(
        "sendMessage", chat_id=1, text="<b>x</b>", parse_mode="HTML", reply_markup=reply_keyboard
    )
    assert plain["text"] == "<b>x</b>" and "reply_markup" not in plain
    assert fake.sent_messages() == [msg, plain]


async def test_results_of_many_methods_are_valid(api: Api, fake: FakeTelegram) -> None:
    """``api.ok`` converts each result with the method's return type."""
    chat = {"chat_id": 1}
    await api.ok("sendMessage", **chat, text="x")
    await api.ok("sendPhoto", **chat, photo="AgACAgQAAxkBAAIB", caption="c")
    await api.ok("sendDocument", **chat, document="https://example.com/a.pdf")
    await api.ok("sendAudio", **chat, audio="x1", duration=3, performer="P", title="T")
    await api.ok("sendVideo", **chat, video="x2", width=10, height=20, has_spoiler=True)
    await api.ok("sendAnimation", **chat, animation="x3")
    await api.ok("sendVoice", **chat, voice="x4", duration=2)
    await api.ok("sendVideoNote", **chat, video_note="x5", length=100)
    sticker = await api.ok("sendSticker", **chat, sticker="x6", emoji="👍")
    await api.ok("sendLivePhoto", **chat, live_photo="x7", photo="x8")
    location = await api.ok("sendLocation", **chat, latitude=1.5, longitude=2, live_period=60)
    venue = await api.ok("sendVenue", **chat, latitude=1, longitude=2, title="T", address="A")
    contact = await api.ok("sendContact", **chat, phone_number="+1", first_name="Bo")
    poll = await api.ok("sendPoll", **chat, question="Q?", options=[{"text": "a"}, {"text": "b"}])
    dice = await api.ok("sendDice", **chat, emoji="🏀")
    invoice = await api.ok(
        "sendInvoice",
        **chat,
        title="T",
        description="D",
        payload="p",
        currency="XTR",
        prices=[{"label": "x", "amount": 5}],
    )
    await api.ok("sendGame", **chat, game_short_name="g")
    assert sticker["sticker"]["emoji"] == "👍"
    assert location["location"] == {"latitude": 1.5, "longitude": 2, "live_period": 60}
    assert venue["venue"]["title"] == "T" and contact["contact"]["first_name"] == "Bo"
    assert [o["text"] for o in poll["poll"]["options"]] == ["a", "b"]
    assert 1 <= dice["dice"]["value"] <= 5 and invoice["invoice"]["total_amount"] == 5
    await api.ok("sendChatAction", **chat, action="typing")
    await api.ok(
        "sendMediaGroup",
        **chat,
        media=[{"type": "photo", "media": "p1"}, {"type": "video", "media": "v1"}],
    )
    await api.ok("forwardMessage", **chat, from_chat_id=1, message_id=1)
    await api.ok("copyMessage", **chat, from_chat_id=1, message_id=2)
    await api.ok("forwardMessages", **chat, from_chat_id=1, message_ids=[1, 2])
    await api.ok("copyMessages", **chat, from_chat_id=1, message_ids=[3])
    await api.ok("editMessageText", **chat, message_id=1, text="y")
    await api.ok("editMessageCaption", **chat, message_id=2, caption="d")
    await api.ok("editMessageReplyMarkup", **chat, message_id=2, reply_markup=KEYBOARD)
    await api.ok("editMessageMedia", **chat, message_id=2, media={"type": "photo", "media": "z"})
    await api.ok("editMessageText", inline_message_id="abc", text="z")
    await api.ok("deleteMessage", **chat, message_id=1)
    await api.ok("deleteMessages", **chat, message_ids=[2, 3, 999])
    await api.ok("getFile", file_id="AgACAgQAAxkBAAIB")
    await api.ok("getUpdates")
    await api.ok("setWebhook", url="https://example.com/hook")
    await api.ok("getWebhookInfo")
    await api.ok("deleteWebhook")
    await api.ok("getWebhookInfo")
    for method in (
        "answerCallbackQuery",
        "setMessageReaction",
        "pinChatMessage",
        "logOut",
        "close",
    ):
        await api.ok(method, **placeholders(method))
    assert fake.errors == []


def placeholders(method: str) -> dict[str, Any]:
    """Values of the right primitive type for every required parameter."""
    value = {"int": 1, "float": 1.0, "bool": True, "true": True, "str": "x", "int|str": 1}
    return {
        p.name: value.get(p.type, [] if p.type.startswith("[") else {})
        for p in METHODS[method].params
        if p.required
    }


async def test_every_bool_method_answers_true(api: Api) -> None:
    await api.ok("sendMessage", chat_id=1, text="kept for deleteMessage")
    methods = [m for m, d in METHODS.items() if d.returns in ("bool", "true")]
    assert len(methods) > 80
    for method in methods:
        params = placeholders(method)
        if "Ephemeral" in method:  # they work on an ephemeral message: one in a group
            params.update(await _ephemeral_target(api, method))
        assert await api.ok(method, **params) is True, method


_EPHEMERAL_CHANGE: dict[str, dict[str, Any]] = {
    "editEphemeralMessageText": {"text": "new"},
    "editEphemeralMessageCaption": {"caption": "new"},
    "editEphemeralMessageMedia": {"media": {"type": "photo", "media": "p2"}},
    "editEphemeralMessageReplyMarkup": {
        "reply_markup": {"inline_keyboard": [[{"text": "a", "callback_data": "b"}]]}
    },
}


async def _ephemeral_target(api: Api, method: str) -> dict[str, Any]:
    to_ann = {"chat_id": -5, "ephemeral_message_parameters": {"receiver_user_id": 7}}
    if method in ("editEphemeralMessageCaption", "editEphemeralMessageMedia"):
        sent = await api.ok("sendPhoto", photo="p1", **to_ann)
    else:
        sent = await api.ok("sendMessage", text="old", **to_ann)
    assert sent["message_id"] == 0 and sent["receiver_user"]["id"] == 7
    return {
        "chat_id": -5,
        "receiver_user_id": 7,
        "ephemeral_message_id": sent["ephemeral_message_id"],
        **_EPHEMERAL_CHANGE.get(method, {}),
    }


async def test_replies(api: Api, fake: FakeTelegram) -> None:
    incoming = message(40, "hello")
    fake.add_update({"message": incoming})
    reply = await api.ok("sendMessage", chat_id=77, text="hi", reply_parameters={"message_id": 40})
    assert reply["reply_to_message"] == incoming and reply["message_id"] == 41
    assert await api.error(
        "sendMessage", chat_id=77, text="?", reply_parameters={"message_id": 999}
    ) == (400, "Bad Request: message to be replied not found")
    loose = await api.ok(
        "sendMessage",
        chat_id=77,
        text="!",
        reply_parameters={"message_id": 999, "allow_sending_without_reply": True},
    )
    assert "reply_to_message" not in loose
    other = await api.ok(
        "sendMessage", chat_id=5, text="x", reply_parameters={"message_id": 40, "chat_id": 77}
    )
    assert other["external_reply"]["origin"] == {"type": "user", "date": 1, "sender_user": USER}


# --- files ------------------------------------------------------------------------------


async def test_uploads_arrive_intact_and_download_back(api: Api, fake: FakeTelegram) -> None:
    photo = bytes(range(256)) * 400
    pdf = b"%PDF-1.4\n" + bytes(1000)
    status, body = await api.raw(
        "sendPhoto", data=form(chat_id="3", caption="look", photo=("p.jpg", photo, "image/jpeg"))
    )
    sent = api.result("sendPhoto", status, body)
    status, body = await api.raw(
        "sendDocument", data=form(chat_id="3", document=("report.pdf", pdf, "application/pdf"))
    )
    doc = api.result("sendDocument", status, body)["document"]
    call = fake.calls_to("sendPhoto")[0]
    assert call.params == {"chat_id": 3, "caption": "look", "photo": "attach://photo"}
    assert call.files["photo"].data == photo
    assert (call.files["photo"].filename, call.files["photo"].content_type) == (
        "p.jpg",
        "image/jpeg",
    )
    assert sent["caption"] == "look" and sent["photo"][-1]["file_size"] == len(photo)
    assert (doc["file_name"], doc["mime_type"], doc["file_size"]) == (
        "report.pdf",
        "application/pdf",
        len(pdf),
    )
    for file_id, data in ((sent["photo"][-1]["file_id"], photo), (doc["file_id"], pdf)):
        file = await api.ok("getFile", file_id=file_id)
        assert file["file_size"] == len(data)
        assert await api.download(file["file_path"]) == (200, data)
    again = await api.ok("sendDocument", chat_id=4, document=doc["file_id"])
    assert again["document"] == doc
    assert await api.error("getFile", file_id="nope") == (400, "Bad Request: invalid file_id")
    assert (await api.download("documents/none.bin"))[0] == 404


async def test_add_file(api: Api, fake: FakeTelegram) -> None:
    file = fake.add_file(b"abc", file_path="docs/a.txt")
    assert file["file_path"] == "docs/a.txt" and file["file_size"] == 3
    assert await api.ok("getFile", file_id=file["file_id"]) == file
    assert await api.download("docs/a.txt") == (200, b"abc")
    other = fake.add_file(b"xyz")
    assert other["file_id"] != file["file_id"] and await api.download(other["file_path"]) == (
        200,
        b"xyz",
    )


async def test_media_group_with_attachments(api: Api, fake: FakeTelegram) -> None:
    media = [
        {"type": "photo", "media": "attach://file0", "caption": "first"},
        {"type": "document", "media": "attach://file1"},
    ]
    status, body = await api.raw(
        "sendMediaGroup",
        data=form(
            chat_id="8",
            media=orjson.dumps(media).decode(),
            file0=("a.jpg", b"A" * 10, "image/jpeg"),
            file1=("b.txt", b"B" * 20, "text/plain"),
        ),
    )
    group = api.result("sendMediaGroup", status, body)
    call = fake.calls_to("sendMediaGroup")[0]
    assert call.params["media"] == media
    assert {k: f.data for k, f in call.files.items()} == {"file0": b"A" * 10, "file1": b"B" * 20}
    assert [m["message_id"] for m in group] == [1, 2]
    assert group[0]["media_group_id"] == group[1]["media_group_id"]
    assert group[0]["caption"] == "first" and group[1]["document"]["file_name"] == "b.txt"
    file = await api.ok("getFile", file_id=group[1]["document"]["file_id"])
    assert await api.download(file["file_path"]) == (200, b"B" * 20)
    status, body = await api.raw(
        "sendMediaGroup",
        data=form(chat_id="8", media=orjson.dumps(media).decode(), file0=("a", b"A", "x/y")),
    )
    assert (status, body["description"]) == (
        400,
        "Bad Request: no file was uploaded for attach://file1",
    )
    one = [{"type": "photo", "media": "p"}]
    assert (await api.error("sendMediaGroup", chat_id=8, media=one))[0] == 400
    assert len(fake.sent_messages()) == 2


# --- edits, deletes, forwards, copies -----------------------------------------------------


async def test_edits(api: Api, fake: FakeTelegram) -> None:
    sent = await api.ok("sendMessage", chat_id=1, text="old", reply_markup=KEYBOARD)
    ids = {"chat_id": 1, "message_id": sent["message_id"]}
    edited = await api.ok("editMessageText", **ids, text="new", reply_markup=KEYBOARD)
    assert edited["text"] == "new" and edited["reply_markup"] == KEYBOARD and "edit_date" in edited
    assert await api.error("editMessageText", **ids, text="new", reply_markup=KEYBOARD) == (
        400,
        (
            "Bad Request: message is not modified: specified new message content and reply"
            " markup are exactly the same as a current content and reply markup of the message"
        ),
    )
    bare = await api.ok("editMessageText", **ids, text="new")
    assert "reply_markup" not in bare  # an edit without a keyboard removes it
    marked = await api.ok("editMessageReplyMarkup", **ids, reply_markup=KEYBOARD)
    assert marked["text"] == "new" and marked["reply_markup"] == KEYBOARD
    assert await api.error("editMessageText", chat_id=1, message_id=99, text="x") == (
        400,
        "Bad Request: message to edit not found",
    )
    assert await api.ok("editMessageText", inline_message_id="AAA", text="x") is True
    assert (await api.error("editMessageCaption", **ids, caption="c"))[1] == (
        "Bad Request: there is no caption in the message to edit"
    )
    photo = await api.ok("sendPhoto", chat_id=1, photo="p1", caption="one")
    pids = {"chat_id": 1, "message_id": photo["message_id"]}
    captioned = await api.ok("editMessageCaption", **pids, caption="two")
    assert captioned["caption"] == "two" and captioned["photo"] == photo["photo"]
    swapped = await api.ok("editMessageMedia", **pids, media={"type": "document", "media": "d1"})
    assert "photo" not in swapped and "caption" not in swapped
    assert swapped["document"]["file_id"] == "d1"
    assert (await api.error("editMessageText", **pids, text="t"))[1] == (
        "Bad Request: there is no text in the message to edit"
    )
    assert fake.sent_messages()[0]["text"] == "old"  # as it was sent


async def test_deletes(api: Api) -> None:
    for _ in range(3):
        await api.ok("sendMessage", chat_id=1, text="x")
    assert await api.ok("deleteMessage", chat_id=1, message_id=1) is True
    assert await api.error("deleteMessage", chat_id=1, message_id=1) == (
        400,
        "Bad Request: message to delete not found",
    )
    assert await api.ok("deleteMessages", chat_id=1, message_ids=[2, 3, 4]) is True
    assert (await api.error("editMessageText", chat_id=1, message_id=3, text="y"))[0] == 400


async def test_forwards_and_copies(api: Api, fake: FakeTelegram) -> None:
    src = await api.ok("sendMessage", chat_id=1, text="news", reply_markup=KEYBOARD)
    fwd = await api.ok("forwardMessage", chat_id=2, from_chat_id=1, message_id=src["message_id"])
    assert (fwd["chat"]["id"], fwd["text"], fwd["message_id"]) == (2, "news", 1)
    assert fwd["forward_origin"] == {
        "type": "user",
        "date": src["date"],
        "sender_user": fake.bot_user,
    }
    post = await api.ok("sendMessage", chat_id="@chan", text="post")
    fwd2 = await api.ok("forwardMessage", chat_id=2, from_chat_id="@chan", message_id=1)
    assert fwd2["forward_origin"]["type"] == "channel"
    assert fwd2["forward_origin"]["chat"] == post["chat"]
    copied = await api.ok("copyMessage", chat_id=3, from_chat_id=1, message_id=1)
    assert copied == {"message_id": 1}
    copy = fake.sent_messages(chat_id=3)[0]
    assert copy["text"] == "news" and "forward_origin" not in copy and "reply_markup" not in copy
    photo = await api.ok("sendPhoto", chat_id=1, photo="p", caption="a")
    await api.ok(
        "copyMessage", chat_id=3, from_chat_id=1, message_id=photo["message_id"], caption="b"
    )
    assert fake.sent_messages(chat_id=3)[-1]["caption"] == "b"
    assert await api.error("forwardMessage", chat_id=2, from_chat_id=1, message_id=50) == (
        400,
        "Bad Request: message to forward not found",
    )
    assert await api.error("copyMessage", chat_id=2, from_chat_id=9, message_id=1) == (
        400,
        "Bad Request: message to copy not found",
    )
    many = await api.ok("forwardMessages", chat_id=4, from_chat_id=1, message_ids=[2, 50, 1])
    assert many == [{"message_id": 1}, {"message_id": 2}]
    forwarded = fake.sent_messages(chat_id=4)
    assert forwarded[0]["text"] == "news" and forwarded[1]["photo"] == photo["photo"]
    assert await api.ok("copyMessages", chat_id=5, from_chat_id=1, message_ids=[1]) == [
        {"message_id": 1}
    ]
    assert await api.error("copyMessages", chat_id=5, from_chat_id=1, message_ids=[77]) == (
        400,
        "Bad Request: there are no messages to copy",
    )


# --- canned answers and the fake's own bugs ---------------------------------------------


async def test_canned_answers(api: Api, fake: FakeTelegram) -> None:
    # without respond(): the fake's own answer (a ChatFullInfo of the chat it made up)
    assert (await api.ok("getChat", chat_id=1))["first_name"] == "User 1"
    assert await api.ok("getChatMemberCount", chat_id=1) == 1  # the fallback: an int
    fake.respond("getChatMemberCount", 12)
    assert await api.ok("getChatMemberCount", chat_id=1) == 12
    fake.respond(
        "getChat",
        lambda call: {
            "id": call.params["chat_id"],
            "type": "private",
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": {},
        },
    )
    status, body = await api.raw("getChat", json={"chat_id": 5})
    assert (status, body["result"]["id"]) == (200, 5)
    fake.respond("getMe", {**fake.bot_user, "first_name": "Renamed"})
    assert (await api.ok("getMe"))["first_name"] == "Renamed"
    fake.respond("getFutureThing", [1, 2])
    status, body = await api.raw("GETFUTURETHING", json={})
    assert (status, body["result"]) == (200, [1, 2])
    assert fake.calls[-1].method == "getFutureThing"


async def test_a_bug_in_the_fake_answers_500_and_is_kept(api: Api, fake: FakeTelegram) -> None:
    def broken(call: Call) -> Any:
        raise KeyError("oops")

    fake.respond("getChat", broken)
    status, body = await api.raw("getChat", json={"chat_id": 1})
    assert (status, body["error_code"]) == (500, 500)
    assert "KeyError" in body["description"]
    fake.respond("getChatMemberCount", object())  # cannot be written as JSON
    status, body = await api.raw("getChatMemberCount", json={"chat_id": 1})
    assert (status, body["error_code"]) == (500, 500)
    assert [type(e) for e in fake.errors] == [KeyError, TypeError]
    fake.errors.clear()


# --- faults ------------------------------------------------------------------------------


async def test_fail_429_with_retry_after(api: Api, fake: FakeTelegram) -> None:
    fault = fake.fail("sendMessage", error_code=429, retry_after=3)
    status, body = await api.raw("sendMessage", json={"chat_id": 1, "text": "x"})
    assert (status, body) == (
        429,
        {
            "ok": False,
            "error_code": 429,
            "description": "Too Many Requests: retry after 3",
            "parameters": {"retry_after": 3},
        },
    )
    await api.ok("sendMessage", chat_id=1, text="x")  # times=1 by default
    assert [c.fault for c in fake.calls] == ["fail", None]
    assert (fault.hits, fault.remaining, fault.active) == (1, 0, False)
    assert len(fake.sent_messages()) == 1


async def test_fail_defaults_and_migration(api: Api, fake: FakeTelegram) -> None:
    fake.fail()
    assert await api.error("getMe") == (400, "Bad Request: injected")
    fake.fail(error_code=403)
    assert await api.error("getMe") == (403, "Forbidden: injected")
    fake.fail("sendMessage", migrate_to_chat_id=-1009)
    status, body = await api.raw("sendMessage", json={"chat_id": -5, "text": "x"})
    assert body["parameters"] == {"migrate_to_chat_id": -1009} and status == 400
    assert body["description"] == "Bad Request: group chat was upgraded to a supergroup chat"


async def test_http_error_is_not_json(api: Api, fake: FakeTelegram) -> None:
    fake.http_error("getMe", times=2)
    for _ in range(2):
        async with api.http.post(api.url("getMe")) as resp:
            assert (resp.status, resp.content_type) == (502, "text/html")
            assert await resp.read() == b"<html>502 Bad Gateway</html>"
    await api.ok("getMe")
    assert [c.fault for c in fake.calls] == ["http_error", "http_error", None]


async def test_drop_closes_the_connection(api: Api, fake: FakeTelegram) -> None:
    fake.drop("sendMessage")
    with pytest.raises((aiohttp.ServerDisconnectedError, aiohttp.ClientOSError)):
        await api.raw("sendMessage", json={"chat_id": 1, "text": "lost"})
    await api.ok("sendMessage", chat_id=1, text="kept")
    assert [c.fault for c in fake.calls] == ["drop", None]
    assert [m["text"] for m in fake.sent_messages()] == ["kept"]


async def test_delay_until_cleared(api: Api, fake: FakeTelegram) -> None:
    fake.delay("getMe", seconds=0.2)
    for _ in range(2):
        start = time.monotonic()
        await api.ok("getMe")
        assert time.monotonic() - start >= 0.2
    fake.clear_faults()
    start = time.monotonic()
    await api.ok("getMe")
    assert time.monotonic() - start < 0.2
    assert [c.fault for c in fake.calls] == ["delay", "delay", None]


async def test_fault_filters(api: Api, fake: FakeTelegram) -> None:
    fault = fake.fail(chat_id=7, times=None)
    await api.ok("getMe")
    await api.ok("sendMessage", chat_id=8, text="x")
    assert (await api.error("sendMessage", chat_id=7, text="x"))[0] == 400
    assert (await api.error("sendPhoto", chat_id=7, photo="p"))[0] == 400
    fault.cancel()
    await api.ok("sendMessage", chat_id=7, text="x")
    fake.fail("sendMessage", times=2)
    outcomes = [(await api.raw("sendMessage", json={"chat_id": 1, "text": "x"}))[0] for _ in "abc"]
    assert outcomes == [400, 400, 200]
    assert fault.hits == 2


# --- getUpdates ----------------------------------------------------------------------------


async def test_get_updates_queue(api: Api, fake: FakeTelegram) -> None:
    added = [fake.add_update({"message": message(i)}) for i in range(1, 4)]
    assert [u["update_id"] for u in added] == [1, 2, 3]
    assert await api.ok("getUpdates") == added
    assert await api.ok("getUpdates", limit=2) == added[:2]
    assert await api.ok("getUpdates", offset=2) == added[1:]
    assert await api.ok("getUpdates") == added[1:]  # update 1 was confirmed
    assert await api.ok("getUpdates", offset=-1) == added[2:]
    assert fake.add_update({"update_id": 10, **QUERY})["update_id"] == 10
    assert fake.add_update(QUERY)["update_id"] == 11
    assert (await api.ok("getWebhookInfo"))["pending_update_count"] == 3
    assert await api.ok("getUpdates", offset=12) == []


async def test_allowed_updates(api: Api, fake: FakeTelegram) -> None:
    fake.add_update(REACTIONS)
    fake.add_update(QUERY)
    assert [next(iter(u.keys() - {"update_id"})) for u in await api.ok("getUpdates")] == [
        "callback_query"
    ]
    fake.add_update(REACTIONS)
    assert len(await api.ok("getUpdates", allowed_updates=["message_reaction_count"])) == 1


async def test_long_poll_answers_as_soon_as_an_update_arrives(api: Api, fake: FakeTelegram) -> None:
    start = time.monotonic()
    poll = asyncio.create_task(api.ok("getUpdates", timeout=10))
    await asyncio.sleep(0.1)
    assert not poll.done()
    update = fake.add_update({"message": message(1)})
    assert await poll == [update]
    assert time.monotonic() - start < 2


async def test_long_poll_times_out_empty(api: Api) -> None:
    start = time.monotonic()
    assert await api.ok("getUpdates", timeout=1) == []
    assert 0.9 <= time.monotonic() - start < 3


async def test_a_newer_get_updates_ends_the_older(api: Api, fake: FakeTelegram) -> None:
    first = asyncio.create_task(api.raw("getUpdates", json={"timeout": 10}))
    await asyncio.sleep(0.1)
    second = asyncio.create_task(api.ok("getUpdates", timeout=10))
    status, body = await first
    assert (status, body["description"]) == (
        409,
        (
            "Conflict: terminated by other getUpdates request;"
            " make sure that only one bot instance is running"
        ),
    )
    update = fake.add_update(QUERY)
    assert await second == [update]


async def test_webhook_blocks_get_updates(api: Api, fake: FakeTelegram) -> None:
    fake.add_update(QUERY)
    poll = asyncio.create_task(api.raw("getUpdates", json={"offset": 5, "timeout": 10}))
    await asyncio.sleep(0.1)
    assert await api.ok(
        "setWebhook",
        url="https://bot.example/hook",
        secret_token="s3",
        allowed_updates=["message"],
        max_connections=5,
    )
    conflict = (
        409,
        (
            "Conflict: can't use getUpdates method while webhook is active;"
            " use deleteWebhook to delete the webhook first"
        ),
    )
    status, body = await poll
    assert (status, body["description"]) == conflict
    assert await api.error("getUpdates") == conflict
    assert fake.webhook == {
        "url": "https://bot.example/hook",
        "secret_token": "s3",
        "allowed_updates": ["message"],
        "max_connections": 5,
        "has_custom_certificate": False,
    }
    fake.add_update(QUERY)
    info = await api.ok("getWebhookInfo")
    assert (info["url"], info["pending_update_count"], info["allowed_updates"]) == (
        "https://bot.example/hook",
        1,
        ["message"],
    )
    assert await api.ok("deleteWebhook", drop_pending_updates=True) is True
    assert fake.webhook is None
    assert await api.ok("getWebhookInfo") == {
        "url": "",
        "has_custom_certificate": False,
        "pending_update_count": 0,
    }
    assert await api.ok("getUpdates") == []


async def test_stop_with_a_pending_long_poll() -> None:
    fake = await FakeTelegram().start()
    async with aiohttp.ClientSession() as http:
        poll = asyncio.create_task(Api(fake, http).raw("getUpdates", json={"timeout": 50}))
        await asyncio.sleep(0.1)
        start = time.monotonic()
        await asyncio.wait_for(fake.stop(), 5)
        assert time.monotonic() - start < 2
        status, body = await asyncio.wait_for(poll, 5)
    assert (status, body) == (200, {"ok": True, "result": []})
    assert fake.errors == []


async def test_stop_with_a_pending_delay() -> None:
    fake = await FakeTelegram().start()
    fake.delay(seconds=30)
    async with aiohttp.ClientSession() as http:
        pending = asyncio.create_task(Api(fake, http).raw("getMe"))
        await asyncio.sleep(0.1)
        await asyncio.wait_for(fake.stop(), 5)
        status, _ = await asyncio.wait_for(pending, 5)
    assert status == 200


# --- deliver ---------------------------------------------------------------------------------


async def test_deliver_to_a_webhook(api: Api, fake: FakeTelegram) -> None:
    seen: list[tuple[dict[str, Any], str | None]] = []

    async def hook(request: web.Request) -> web.Response:
        seen.append((await request.json(), request.headers.get("X-Telegram-Bot-Api-Secret-Token")))
        update = seen[-1][0]
        if "message" in update:  # answer with a method, as a bot may
            reply = {
                "method": "sendMessage",
                "chat_id": update["message"]["chat"]["id"],
                "text": "pong",
                "reply_markup": KEYBOARD,
            }
            return web.json_response(reply)
        return web.Response(status=503 if "message_reaction_count" in update else 200)

    app = web.Application()
    app.router.add_post("/hook", hook)
    async with test_utils.TestServer(app) as server:
        url = str(server.make_url("/hook"))
        with pytest.raises(RuntimeError):
            await fake.deliver(QUERY)
        assert await fake.deliver(QUERY, url=url) == 200
        await api.ok("setWebhook", url=url, secret_token="s3cret")
        ping = message(5, "ping")
        assert await fake.deliver({"message": ping}) == 200
        assert await fake.deliver(REACTIONS, secret_token="other") == 503
    assert seen == [
        ({"update_id": 1, **QUERY}, None),
        ({"update_id": 2, "message": ping}, "s3cret"),
        ({"update_id": 3, **REACTIONS}, "other"),
    ]
    reply = fake.calls[-1]
    assert (reply.method, reply.http_method) == ("sendMessage", "WEBHOOK")
    assert reply.params == {"chat_id": 77, "text": "pong", "reply_markup": KEYBOARD}
    [pong] = fake.sent_messages(chat_id=77)
    assert pong["text"] == "pong" and pong["message_id"] == 6
