"""The decoders being compared, each behind the same tiny interface.

A contender has:

* ``name``: a short label used in test ids and in the results table;
* ``decode(data: bytes) -> obj``: webhook body in, decoded update out;
* ``touch(obj) -> (text, chat_id, user_id)``: reads ``message.text``,
  ``message.chat.id`` and ``message.from.id`` the way a handler would, using
  whatever attribute names that contender has.

``decode`` is bound to the contender's own entry point wherever one exists
(no wrapper), so the benchmark measures the decoder and not our glue.

``load()`` imports every contender; one whose import fails (tgfast not built
yet, aiogram not installed, ...) is returned as missing with the reason,
never raised.
"""

import importlib.machinery
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# Order used for test ids and table rows: ours first, then the field, then the floor.
NAMES = ("tgfast-compiled", "tgfast-pure", "aiogram", "msgspec", "orjson")
FLOOR = "orjson"

# Syntactically valid bot token (digits ':' secret); never used on the network.
FAKE_TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0"


@dataclass(frozen=True)
class Contender:
    name: str
    decode: Callable[[Any], Any]
    touch: Callable[[Any], tuple[str, int, int]]
    description: str


# --------------------------------------------------------------------------
# tgfast
# --------------------------------------------------------------------------


def _touch_tgfast(update: Any) -> tuple[str, int, int]:
    message = update.message
    return message.text, message.chat.id, message.from_user.id


def _is_extension_module(module: Any) -> bool:
    path = getattr(module, "__file__", None) or ""
    return path.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def _load_tgfast_compiled() -> Contender:
    from tgfast._speedups import _decode

    if not _is_extension_module(_decode):
        # e.g. a Cython pure-Python-mode source imported uncompiled: timing it
        # under the "compiled" label would be a lie.
        raise ImportError(
            f"tgfast._speedups._decode is not a compiled extension ({_decode.__file__})"
        )
    return Contender(
        "tgfast-compiled",
        _decode.decode_update,
        _touch_tgfast,
        "tgfast._speedups._decode.decode_update (Cython build)",
    )


def _load_tgfast_pure() -> Contender:
    from tgfast._speedups import _decode_py

    return Contender(
        "tgfast-pure",
        _decode_py.decode_update,
        _touch_tgfast,
        "tgfast._speedups._decode_py.decode_update (pure-Python twin)",
    )


# --------------------------------------------------------------------------
# aiogram: the exact webhook path
# --------------------------------------------------------------------------
# aiogram.webhook.aiohttp_server.BaseRequestHandler._handle_request does
#     dispatcher.feed_webhook_update(bot, await request.json(loads=bot.session.json_loads))
# aiohttp's Request.json() is ``loads(await request.text())``, and text() is
# ``body.decode(charset or "utf-8")``.  Dispatcher.feed_webhook_update (and
# feed_raw_update) then does ``Update.model_validate(update, context={"bot": bot})``.
# bot.session.json_loads defaults to the stdlib json.loads.


def _load_aiogram() -> Contender:
    from aiogram import Bot
    from aiogram.types import Update

    bot = Bot(token=FAKE_TOKEN)  # the aiohttp session is created lazily: no I/O
    json_loads = bot.session.json_loads
    validate = Update.model_validate
    context = {"bot": bot}

    def decode(data: bytes) -> Any:
        return validate(json_loads(data.decode("utf-8")), context=context)

    def touch(update: Any) -> tuple[str, int, int]:
        message = update.message
        return message.text, message.chat.id, message.from_user.id

    return Contender(
        "aiogram",
        decode,
        touch,
        "aiogram webhook path: bot.session.json_loads(body.decode()) then "
        'Update.model_validate(obj, context={"bot": bot})',
    )


# --------------------------------------------------------------------------
# msgspec: typed Structs with exactly the fields the payloads carry
# --------------------------------------------------------------------------


def _load_msgspec() -> Contender:
    import msgspec

    class User(msgspec.Struct):
        id: int
        is_bot: bool
        first_name: str
        last_name: str | None = None
        username: str | None = None
        language_code: str | None = None

    class Chat(msgspec.Struct):
        id: int
        type: str
        title: str | None = None
        username: str | None = None
        first_name: str | None = None
        last_name: str | None = None
        is_forum: bool | None = None

    class MessageEntity(msgspec.Struct):
        type: str
        offset: int
        length: int
        url: str | None = None

    class PhotoSize(msgspec.Struct):
        file_id: str
        file_unique_id: str
        width: int
        height: int
        file_size: int | None = None

    class InlineKeyboardButton(msgspec.Struct):
        text: str
        callback_data: str | None = None
        url: str | None = None

    class InlineKeyboardMarkup(msgspec.Struct):
        inline_keyboard: list[list[InlineKeyboardButton]]

    class Message(msgspec.Struct):
        message_id: int
        date: int
        chat: Chat
        from_user: User | None = msgspec.field(default=None, name="from")
        text: str | None = None
        entities: list[MessageEntity] | None = None
        photo: list[PhotoSize] | None = None
        reply_markup: InlineKeyboardMarkup | None = None

    class Update(msgspec.Struct):
        update_id: int
        message: Message | None = None

    decoder = msgspec.json.Decoder(Update)

    def touch(update: Any) -> tuple[str, int, int]:
        message = update.message
        return message.text, message.chat.id, message.from_user.id

    return Contender(
        "msgspec",
        decoder.decode,
        touch,
        "msgspec.json.Decoder(Update) with Structs declaring the payloads' fields",
    )


# --------------------------------------------------------------------------
# orjson: the floor (JSON to dicts, no typing at all)
# --------------------------------------------------------------------------


def _touch_dicts(update: Any) -> tuple[str, int, int]:
    message = update["message"]
    return message["text"], message["chat"]["id"], message["from"]["id"]


def _load_orjson() -> Contender:
    import orjson

    return Contender("orjson", orjson.loads, _touch_dicts, "bare orjson.loads into dicts (floor)")


_LOADERS: dict[str, Callable[[], Contender]] = {
    "tgfast-compiled": _load_tgfast_compiled,
    "tgfast-pure": _load_tgfast_pure,
    "aiogram": _load_aiogram,
    "msgspec": _load_msgspec,
    "orjson": _load_orjson,
}
assert tuple(_LOADERS) == NAMES

_cache: tuple[dict[str, Contender], dict[str, str]] | None = None


def load() -> tuple[dict[str, Contender], dict[str, str]]:
    """Return (available contenders by name, reason by name for missing ones)."""
    global _cache
    if _cache is None:
        available: dict[str, Contender] = {}
        missing: dict[str, str] = {}
        for name, loader in _LOADERS.items():
            try:
                available[name] = loader()
            except Exception as exc:  # noqa: BLE001 - ImportError, or a broken build raising anything
                missing[name] = f"{type(exc).__name__}: {exc}"
        _cache = (available, missing)
    return _cache


if __name__ == "__main__":  # python benchmarks/micro/contenders.py: quick availability check
    ok, gone = load()
    for n in NAMES:
        state, detail = ("ok", ok[n].description) if n in ok else ("MISSING", gone[n])
        print(f"{n:16} {state:8} {detail}")
