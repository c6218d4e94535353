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
    "calls aiogram's private CallbackData._encode_value, which tgfast does not pack "
    "through: it encodes by field type, fixed when the class is made"
)
INTERNALS = (
    "reads and sets an aiogram observer's private _handler (the holder of its router-wide "
    "filters): tgfast keeps them in observer.filters"
)
UTIL_INTERNALS = "aiogram's internal helpers (utils.mixins, utils.dataclass)"
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
    "builds RedisStorage or RedisEventIsolation on a mock (or object()) standing for "
    "redis-py's client and asserts which of its methods were called: tgfast's storage sends "
    "its commands through its own RESP client, configured from the redis-py client given, "
    "in its own key layout unless given a key_builder (the real-server tests of the same "
    "suite pass)"
)
DOCS = "links into aiogram's own documentation: tgfast's docs_url links into tgfast's"
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
    "MediaGroupBuilder refuses to build a group Telegram refuses (fewer than 2 items), "
    "instead of an answer 400 after the upload"
)
ERROR_CONSTRUCTORS = (
    "aiogram's error constructors (DetailedAiogramError(message=)): tgfast's errors take "
    "(method, error_code, description)"
)
HANDLER_SIGNATURE = (
    "registers handlers that take no event: tgfast refuses one when it is registered "
    "(aiogram takes it and raises TypeError at the first update it gets)"
)
UNBOUND_METHOD = "awaiting a method object bound to no bot raises tgfast's TgfastError"
DISPATCHER_PRIVATE = (
    "patches or calls the Dispatcher's private polling steps (_listen_updates, "
    "_process_update, _polling, _process_with_semaphore, _stop_signal, _running_lock, "
    "_signal_stop_polling) or reads its own update handler (_listen_update): tgfast polls "
    "with its Poller (tgfast.server.polling), whose steps are not these"
)
FROZEN = (
    "registers a handler on a router after the dispatcher has handled an update: tgfast "
    "compiles its routes at the first update and refuses later changes (RouterFrozenError)"
)
LOG_TEXT = "matches the wording of aiogram's log records and error messages"
SUBCLASS_FIELDS = (
    "declares fields by annotating a subclass of a Bot API type (ChatMemberCustom(ChatMember) "
    "with is_member: bool | None = None): pydantic makes them fields; tgfast's types take "
    "theirs from the Bot API spec, so the class default hides the value given"
)
SCENE_ASSERT = (
    "expects the AssertionError of an assert in aiogram's scenes (retake() of a scene "
    "without a state, the update middleware given a Message): tgfast raises SceneError for "
    "the first, as python -O strips asserts; the second only a misregistered middleware meets"
)
SCENE_AWAIT = (
    "SceneHandlerWrapper.__await__ returning the wrapper itself, which breaks the awaitable "
    "protocol (awaiting it raises TypeError)"
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
    "checks that MagicData hands its magic filter the magic-filter package's AttrDict, "
    "with extra positional arguments (value[0]): tgfast's F is its own and handler data "
    "comes by keyword"
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
DISPATCHER_ARGS = (
    "run_polling of aiogram's MockedBot with no answer queued: its session raises "
    "IndexError for getUpdates, which tgfast's poller lets through (a session's own bug "
    "stops polling; aiogram logs it and polls again)"
)
WEBHOOK_REQUEST = (
    "expects every webhook answer as a multipart form (aiogram writes them so): tgfast "
    "answers JSON, and calls a method that uploads a file instead of answering with it, "
    "so that its result and any error are known"
)
WEBHOOK_BACKGROUND = (
    "patches Dispatcher.silent_call_request to see a background handler's method called: "
    "tgfast's update processor calls it itself (logged with the update id, counted in "
    "/metrics)"
)

_T = "tests/"
EXCLUDED: dict[str, str] = {
    _T + "test_fsm/storage/test_mongo_mock.py::*": MONGO,
    _T + "test_fsm/storage/test_pymongo_mock.py::*": MONGO,
    _T
    + "test_filters/test_chat_member_updated.py::TestMemberStatusMarker::test_check[test-True-member3-True]": SUBCLASS_FIELDS,
    _T
    + "test_filters/test_chat_member_updated.py::TestMemberStatusTransition::test_check[transition2-old2-new2-True]": SUBCLASS_FIELDS,
    _T
    + "test_filters/test_chat_member_updated.py::TestMemberStatusTransition::test_check[transition4-old4-new4-True]": SUBCLASS_FIELDS,
    _T + "test_filters/test_callback_data.py::TestCallbackData::test_encode_value_*": PRIVATE,
    _T
    + "test_dispatcher/test_event/test_telegram.py::TestTelegramEventObserver::test_register_global_filters": INTERNALS,
    _T + "test_utils/test_mixins.py::*": UTIL_INTERNALS,
    _T + "test_utils/test_dataclass.py::*": UTIL_INTERNALS,
    _T + "test_utils/test_link.py::TestLink::test_docs": DOCS,
    _T + "test_utils/test_link.py::TestLink::test_fragment": DOCS,
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
    _T + "test_api/test_types/test_exception.py::*": ERROR_CONSTRUCTORS,
    _T
    + "test_api/test_methods/test_base.py::TestTelegramMethodCall::test_async_emit_unsuccessful": UNBOUND_METHOD,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_concurrent_updates_limit": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_exception_handler_catch_exceptions": FROZEN,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_feed_webhook_update_fast_process_error": LOG_TEXT,
    _T + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_init": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_unhandled_update": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_unknown_update": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_update_with_error": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_listen_updates": DISPATCHER_PRIVATE,
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
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_process_with_semaphore_exception": DISPATCHER_PRIVATE,
    _T + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_run_polling": DISPATCHER_ARGS,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_signal_stop_polling": DISPATCHER_PRIVATE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_specify_updates_calculation": HANDLER_SIGNATURE,
    _T
    + "test_dispatcher/test_dispatcher.py::TestDispatcher::test_start_polling": DISPATCHER_PRIVATE,
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
    _T + "test_fsm/test_scene.py::TestSceneHandlerWrapper::test_await": SCENE_AWAIT,
    _T
    + "test_fsm/test_scene.py::TestSceneHandlerWrapper::test_scene_handler_wrapper_call_without_scene_context": LOG_TEXT,
    _T
    + "test_fsm/test_scene.py::TestSceneRegistry::test_scene_registry_add_scene_no_scenes": LOG_TEXT,
    _T
    + "test_fsm/test_scene.py::TestSceneRegistry::test_scene_registry_get_scene_if_scene_state_is_not_str": LOG_TEXT,
    _T
    + "test_fsm/test_scene.py::TestSceneRegistry::test_scene_registry_update_middleware_not_update": SCENE_ASSERT,
    _T + "test_fsm/test_scene.py::TestSceneWizard::test_scene_wizard_on_action_no_scene": LOG_TEXT,
    _T
    + "test_fsm/test_scene.py::TestSceneWizard::test_scene_wizard_retake_exception": SCENE_ASSERT,
    _T
    + "test_utils/test_text_decorations.py::TestTextDecoration::test_apply_single_entity[decorator35-entity35-![test](tg://emoji?emoji_id=42)]": DECORATIONS,
    _T
    + 'test_utils/test_text_decorations.py::TestTextDecoration::test_apply_single_entity[decorator6-entity6-<pre><code language="language-python">test</code></pre>]': DECORATIONS,
    _T
    + "test_utils/test_text_decorations.py::TestTextDecoration::test_unknown_apply_entity": DECORATIONS,
    _T
    + "test_webhook/test_aiohttp_server.py::TestSimpleRequestHandler::test_reply_into_webhook_file": WEBHOOK_REQUEST,
    _T
    + "test_webhook/test_aiohttp_server.py::TestSimpleRequestHandler::test_reply_into_webhook_text": WEBHOOK_REQUEST,
    _T
    + "test_webhook/test_aiohttp_server.py::TestSimpleRequestHandler::test_reply_into_webhook_background": WEBHOOK_BACKGROUND,
    _T
    + "test_filters/test_callback_data.py::TestCallbackData::test_build_filter": MAGIC_FILTER_CLASS,
    _T + "test_filters/test_callback_data.py::TestCallbackData::test_unpack_optional": VALIDATION,
    _T + "test_filters/test_callback_data.py::TestCallbackDataFilter::test_str": MAGIC_FILTER_CLASS,
    _T
    + 'test_utils/test_formatting.py::TestNode::test_render_plain_only[node13-<pre><code language="language-python">test</code></pre>]': DECORATIONS,
}
