"""aiogram's formatting at aiogram's path: a message as a tree of nodes, sent with entities.

``Text("Hi, ", Bold(name), "!").as_kwargs()`` gives ``text``, ``entities`` and
``parse_mode=None``: nothing in ``name`` needs escaping and the bot's default parse mode
cannot reinterpret it. Offsets and lengths count UTF-16 code units, as Telegram does
(an emoji outside the BMP is two), and so do ``len(node)`` and ``node[a:b]``.
``Text.from_entities(message.text, message.entities)`` builds the tree back.
"""

from __future__ import annotations

import builtins
import heapq
import textwrap
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any, ClassVar, TypeVar

from ..types import MessageEntity, User
from ..types.base import keep_extra
from ..types.enums import MessageEntityType
from .text_decorations import _boundary, add_surrogates, html_decoration, markdown_decoration

__all__ = [
    "NODE_TYPES",
    "BlockQuote",
    "Bold",
    "BotCommand",
    "CashTag",
    "Code",
    "CustomEmoji",
    "DateTime",
    "Email",
    "ExpandableBlockQuote",
    "HashTag",
    "Italic",
    "Mention",
    "NodeType",
    "PhoneNumber",
    "Pre",
    "Spoiler",
    "Strikethrough",
    "Text",
    "TextLink",
    "TextMention",
    "Underline",
    "Url",
    "as_key_value",
    "as_line",
    "as_list",
    "as_marked_list",
    "as_marked_section",
    "as_numbered_list",
    "as_numbered_section",
    "as_section",
    "sizeof",
]

NodeType = Any
"""A child of a node: another node, or any value (rendered with ``str()``)."""

_T = TypeVar("_T", bound="Text")
_ENTITY_FIELDS = frozenset(attr for _key, attr, _tp, _req in MessageEntity.__tg_fields__)
_PARAM_FIELDS = tuple(
    attr for _key, attr, _tp, _req in MessageEntity.__tg_fields__
    if attr not in {"type", "offset", "length"}
)  # fmt: skip


def sizeof(value: str) -> int:
    """``value``'s length in UTF-16 code units, the unit of entity offsets."""
    return len(value.encode("utf-16-le")) // 2


class Text(Iterable[NodeType]):
    """A node: its children in order, and (in subclasses) the entity that covers them.

    ``params`` are the entity's other fields (``url``, ``language``...); a plain
    ``Text`` has no entity and only groups its children.
    """

    type: ClassVar[str | None] = None
    __slots__ = ("_body", "_params")

    def __init__(self, *body: NodeType, **params: Any) -> None:
        self._body: tuple[NodeType, ...] = body
        self._params: dict[str, Any] = params

    @classmethod
    def from_entities(
        cls: builtins.type[_T], text: str, entities: list[MessageEntity] | None
    ) -> _T:
        """The tree of ``text`` with ``entities`` (a received message's), such that
        ``render()`` gives them back. Entities that cross (Telegram sends none) are split
        where the outer one ends; offsets inside a surrogate pair move past it."""
        units = add_surrogates(text)
        size = len(units)
        spans = []
        for entity in reversed(entities or ()):
            start = _boundary(units, min(max(entity.offset, 0) * 2, size))
            end = _boundary(units, min((entity.offset + entity.length) * 2, size))
            if end > start:
                spans.append((start, end, entity))
        # outer first; of two over the same range the later one, so that ``render``
        # (inner before outer) lists them in the order given
        spans.sort(key=lambda span: (span[0], -span[1]))
        return cls(*_nodes(units, spans))

    def render(
        self, *, _offset: int = 0, _sort: bool = True, _collect_entities: bool = True
    ) -> tuple[str, list[MessageEntity]]:
        """The text and its entities (sorted by offset, inner before outer at one offset,
        as aiogram orders them)."""
        parts: list[str] = []
        entities: list[MessageEntity] | None = [] if _collect_entities else None
        self._render_into(parts, entities, _offset)
        if entities is None:
            return "".join(parts), []
        if _sort:
            entities.sort(key=lambda entity: entity.offset)
        return "".join(parts), entities

    def _render_into(
        self, parts: list[str], entities: list[MessageEntity] | None, offset: int
    ) -> int:
        """Append this subtree's text to ``parts`` (and its entities, children first);
        return the offset after it."""
        start = offset
        for node in self._body:
            if isinstance(node, Text):
                offset = node._render_into(parts, entities, offset)
            else:
                piece = str(node)
                parts.append(piece)
                offset += sizeof(piece)
        if entities is not None and self.type:
            entities.append(self._render_entity(offset=start, length=offset - start))
        return offset

    def _render_entity(self, *, offset: int, length: int) -> MessageEntity:
        """This node's entity; params that are no field of MessageEntity are sent too
        (as extra fields), as aiogram sends them."""
        if self.type is None:
            raise TypeError(f"{type(self).__name__} has no entity type to render")
        known = {key: value for key, value in self._params.items() if key in _ENTITY_FIELDS}
        entity = MessageEntity(type=self.type, offset=offset, length=length, **known)
        extra = {key: value for key, value in self._params.items() if key not in _ENTITY_FIELDS}
        if extra:
            keep_extra(entity, extra)
        return entity

    def as_kwargs(
        self,
        *,
        text_key: str = "text",
        entities_key: str = "entities",
        replace_parse_mode: bool = True,
        parse_mode_key: str = "parse_mode",
    ) -> dict[str, Any]:
        """Keyword arguments for a send call: ``message.answer(**node.as_kwargs())``.
        ``parse_mode=None`` keeps a bot-wide default parse mode from applying."""
        text, entities = self.render()
        result: dict[str, Any] = {text_key: text, entities_key: entities}
        if replace_parse_mode:
            result[parse_mode_key] = None
        return result

    def as_caption_kwargs(self, *, replace_parse_mode: bool = True) -> dict[str, Any]:
        """``as_kwargs`` for a media caption: ``caption``, ``caption_entities``."""
        return self.as_kwargs(
            text_key="caption",
            entities_key="caption_entities",
            replace_parse_mode=replace_parse_mode,
        )

    def as_poll_question_kwargs(self, *, replace_parse_mode: bool = True) -> dict[str, Any]:
        """``as_kwargs`` for ``send_poll``'s question."""
        return self.as_kwargs(
            text_key="question",
            entities_key="question_entities",
            parse_mode_key="question_parse_mode",
            replace_parse_mode=replace_parse_mode,
        )

    def as_poll_explanation_kwargs(self, *, replace_parse_mode: bool = True) -> dict[str, Any]:
        """``as_kwargs`` for ``send_poll``'s (quiz) explanation."""
        return self.as_kwargs(
            text_key="explanation",
            entities_key="explanation_entities",
            parse_mode_key="explanation_parse_mode",
            replace_parse_mode=replace_parse_mode,
        )

    def as_gift_text_kwargs(self, *, replace_parse_mode: bool = True) -> dict[str, Any]:
        """``as_kwargs`` for ``send_gift``'s text."""
        return self.as_kwargs(
            text_key="text",
            entities_key="text_entities",
            parse_mode_key="text_parse_mode",
            replace_parse_mode=replace_parse_mode,
        )

    def as_html(self) -> str:
        """The tree as Telegram HTML (for a ``parse_mode="HTML"`` text)."""
        return html_decoration.unparse(*self.render())

    def as_markdown(self) -> str:
        """The tree as Telegram MarkdownV2."""
        return markdown_decoration.unparse(*self.render())

    def replace(self: _T, *args: Any, **kwargs: Any) -> _T:
        """A node of this kind with ``args`` as children; ``kwargs`` override params."""
        return type(self)(*args, **{**self._params, **kwargs})

    def as_pretty_string(self, indent: bool = False) -> str:
        """The tree as the Python that builds it; ``indent=True`` puts one child a line."""
        sep = ",\n" if indent else ", "
        args = [
            node.as_pretty_string(indent=indent) if isinstance(node, Text) else repr(node)
            for node in self._body
        ]
        args.extend(f"{key}={value!r}" for key, value in self._params.items() if value is not None)
        inner = sep.join(args)
        if indent:
            inner = textwrap.indent(f"\n{inner}\n", "    ")
        return f"{type(self).__name__}({inner})"

    def __repr__(self) -> str:
        return self.as_pretty_string()

    def __add__(self, other: NodeType) -> Text:
        """Two nodes of one kind and params merge; a plain ``Text`` takes a str in;
        anything else is grouped: ``Text(self, other)``."""
        if isinstance(other, Text) and other.type == self.type and other._params == self._params:
            return type(self)(*self, *other, **self._params)
        if type(self) is Text and isinstance(other, str):
            return Text(*self, other, **self._params)
        return Text(self, other)

    def __iter__(self) -> Iterator[NodeType]:
        return iter(self._body)

    def __len__(self) -> int:
        """The rendered text's length in UTF-16 code units."""
        return sum(_size(node) for node in self._body)

    def __getitem__(self, item: slice) -> Text:
        """The part of the tree from ``item.start`` to ``item.stop`` in UTF-16 code units
        (Python's rules for negative and missing bounds), each node keeping its kind."""
        if not isinstance(item, slice):
            raise TypeError("Can only be sliced")
        if item.step not in (None, 1):
            raise ValueError("a formatting node is sliced without a step")
        if item.start in (None, 0) and item.stop is None:
            return _copy(self, self._body)
        start, stop, _step = item.indices(len(self))
        nodes = []
        position = 0
        for node in self._body:
            node_size = _size(node)
            begin, position = position, position + node_size
            if position <= start:
                continue
            if begin >= stop:
                break
            cut_from, cut_to = max(start - begin, 0), min(stop - begin, node_size)
            if isinstance(node, Text):
                part: NodeType = node[cut_from:cut_to]  # drops empty nodes inside, as aiogram
            elif cut_from == 0 and cut_to == node_size:
                part = node
            else:
                part = _cut(str(node), cut_from, cut_to)
            if _size(part):
                nodes.append(part)
        return _copy(self, tuple(nodes))


def _size(node: NodeType) -> int:
    return len(node) if isinstance(node, Text) else sizeof(str(node))


def _copy(node: _T, body: tuple[NodeType, ...]) -> _T:
    """A node of ``node``'s kind and params with ``body``, past the constructor (which
    may change the text: ``HashTag`` adds a ``#``)."""
    new = type(node).__new__(type(node))
    new._body = body
    new._params = dict(node._params)
    return new


def _cut(text: str, start: int, stop: int) -> str:
    units = add_surrogates(text)
    return units[_boundary(units, start * 2) : _boundary(units, stop * 2)].decode("utf-16-le")


class HashTag(Text):
    """A ``#hashtag``: one string, ``#`` added when it lacks one."""

    type = MessageEntityType.HASHTAG

    def __init__(self, *body: NodeType, **params: Any) -> None:
        super().__init__(_tag_text("Hashtag", "#", body), **params)


class CashTag(Text):
    """A ``$USD`` cashtag: one string, ``$`` added when it lacks one."""

    type = MessageEntityType.CASHTAG

    def __init__(self, *body: NodeType, **params: Any) -> None:
        super().__init__(_tag_text("Cashtag", "$", body), **params)


def _tag_text(kind: str, prefix: str, body: tuple[NodeType, ...]) -> str:
    if len(body) != 1:
        raise ValueError(f"{kind} can contain only one element")
    value = body[0]
    if not isinstance(value, str):
        raise ValueError(f"{kind} can contain only string")
    return value if value.startswith(prefix) else prefix + value


class Mention(Text):
    """An ``@username`` mention (tgfast's: aiogram has no node for it)."""

    type = MessageEntityType.MENTION


class BotCommand(Text):
    """A ``/command``."""

    type = MessageEntityType.BOT_COMMAND


class Url(Text):
    """A URL shown as itself."""

    type = MessageEntityType.URL


class Email(Text):
    """An e-mail address."""

    type = MessageEntityType.EMAIL


class PhoneNumber(Text):
    """A phone number."""

    type = MessageEntityType.PHONE_NUMBER


class Bold(Text):
    """Bold text."""

    type = MessageEntityType.BOLD


class Italic(Text):
    """Italic text."""

    type = MessageEntityType.ITALIC


class Underline(Text):
    """Underlined text."""

    type = MessageEntityType.UNDERLINE


class Strikethrough(Text):
    """Struck-through text."""

    type = MessageEntityType.STRIKETHROUGH


class Spoiler(Text):
    """Text hidden until tapped."""

    type = MessageEntityType.SPOILER


class Code(Text):
    """Inline monospace text."""

    type = MessageEntityType.CODE


class Pre(Text):
    """A monospace block, highlighted as ``language`` when given."""

    type = MessageEntityType.PRE

    def __init__(self, *body: NodeType, language: str | None = None, **params: Any) -> None:
        super().__init__(*body, language=language, **params)


class TextLink(Text):
    """Text that opens ``url``."""

    type = MessageEntityType.TEXT_LINK

    def __init__(self, *body: NodeType, url: str, **params: Any) -> None:
        super().__init__(*body, url=url, **params)


class TextMention(Text):
    """Text that opens ``user``'s profile (for users without a username)."""

    type = MessageEntityType.TEXT_MENTION

    def __init__(self, *body: NodeType, user: User, **params: Any) -> None:
        super().__init__(*body, user=user, **params)


class CustomEmoji(Text):
    """A custom emoji; the body is the emoji shown where it cannot be."""

    type = MessageEntityType.CUSTOM_EMOJI

    def __init__(self, *body: NodeType, custom_emoji_id: str, **params: Any) -> None:
        super().__init__(*body, custom_emoji_id=custom_emoji_id, **params)


class BlockQuote(Text):
    """A block quotation."""

    type = MessageEntityType.BLOCKQUOTE


class ExpandableBlockQuote(Text):
    """A block quotation shown collapsed."""

    type = MessageEntityType.EXPANDABLE_BLOCKQUOTE


class DateTime(Text):
    """A moment each reader sees in their own time zone (a ``datetime`` is sent as its
    Unix time), formatted by ``date_time_format``."""

    type = MessageEntityType.DATE_TIME

    def __init__(
        self,
        *body: NodeType,
        unix_time: int | datetime,
        date_time_format: str | None = None,
        **params: Any,
    ) -> None:
        if isinstance(unix_time, datetime):
            unix_time = int(unix_time.timestamp())
        super().__init__(*body, unix_time=unix_time, date_time_format=date_time_format, **params)


NODE_TYPES: dict[str | None, type[Text]] = {
    node.type: node
    for node in (
        Text, HashTag, CashTag, BotCommand, Url, Email, PhoneNumber, Bold, Italic, Underline,
        Strikethrough, Spoiler, Code, Pre, TextLink, TextMention, CustomEmoji, BlockQuote,
        ExpandableBlockQuote, DateTime, Mention,
    )
}  # fmt: skip
"""The node class of each entity type (``None``: plain ``Text``)."""

_Open = tuple[int, MessageEntity | None, list[NodeType]]
"""An entity being built: where it ends (in bytes of UTF-16-LE), the entity, its nodes."""


def _nodes(units: bytes, spans: list[tuple[int, int, MessageEntity]]) -> list[NodeType]:
    """The nodes of ``units`` with ``spans`` (start, end, entity; sorted outer first), in
    one pass with a stack of open entities: one that crosses the end of the open one is
    split there, its rest taken up again where that one ends."""
    heap = [(start, -end, index, entity) for index, (start, end, entity) in enumerate(spans)]
    root: list[NodeType] = []
    stack: list[_Open] = [(len(units), None, root)]
    pos = 0
    while heap:  # sorted, so already a heap
        start, neg_end, index, entity = heapq.heappop(heap)
        pos = _close(units, stack, pos, start)
        if start > pos:
            stack[-1][2].append(units[pos:start].decode("utf-16-le"))
            pos = start
        end = -neg_end
        if end > stack[-1][0]:  # crosses: the rest comes back where the open one ends
            heapq.heappush(heap, (stack[-1][0], neg_end, index, entity))
            end = stack[-1][0]
        stack.append((end, entity, []))
    pos = _close(units, stack, pos, len(units))
    if pos < len(units):
        root.append(units[pos:].decode("utf-16-le"))
    return root


def _close(units: bytes, stack: list[_Open], pos: int, upto: int) -> int:
    """Finish the open entities that end by ``upto``; return the position after them."""
    while len(stack) > 1 and stack[-1][0] <= upto:
        end, entity, body = stack.pop()
        if end > pos:
            body.append(units[pos:end].decode("utf-16-le"))
            pos = end
        assert entity is not None  # only the root has none
        stack[-1][2].append(_entity_node(entity, body))
    return pos


def _entity_node(entity: MessageEntity, body: list[NodeType]) -> Text:
    """The node for ``entity`` over ``body``, with every field of the entity as a param
    (as aiogram's); a type without a node class gets one made for it."""
    kind = entity.type
    cls = NODE_TYPES.get(kind) or _unknown_node(kind)
    new = cls.__new__(cls)
    new._body = tuple(body)
    new._params = {attr: getattr(entity, attr) for attr in _PARAM_FIELDS}
    if entity._extra:
        new._params.update(entity._extra)
    return new


_UNKNOWN: dict[str, type[Text]] = {}


def _apply_entity(entity: MessageEntity, *nodes: NodeType) -> Text:
    """The node ``entity`` makes of ``nodes`` (aiogram's private name for it, which
    aiogram's own formatting tests import)."""
    return _entity_node(entity, list(nodes))


def _unknown_node(kind: str) -> type[Text]:
    """A node class for an entity type newer than this tgfast, so that it survives
    ``from_entities`` and ``render`` (aiogram drops such entities)."""
    if kind not in _UNKNOWN:
        name = "".join(part.title() for part in kind.split("_")) or "Entity"
        _UNKNOWN[kind] = type(name, (Text,), {"type": kind, "__slots__": ()})
    return _UNKNOWN[kind]


def as_line(*items: NodeType, end: str = "\n", sep: str = "") -> Text:
    """``items`` joined by ``sep``, ended by ``end`` (a new line)."""
    nodes: list[NodeType] = []
    for index, item in enumerate(items):
        if index and sep:
            nodes.append(sep)
        nodes.append(item)
    nodes.append(end)
    return Text(*nodes)


def as_list(*items: NodeType, sep: str = "\n") -> Text:
    """``items`` one a line (joined by ``sep``)."""
    nodes: list[NodeType] = []
    for index, item in enumerate(items):
        if index:
            nodes.append(sep)
        nodes.append(item)
    return Text(*nodes)


def as_marked_list(*items: NodeType, marker: str = "- ") -> Text:
    """``items`` one a line, each after ``marker``."""
    return as_list(*(Text(marker, item) for item in items))


def as_numbered_list(*items: NodeType, start: int = 1, fmt: str = "{}. ") -> Text:
    """``items`` one a line, numbered from ``start`` (each number through ``fmt``)."""
    return as_list(*(Text(fmt.format(number), item) for number, item in enumerate(items, start)))


def as_section(title: NodeType, *body: NodeType) -> Text:
    """``title``, a new line, then ``body``."""
    return Text(title, "\n", *body)


def as_marked_section(title: NodeType, *body: NodeType, marker: str = "- ") -> Text:
    """A section whose body is a marked list."""
    return as_section(title, as_marked_list(*body, marker=marker))


def as_numbered_section(
    title: NodeType, *body: NodeType, start: int = 1, fmt: str = "{}. "
) -> Text:
    """A section whose body is a numbered list."""
    return as_section(title, as_numbered_list(*body, start=start, fmt=fmt))


def as_key_value(key: NodeType, value: NodeType) -> Text:
    """``key:`` in bold, a space, then ``value``."""
    return Text(Bold(key, ":"), " ", value)
