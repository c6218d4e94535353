"""aiogram's filters and flags on tgfast, held to aiogram itself: the chat member
transitions (every pair of statuses, every constant, the ``| >> << ~ + -`` algebra),
``MagicData``, and ``@flags...`` read by ``get_flag``/``check_flags`` in a middleware.
Dispatched through the real router, in both routing builds (``routing``)."""

from __future__ import annotations

import datetime
import itertools
from collections.abc import Callable
from types import ModuleType
from typing import Any

import aiogram
import aiogram.dispatcher.flags
import aiogram.filters
import aiogram.types
import pytest

import tgfast.dispatcher.flags
import tgfast.filters
from tgfast import Bot, Dispatcher
from tgfast.testing import updates as build
from tgfast.types import ChatMemberUpdated, Message

# the conftest `bot` never connects here: these tests only dispatch
OFFLINE_BOT = True

_BOOL_FIELDS = {
    name: [n for n, f in cls.model_fields.items() if f.is_required() and f.annotation is bool]
    for name, cls in (
        ("administrator", aiogram.types.ChatMemberAdministrator),
        ("restricted", aiogram.types.ChatMemberRestricted),
        ("creator", aiogram.types.ChatMemberOwner),
    )
}


def member(status: str, is_member: bool | None = None) -> dict[str, Any]:
    """A ChatMember of ``status`` with every field aiogram requires (False for flags)."""
    body: dict[str, Any] = {"status": status, "user": build.user(7)}
    body.update(dict.fromkeys(_BOOL_FIELDS.get(status, ()), False))
    if status in ("restricted", "kicked"):
        body["until_date"] = 0
    if status == "restricted":
        body["is_member"] = is_member
    return body


MEMBERS = {
    "creator": member("creator"),
    "administrator": member("administrator"),
    "member": member("member"),
    "+restricted": member("restricted", True),
    "-restricted": member("restricted", False),
    "left": member("left"),
    "kicked": member("kicked"),
}


def change(old: str, new: str) -> dict[str, Any]:
    return {
        "chat": build.chat(-100),
        "from": build.user(1),
        "date": 1_700_000_000,
        "old_chat_member": MEMBERS[old],
        "new_chat_member": MEMBERS[new],
    }


Rule = Callable[[ModuleType], Any]
RULES: dict[str, Rule] = {
    name: (lambda m, name=name: getattr(m, name))
    for name in (
        "CREATOR", "ADMINISTRATOR", "MEMBER", "RESTRICTED", "LEFT", "KICKED",
        "IS_MEMBER", "IS_ADMIN", "IS_NOT_MEMBER",
        "JOIN_TRANSITION", "LEAVE_TRANSITION", "PROMOTED_TRANSITION",
    )
}  # fmt: skip
RULES.update({
    "+RESTRICTED": lambda m: +m.RESTRICTED,
    "-RESTRICTED": lambda m: -m.RESTRICTED,
    "MEMBER | LEFT": lambda m: m.MEMBER | m.LEFT,
    "IS_ADMIN << MEMBER": lambda m: m.IS_ADMIN << m.MEMBER,
    "MEMBER << KICKED": lambda m: m.MEMBER << m.KICKED,
    "~PROMOTED_TRANSITION": lambda m: ~m.PROMOTED_TRANSITION,
    "LEFT >> (MEMBER | +RESTRICTED)": lambda m: m.LEFT >> (m.MEMBER | +m.RESTRICTED),
    "(LEFT | KICKED) >> IS_ADMIN": lambda m: (m.LEFT | m.KICKED) >> m.IS_ADMIN,
    "IS_MEMBER >> -RESTRICTED": lambda m: m.IS_MEMBER >> -m.RESTRICTED,
})  # fmt: skip


async def aiogram_verdicts(rule: Rule) -> dict[tuple[str, str], bool]:
    check = aiogram.filters.ChatMemberUpdatedFilter(rule(aiogram.filters))
    verdicts = {}
    for old, new in itertools.product(MEMBERS, repeat=2):
        event = aiogram.types.ChatMemberUpdated.model_validate(change(old, new))
        verdicts[old, new] = bool(await check(event))
    return verdicts


@pytest.mark.parametrize("name", sorted(RULES))
async def test_chat_member_updated_filter_agrees_with_aiogram(
    name: str, routing: ModuleType, bot: Bot
) -> None:
    rule = RULES[name]
    dp = Dispatcher(routing=routing)

    @dp.chat_member(tgfast.filters.ChatMemberUpdatedFilter(rule(tgfast.filters)))
    async def matched(chat_member: ChatMemberUpdated) -> bool:
        return True

    @dp.my_chat_member(tgfast.filters.ChatMemberUpdatedFilter(rule(tgfast.filters)))
    async def mine(my_chat_member: ChatMemberUpdated) -> bool:
        return True

    expected = await aiogram_verdicts(rule)
    assert any(expected.values())  # every rule here matches something
    ours = {}
    for old, new in expected:
        handled = await dp.feed_raw_update(bot, build.update(chat_member=change(old, new)))
        mine_handled = await dp.feed_raw_update(bot, build.update(my_chat_member=change(old, new)))
        assert bool(handled) is bool(mine_handled)
        ours[old, new] = bool(handled)
    assert ours == expected


def test_markers_print_as_aiogram() -> None:
    for name, rule in RULES.items():
        assert str(rule(tgfast.filters)) == str(rule(aiogram.filters)), name


def test_markers_refuse_what_is_not_a_status() -> None:
    with pytest.raises(TypeError):
        tgfast.filters.MEMBER | 1  # type: ignore[operator]
    with pytest.raises(TypeError):
        tgfast.filters.MEMBER >> "left"  # type: ignore[operator]
    with pytest.raises(TypeError, match="status"):
        tgfast.filters.ChatMemberUpdatedFilter("member")  # type: ignore[arg-type]


# -- MagicData ----------------------------------------------------------------------------


def message_update(text: str, user_id: int) -> dict[str, Any]:
    return build.update(message=build.message(text, chat_id=user_id))


async def test_magic_data_reads_the_data_and_the_event(routing: ModuleType, bot: Bot) -> None:
    F = tgfast.filters.F
    dp = Dispatcher(routing=routing, admin_id=5, config={"mode": "strict"})

    @dp.message(tgfast.filters.MagicData(F.event.from_user.id == F.admin_id))
    async def admin(message: Message) -> str:
        return "admin"

    @dp.message(tgfast.filters.MagicData(F.config["mode"].as_("mode")))
    async def mode(message: Message, mode: str) -> str:
        return f"mode={mode}"

    assert await dp.feed_raw_update(bot, message_update("hi", 5)) == "admin"
    assert await dp.feed_raw_update(bot, message_update("hi", 6)) == "mode=strict"


async def test_magic_data_as_aiogram(bot: Bot) -> None:
    """The same filters, each framework's own F: the same verdicts."""
    abot = aiogram.Bot("42:test-token")
    for user_id in (5, 6):
        results = []
        for lib_f, magic, dp in (
            (tgfast.filters.F, tgfast.filters.MagicData, Dispatcher(admin_id=5)),
            (aiogram.F, aiogram.filters.MagicData, aiogram.Dispatcher(admin_id=5)),
        ):
            dp.message.register(
                lambda message: "admin", magic(lib_f.event.from_user.id == lib_f.admin_id)
            )
            dp.message.register(lambda message: "other")
            raw = message_update("hi", user_id)
            if isinstance(dp, Dispatcher):
                results.append(await dp.feed_raw_update(bot, raw))
            else:
                results.append(await dp.feed_raw_update(abot, raw))
        assert results[0] == results[1] == ("admin" if user_id == 5 else "other")
    await abot.session.close()


# -- flags ----------------------------------------------------------------------------------


def flagged_dispatcher(lib: ModuleType, flags_module: ModuleType, dp: Any) -> list[Any]:
    """One program, written once, run on either framework: what its middleware read."""
    flags = flags_module.FlagGenerator()
    F = tgfast.filters.F if lib is tgfast else aiogram.F
    seen: list[Any] = []

    async def middleware(handler: Any, event: Any, data: dict[str, Any]) -> Any:
        seen.append((
            flags_module.get_flag(data, "chat_action"),
            flags_module.get_flag(data, "rate_limit", default="none"),
            flags_module.get_flag(data["handler"], "long"),
            bool(flags_module.check_flags(data, F.rate_limit.key == "x")),
            flags_module.check_flags(data, F.chat_action),
        ))  # fmt: skip
        return await handler(event, data)

    dp.message.middleware(middleware)

    @dp.message(F.text == "typing", flags={"long": "from registration"})
    @flags.chat_action("typing")
    @flags.rate_limit(key="x", rate=2)
    @flags.long
    async def typing(message: Any) -> str:
        return "typed"

    @dp.message()
    async def plain(message: Any) -> str:
        return "plain"

    return seen


async def test_flags_read_as_in_aiogram(bot: Bot) -> None:
    ours = Dispatcher()
    seen_ours = flagged_dispatcher(tgfast, tgfast.dispatcher.flags, ours)
    theirs = aiogram.Dispatcher()
    seen_theirs = flagged_dispatcher(aiogram, aiogram.dispatcher.flags, theirs)
    abot = aiogram.Bot("42:test-token")
    try:
        for text in ("typing", "other"):
            raw = message_update(text, 3)
            assert await ours.feed_raw_update(bot, raw) == await theirs.feed_raw_update(abot, raw)
    finally:
        await abot.session.close()
    assert seen_ours == seen_theirs
    assert seen_ours[0] == ("typing", {"key": "x", "rate": 2}, True, True, "typing")
    assert seen_ours[1] == (None, "none", None, False, None)


def test_flag_decorators_as_aiogram() -> None:
    flags = tgfast.dispatcher.flags.flags
    assert flags.chat_action == tgfast.dispatcher.flags.FlagDecorator(
        tgfast.dispatcher.flags.Flag("chat_action", True)
    )
    assert flags.chat_action("typing").flag.value == "typing"
    assert flags.rate_limit(rate=2).flag.value.rate == 2  # keyword values read as attributes
    with pytest.raises(ValueError):
        flags.x(1, key=2)
    with pytest.raises(AttributeError):
        flags._private  # noqa: B018
    from tgfast import flags as top_level

    assert top_level is flags


def test_flag_decorators_keep_flags_where_aiogram_does() -> None:
    """On the function, in ``aiogram_flag``: code written for aiogram reads them there."""
    flags = tgfast.dispatcher.flags.flags

    @flags.chat_action("typing")
    @flags.long_operation
    async def handler(message: Any) -> None:
        pass

    assert handler.aiogram_flag == {"long_operation": True, "chat_action": "typing"}  # type: ignore[attr-defined]
    assert tgfast.dispatcher.flags.extract_flags_from_object(handler) == handler.aiogram_flag  # type: ignore[attr-defined]
    retyped = flags.chat_action._with_value("upload_photo")
    assert retyped.flag == tgfast.dispatcher.flags.Flag("chat_action", "upload_photo")


def test_magic_data_refuses_a_plain_callable() -> None:
    with pytest.raises(TypeError, match="magic"):
        tgfast.filters.MagicData(lambda data: True)  # type: ignore[arg-type]


def test_datetime_is_only_used_for_members() -> None:
    assert datetime.datetime  # until_date is sent as 0, which both read as "forever"
