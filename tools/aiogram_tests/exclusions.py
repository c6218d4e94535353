"""The tests of aiogram's suite that tgfast is not held to, each with its reason. A key is
a test id as pytest prints it (from ``tests/``), or ends in ``*`` to cover every id it
starts (a module, a class, a test's parameter sets). ``python -m tools.aiogram_tests``
prints how many tests each reason covers, the share of the suite excluded, and the
exclusions that no longer hold (the test passes on tgfast now: take it out).

Two kinds of reasons: what tgfast does differently on purpose or cannot be held to
(aiogram's private attributes and internals, pydantic introspection, MongoDB), and the
gaps still open, each reason starting "not yet:". A test that passes on aiogram
and is not excluded must pass on tgfast (tests/test_aiogram_tests.py).
"""

from __future__ import annotations

__all__ = ["EXCLUDED", "STAND_INS"]

STAND_INS = ("tgfast.fsm.storage.mongo", "tgfast.fsm.storage.pymongo")
"""Modules aiogram's conftest imports that tgfast has not: imported as stand-ins in the
tgfast run (tools/aiogram_tests/stand_ins.py), their tests excluded below."""

# -- differences that stay ----------------------------------------------------------------
MONGO = "MongoDB storage: tgfast has none (MemoryStorage, RedisStorage)"
PRIVATE = (
    "reads or patches aiogram's private functions and attributes (_encode_value, "
    "_MemberStatusGroupMarker, ChatActionSender._run, IPFilter._allowed_ips, State._state, "
    "...)"
)
INTERNALS = (
    "aiogram's dispatcher internals (HandlerObject, FilterObject, TelegramEventObserver, "
    "middleware managers, context controller): tgfast compiles its routes instead"
)
UTIL_INTERNALS = "aiogram's internal helpers (class_attrs_resolver, mixins, dataclass)"
PYDANTIC = (
    "pydantic introspection (model_fields, remove_unset, pydantic's error types): "
    "tgfast's types are slotted classes, not pydantic models"
)
PYDANTIC_COLLECTION = (
    "parametrized over pydantic BaseModel subclasses (issubclass(obj, BaseModel), "
    "model_fields): collects none of tgfast's types and methods; the same check over "
    "tgfast.Bot's methods is collected and passes"
)
REDIS_MOCK = (
    "mocks redis-py's client inside RedisStorage: tgfast's storage speaks RESP itself "
    "(the real-server tests of the same suite pass)"
)
DOCS = "links into aiogram's own documentation"
AIOHTTP_INTERNALS = (
    "AiohttpSession's internals (_session, _connector_init, _should_reset_connector, "
    "build_form_data and aiohttp's FormData._fields)"
)
DOWNLOADS = (
    "downloads: tgfast refuses a File without file_path (Telegram leaves it out of files "
    "it will not serve), writes files without aiofiles (the test patches aiofiles), and "
    "reads a local server's files only inside its local_dir (the test gives none)"
)
MEDIA_GROUP = (
    "MediaGroupBuilder refuses a group Telegram refuses (fewer than 2 items) when built; "
    "_extend is private"
)
ERROR_CONSTRUCTORS = (
    "aiogram's error constructors (DetailedAiogramError(message=)): tgfast's errors take "
    "(method, error_code, description)"
)
HANDLER_SIGNATURE = (
    "a HandlerObject of a callable that takes no event: tgfast checks a handler's signature "
    "when it is made (the test module builds one at import)"
)
UNBOUND_METHOD = "awaiting a method object bound to no bot raises tgfast's TgfastError"
DISPATCHER_PRIVATE = (
    "patches or calls the Dispatcher's private methods (_process_update, _listen_update, "
    "_stop_signal, silent_call_request, ...) or reads its internal update observer"
)
FROZEN = (
    "registers a handler on a router after the dispatcher has handled an update: tgfast "
    "compiles its routes at the first update and refuses later changes (RouterFrozenError)"
)
LOG_TEXT = "matches the wording of aiogram's log records and error messages"
MEMORY_RECORD = (
    "imports or reads MemoryStorageRecord / MemoryStorage.storage, aiogram's in-memory "
    "record type: tgfast's MemoryStorage keeps states and data in two dicts (81 of the "
    "111 scene tests pass once that import is taken out)"
)
VALIDATION = (
    "expects pydantic's ValidationError (a constructor given an unknown union tag, "
    "CallbackData.unpack of a bad value): tgfast's constructors do not validate, its "
    "unpack raises CallbackDataError (a ValueError)"
)
MAGIC_FILTER_CLASS = (
    "isinstance against the magic-filter package's MagicFilter, or aiogram's repr text: "
    "tgfast's F is its own (same operators)"
)
MAGIC_DATA_ARGS = (
    "calls MagicData's filter with extra positional arguments (value[0]): tgfast passes "
    "handler data by keyword only"
)
ROUTER_WARNING = "expects aiogram's RuntimeWarning for an update type it does not know"
DEPRECATED_PREVIEW = (
    "the deprecated disable_web_page_preview has no bot default: tgfast fills "
    "link_preview_options from link_preview_is_disabled instead"
)
DECORATIONS = (
    "aiogram 3.31's renderings where tgfast keeps the Bot API's documented forms: "
    '<pre><code class="language-x"> (aiogram: language=), tg://emoji?id= (aiogram: '
    "emoji_id=), and an unknown entity's already rendered text not escaped a second time"
)

# -- gaps still open --------------------------------------------------------------------------
EVENT_ROUTER = (
    "not yet: event_router in the handler data (the router whose handler took the update)"
)
NESTED_DICTS = (
    "not yet: a type's constructor keeps nested dicts as given (Update(**raw)); aiogram's "
    "pydantic models validate them into types (tgfast.convert(Update, raw) does)"
)
DISPATCHER_ARGS = (
    "not yet: the Dispatcher's argument checks as aiogram words them (Dispatcher(bot) "
    "refused, start_polling() with no bot); run_polling of aiogram's MockedBot"
)
FLAGS = "not yet: FlagDecorator on a bare function; _with_value is private"
WEBHOOK_REQUEST = (
    "imports aiogram's Request model (tgfast.methods.Request): the webhook reply is built "
    "by method.as_webhook_reply(); multipart answers not yet"
)

_T = "tests/"
EXCLUDED: dict[str, str] = {
    _T + "test_fsm/storage/test_mongo_mock.py::*": MONGO,
    _T + "test_fsm/storage/test_pymongo_mock.py::*": MONGO,
    _T + "test_filters/test_chat_member_updated.py::*": PRIVATE,
    _T + "test_filters/test_callback_data.py::TestCallbackData::test_encode_value_*": PRIVATE,
    _T + "test_webhook/test_security.py::TestSecurity::test_allow_ip[127.0.0.1-ip_range0]": PRIVATE,
    _T
    + "test_webhook/test_security.py::TestSecurity::test_allow_ip[91.108.4.0/22-ip_range1]": PRIVATE,
    _T + "test_webhook/test_security.py::TestSecurity::test_allow_ip[ip2-ip_range2]": PRIVATE,
    _T + "test_webhook/test_security.py::TestSecurity::test_allow_ip[ip3-ip_range3]": PRIVATE,
    _T + "test_webhook/test_security.py::TestSecurity::test_default": PRIVATE,
    _T + "test_webhook/test_security.py::TestSecurity::test_empty_init": PRIVATE,
    _T + "test_dispatcher/test_event/test_handler.py::*": INTERNALS,
    _T + "test_dispatcher/test_event/test_telegram.py::*": INTERNALS,
    _T + "test_dispatcher/test_event/test_event.py::*": INTERNALS,
    _T + "test_dispatcher/test_event/test_middleware.py::*": INTERNALS,
    _T + "test_dispatcher/test_router.py::*": INTERNALS,
    _T + "test_dispatcher/test_middlewares/test_user_context.py::*": INTERNALS,
    _T
    + "test_utils/test_chat_action.py::TestChatActionMiddleware::test_call_default[None]": PRIVATE,
    _T
    + "test_utils/test_chat_action.py::TestChatActionMiddleware::test_call_default[sticker]": PRIVATE,
    _T
    + "test_utils/test_chat_action.py::TestChatActionMiddleware::test_call_default[value2]": PRIVATE,
    _T
    + "test_utils/test_chat_action.py::TestChatActionMiddleware::test_call_default[value3]": PRIVATE,
    _T + "test_utils/test_chat_action.py::TestChatActionSender::test_contextmanager": PRIVATE,
    _T + "test_utils/test_chat_action.py::TestChatActionSender::test_wait": PRIVATE,
    _T + "test_flags/test_getter.py::*": HANDLER_SIGNATURE,
    _T + "test_handler/test_base.py::TestBaseClassBasedHandler::test_wrapped_handler": INTERNALS,
    _T + "test_issues/test_1741_forward_ref_in_callbacks.py::*": INTERNALS,
    _T + "test_api/test_client/test_context_controller.py::*": INTERNALS,
    _T + "test_utils/test_class_attrs_resolver.py::*": UTIL_INTERNALS,
    _T + "test_utils/test_mixins.py::*": UTIL_INTERNALS,
    _T + "test_utils/test_dataclass.py::*": UTIL_INTERNALS,
    _T + "test_utils/test_link.py::*": DOCS,
    _T
    + "test_api/test_client/test_default.py::TestBotDefaultsAreWired::test_model_field_defaults_to_sentinel[*": PYDANTIC_COLLECTION,
    _T
    + "test_api/test_client/test_default.py::TestBotDefaultsAreWired::test_shortcut_param_defaults_to_sentinel[aiogram.types.*": PYDANTIC_COLLECTION,
    _T + "test_api/test_methods/test_base.py::TestTelegramMethodRemoveUnset::*": PYDANTIC,
    _T + "test_utils/test_serialization.py::TestSerialize::test_deserialize_default": PYDANTIC,
    _T
    + "test_api/test_client/test_session/test_base_session.py::TestBaseSession::test_check_response_validation_error": PYDANTIC,
    _T
    + "test_api/test_client/test_default.py::TestBotDefaultsAreWired::test_shortcut_param_defaults_to_sentinel[aiogram.Bot.edit_message_text(disable_web_page_preview)]": DEPRECATED_PREVIEW,
    _T
    + "test_api/test_client/test_default.py::TestBotDefaultsAreWired::test_shortcut_param_defaults_to_sentinel[aiogram.Bot.send_message(disable_web_page_preview)]": DEPRECATED_PREVIEW,
    _T + "test_fsm/storage/test_redis_mock.py::*": REDIS_MOCK,
    _T + "test_fsm/storage/test_isolation.py::TestRedisEventIsolation::*": REDIS_MOCK,
    _T
    + "test_api/test_client/test_session/test_aiohttp_session.py::TestAiohttpSession::test_build_form_data_with_data_only": AIOHTTP_INTERNALS,
    _T
    + "test_api/test_client/test_session/test_aiohttp_session.py::TestAiohttpSession::test_build_form_data_with_files": AIOHTTP_INTERNALS,
    _T
    + "test_api/test_client/test_session/test_aiohttp_session.py::TestAiohttpSession::test_create_proxy_session": AIOHTTP_INTERNALS,
    _T
    + "test_api/test_client/test_session/test_aiohttp_session.py::TestAiohttpSession::test_create_proxy_session_chained_proxies": AIOHTTP_INTERNALS,
    _T
    + "test_api/test_client/test_session/test_aiohttp_session.py::TestAiohttpSession::test_create_proxy_session_proxy_url": AIOHTTP_INTERNALS,
    _T
    + "test_api/test_client/test_session/test_aiohttp_session.py::TestAiohttpSession::test_create_session": AIOHTTP_INTERNALS,
    _T
    + "test_api/test_client/test_session/test_aiohttp_session.py::TestAiohttpSession::test_reset_connector": AIOHTTP_INTERNALS,
    _T + "test_api/test_client/test_bot.py::TestBot::test_download": DOWNLOADS,
    _T + "test_api/test_client/test_bot.py::TestBot::test_download_file[*": DOWNLOADS,
    _T + "test_api/test_client/test_bot.py::TestBot::test_download_local_file": DOWNLOADS,
    _T + "test_utils/test_media_group.py::TestMediaGroupBuilder::test_build": MEDIA_GROUP,
    _T + "test_utils/test_media_group.py::TestMediaGroupBuilder::test_build_empty": MEDIA_GROUP,
    _T + "test_utils/test_media_group.py::TestMediaGroupBuilder::test_extend": MEDIA_GROUP,
    _T + "test_api/test_types/test_exception.py::*": ERROR_CONSTRUCTORS,
    _T
    + "test_api/test_methods/test_base.py::TestTelegramMethodCall::test_async_emit_unsuccessful": UNBOUND_METHOD,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_concurrent_updates_limit": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_exception_handler_catch_exceptions": FROZEN,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_feed_update_dispatcher_kwarg_override": NESTED_DICTS,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_feed_update_dispatcher_workflow_data_override": NESTED_DICTS,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_feed_update_injects_dispatcher": NESTED_DICTS,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_feed_update_polling_parity": NESTED_DICTS,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_feed_webhook_update_fast_process_error": LOG_TEXT,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_feed_webhook_update_slow_process": DISPATCHER_PRIVATE,
    _T + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_init": DISPATCHER_PRIVATE,
    _T + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_init_args": DISPATCHER_ARGS,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_unhandled_update": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_unknown_update": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[business_connection-update20-False-True]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[business_message-update22-True-True]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[callback_query-update6-False-True]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[callback_query-update7-True-True]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[channel_post-update2-True-False]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[chat_boost-update17-True-False]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[chat_join_request-update14-True-True]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[chat_member-update13-True-True]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[chosen_inline_result-update5-False-True]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[deleted_business_messages-update19-True-False]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[edited_business_message-update21-True-True]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[edited_channel_post-update3-True-False]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[edited_message-update1-True-True]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[guest_message-update25-True-True]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[inline_query-update4-False-True]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[managed_bot-update24-False-True]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[message-update0-True-True]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[message_reaction-update15-True-True]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[message_reaction_count-update16-True-False]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[my_chat_member-update12-True-True]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[poll-update10-False-False]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[poll_answer-update11-False-True]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[pre_checkout_query-update9-False-True]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[purchased_paid_media-update23-False-True]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[removed_chat_boost-update18-True-False]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[shipping_query-update8-False-True]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[stopped_message_generation-update27-True-False]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update[subscription-update26-False-True]": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update_with_error": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_updates": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_nested_router_listen_update": EVENT_ROUTER,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_polling[False]": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_polling[True]": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_polling_with_semaphore[False-10-False]": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_polling_with_semaphore[False-None-False]": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_polling_with_semaphore[True-10-True]": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_polling_with_semaphore[True-None-False]": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_process_update_call_request": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_process_update_empty": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_process_update_exception": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_process_update_handled": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_process_with_semaphore": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_process_with_semaphore_exception": DISPATCHER_ARGS,
    _T + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_run_polling": DISPATCHER_ARGS,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_signal_stop_polling": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_silent_call_request": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_specify_updates_calculation": HANDLER_SIGNATURE,
    _T + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_start_polling": DISPATCHER_ARGS,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_stop_polling": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_stop_polling_by_method": DISPATCHER_PRIVATE,
    _T
    + "test_issues/test_1842_rich_block_union_discriminator.py::TestInputRichBlockUnionIsDiscriminated::test_invalid_block_type_raises_discriminated_union_error": VALIDATION,
    _T
    + "test_issues/test_1842_rich_block_union_discriminator.py::TestMethodFieldDiscriminatedUnion::test_input_media_union_field_rejects_unknown_tag": VALIDATION,
    _T
    + "test_issues/test_1842_rich_block_union_discriminator.py::TestRichBlockUnionIsDiscriminated::test_invalid_block_type_raises_discriminated_union_error": VALIDATION,
    _T + "test_filters/test_magic_data.py::TestMagicDataFilter::test_call": MAGIC_DATA_ARGS,
    _T + "test_filters/test_exception.py::TestDispatchException::*": ROUTER_WARNING,
    _T + "test_fsm/test_scene.py::*": MEMORY_RECORD,
    _T + "test_fsm/test_state.py::TestState::test_alone": PRIVATE,
    _T + "test_fsm/test_state.py::TestState::test_alone_with_group": PRIVATE,
    _T + "test_fsm/test_context.py::*": MEMORY_RECORD,
    _T
    + "test_utils/test_text_decorations.py::TestTextDecoration::test_apply_single_entity[decorator35-entity35-![test](tg://emoji?emoji_id=42)]": DECORATIONS,
    _T
    + 'test_utils/test_text_decorations.py::TestTextDecoration::test_apply_single_entity[decorator6-entity6-<pre><code language="language-python">test</code></pre>]': DECORATIONS,
    _T
    + "test_utils/test_text_decorations.py::TestTextDecoration::test_unknown_apply_entity": DECORATIONS,
    _T + "test_webhook/test_aiohttp_server.py::*": WEBHOOK_REQUEST,
    _T
    + "test_filters/test_callback_data.py::TestCallbackData::test_build_filter": MAGIC_FILTER_CLASS,
    _T + "test_filters/test_callback_data.py::TestCallbackData::test_unpack_optional": VALIDATION,
    _T + "test_filters/test_callback_data.py::TestCallbackDataFilter::test_str": MAGIC_FILTER_CLASS,
    _T + "test_flags/test_decorator.py::TestFlagDecorator::test_call_with_function": FLAGS,
    _T + "test_flags/test_decorator.py::TestFlagDecorator::test_with_value": FLAGS,
    _T
    + 'test_utils/test_formatting.py::TestNode::test_render_plain_only[node13-<pre><code language="language-python">test</code></pre>]': DECORATIONS,
}
