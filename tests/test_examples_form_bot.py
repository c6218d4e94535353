"""``examples/form_bot.py`` end to end: a conversation through FakeTelegram's webhook,
each step decided by the state the dispatcher's storage kept for that user."""

from __future__ import annotations

from server_support import ROOT, make_bot, message

from tgfast.server import WebhookServer
from tgfast.server.loader import load_dispatcher
from tgfast.testing import FakeTelegram


async def test_form_bot(fake: FakeTelegram) -> None:
    dp = load_dispatcher(f"{ROOT / 'examples' / 'form_bot.py'}:dp")
    async with make_bot(fake) as bot:
        server = WebhookServer(dp, bot, secret_token="form")
        await server.start("127.0.0.1", 0)
        try:
            await bot.set_webhook(server.url or "", secret_token="form")
            update_id = 0

            async def say(chat: int, text: str) -> list[str]:
                nonlocal update_id
                update_id += 1
                before = len(fake.sent_messages(chat))
                assert await fake.deliver(message(update_id, chat, text)) == 200
                await server.processor.join()
                return [m["text"] for m in fake.sent_messages(chat)[before:]]

            assert await say(1, "Ann") == []  # not in the form: nothing matches
            assert await say(1, "/form") == ["What is your name?"]
            assert await say(2, "/form") == ["What is your name?"]  # another user, own record
            assert await say(1, "Ann") == ["Nice to meet you, Ann. How old are you?"]
            assert await say(1, "old") == ["Your age as a number, please."]
            assert await say(2, "/cancel") == ["Cancelled."]
            assert await say(2, "Bob") == []  # left the form
            assert await say(1, "42") == ["Ann, 42: saved."]
            assert await say(1, "/cancel") == []  # nothing to cancel any more
            assert len(dp.storage) == 0  # type: ignore[arg-type]
        finally:
            await server.shutdown()
