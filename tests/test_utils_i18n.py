"""tgfast.utils.i18n with real catalogues (tests/support/locales: uk, pt_BR; the source is
English), compiled by Babel into a temporary directory: gettext and plural forms, lazy
texts in magic filters, each middleware through a real Dispatcher and FakeTelegram,
and aiogram's own implementation as the reference where the two must agree."""

from __future__ import annotations

import asyncio
import copy
import importlib
import inspect
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiogram.utils.i18n as aiogram_i18n
import pytest
from i18n_catalogues import LOCALES, compile_catalogues

from tgfast import Bot, Dispatcher, F, Router, convert
from tgfast.filters import Command
from tgfast.filters.base import as_filter
from tgfast.fsm.context import FSMContext
from tgfast.fsm.storage.base import StorageKey
from tgfast.fsm.storage.memory import MemoryStorage
from tgfast.testing import FakeTelegram, updates
from tgfast.testing.updates import encoded
from tgfast.types import Message
from tgfast.utils.i18n import (
    ConstI18nMiddleware,
    FSMI18nMiddleware,
    I18n,
    I18nMiddleware,
    LazyProxy,
    SimpleI18nMiddleware,
    _,
    __,
    get_i18n,
    gettext,
    lazy_gettext,
    lazy_ngettext,
    ngettext,
)
from tgfast.utils.i18n.middleware import locale_candidates


@pytest.fixture(scope="module")
def locales(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_catalogues(tmp_path_factory.mktemp("locales"))


@pytest.fixture
def i18n(locales: Path) -> Iterator[I18n]:
    i18n = I18n(path=locales)
    with i18n.context():
        yield i18n


def aiogram_twin(locales: Path) -> aiogram_i18n.I18n:
    return aiogram_i18n.I18n(path=locales)


# -- the catalogues --------------------------------------------------------------------


def test_loads_the_compiled_catalogues(i18n: I18n, locales: Path) -> None:
    assert sorted(i18n.available_locales) == ["pt_BR", "uk"]
    assert i18n.path == locales.resolve()
    assert (i18n.default_locale, i18n.domain, i18n.current_locale) == ("en", "messages", "en")
    assert sorted(aiogram_twin(locales).available_locales) == sorted(i18n.available_locales)


def test_a_po_without_mo_is_an_error(tmp_path: Path) -> None:
    target = tmp_path / "de" / "LC_MESSAGES"
    target.mkdir(parents=True)
    (target / "messages.po").write_bytes((LOCALES / "uk/LC_MESSAGES/messages.po").read_bytes())
    with pytest.raises(RuntimeError, match="'de' has .* but no .mo: run `pybabel compile"):
        I18n(path=tmp_path)


def test_another_domain_finds_nothing(locales: Path) -> None:
    assert I18n(path=locales, domain="other").available_locales == ()


def test_reload_sees_a_new_catalogue(tmp_path: Path) -> None:
    i18n = I18n(path=tmp_path)
    assert i18n.available_locales == ()
    compile_catalogues(tmp_path)
    i18n.reload()
    assert sorted(i18n.available_locales) == ["pt_BR", "uk"]


@pytest.mark.parametrize("locale", ["uk", "pt_BR", "en", "de"])
def test_gettext_as_aiogram(i18n: I18n, locales: Path, locale: str) -> None:
    reference = aiogram_twin(locales)
    for text in ("Menu", "Hello, {name}!", "not in the catalogue"):
        assert i18n.gettext(text, locale=locale) == reference.gettext(text, locale=locale)
    expected = {"uk": "Меню", "pt_BR": "Cardápio", "en": "Menu", "de": "Menu"}[locale]
    assert i18n.gettext("Menu", locale=locale) == expected


# n -> form: uk has three forms (1, 21: one; 2-4, 22: few; 0, 5-20, 11: many), pt_BR two
# (0 and 1 singular), the English source two (1 singular)
PLURALS = {
    "uk": {0: "яблук", 1: "яблуко", 2: "яблука", 4: "яблука", 5: "яблук", 11: "яблук",
           21: "яблуко", 22: "яблука", 111: "яблук"},
    "pt_BR": {0: "maçã", 1: "maçã", 2: "maçãs", 100: "maçãs"},
    "en": {0: "apples", 1: "apple", 2: "apples"},
    "de": {1: "apple", 5: "apples"},
}  # fmt: skip


@pytest.mark.parametrize("locale", sorted(PLURALS))
def test_plural_forms(i18n: I18n, locales: Path, locale: str) -> None:
    reference = aiogram_twin(locales)
    for n, word in PLURALS[locale].items():
        text = i18n.gettext("{n} apple", "{n} apples", n, locale=locale)
        assert text == f"{{n}} {word}"
        assert text == reference.gettext("{n} apple", "{n} apples", n, locale=locale)
        with i18n.use_locale(locale):
            assert ngettext("{n} apple", "{n} apples", n).format(n=n) == f"{n} {word}"


def test_module_functions_use_the_current_i18n_and_locale(i18n: I18n) -> None:
    assert gettext is ngettext and _ is gettext and __ is lazy_gettext
    assert get_i18n() is i18n
    with i18n.use_locale("uk"):
        assert _("Menu") == "Меню"
        assert gettext("Menu", locale="pt_BR") == "Cardápio"
        with i18n.use_locale("pt_BR"):
            assert _("Menu") == "Cardápio"
        assert i18n.current_locale == "uk"
    assert _("Menu") == "Menu"


def test_no_context_is_a_lookup_error(locales: Path) -> None:
    assert I18n.get_current() is None
    with pytest.raises(LookupError, match="no I18n in this context"):
        gettext("Menu")
    with pytest.raises(LookupError):
        I18n.get_current(no_error=False)
    lazy = __("Menu")  # made without a context: fine, it is only used later
    with pytest.raises(LookupError):
        str(lazy)
    with I18n(path=locales).context() as i18n, i18n.use_locale("uk"):
        assert str(lazy) == "Меню"
    with pytest.raises(TypeError, match="takes an I18n"):
        I18n.set_current("uk")  # type: ignore[arg-type]


async def test_each_task_keeps_its_own_locale(i18n: I18n) -> None:
    async def speak(locale: str) -> list[str]:
        with i18n.use_locale(locale):
            first = _("Menu")
            await asyncio.sleep(0)  # the other task sets its locale meanwhile
            return [first, _("Menu")]

    results = await asyncio.gather(speak("uk"), speak("pt_BR"), speak("en"))
    assert results == [["Меню"] * 2, ["Cardápio"] * 2, ["Menu"] * 2]


# -- lazy texts ------------------------------------------------------------------------


def test_lazy_text_follows_the_locale(i18n: I18n) -> None:
    menu = __("Menu")
    apples = lazy_ngettext("{n} apple", "{n} apples", 3)
    bound = i18n.lazy_gettext("Menu")
    fixed = i18n.lazy_gettext("Menu", locale="pt_BR")
    assert isinstance(menu, LazyProxy) and not isinstance(menu, str)
    assert repr(menu) == "LazyProxy(gettext, 'Menu', n=1)"  # no translation in a repr
    for locale, word, many in (("en", "Menu", "apples"), ("uk", "Меню", "яблука")):
        with i18n.use_locale(locale):
            assert menu == word and word == menu and menu != "x" and "x" != menu
            assert str(menu) == word == bound and fixed == "Cardápio"
            assert apples.format(n=3) == f"3 {many}"
            assert (
                f"[{menu}]" == f"[{word}]" and menu + "!" == word + "!" and "!" + menu == "!" + word
            )
            assert len(menu) == len(word) and menu[0] == word[0] and list(menu) == list(word)
            assert menu.upper() == word.upper() and menu in [word] and word in [menu]
    with pytest.raises(TypeError, match="unhashable"):  # its value changes: as Babel's
        hash(menu)


def test_lazy_proxy_like_babels() -> None:
    from babel.support import LazyProxy as BabelProxy

    calls: list[int] = []

    def count() -> str:
        calls.append(1)
        return f"value {len(calls)}"

    for proxy_type in (LazyProxy, BabelProxy):
        calls.clear()
        cached, fresh = proxy_type(count), proxy_type(count, enable_cache=False)
        assert [str(cached), str(cached), str(fresh), str(fresh)] == [
            "value 1",
            "value 1",
            "value 2",
            "value 3",
        ]
        assert str(copy.copy(cached)) == "value 4" and str(copy.deepcopy(fresh)) == "value 5"
        assert ("%s!" % proxy_type(lambda: "x")) == "x!"  # noqa: UP031
        assert proxy_type(lambda: "ab") * 2 == "abab"
        assert (
            proxy_type(lambda: "a") < "b" and proxy_type(lambda: "") == "" and not proxy_type(str)
        )


# -- lazy texts in filters -------------------------------------------------------------


# built at import, outside any I18n context: building must not evaluate the lazy text
@pytest.mark.parametrize(
    "expression",
    [
        F.text == __("Menu"),
        F.text.in_([__("Menu"), __("Hello, {name}!")]),
        F.text.in_((__("Menu"), __("Hello, {name}!"))),  # a tuple is not frozen to a set
    ],
    ids=["eq", "in-list", "in-tuple"],
)
def test_lazy_text_in_a_magic_filter_is_read_at_filter_time(i18n: I18n, expression: Any) -> None:
    check = as_filter(expression)
    ukrainian = convert(Message, updates.message("Меню"))
    english = convert(Message, updates.message("Menu"))
    with i18n.use_locale("uk"):
        assert check(ukrainian) and not check(english)
    with i18n.use_locale("en"):
        assert check(english) and not check(ukrainian)


# -- the middlewares, through a dispatcher ---------------------------------------------


def text_message(text: str, user_id: int, language_code: str | None) -> bytes:
    message = updates.message(text, chat_id=user_id)
    if language_code is not None:
        message["from"]["language_code"] = language_code
    return encoded(updates.update(message=message))


def translating_router() -> Router:
    router = Router()

    @router.message(F.text == __("Menu"))
    async def menu(message: Message, i18n: I18n, i18n_middleware: I18nMiddleware) -> None:
        assert isinstance(i18n, I18n) and isinstance(i18n_middleware, I18nMiddleware)
        await message.answer(f"{i18n.current_locale}: {_('You opened the menu.')}")

    @router.message(Command("apples"))
    async def apples(message: Message) -> None:
        await message.answer(ngettext("{n} apple", "{n} apples", 5).format(n=5))

    @router.message(Command("fail"))
    async def fail(message: Message) -> None:
        raise ValueError("boom")

    @router.errors()
    async def failed(event: Any) -> str:
        return _("Something went wrong.")

    @router.message()
    async def other(message: Message) -> None:
        await message.answer(f"{get_i18n().current_locale}: not the menu")

    return router


async def run(dp: Dispatcher, *bodies: bytes) -> tuple[list[str], list[Any]]:
    """The texts sent and the results of ``feed_raw_update`` for ``bodies``, in order."""
    async with FakeTelegram() as fake, Bot(fake.token, server=fake.url) as bot:
        results = [await dp.feed_raw_update(bot, body) for body in bodies]
        return [m["text"] for m in fake.sent_messages()], results


@pytest.mark.parametrize(
    ("language_code", "locale", "menu", "apples"),
    [
        ("uk", "uk", "Меню", "5 яблук"),
        ("pt-br", "pt_BR", "Cardápio", "5 maçãs"),
        ("pt", "en", "Menu", "5 apples"),  # no catalogue for the bare language
        ("uk-UA", "uk", "Меню", "5 яблук"),  # the language when the territory has none
        ("de", "en", "Menu", "5 apples"),  # unknown: the default
        (None, "en", "Menu", "5 apples"),
    ],
)
async def test_simple_middleware_uses_the_language_code(
    locales: Path, language_code: str | None, locale: str, menu: str, apples: str
) -> None:
    i18n = I18n(path=locales)
    dp = Dispatcher()
    dp.include_router(translating_router())
    middleware = SimpleI18nMiddleware(i18n)
    assert middleware.setup(dp) is middleware
    sent, results = await run(
        dp,
        text_message(menu, 1, language_code),
        text_message("/apples", 1, language_code),
        text_message("/fail", 1, language_code),
    )
    assert sent == [f"{locale}: {i18n.gettext('You opened the menu.', locale=locale)}", apples]
    assert results[2] == i18n.gettext("Something went wrong.", locale=locale)  # errors too
    assert I18n.get_current() is None  # nothing leaks out of the update


async def test_the_english_menu_is_not_the_menu_in_ukrainian(locales: Path) -> None:
    dp = Dispatcher()
    dp.include_router(translating_router())
    SimpleI18nMiddleware(I18n(path=locales)).setup(dp)
    sent, _results = await run(dp, text_message("Menu", 1, "uk"), text_message("Меню", 2, "en"))
    assert sent == ["uk: not the menu", "en: not the menu"]


@pytest.mark.parametrize(
    "code",
    [
        "en",
        "uk",
        "pt-br",
        "pt-BR",
        "pt",
        "uk-ua",
        "zh-hans",
        "zh-hans-cn",
        "es-419",
        "de",
        "",
        "pt_br",
    ],
)
async def test_locale_choice_as_aiogram(tmp_path: Path, code: str) -> None:
    """With catalogues for these names, both choose the same one for each client code."""
    for name in ("en", "uk", "pt_BR", "zh_Hans", "zh", "es_419", "es"):
        (tmp_path / name / "LC_MESSAGES").mkdir(parents=True)
        (tmp_path / name / "LC_MESSAGES" / "messages.mo").write_bytes(
            (compile_catalogues(tmp_path / "_src") / "uk/LC_MESSAGES/messages.mo").read_bytes()
        )
    ours = SimpleI18nMiddleware(I18n(path=tmp_path, default_locale="xx"))
    theirs = aiogram_i18n.SimpleI18nMiddleware(
        aiogram_i18n.I18n(path=tmp_path, default_locale="xx")
    )
    user: Any = type("User", (), {"language_code": code})()
    data = {"event_from_user": user}
    try:
        expected = await theirs.get_locale(None, data)  # type: ignore[arg-type]
    except ValueError:  # aiogram fails the update on a malformed code; tgfast: the default
        expected = "xx"
    assert await ours.get_locale(None, data) == expected


def test_locale_candidates() -> None:
    assert locale_candidates("pt-br") == ["pt_BR", "pt"]
    assert locale_candidates("zh-Hans-cn") == ["zh_Hans_CN", "zh"]
    assert locale_candidates("zh-hans") == ["zh_Hans"]
    assert locale_candidates("en") == ["en"]
    assert locale_candidates("sl-rozaj") == ["sl_ROZAJ"]
    assert locale_candidates("") == [] == locale_candidates("pt br") == locale_candidates("pt_BR")


async def test_const_middleware(locales: Path) -> None:
    dp = Dispatcher()
    dp.include_router(translating_router())
    ConstI18nMiddleware(locale="pt_BR", i18n=I18n(path=locales)).setup(dp)
    sent, _results = await run(dp, text_message("Cardápio", 1, "uk"))
    assert sent == ["pt_BR: Você abriu o cardápio."]


async def test_setup_exclude_and_custom_keys(locales: Path) -> None:
    i18n = I18n(path=locales)
    dp = Dispatcher()
    seen: dict[str, Any] = {}

    @dp.message()
    async def message(message: Message, **data: Any) -> None:
        seen["message"] = (data.get("translator"), "i18n" in data, I18n.get_current())

    @dp.edited_message()
    async def edited(message: Message) -> None:
        seen["edited"] = I18n.get_current()

    ConstI18nMiddleware("uk", i18n, i18n_key="translator", middleware_key="").setup(
        dp, exclude={"edited_message"}
    )
    edit = updates.message("x")
    await run(
        dp,
        encoded(updates.update(message=updates.message("x"))),
        encoded(updates.update(edited_message=edit)),
    )
    assert seen == {"message": (i18n, False, i18n), "edited": None}


async def test_a_custom_middleware_picks_the_locale(locales: Path) -> None:
    class ByChat(I18nMiddleware):
        async def get_locale(self, event: Any, data: dict[str, Any]) -> str:
            return {1: "uk", 2: "pt_BR"}.get(event.chat.id, "")  # empty: the default

    dp = Dispatcher()
    dp.include_router(translating_router())
    ByChat(I18n(path=locales)).setup(dp)
    sent, _results = await run(
        dp,
        text_message("Меню", 1, None),
        text_message("Cardápio", 2, None),
        text_message("Menu", 3, None),
    )
    assert sent == [
        "uk: Ви відкрили меню.",
        "pt_BR: Você abriu o cardápio.",
        "en: You opened the menu.",
    ]
    with pytest.raises(TypeError, match="abstract"):
        I18nMiddleware(I18n(path=locales))  # type: ignore[abstract]


async def test_fsm_middleware_keeps_the_chosen_locale(locales: Path) -> None:
    i18n = I18n(path=locales)
    storage = MemoryStorage()
    dp = Dispatcher(storage=storage)
    middleware = FSMI18nMiddleware(i18n, key="lang")

    @dp.message(Command("lang"))
    async def lang(message: Message, state: FSMContext) -> None:
        assert message.text is not None
        await middleware.set_locale(state, message.text.split()[1])
        await message.answer(_("Language: {locale}").format(locale=i18n.current_locale))

    dp.include_router(translating_router())
    middleware.setup(dp)
    sent, _results = await run(
        dp,
        text_message("Меню", 1, "uk"),  # first update: the client's language, stored
        text_message("/lang pt_BR", 1, "uk"),
        text_message("Cardápio", 1, "uk"),  # the stored choice wins over the client's
        text_message("Menu", 2, None),
    )
    assert sent == [
        "uk: Ви відкрили меню.",
        "Idioma: pt_BR",
        "pt_BR: Você abriu o cardápio.",
        "en: You opened the menu.",
    ]
    bot_id = 123456789  # FakeTelegram's default token
    assert await storage.get_data(StorageKey(bot_id, 1, 1)) == {"lang": "pt_BR"}
    assert await storage.get_data(StorageKey(bot_id, 2, 2)) == {"lang": "en"}


# -- aiogram's names and signatures ----------------------------------------------------


def test_every_aiogram_name_is_here() -> None:
    import tgfast.utils.i18n as ours

    for name in aiogram_i18n.__all__:
        assert name in ours.__all__, name
    for module in ("context", "core", "lazy_proxy", "middleware"):
        theirs = importlib.import_module(f"aiogram.utils.i18n.{module}")
        mine = importlib.import_module(f"tgfast.utils.i18n.{module}")
        defined = [
            n
            for n, v in vars(theirs).items()
            if getattr(v, "__module__", None) == theirs.__name__ and not n.startswith("_")
        ]
        for name in [*defined, *(["LazyProxy"] if module == "lazy_proxy" else [])]:
            assert hasattr(mine, name), f"{module}.{name}"


@pytest.mark.parametrize(
    ("name", "attribute"),
    [
        ("I18n", "__init__"),
        ("I18n", "gettext"),
        ("I18n", "lazy_gettext"),
        ("I18n", "use_locale"),
        ("I18n", "context"),
        ("I18n", "find_locales"),
        ("I18n", "reload"),
        ("I18nMiddleware", "__init__"),
        ("I18nMiddleware", "setup"),
        ("I18nMiddleware", "get_locale"),
        ("SimpleI18nMiddleware", "__init__"),
        ("ConstI18nMiddleware", "__init__"),
        ("FSMI18nMiddleware", "__init__"),
        ("FSMI18nMiddleware", "set_locale"),
    ],
)
def test_signatures_take_aiogram_parameters(name: str, attribute: str) -> None:
    import tgfast.utils.i18n as ours

    def parameters(obj: Any) -> list[tuple[str, Any, Any]]:
        signature = inspect.signature(getattr(getattr(obj, name), attribute))
        return [(p.name, p.kind, p.default) for p in signature.parameters.values()]

    assert parameters(ours) == parameters(aiogram_i18n)


def test_module_functions_take_aiogram_arguments(i18n: I18n, locales: Path) -> None:
    with i18n.use_locale("uk"):
        assert gettext("{n} apple", "{n} apples", 2) == "{n} яблука"
        assert gettext(singular="Menu", locale="pt_BR") == "Cardápio"
        assert str(lazy_gettext("{n} apple", plural="{n} apples", n=5)) == "{n} яблук"


async def test_setup_can_leave_errors_out(locales: Path) -> None:
    dp = Dispatcher()
    dp.include_router(translating_router())
    seen: list[I18n | None] = []

    @dp.errors()
    async def root_errors(event: Any) -> None:
        seen.append(I18n.get_current())

    ConstI18nMiddleware("uk", I18n(path=locales)).setup(dp, exclude={"error"})
    _sent, results = await run(dp, text_message("/fail", 1, "uk"))
    # the router's errors handler translates: it has no I18n now, its LookupError is
    # handled by the dispatcher's own errors handler, which has none either
    assert seen == [None] and results == [None]


async def test_fsm_locale_survives_a_restart_with_redis(locales: Path, redis_url: str) -> None:
    """The choice is in the storage, not the process: a new dispatcher (a restarted
    bot, another worker) on the same Redis answers in the chosen locale."""
    from tgfast.fsm.storage.redis import RedisStorage

    def bot_process(storage: RedisStorage) -> Dispatcher:
        i18n = I18n(path=locales)
        middleware = FSMI18nMiddleware(i18n)
        dp = Dispatcher(storage=storage)

        @dp.message(Command("lang"))
        async def lang(message: Message, state: FSMContext) -> None:
            await middleware.set_locale(state, "pt_BR")
            await message.answer(_("Language: {locale}").format(locale=i18n.current_locale))

        dp.include_router(translating_router())
        middleware.setup(dp)
        return dp

    first = RedisStorage.from_url(redis_url)
    try:
        sent, _results = await run(bot_process(first), text_message("/lang", 1, "uk"))
    finally:
        await first.close()
    second = RedisStorage.from_url(redis_url)
    try:
        sent += (await run(bot_process(second), text_message("Cardápio", 1, "uk")))[0]
    finally:
        await second.close()
    assert sent == ["Idioma: pt_BR", "pt_BR: Você abriu o cardápio."]
