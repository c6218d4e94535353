"""Scenes (``tgfast.fsm.scene``) against FakeTelegram: moves between scenes, the
history in the FSM storage (memory and a real Redis), the data and history resets,
callback queries outside the scene's state, the registry's rules.

The same behaviour as aiogram's, call for call, is checked by the bot in
tests/support/aiogram_bots/scenes.py (tests/test_aiogram_compat.py) and by aiogram's own
scene examples (tests/test_aiogram_examples_scenes.py).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from aiogram.fsm import scene as aiogram_scene
from aiogram.utils.class_attrs_resolver import get_sorted_mro_attrs_resolver as aiogram_resolver

from tgfast import Bot, F
from tgfast.dispatcher import Dispatcher, Router
from tgfast.dispatcher.flags import flags
from tgfast.errors import SceneError, TgfastError
from tgfast.exceptions import SceneException
from tgfast.filters import Command
from tgfast.fsm import FSMContext, MemoryStorage
from tgfast.fsm import scene as scene_module
from tgfast.fsm.history import HISTORY_DESTINY, HistoryManager, HistoryRecord
from tgfast.fsm.scene import (
    After,
    OnMarker,
    Scene,
    SceneAction,
    SceneRegistry,
    ScenesManager,
    SceneWizard,
    get_sorted_mro_attrs_resolver,
    on,
)
from tgfast.fsm.state import State, StatesGroup
from tgfast.fsm.storage import DefaultKeyBuilder, StorageKey
from tgfast.fsm.storage.memory import MemoryStorageRecord
from tgfast.fsm.storage.redis import RedisStorage
from tgfast.testing import FakeTelegram
from tgfast.testing.updates import callback_query, decoded, message, update
from tgfast.types import CallbackQuery, Message
from tgfast.types.update_kinds import UPDATE_KINDS

KEY = StorageKey(bot_id=42, chat_id=1, user_id=1)


async def send(dp: Dispatcher, bot: Bot, *texts: str) -> list[Any]:
    """Feed a private message per text, each handled before the next; the results."""
    return [await dp.feed_update(bot, decoded(update(message=message(t)))) for t in texts]


async def press(dp: Dispatcher, bot: Bot, data: str) -> Any:
    return await dp.feed_update(bot, decoded(update(callback_query=callback_query(data))))


def texts(fake: FakeTelegram) -> list[str]:
    return [m.get("text", "") for m in fake.sent_messages()]


def key_of(bot: Bot) -> StorageKey:
    return StorageKey(bot_id=bot.id, chat_id=1, user_id=1)


def steps(log: list[str]) -> type[Scene]:
    """Two scenes that note every action in ``log``; returns the first."""

    class First(Scene, state="first"):
        @on.message.enter()
        async def entered(self, message: Message, step: int = 0) -> None:
            log.append(f"first.enter {step}")
            await message.answer(f"first {step}")

        @on.message.leave()
        async def left(self, message: Message) -> None:
            log.append("first.leave")

        @on.message.exit()
        async def exited(self, message: Message) -> None:
            log.append("first.exit")

        @on.message(F.text == "next", after=After.goto("second"))
        async def next(self, message: Message) -> None:
            log.append("first.next")

        @on.message(F.text == "again")
        async def again(self, message: Message, state: FSMContext) -> None:
            step = await self.wizard.get_value("step", 0) + 1
            await state.update_data(step=step)
            await self.wizard.retake(step=step)

        @on.message(F.text == "bye", after=After.exit())
        async def bye(self, message: Message) -> None:
            log.append("first.bye")

    class Second(Scene, state="second"):
        @on.message.enter()
        async def entered(self, message: Message) -> None:
            log.append("second.enter")

        @on.message(F.text == "back", after=After.back())
        async def back(self, message: Message) -> None:
            log.append("second.back")

    First.second = Second  # type: ignore[attr-defined]
    return First


async def test_goto_retake_back_exit(bot: Bot, fake: FakeTelegram, routing: ModuleType) -> None:
    dp = Dispatcher(routing=routing)
    log: list[str] = []
    first = steps(log)
    SceneRegistry(dp).add(first, first.second)  # type: ignore[attr-defined]
    dp.message.register(first.as_handler(step=7), Command("go"))
    state = FSMContext(dp.storage, key_of(bot))

    await send(dp, bot, "/go")
    assert log == ["first.enter 7"] and await state.get_state() == "first"
    await send(dp, bot, "again", "again")
    assert log[1:] == ["first.leave", "first.enter 1", "first.leave", "first.enter 2"]
    assert await state.get_data() == {"step": 2}
    log.clear()
    await send(dp, bot, "next")
    assert log == ["first.next", "first.leave", "second.enter"]
    assert await state.get_state() == "second"
    history = HistoryManager(state)
    assert [r.state for r in await history.all()] == ["first", "first", "first"]
    log.clear()
    await send(dp, bot, "back")  # leave without a snapshot, then the last one's scene
    assert log == ["second.back", "first.enter 0"]
    assert await state.get_state() == "first" and len(await history.all()) == 2
    log.clear()
    await send(dp, bot, "bye")  # no scene for "no state": the state is left
    assert log == ["first.bye", "first.exit"]
    assert await state.get_state() is None and await history.all() == []
    assert await state.get_data() == {"step": 2}  # exit keeps the data (as aiogram)
    assert texts(fake) == ["first 7", "first 1", "first 2", "first 0"]


async def test_history_is_fsm_data_of_its_own_destiny() -> None:
    storage = MemoryStorage()
    state = FSMContext(storage, KEY)
    history = HistoryManager(state, size=3)
    for n in range(5):
        await state.set_state(f"s{n}")
        await state.set_data({"n": n})
        await history.snapshot()
    stored = await storage.get_data(KEY._replace(destiny=HISTORY_DESTINY))
    assert stored == {"history": [{"state": f"s{n}", "data": {"n": n}} for n in (2, 3, 4)]}
    assert await history.get() == MemoryStorageRecord(state="s4", data={"n": 4})
    assert await history.pop() == MemoryStorageRecord(state="s4", data={"n": 4})
    assert await history.rollback() == "s3"
    assert (await state.get_state(), await state.get_data()) == ("s3", {"n": 3})
    assert await history.all() == [MemoryStorageRecord(state="s2", data={"n": 2})]
    await history.clear()
    assert await history.pop() is None and await history.get() is None
    assert await history.rollback() is None  # nothing to go back to: no state, no data
    assert (await state.get_state(), await state.get_data()) == (None, {})
    assert len(storage) == 0  # an empty history takes no room
    assert HistoryRecord is MemoryStorageRecord  # tgfast's earlier name, aiogram's type


async def test_reset_data_and_history_on_enter(bot: Bot, fake: FakeTelegram) -> None:
    class Keeps(Scene, state="keeps"):
        @on.message.enter()
        async def entered(self, message: Message, state: FSMContext) -> None:
            await message.answer(f"keeps {await state.get_data()}")

        @on.message(F.text == "reset")
        async def reset(self, message: Message) -> None:
            await self.wizard.update_data(x=1)
            await self.wizard.goto(Resets)

    class Resets(Scene, state="resets", reset_data_on_enter=True, reset_history_on_enter=True):
        @on.message.enter()
        async def entered(self, message: Message, scenes: ScenesManager) -> None:
            data = await self.wizard.get_data()
            await message.answer(f"resets {data} {len(await scenes.history.all())}")

        @on.message(F.text == "keep", after=After.goto(Keeps))
        async def keep(self, message: Message) -> None:
            await self.wizard.update_data({"y": 2})

    class ResetsToo(Resets, state="too"):  # inherits the flags
        pass

    assert ResetsToo.__scene_config__.reset_data_on_enter is True
    assert ResetsToo.__scene_config__.reset_history_on_enter is True
    assert Keeps.__scene_config__.reset_data_on_enter is None
    dp = Dispatcher()
    dp.message.register(Keeps.as_handler(), Command("start"))
    SceneRegistry(dp).add(Keeps, Resets)
    await send(dp, bot, "/start", "reset", "keep", "reset")
    assert texts(fake) == ["keeps {}", "resets {} 0", "keeps {'y': 2}", "resets {} 0"]


async def test_callback_query_without_state(bot: Bot, fake: FakeTelegram) -> None:
    class Anywhere(Scene, state="anywhere", callback_query_without_state=True):
        @on.callback_query(F.data == "tap")
        async def tapped(self, query: CallbackQuery) -> None:
            await query.answer("anywhere")

    class Here(Scene, state="here"):
        @on.callback_query(F.data == "tap")
        async def tapped(self, query: CallbackQuery) -> None:
            await query.answer("here")

    dp = Dispatcher()
    SceneRegistry(dp).add(Here, Anywhere)
    await press(dp, bot, "tap")
    await FSMContext(dp.storage, key_of(bot)).set_state("here")
    await press(dp, bot, "tap")
    answers = [call.params.get("text") for call in fake.calls_to("answerCallbackQuery")]
    assert answers == ["anywhere", "here"]


async def test_registry_on_a_router_gives_its_handlers_scenes(bot: Bot, fake: FakeTelegram) -> None:
    class Only(Scene, state="only"):
        @on.message.enter()
        async def entered(self, message: Message) -> None:
            await message.answer("entered")

    class Also(Scene, state="also"):
        @on.message()
        async def handle(self, message: Message) -> None:
            await message.answer("also")

    dp = Dispatcher()
    router = dp.include_router(Router())
    seen: list[object] = []

    @dp.message(Command("outside"))
    async def outside(message: Message, **data: Any) -> None:
        seen.append(data.get("scenes"))

    @router.message(Command("enter"))
    async def enter(message: Message, scenes: ScenesManager) -> None:
        seen.append(scenes)
        await scenes.enter(Only)

    registry = SceneRegistry(router, register_on_add=False)
    registry.add(Only)
    assert not router.sub_routers  # register_on_add=False: known, not routed
    registry.register(Also)
    assert len(router.sub_routers) == 1
    await send(dp, bot, "/outside", "/enter", "hi")
    assert seen[0] is None and isinstance(seen[1], ScenesManager)
    assert texts(fake) == ["entered"]  # "hi" in state "only": Also's handler is not asked
    await FSMContext(dp.storage, key_of(bot)).set_state("also")
    await send(dp, bot, "hi")
    assert texts(fake) == ["entered", "also"]
    assert dp.update.outer_middlewares == []  # the dispatcher's update path is untouched


async def test_registry_rules() -> None:
    class A(Scene, state="a"):
        pass

    class G(StatesGroup):
        b = State()

    class B(Scene, state=G.b):  # a State stands for its string
        pass

    registry = SceneRegistry(Router(), register_on_add=False)
    registry.add(A, B)
    assert registry.get(A) is A and registry.get("a") is A
    assert registry.get(G.b) is B and registry.get("G:b") is B
    with pytest.raises(SceneException, match="registered already"):
        registry.add(A)
    with pytest.raises(SceneException, match="not registered"):
        registry.get("nowhere")
    with pytest.raises(SceneException, match="not registered"):
        registry.get(None)
    with pytest.raises(SceneException, match="a Scene class, a State or a str"):
        registry.get(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at least one scene"):
        registry.add()
    assert SceneException is SceneError and issubclass(SceneError, TgfastError)


async def test_a_scene_without_registry_says_what_is_missing(bot: Bot) -> None:
    class Lonely(Scene):
        @on.message()
        async def handle(self, message: Message) -> None:
            pass

    dp = Dispatcher()
    dp.include_router(Lonely.as_router())
    caught: list[BaseException] = []

    @dp.errors()
    async def errors(event: Any, exception: Exception) -> bool:
        caught.append(exception)
        return True

    assert await send(dp, bot, "hi") == [True]
    assert isinstance(caught[0], SceneException) and "'scenes'" in str(caught[0])
    dp2 = Dispatcher()
    dp2.include_router(Lonely.as_router())
    with pytest.raises(SceneException, match="'scenes'"):
        await send(dp2, bot, "hi")


def test_handlers_are_tried_in_aiogram_order() -> None:
    """Subclass attributes first, then each base's, in definition order; an override
    keeps its place (the most derived value): the same order as aiogram's resolver."""

    class Base:
        a = 1
        b = 2
        c = 3

    class Middle(Base):
        z = 4
        b = 5

    class Leaf(Middle):
        y = 6
        a = 7

    for cls in (Base, Middle, Leaf):
        ours = [(n, v) for n, v in get_sorted_mro_attrs_resolver(cls) if not n.startswith("__")]
        theirs = [(n, v) for n, v in aiogram_resolver(cls) if not n.startswith("__")]
        assert ours == theirs
    assert [n for n, _ in get_sorted_mro_attrs_resolver(Leaf) if len(n) == 1] == [
        "y", "z", "a", "b", "c"
    ]  # fmt: skip


def test_aiograms_other_handler_orders_are_at_its_path() -> None:
    """``attrs_resolver=`` takes aiogram's other orders, from aiogram's path: each gives
    what aiogram's gives, and a scene tries its handlers in that order."""
    from aiogram.utils import class_attrs_resolver as theirs

    from tgfast.utils import class_attrs_resolver as ours

    class Base:
        b = 1
        a = 2

    class Leaf(Base):
        c = 3
        b = 4

    for name in ours.__all__[1:]:
        for cls in (Base, Leaf):
            got = [(n, v) for n, v in getattr(ours, name)(cls) if not n.startswith("__")]
            want = [(n, v) for n, v in getattr(theirs, name)(cls) if not n.startswith("__")]
            assert got == want, name
    assert [n for n, _ in ours.inspect_members_resolver(Leaf) if len(n) == 1] == ["a", "b", "c"]
    reversed_mro = ours.get_reversed_mro_unique_attrs_resolver(Leaf)
    assert [(n, v) for n, v in reversed_mro if len(n) == 1] == [("b", 1), ("a", 2), ("c", 3)]

    class Alphabetical(Scene, state="alpha", attrs_resolver=ours.inspect_members_resolver):
        @on.message()
        async def zeta(self, message: Message) -> None:
            pass

        @on.message()
        async def alpha(self, message: Message) -> None:
            pass

    handlers = Alphabetical.__scene_config__.handlers
    assert [h.handler.__name__ for h in handlers] == ["alpha", "zeta"]


async def test_scene_marks_and_actions_read_as_aiograms() -> None:
    """Handlers and actions sit on the method under aiogram's attribute names, an action
    has aiogram's ``callback`` and ``call(scene, event, **data)``."""

    class Quiz(Scene, state="quiz"):
        @on.message.enter()
        async def greet(self, message: Any, answer: int = 0) -> int:
            return answer + 1

        @on.message(F.text)
        async def reply(self, message: Any) -> None:
            pass

    assert len(Quiz.reply.__aiogram_handler__) == 1  # type: ignore[attr-defined]
    assert not hasattr(Quiz.greet, "__aiogram_handler__")
    action = Quiz.__scene_config__.actions[SceneAction.enter]["message"]
    assert Quiz.greet.__aiogram_action__[SceneAction.enter]["message"] is action  # type: ignore[attr-defined]
    assert action.callback is Quiz.greet
    assert await action.call(None, None, answer=41, other="left out") == 42


def test_handler_order_and_filters_of_a_scene() -> None:
    class Cancellable(Scene):
        @on.message(F.text == "cancel", after=After.exit())
        async def cancel(self, message: Message) -> None:
            pass

    class Ask(Cancellable, state="ask"):
        go = on.message(F.text == "go", after=After.goto("elsewhere"))

        @on.message.enter()
        @on.message()
        @flags.chat_action("typing")
        async def anything(self, message: Message) -> None:
            pass

    config = Ask.__scene_config__
    assert [(h.name, h.handler.__name__) for h in config.handlers] == [
        ("message", "_empty_handler"), ("message", "anything"), ("message", "cancel")
    ]  # fmt: skip
    assert config.handlers[0].after == After.goto("elsewhere")
    assert set(config.actions) == {SceneAction.enter}
    router = Ask.as_router()
    assert router.name == f"Scene '{__name__}.{Ask.__qualname__}' for state 'ask'"
    assert len(router.message.handlers) == 3 and len(router.message.filters) == 1
    assert router.message.handlers[1].flags == {"chat_action": "typing"}
    assert not router.callback_query.filters  # only the kinds the scene handles


def test_aiogram_names_are_here() -> None:
    ours = vars(scene_module)
    for name, value in vars(aiogram_scene).items():
        if getattr(value, "__module__", None) == aiogram_scene.__name__ and name[0] != "_":
            assert name in ours and name in scene_module.__all__, name


def test_markers_cover_every_kind() -> None:
    ours = {name for name in vars(OnMarker) if not name.startswith("_")}
    assert ours == set(UPDATE_KINDS)
    assert {n for n in vars(aiogram_scene.OnMarker) if not n.startswith("_")} <= ours
    assert on.message.enter().name == "message"
    with pytest.raises(TypeError, match="decorates a function"):
        on.message()(print)  # type: ignore[arg-type]


async def test_wizard_data_methods() -> None:
    state = FSMContext(MemoryStorage(), KEY)
    registry = SceneRegistry(Router())
    manager = ScenesManager(registry, "message", None, state, {})
    wizard = SceneWizard(_config(), manager, state, "message", None, {})
    assert await wizard.update_data({"a": 1}, a=0, b=2) == {"a": 1, "b": 2}  # data wins
    assert await wizard.get_value("b") == 2 and await wizard.get_value("c", 3) == 3
    await wizard.set_data({"x": 1})
    assert await wizard.get_data() == {"x": 1}
    await wizard.clear_data()
    assert await wizard.get_data() == {}
    with pytest.raises(SceneException, match="no scene"):
        await wizard.enter()


def _config() -> Any:
    class Blank(Scene, state="blank"):
        pass

    return Blank.__scene_config__


@pytest.mark.parametrize("layout", ["tgfast", "aiogram"])
async def test_history_in_redis(bot: Bot, fake: FakeTelegram, redis_url: str, layout: str) -> None:
    """The history is a record of the storage: in Redis it survives the process (a
    new dispatcher on the same Redis goes back), in tgfast's key layout or aiogram's
    (which needs ``with_destiny=True``, as in aiogram)."""
    builder = DefaultKeyBuilder(with_destiny=True) if layout == "aiogram" else None
    log: list[str] = []
    first = steps(log)

    def app(storage: RedisStorage) -> Dispatcher:
        dp = Dispatcher(storage=storage)
        dp.message.register(first.as_handler(), Command("go"))
        SceneRegistry(dp).add(first, first.second)  # type: ignore[attr-defined]
        return dp

    storage = RedisStorage.from_url(redis_url, key_builder=builder)
    try:
        await send(app(storage), bot, "/go", "again", "next")
    finally:
        await storage.close()
    storage = RedisStorage.from_url(redis_url, key_builder=builder)
    try:
        history = HistoryManager(FSMContext(storage, key_of(bot)))
        records = await history.all()
        assert [(r.state, r.data) for r in records] == [("first", {"step": 1})] * 2
        await send(app(storage), bot, "back")
        assert await storage.get_state(key_of(bot)) == "first"
        assert await storage.get_data(key_of(bot)) == {"step": 1}
        assert len(await history.all()) == 1
    finally:
        await storage.close()
    assert log[-2:] == ["second.back", "first.enter 0"]
    if layout == "aiogram":
        plain = RedisStorage.from_url(redis_url, key_builder=DefaultKeyBuilder())
        try:
            with pytest.raises(ValueError, match="with_destiny=True"):
                await HistoryManager(FSMContext(plain, key_of(bot))).all()
        finally:
            await plain.close()
