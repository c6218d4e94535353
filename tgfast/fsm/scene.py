"""Scenes (aiogram's ``aiogram.fsm.scene``): a conversation step as a class.

A ``Scene`` subclass is one FSM state (``class Quiz(Scene, state="quiz")``) with its
handlers (``@on.message(F.text)``) and its actions (``@on.message.enter()``, ``.leave()``,
``.exit()``, ``.back()``), run when the conversation enters or leaves it. A
``SceneRegistry`` turns each scene into a router whose observers filter on the scene's
state, and adds a middleware that gives handlers ``scenes`` (a ``ScenesManager``);
scene handlers get ``self.wizard`` (a ``SceneWizard``) to move on: ``goto``, ``back``,
``retake``, ``exit``. The history that ``back`` uses is kept in the FSM storage
(``tgfast.fsm.history``).

Scenes are plain routers, handlers and middlewares: a bot without a registry runs
none of this.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import Any, ClassVar, TypeAlias

from .._logging import get_logger
from ..dispatcher.flags import extract_flags_from_object
from ..dispatcher.router import Router
from ..errors import SceneError
from ..types.update_kinds import event_of
from .context import FSMContext
from .filter import StateFilter
from .history import HistoryManager, HistoryRecord
from .state import State

__all__ = [
    "ActionContainer",
    "After",
    "HandlerContainer",
    "HistoryManager",
    "HistoryRecord",
    "ObserverDecorator",
    "ObserverMarker",
    "OnMarker",
    "Scene",
    "SceneAction",
    "SceneConfig",
    "SceneError",
    "SceneException",
    "SceneHandlerWrapper",
    "SceneRegistry",
    "SceneWizard",
    "ScenesManager",
    "get_reversed_mro_unique_attrs_resolver",
    "get_sorted_mro_attrs_resolver",
    "inspect_members_resolver",
    "on",
]

log = get_logger("tgfast.scene")

SceneTarget: TypeAlias = "type[Scene] | State | str | None"
AttrsResolver: TypeAlias = Callable[[type], Iterator[tuple[str, Any]]]

# on a scene method, under aiogram's names: the HandlerContainers it is, and its actions
_HANDLERS = "__aiogram_handler__"
_ACTIONS = "__aiogram_action__"  # {SceneAction: {kind: _Call}}


SceneException = SceneError
"""aiogram's name for ``tgfast.errors.SceneError``."""


class SceneAction(Enum):
    """What happens to a scene: the actions its ``on.<kind>.<action>()`` handlers answer."""

    enter = auto()
    leave = auto()
    exit = auto()
    back = auto()


_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
_NAMED = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


class _Call:
    """A scene method with the data names it takes, read once from its signature:
    ``call(scene, event, **data)`` calls ``callback(scene, event, **those of the data
    it declares)``."""

    __slots__ = ("callback", "names")

    def __init__(self, callback: Callable[..., Any]) -> None:
        self.callback = callback
        params = list(inspect.signature(callback).parameters.values())
        self.names: tuple[str, ...] | None = None  # None: it takes **kwargs, all the data
        if not any(p.kind is p.VAR_KEYWORD for p in params):
            positional = [p for p in params if p.kind in _POSITIONAL][2:]  # past scene, event
            keywords = [p for p in params if p.kind is p.KEYWORD_ONLY]
            self.names = tuple(p.name for p in positional + keywords if p.kind in _NAMED)

    async def call(self, scene: Scene, event: Any, /, **data: Any) -> Any:
        if self.names is None:
            result = self.callback(scene, event, **data)
        else:
            result = self.callback(scene, event, **{n: data[n] for n in self.names if n in data})
        if inspect.isawaitable(result):
            result = await result
        return result


@dataclass(slots=True)
class After:
    """What a scene handler does once it has returned: ``After.goto(Scene)``,
    ``After.exit()``, ``After.back()`` (``on.message(..., after=...)``)."""

    action: SceneAction
    scene: SceneTarget = None

    @classmethod
    def exit(cls) -> After:
        return cls(SceneAction.exit)

    @classmethod
    def back(cls) -> After:
        return cls(SceneAction.back)

    @classmethod
    def goto(cls, scene: SceneTarget) -> After:
        return cls(SceneAction.enter, scene)


@dataclass(slots=True)
class HandlerContainer:
    """One handler of a scene: the observer (update kind) it goes to, its filters and
    what to do after it."""

    name: str
    handler: Callable[..., Any]
    filters: tuple[Any, ...]
    after: After | None = None


class ActionContainer:
    """A move of the wizard (enter a scene, leave, exit, back), run by ``execute``."""

    __slots__ = ("action", "filters", "name", "target")

    def __init__(
        self, name: str, filters: tuple[Any, ...], action: SceneAction, target: SceneTarget = None
    ) -> None:
        self.name = name
        self.filters = filters
        self.action = action
        self.target = target

    async def execute(self, wizard: SceneWizard) -> None:
        if self.action is SceneAction.enter and self.target is not None:
            await wizard.goto(self.target)
        elif self.action is SceneAction.leave:
            await wizard.leave()
        elif self.action is SceneAction.exit:
            await wizard.exit()
        elif self.action is SceneAction.back:
            await wizard.back()


class ObserverDecorator:
    """What ``on.message(...)`` returns: marks a scene method as a handler (or, with an
    ``action``, as the scene's enter/leave/exit/back handler for this kind). As a class
    attribute (``start = on.message(F.text == "go", after=After.goto(Next))``) it is a
    handler that does nothing but its ``after``."""

    __slots__ = ("action", "after", "filters", "name")

    def __init__(
        self,
        name: str,
        filters: tuple[Any, ...],
        action: SceneAction | None = None,
        after: After | None = None,
    ) -> None:
        self.name = name
        self.filters = filters
        self.action = action
        self.after = after

    def __call__(self, target: Callable[..., Any]) -> Callable[..., Any]:
        if not inspect.isfunction(target):
            raise TypeError(f"on.{self.name}(...) decorates a function or method, not {target!r}")
        if self.action is None:
            handlers = target.__dict__.setdefault(_HANDLERS, [])
            handlers.append(HandlerContainer(self.name, target, self.filters, self.after))
        else:
            actions = target.__dict__.setdefault(_ACTIONS, {})
            actions.setdefault(self.action, {})[self.name] = _Call(target)
        return target

    def leave(self) -> ActionContainer:
        return ActionContainer(self.name, self.filters, SceneAction.leave)

    def enter(self, target: type[Scene]) -> ActionContainer:
        return ActionContainer(self.name, self.filters, SceneAction.enter, target)

    def exit(self) -> ActionContainer:
        return ActionContainer(self.name, self.filters, SceneAction.exit)

    def back(self) -> ActionContainer:
        return ActionContainer(self.name, self.filters, SceneAction.back)


class ObserverMarker:
    """``on.message``: ``on.message(*filters, after=...)`` marks a handler,
    ``on.message.enter()`` (``.leave()``, ``.exit()``, ``.back()``) an action."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, *filters: Any, after: After | None = None) -> ObserverDecorator:
        return ObserverDecorator(self.name, filters, after=after)

    def enter(self, *filters: Any) -> ObserverDecorator:
        return ObserverDecorator(self.name, filters, action=SceneAction.enter)

    def leave(self) -> ObserverDecorator:
        return ObserverDecorator(self.name, (), action=SceneAction.leave)

    def exit(self) -> ObserverDecorator:
        return ObserverDecorator(self.name, (), action=SceneAction.exit)

    def back(self) -> ObserverDecorator:
        return ObserverDecorator(self.name, (), action=SceneAction.back)

    def __repr__(self) -> str:
        return f"on.{self.name}"


class OnMarker:
    """``on``: one ``ObserverMarker`` per update kind (aiogram's, and the kinds tgfast
    routes that aiogram's marker lacks)."""

    message = ObserverMarker("message")
    edited_message = ObserverMarker("edited_message")
    channel_post = ObserverMarker("channel_post")
    edited_channel_post = ObserverMarker("edited_channel_post")
    business_connection = ObserverMarker("business_connection")
    business_message = ObserverMarker("business_message")
    edited_business_message = ObserverMarker("edited_business_message")
    deleted_business_messages = ObserverMarker("deleted_business_messages")
    guest_message = ObserverMarker("guest_message")
    message_reaction = ObserverMarker("message_reaction")
    message_reaction_count = ObserverMarker("message_reaction_count")
    inline_query = ObserverMarker("inline_query")
    chosen_inline_result = ObserverMarker("chosen_inline_result")
    callback_query = ObserverMarker("callback_query")
    shipping_query = ObserverMarker("shipping_query")
    pre_checkout_query = ObserverMarker("pre_checkout_query")
    purchased_paid_media = ObserverMarker("purchased_paid_media")
    poll = ObserverMarker("poll")
    poll_answer = ObserverMarker("poll_answer")
    my_chat_member = ObserverMarker("my_chat_member")
    chat_member = ObserverMarker("chat_member")
    chat_join_request = ObserverMarker("chat_join_request")
    chat_boost = ObserverMarker("chat_boost")
    removed_chat_boost = ObserverMarker("removed_chat_boost")
    managed_bot = ObserverMarker("managed_bot")
    subscription = ObserverMarker("subscription")
    stopped_message_generation = ObserverMarker("stopped_message_generation")


on = OnMarker()


def get_sorted_mro_attrs_resolver(cls: type) -> Iterator[tuple[str, Any]]:
    """A class's attributes (the most derived value of each), ordered by where each
    was first defined: the class's own new ones first, then its bases' in MRO order,
    each in definition order. This is the order a scene's handlers are tried in."""
    values: dict[str, Any] = {}
    where: dict[str, tuple[int, int]] = {}
    for depth, base in enumerate(inspect.getmro(cls)):
        for index, (name, value) in enumerate(vars(base).items()):
            values.setdefault(name, value)
            where[name] = (depth, index)
    for name in sorted(values, key=where.__getitem__):
        yield name, values[name]


def get_reversed_mro_unique_attrs_resolver(cls: type) -> Iterator[tuple[str, Any]]:
    """Each attribute once, from ``object`` down to ``cls``: a name comes where a base
    first defined it, with that base's value (an override in a subclass is not seen)."""
    seen: set[str] = set()
    for base in reversed(inspect.getmro(cls)):
        for name, value in vars(base).items():
            if name not in seen:
                seen.add(name)
                yield name, value


def inspect_members_resolver(cls: type) -> Iterator[tuple[str, Any]]:
    """Every attribute, inherited ones too, in alphabetical order (``inspect.getmembers``):
    the order in which aiogram's first scenes tried their handlers."""
    return iter(inspect.getmembers(cls))


@dataclass
class SceneConfig:
    """What ``Scene.__init_subclass__`` read from a scene class."""

    state: str | None
    handlers: list[HandlerContainer]
    actions: dict[SceneAction, dict[str, Any]]
    reset_data_on_enter: bool | None = None
    reset_history_on_enter: bool | None = None
    callback_query_without_state: bool | None = None
    attrs_resolver: AttrsResolver = field(default=get_sorted_mro_attrs_resolver)


async def _empty_handler(*args: Any, **kwargs: Any) -> None:
    """The handler of an ``on.<kind>(...)`` class attribute: only its ``after`` runs."""


class SceneHandlerWrapper:
    """A scene's handler as the router sees it: makes the scene (with its wizard) for
    the update, calls the method, then runs its ``after``."""

    __slots__ = ("after", "call", "handler", "scene")

    def __init__(
        self, scene: type[Scene], handler: Callable[..., Any], after: After | None = None
    ) -> None:
        self.scene = scene
        self.handler = handler
        self.call = _Call(handler)
        self.after = after

    async def __call__(self, event: Any, **kwargs: Any) -> Any:
        try:
            state: FSMContext = kwargs["state"]
            scenes: ScenesManager = kwargs["scenes"]
        except KeyError as missing:
            raise SceneException(
                f"scene handlers need {missing.args[0]!r} in their data: is the FSM enabled "
                "and the scene added through a SceneRegistry?"
            ) from None
        update_type, _event = event_of(kwargs["event_update"])
        scenes.data = {**scenes.data, **kwargs}
        wizard = SceneWizard(self.scene.__scene_config__, scenes, state, update_type, event, kwargs)
        scene = self.scene(wizard=wizard)
        result = await self.call.call(scene, event, **kwargs)
        if self.after is not None:
            await ActionContainer("after", (), self.after.action, self.after.scene).execute(wizard)
        return result

    def __repr__(self) -> str:
        after = f", after={self.after}" if self.after else ""
        return f"SceneHandlerWrapper({self.scene}, {self.handler}{after})"


_CONFIG_KEYWORDS = (
    "reset_data_on_enter", "reset_history_on_enter", "callback_query_without_state",
    "attrs_resolver",
)  # fmt: skip


class Scene:
    """One step of a conversation: subclass it with ``state=`` and mark its methods
    with ``on``; a ``SceneRegistry`` makes it a router.

    Class keywords: ``state`` (the FSM state of the scene; None is the scene of "no
    state"), ``reset_data_on_enter`` and ``reset_history_on_enter`` (clear the FSM
    data / the scene history on entering), ``callback_query_without_state`` (its
    callback query handlers run whatever the state). The last three and
    ``attrs_resolver`` are inherited from a base scene unless given.
    """

    __scene_config__: ClassVar[SceneConfig]

    def __init__(self, wizard: SceneWizard) -> None:
        self.wizard = wizard
        self.wizard.scene = self

    def __init_subclass__(cls, **kwargs: Any) -> None:
        state = kwargs.pop("state", None)
        options = {name: kwargs.pop(name, None) for name in _CONFIG_KEYWORDS}
        super().__init_subclass__(**kwargs)
        for base in cls.__bases__:
            parent = getattr(base, "__scene_config__", None)
            if not (issubclass(base, Scene) and parent):
                continue
            for name, value in options.items():
                if value is None:
                    options[name] = getattr(parent, name)
        resolver: AttrsResolver = options.pop("attrs_resolver") or get_sorted_mro_attrs_resolver
        handlers: list[HandlerContainer] = []
        actions: dict[SceneAction, dict[str, Any]] = {}
        for _name, value in resolver(cls):
            handlers.extend(getattr(value, _HANDLERS, ()))
            if isinstance(value, ObserverDecorator):
                handlers.append(
                    HandlerContainer(value.name, _empty_handler, value.filters, value.after)
                )
            for action, by_kind in getattr(value, _ACTIONS, {}).items():
                actions.setdefault(action, {}).update(by_kind)
        cls.__scene_config__ = SceneConfig(
            state=state.state if isinstance(state, State) else state,
            handlers=handlers,
            actions=actions,
            attrs_resolver=resolver,
            **options,
        )

    @classmethod
    def add_to_router(cls, router: Router) -> None:
        """Register the scene's handlers on ``router``, each kind filtered on the
        scene's state (callback queries too, unless ``callback_query_without_state``)."""
        config = cls.__scene_config__
        kinds: dict[str, None] = {}
        for handler in config.handlers:
            router.observers[handler.name].register(
                SceneHandlerWrapper(cls, handler.handler, after=handler.after),
                *handler.filters,
                flags=extract_flags_from_object(handler.handler),
            )
            kinds[handler.name] = None
        for kind in kinds:
            if kind == "callback_query" and config.callback_query_without_state:
                continue
            router.observers[kind].filter(StateFilter(config.state))

    @classmethod
    def as_router(cls, name: str | None = None) -> Router:
        """A new router with the scene's handlers."""
        if name is None:
            name = (
                f"Scene '{cls.__module__}.{cls.__qualname__}' "
                f"for state {cls.__scene_config__.state!r}"
            )
        router = Router(name=name)
        cls.add_to_router(router)
        return router

    @classmethod
    def as_handler(cls, **handler_kwargs: Any) -> Callable[..., Any]:
        """A handler that enters this scene: ``router.message.register(
        Quiz.as_handler(), Command("quiz"))``; ``handler_kwargs`` go to its enter
        handler (with the update's data)."""

        async def enter_to_scene_handler(event: Any, scenes: ScenesManager, **data: Any) -> None:
            await scenes.enter(cls, **{**handler_kwargs, **data})

        return enter_to_scene_handler


class SceneWizard:
    """``self.wizard`` in a scene's handlers: moves between scenes, reads and writes
    the conversation's data."""

    def __init__(
        self,
        scene_config: SceneConfig,
        manager: ScenesManager,
        state: FSMContext,
        update_type: str,
        event: Any,
        data: dict[str, Any],
    ) -> None:
        self.scene_config = scene_config
        self.manager = manager
        self.state = state
        self.update_type = update_type
        self.event = event
        self.data = data
        self.scene: Scene | None = None

    async def enter(self, **kwargs: Any) -> None:
        """Make this scene the current state (clearing data and history if the scene
        says so) and run its enter handler for this update's kind."""
        log.debug("scene %r: enter", self.scene_config.state)
        if self.scene_config.reset_data_on_enter:
            await self.state.set_data({})
        if self.scene_config.reset_history_on_enter:
            await self.manager.history.clear()
        await self.state.set_state(self.scene_config.state)
        await self._on_action(SceneAction.enter, **kwargs)

    async def leave(self, _with_history: bool = True, **kwargs: Any) -> None:
        """Run the leave handler, after a snapshot into the history (for ``back``)."""
        log.debug("scene %r: leave", self.scene_config.state)
        if _with_history:
            await self.manager.history.snapshot()
        await self._on_action(SceneAction.leave, **kwargs)

    async def exit(self, **kwargs: Any) -> None:
        """End the scene: forget the history, run the exit handler, and enter the
        scene of "no state" (or leave every state when there is none)."""
        log.debug("scene %r: exit", self.scene_config.state)
        await self.manager.history.clear()
        await self._on_action(SceneAction.exit, **kwargs)
        await self.manager.enter(None, _check_active=False, **kwargs)

    async def back(self, **kwargs: Any) -> None:
        """Leave (without a snapshot) and enter the scene of the latest snapshot, with
        its data."""
        log.debug("scene %r: back", self.scene_config.state)
        await self.leave(_with_history=False, **kwargs)
        previous = await self.manager.history.rollback()
        await self.manager.enter(previous, _check_active=False, **kwargs)

    async def retake(self, **kwargs: Any) -> None:
        """Leave and enter this scene again (``kwargs`` go to its enter handler)."""
        if self.scene_config.state is None:
            raise SceneException("retake() needs a scene with a state")
        await self.goto(self.scene_config.state, **kwargs)

    async def goto(self, scene: type[Scene] | State | str, **kwargs: Any) -> None:
        """Leave this scene (a snapshot goes to the history) and enter ``scene``."""
        await self.leave(**kwargs)
        await self.manager.enter(scene, _check_active=False, **kwargs)

    async def _on_action(self, action: SceneAction, **kwargs: Any) -> bool:
        if self.scene is None:
            raise SceneException("the wizard has no scene")
        call = self.scene_config.actions.get(action, {}).get(self.update_type)
        if call is None:
            log.debug(
                "scene %r: no %s handler for %s", self.scene_config.state, action.name,
                self.update_type,
            )  # fmt: skip
            return False
        await call.call(self.scene, self.event, **{**self.data, **kwargs})
        return True

    async def set_data(self, data: Mapping[str, Any]) -> None:
        """Replace the conversation's data."""
        await self.state.set_data(data=data)

    async def get_data(self) -> dict[str, Any]:
        """The conversation's data."""
        return await self.state.get_data()

    async def get_value(self, key: str, default: Any = None) -> Any:
        """One value of the data, ``default`` when it is not there."""
        return await self.state.get_value(key, default)

    async def update_data(
        self, data: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Merge ``data`` and ``kwargs`` (``data`` wins) into the data; all of it."""
        if data:
            kwargs.update(data)
        return await self.state.update_data(data=kwargs)

    async def clear_data(self) -> None:
        """Empty the data (the state stays)."""
        await self.set_data({})


class ScenesManager:
    """``scenes`` in a handler's data: enters and closes scenes for this update's
    conversation; ``history`` is its ``HistoryManager``."""

    def __init__(
        self,
        registry: SceneRegistry,
        update_type: str,
        event: Any,
        state: FSMContext,
        data: dict[str, Any],
    ) -> None:
        self.registry = registry
        self.update_type = update_type
        self.event = event
        self.state = state
        self.data = data
        self._history: HistoryManager | None = None

    @property
    def history(self) -> HistoryManager:
        """The conversation's scene history (made when first used: most updates in a
        scene never touch it)."""
        if self._history is None:
            self._history = HistoryManager(self.state)
        return self._history

    @history.setter
    def history(self, history: HistoryManager) -> None:
        self._history = history

    async def _get_scene(self, scene_type: SceneTarget) -> Scene:
        cls = self.registry.get(scene_type)
        wizard = SceneWizard(
            cls.__scene_config__, self, self.state, self.update_type, self.event, self.data
        )
        return cls(wizard=wizard)

    async def _get_active_scene(self) -> Scene | None:
        try:
            return await self._get_scene(await self.state.get_state())
        except SceneException:
            return None

    async def enter(
        self, scene_type: SceneTarget, _check_active: bool = True, **kwargs: Any
    ) -> None:
        """Enter ``scene_type`` (a Scene class, its State or state string; None: the
        scene of "no state", or no state at all), exiting the active scene first."""
        if kwargs:
            self.data = {**self.data, **kwargs}
        if _check_active:
            active = await self._get_active_scene()
            if active is not None:
                await active.wizard.exit(**kwargs)
        try:
            scene = await self._get_scene(scene_type)
        except SceneException:
            if scene_type is not None:
                raise
            await self.state.set_state(None)
        else:
            await scene.wizard.enter(**kwargs)

    async def close(self, **kwargs: Any) -> None:
        """Exit the active scene, if there is one."""
        scene = await self._get_active_scene()
        if scene is not None:
            await scene.wizard.exit(**kwargs)


class SceneRegistry:
    """The scenes of an application, by state; one per application.

    Made on a router (usually the Dispatcher), it adds the middleware that gives
    handlers there ``scenes``; ``add`` registers scenes and, with ``register_on_add``,
    includes each one's router into that router.
    """

    def __init__(self, router: Router, register_on_add: bool = True) -> None:
        self.router = router
        self.register_on_add = register_on_add
        self._scenes: dict[str | None, type[Scene]] = {}
        self._setup_middleware(router)

    def _setup_middleware(self, router: Router) -> None:
        if getattr(router, "is_dispatcher", False):  # one middleware for every update
            router.update.outer_middleware(self._update_middleware)
        else:
            for observer in router.observers.values():
                observer.outer_middleware(self._middleware)

    async def _update_middleware(self, handler: Any, event: Any, data: dict[str, Any]) -> Any:
        state = data.get("state")
        if state is not None:
            kind, inner = event_of(event)
            data["scenes"] = ScenesManager(self, kind, inner, state, data)
        return await handler(event, data)

    async def _middleware(self, handler: Any, event: Any, data: dict[str, Any]) -> Any:
        state = data.get("state")
        if state is not None:
            kind, _inner = event_of(data["event_update"])
            data["scenes"] = ScenesManager(self, kind, event, state, data)
        return await handler(event, data)

    def add(self, *scenes: type[Scene], router: Router | None = None) -> None:
        """Register ``scenes``; include their routers into ``router`` if given, else
        into the registry's router when ``register_on_add``."""
        if not scenes:
            raise ValueError("add() needs at least one scene")
        for scene in scenes:
            state = scene.__scene_config__.state
            if state in self._scenes:
                raise SceneException(f"a scene with state {state!r} is registered already")
            self._scenes[state] = scene
            if router is not None:
                router.include_router(scene.as_router())
            elif self.register_on_add:
                self.router.include_router(scene.as_router())

    def register(self, *scenes: type[Scene]) -> None:
        """Register ``scenes`` and include their routers into the registry's router."""
        self.add(*scenes, router=self.router)

    def get(self, scene: SceneTarget) -> type[Scene]:
        """The registered scene of a Scene class, a State or a state string (None: the
        scene of "no state"); ``SceneException`` when there is none."""
        if inspect.isclass(scene) and issubclass(scene, Scene):
            scene = scene.__scene_config__.state
        if isinstance(scene, State):
            scene = scene.state
        if scene is not None and not isinstance(scene, str):
            raise SceneException(f"a scene is a Scene class, a State or a str, not {scene!r}")
        try:
            return self._scenes[scene]
        except KeyError:
            raise SceneException(f"Scene {scene!r} is not registered") from None
