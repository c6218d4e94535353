"""The example bots, each end to end: FakeTelegram posts webhooks, the bot answers it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest
from server_support import ROOT, make_bot, message, subprocess_env

from tgfast import Dispatcher
from tgfast.server import WebhookServer
from tgfast.server.loader import load_dispatcher
from tgfast.testing import FakeTelegram

CHAT = 42


class Conversation:
    """A user in chat 42 talking to an example bot through FakeTelegram's webhook."""

    def __init__(self, fake: FakeTelegram, server: WebhookServer) -> None:
        self.fake = fake
        self.server = server
        self._next_id = 1

    async def say(self, text: str) -> list[dict[str, Any]]:
        """Send a message; the messages the bot sent in answer."""
        update = message(self._next_id, CHAT, text)
        return await self._deliver(update)

    async def press(self, data: str, on: dict[str, Any]) -> list[dict[str, Any]]:
        """Press the button with ``data`` under the bot's message ``on``."""
        user = {"id": CHAT, "is_bot": False, "first_name": "Ann"}
        query = {"id": f"q{self._next_id}", "from": user, "chat_instance": "ci",
                 "data": data, "message": on}  # fmt: skip
        return await self._deliver({"update_id": self._next_id, "callback_query": query})

    async def _deliver(self, update: dict[str, Any]) -> list[dict[str, Any]]:
        self._next_id += 1
        before = len(self.fake.calls)
        assert await self.fake.deliver(update) == 200
        await self.server.processor.join()  # handled and answered
        return [
            {"method": c.method, **c.params, "via": c.http_method} for c in self.fake.calls[before:]
        ]


def example(name: str) -> Dispatcher:
    return load_dispatcher(f"{ROOT / 'examples' / name}:dp")


async def talk(fake: FakeTelegram, dp: Dispatcher, **options: Any) -> AsyncIterator[Conversation]:
    async with make_bot(fake) as bot:
        server = WebhookServer(dp, bot, secret_token="example", **options)
        await server.start("127.0.0.1", 0)
        try:
            await bot.set_webhook(server.url or "", secret_token="example",
                                  allowed_updates=dp.resolve_used_update_types())  # fmt: skip
            yield Conversation(fake, server)
        finally:
            await server.shutdown()


async def test_echo_bot(fake: FakeTelegram) -> None:
    async for chat in talk(fake, example("echo_bot.py")):
        [answer] = await chat.say("Hello there")
        assert answer == {"method": "sendMessage", "chat_id": CHAT, "text": "Hello there",
                          "via": "POST"}  # fmt: skip
        photo = message(99, CHAT, "")
        del photo["message"]["text"]
        photo["message"]["photo"] = [{"file_id": "f", "file_unique_id": "u", "width": 1,
                                      "height": 1}]  # fmt: skip
        [answer] = await chat._deliver(photo)
        assert answer["text"] == "I can only echo text."
    assert [m["text"] for m in fake.sent_messages(CHAT)] == ["Hello there", "I can only echo text."]


@pytest.mark.parametrize("reply_mode", [False, True])
async def test_command_bot(fake: FakeTelegram, reply_mode: bool) -> None:
    async for chat in talk(fake, example("command_bot.py"), reply_mode=reply_mode):
        [hello] = await chat.say("/start ref42")
        assert hello["text"] == "Hello, Ann! You came from ref42."
        [plain] = await chat.say("/start")
        assert plain["text"] == "Hello, Ann! Try /help."
        [help_] = await chat.say("/help")
        assert help_["text"].startswith("/start - say hello")
        # a returned method object: the webhook answer in reply mode, a call otherwise
        assert help_["via"] == ("WEBHOOK" if reply_mode else "POST")
        [total] = await chat.say("/add 2 3.5")
        assert total["text"] == "5.5"
        assert total["reply_parameters"]["message_id"] == chat._next_id - 1
        [usage] = await chat.say("/add two")
        assert usage["text"] == "Usage: /add 2 3"
        [unknown] = await chat.say("/nope now")
        assert unknown["text"] == "I don't know /nope. Try /help."
        assert await chat.say("just text") == []  # no handler: unhandled, answered 200
        assert chat.server.metrics.unhandled["message"] == 1


async def test_callback_bot(fake: FakeTelegram) -> None:
    async for chat in talk(fake, example("callback_bot.py")):
        [start] = await chat.say("/start")
        assert start["text"] == "Count: 0"
        buttons = start["reply_markup"]["inline_keyboard"]
        assert [b["callback_data"] for b in buttons[0]] == ["counter:0:-1", "counter:0:1"]
        shown = fake.sent_messages(CHAT)[-1]

        for data, expected in (("counter:0:1", 1), ("counter:1:1", 2), ("counter:2:-1", 1)):
            answer, edit = await chat.press(data, on=shown)
            assert answer["method"] == "answerCallbackQuery" and answer["text"] == str(expected)
            assert edit["method"] == "editMessageText"
            assert (
                edit["message_id"] == shown["message_id"] and edit["text"] == f"Count: {expected}"
            )
            next_data = edit["reply_markup"]["inline_keyboard"][0][1]["callback_data"]
            assert next_data == f"counter:{expected}:1"

        answer, edit = await chat.press("done", on=shown)
        assert (answer["text"], edit["text"]) == ("Saved", "Final count saved.")
        assert await chat.press("something else", on=shown) == []


def test_the_demo_conversation_script(tmp_path: Any) -> None:
    result = subprocess.run(
        [sys.executable, "-W", "error", str(ROOT / "examples" / "demo_conversation.py")],
        cwd=tmp_path, env=subprocess_env(), capture_output=True, text=True, timeout=60,
        check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    for said in ("Hello!", "How are you?", "tgfast echoes every word"):
        assert f"Ann: {said}    (webhook answered 200)" in lines
        assert lines[lines.index(f"Ann: {said}    (webhook answered 200)") + 1] == f"bot: {said}"
    assert "/metrics: 3 messages handled" in lines
    assert lines[-1] == "SIGTERM: the bot drained and exited with status 0"
