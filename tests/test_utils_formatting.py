"""``tgfast.utils.formatting``: the same text, entities and markup as aiogram's formatting
for the same tree, offsets in UTF-16 code units; checked node by node, helper by helper,
and on generated trees against aiogram and against references of our own.

Where tgfast departs from aiogram on purpose, a test below says so and why:
slicing cuts strings in UTF-16 units too (aiogram cuts them in code points), markup
follows Telegram's documented syntax (see tests/test_utils_text_decorations.py), and
``from_entities`` keeps entities aiogram loses (mentions, unknown kinds, crossing or
empty entities, same-offset entities listed inner first), ``as_html``/``as_markdown``
keep the text of nested nodes that start together (aiogram's repeat it), and the list
helpers take no items without an IndexError.
"""

from __future__ import annotations

from collections import Counter
from types import ModuleType
from typing import Any

import aiogram.types
import aiogram.utils.formatting as theirs
import aiogram.utils.text_decorations as a_decorations
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import tgfast.types
import tgfast.utils.formatting as ours
from tgfast.client.bot import Bot
from tgfast.defaults import DefaultBotProperties
from tgfast.testing import FakeTelegram, updates
from tgfast.types import Message, MessageEntity
from tgfast.utils.formatting import (
    Bold,
    HashTag,
    Italic,
    Mention,
    Text,
    TextLink,
    as_key_value,
    as_list,
    as_marked_section,
)

USER = {"id": 7, "is_bot": False, "first_name": "Ada"}

Spec = Any  # a str, or (node class name, params, [child specs])


def build(module: ModuleType, spec: Spec) -> Any:
    """The tree ``spec`` describes, made of ``module``'s nodes (aiogram's or tgfast's)."""
    if not isinstance(spec, tuple):
        return spec
    name, params, children = spec
    params = dict(params)
    if "user" in params:
        types = aiogram.types if module is theirs else tgfast.types
        params["user"] = types.User(**params["user"])
    return getattr(module, name)(*(build(module, child) for child in children), **params)


def dumped(entities: list[Any]) -> list[dict[str, Any]]:
    """Entities of either framework as the JSON objects Telegram receives."""
    return [
        e.to_dict()
        if isinstance(e, MessageEntity)
        else e.model_dump(mode="json", exclude_none=True)
        for e in entities
    ]


def aiogram_markup(markup: str) -> str:
    """aiogram's markup where it departs from Telegram's documented syntax, written as
    Telegram documents it (tgfast's text decorations follow Telegram)."""
    markup = markup.replace("emoji?emoji_id=", "emoji?id=")
    return markup.replace('<code language="', '<code class="')


def assert_same(spec: Spec) -> None:
    """``spec`` built on both frameworks renders to the same text, entities and markup."""
    mine, reference = build(ours, spec), build(theirs, spec)
    text, entities = mine.render()
    their_text, their_entities = reference.render()
    assert text == their_text
    assert dumped(entities) == dumped(their_entities)
    assert len(mine) == len(reference)
    assert mine.as_html() == aiogram_markup(reference.as_html())
    assert mine.as_markdown() == aiogram_markup(reference.as_markdown())


EMOJI_TEXT = "héllo 👍 e\u0301 <b>&</b> *x_y* 𝔸"
NODES: list[tuple[str, dict[str, Any]]] = [
    ("Text", {}),
    ("Bold", {}),
    ("Italic", {}),
    ("Underline", {}),
    ("Strikethrough", {}),
    ("Spoiler", {}),
    ("Code", {}),
    ("Pre", {}),
    ("Pre", {"language": "python"}),
    # no ")" in the URL: MarkdownV2 needs it escaped there, which aiogram does not do
    ("TextLink", {"url": "https://example.com/?a=1&b=2"}),
    ("TextMention", {"user": USER}),
    ("CustomEmoji", {"custom_emoji_id": "5368324170671202286"}),
    ("BlockQuote", {}),
    ("ExpandableBlockQuote", {}),
    ("BotCommand", {}),
    ("Url", {}),
    ("Email", {}),
    ("PhoneNumber", {}),
    ("DateTime", {"unix_time": 1_700_000_000, "date_time_format": "wDT"}),
    ("DateTime", {"unix_time": 1_700_000_000}),
]


@pytest.mark.parametrize(("name", "params"), NODES, ids=lambda v: str(v)[:30])
def test_each_node_renders_as_aiogram(name: str, params: dict[str, Any]) -> None:
    inner = ("Bold", {}, ["in 👍"]) if name not in {"Code", "Pre"} else "code 👍"
    spec = ("Text", {}, ["before 👍 ", (name, params, [EMOJI_TEXT, inner, 42]), " after"])
    assert_same(spec)
    node = build(ours, (name, params, ["x"]))
    reference = build(theirs, (name, params, ["x"]))
    assert type(node).type == type(reference).type
    if name != "TextMention":  # a User's repr differs between the frameworks
        assert repr(node) == reference.as_pretty_string()
        assert node.as_pretty_string(indent=True) == reference.as_pretty_string(indent=True)


@pytest.mark.parametrize("tag", [("HashTag", "#"), ("CashTag", "$")])
def test_tags_as_aiogram(tag: tuple[str, str]) -> None:
    name, prefix = tag
    assert_same(("Text", {}, ["see ", (name, {}, ["python"]), " ", (name, {}, [prefix + "py"])]))
    for bad in (["a", "b"], [1]):
        with pytest.raises(ValueError) as mine:
            getattr(ours, name)(*bad)
        with pytest.raises(ValueError) as reference:
            getattr(theirs, name)(*bad)
        assert str(mine.value) == str(reference.value)


def test_params_that_are_no_entity_field_are_sent_as_aiogram_sends_them() -> None:
    assert_same(("Bold", {"custom": 1}, ["x"]))
    assert_same(("Text", {"ignored": 1}, ["x"]))  # a plain Text has no entity to carry it


def test_date_time_takes_a_datetime() -> None:
    from datetime import datetime, timezone

    moment = datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    (entity,) = ours.DateTime("then", unix_time=moment).render()[1]
    assert entity.unix_time == int(moment.timestamp())
    assert_same(("DateTime", {"unix_time": moment}, ["then"]))


KWARGS = [
    ("as_kwargs", {}),
    ("as_kwargs", {"text_key": "t", "entities_key": "e", "parse_mode_key": "p"}),
    ("as_kwargs", {"replace_parse_mode": False}),
    ("as_caption_kwargs", {}),
    ("as_caption_kwargs", {"replace_parse_mode": False}),
    ("as_poll_question_kwargs", {}),
    ("as_poll_explanation_kwargs", {}),
    ("as_gift_text_kwargs", {}),
]


@pytest.mark.parametrize(("method", "options"), KWARGS, ids=lambda v: str(v)[:30])
def test_kwargs_as_aiogram(method: str, options: dict[str, Any]) -> None:
    spec = ("Text", {}, ["Hi 👍 ", ("Bold", {}, [("Italic", {}, ["you"])]), "!"])
    mine = getattr(build(ours, spec), method)(**options)
    reference = getattr(build(theirs, spec), method)(**options)
    assert mine.keys() == reference.keys()
    for key, value in reference.items():
        if isinstance(value, list):
            assert dumped(mine[key]) == dumped(value), key
        else:
            assert mine[key] == value, key
    assert None in mine.values() or options.get("replace_parse_mode") is False


HELPERS: list[tuple[str, tuple[Spec, ...], dict[str, Any]]] = [
    ("as_line", ("a", ("Bold", {}, ["👍"]), 3), {}),
    ("as_line", ("a", ("Bold", {}, ["👍"]), 3), {"sep": ", ", "end": "."}),
    ("as_line", ("only",), {"sep": ", "}),
    ("as_list", ("a", ("Italic", {}, ["👍 b"]), "c"), {}),
    ("as_list", ("a", "b"), {"sep": " | "}),
    ("as_marked_list", ("a", ("Bold", {}, ["b"])), {}),
    ("as_marked_list", ("a", "b"), {"marker": "• "}),
    ("as_numbered_list", ("a", "b", "c"), {}),
    ("as_numbered_list", ("a", "b"), {"start": 9, "fmt": "{})\t"}),
    ("as_section", (("Bold", {}, ["Title"]), "body ", "more"), {}),
    ("as_marked_section", (("Bold", {}, ["Title 👍"]), "one", "two"), {"marker": "* "}),
    ("as_numbered_section", ("Title", "one", ("Code", {}, ["two"])), {"start": 0}),
    ("as_key_value", ("Name", ("Italic", {}, ["Ada 👩‍💻"])), {}),
]


@pytest.mark.parametrize(("name", "args", "options"), HELPERS, ids=lambda v: str(v)[:30])
def test_helpers_as_aiogram(name: str, args: tuple[Spec, ...], options: dict[str, Any]) -> None:
    mine = getattr(ours, name)(*(build(ours, arg) for arg in args), **options)
    reference = getattr(theirs, name)(*(build(theirs, arg) for arg in args), **options)
    assert repr(mine) == reference.as_pretty_string()
    assert mine.render()[0] == reference.render()[0]
    assert dumped(mine.render()[1]) == dumped(reference.render()[1])
    assert mine.as_html() == reference.as_html()


def test_lists_of_nothing_are_empty_text_not_an_error() -> None:
    """aiogram raises IndexError for ``as_list()``: an empty list is just no text here."""
    assert as_list().render() == ("", [])
    assert ours.as_line(sep=", ").render() == ("\n", [])
    assert ours.as_marked_list().render() == ("", [])


ADDITIONS: list[tuple[Spec, Spec]] = [
    (("Bold", {}, ["a"]), ("Bold", {}, ["b"])),  # one kind, merged
    (("Bold", {}, ["a"]), ("Italic", {}, ["b"])),  # grouped
    (("Text", {}, ["a"]), "b 👍"),  # a plain Text takes a str in
    (("Bold", {}, ["a"]), "b"),
    (("TextLink", {"url": "u"}, ["a"]), ("TextLink", {"url": "u"}, ["b"])),
    (("TextLink", {"url": "u"}, ["a"]), ("TextLink", {"url": "v"}, ["b"])),
    (("Text", {}, ["a"]), ("Text", {}, ["b"])),
]


@pytest.mark.parametrize(("left", "right"), ADDITIONS, ids=lambda v: str(v)[:30])
def test_addition_as_aiogram(left: Spec, right: Spec) -> None:
    mine = build(ours, left) + build(ours, right)
    reference = build(theirs, left) + build(theirs, right)
    assert repr(mine) == reference.as_pretty_string()
    assert dumped(mine.render()[1]) == dumped(reference.render()[1])


def test_nested_nodes_that_start_together_keep_their_text() -> None:
    """aiogram lists the entities of a node after those of its children; its own
    decorations then take the inner one for the outer and repeat text
    (``<i><b>ab</b></i>b`` for this tree). Here the markup is the tree's."""
    node = Bold(Italic("a"), "b")
    assert node.as_html() == "<b><i>a</i>b</b>"
    assert node.as_markdown() == "*_\ra_\rb*"
    assert dumped(node.render()[1]) == dumped(theirs.Bold(theirs.Italic("a"), "b").render()[1])
    assert theirs.Bold(theirs.Italic("a"), "b").as_html() == "<i><b>ab</b></i>b"  # aiogram's slip


def test_iteration_replace_and_len() -> None:
    node = TextLink("a", Bold("👍"), url="u")
    assert list(node) == ["a", node._body[1]]
    assert len(node) == 3 and len(Text()) == 0 and not Text()
    replaced = node.replace("b", url="v")
    assert isinstance(replaced, TextLink) and replaced.render()[1][0].url == "v"


# -- slicing in UTF-16 code units -------------------------------------------------------


def test_slicing_as_aiogram_on_text_within_the_bmp() -> None:
    spec = ("Text", {}, ["ab", ("Bold", {}, ["cd", ("Italic", {}, ["e\u0301f"])]), "gh"])
    mine, reference = build(ours, spec), build(theirs, spec)
    size = len(mine)
    for start in range(size + 1):
        for stop in range(start, size + 1):
            part, their_part = mine[start:stop], reference[start:stop]
            assert part.render()[0] == their_part.render()[0], (start, stop)
            assert dumped(part.render()[1]) == dumped(their_part.render()[1]), (start, stop)
    assert repr(mine[:]) == reference[:].as_pretty_string()
    assert repr(mine[1:5]) == reference[1:5].as_pretty_string()


def test_slicing_counts_utf16_units_in_strings_too() -> None:
    """aiogram slices a string child by code points while counting its length in UTF-16
    units, so a slice of a text with emoji gets the wrong characters; here both count
    UTF-16 units, and a cut inside a surrogate pair moves past the pair."""
    node = Text("a", "👍b", Bold("c😀d"))
    assert node[1:3].render()[0] == "👍"
    assert theirs.Text("a", "👍b")[1:3].render()[0] == "👍b"  # aiogram's slip
    assert node[2:4].render()[0] == "b"  # starts inside the pair: the pair is left out
    assert node[0:2].render()[0] == "a👍"  # ends inside the pair: the pair is kept
    assert node[4:7].render() == ("c😀", [MessageEntity(type="bold", offset=0, length=3)])
    assert node[-3:].render()[0] == "😀d"
    assert node[-2:].render()[0] == "d"  # -2 is the pair's low half


def test_slicing_keeps_a_node_exact() -> None:
    """aiogram rebuilds a slice through the constructor, so ``HashTag("#abc")[1:3]``
    gains a second ``#``; a slice here is exactly the text it covers."""
    assert HashTag("#abc")[1:3].render()[0] == "ab"
    assert theirs.HashTag("#abc")[1:3].render()[0] == "#ab"
    assert Text("a", 42, "b")[1:2].render()[0] == "4"  # aiogram: TypeError (len of an int)
    with pytest.raises(TypeError, match="sliced"):
        Text("a")[0]  # type: ignore[index]
    with pytest.raises(ValueError, match="step"):
        Text("abc")[::2]


# -- from_entities ------------------------------------------------------------------------


def test_from_entities_round_trips_a_received_message() -> None:
    body = updates.message("Hi 👍 bold italic link /start")
    body["entities"] = [
        {"type": "bold", "offset": 6, "length": 11},
        {"type": "italic", "offset": 11, "length": 6},
        {"type": "text_link", "offset": 18, "length": 4, "url": "https://x/"},
        {"type": "text_mention", "offset": 18, "length": 4, "user": USER},
        {"type": "bot_command", "offset": 23, "length": 6},
    ]
    message = Message.model_validate(body)
    assert message.text is not None and message.entities is not None
    node = Text.from_entities(message.text, message.entities)
    assert node.render() == (message.text, message.entities)
    assert node.as_html() == message.html_text
    their_message = aiogram.types.Message.model_validate(body)
    reference = theirs.Text.from_entities(message.text, their_message.entities or [])
    # aiogram nests two entities over one range the other way round: the same markup
    assert sorted(dumped(node.render()[1]), key=str) == sorted(
        dumped(reference.render()[1]), key=str
    )
    assert repr(node) == (
        "Text('Hi 👍 ', Bold('bold ', Italic('italic')), ' ', TextMention(TextLink('link', "
        "url='https://x/'), user=User(id=7, is_bot=False, first_name='Ada')), ' ', "
        "BotCommand('/start'))"
    )
    assert Text.from_entities("plain", None).render() == ("plain", [])


def test_from_entities_keeps_what_aiogram_loses() -> None:
    """aiogram has no node for ``mention`` nor for a kind newer than itself and drops
    those entities; it duplicates text for an empty entity or for entities that start
    together listed inner first. Here each comes back as it was (an empty entity, which
    Telegram never sends, is left out)."""
    text = "ab @cd ef"
    mention = MessageEntity(type="mention", offset=3, length=3)
    future = MessageEntity(type="from_the_future", offset=0, length=2)
    node = Text.from_entities(text, [future, mention])
    assert node.render() == (text, [future, mention])
    assert isinstance(node._body[2], Mention)
    assert theirs.Text.from_entities(text, [_aiogram(mention)]).render()[1] == []

    inner_first = [
        MessageEntity(type="italic", offset=0, length=2),
        MessageEntity(type="bold", offset=0, length=5),
    ]
    assert Text.from_entities("abcde", inner_first).render() == ("abcde", inner_first)
    their_text = theirs.Text.from_entities("abcde", [_aiogram(e) for e in inner_first]).render()[0]
    assert their_text != "abcde"  # aiogram's slip
    empty = MessageEntity(type="bold", offset=1, length=0)
    assert Text.from_entities("abc", [empty]).render() == ("abc", [])


def test_from_entities_splits_crossing_entities_and_clamps_offsets() -> None:
    text = "Hi 👍 bold and italic"
    crossing = [
        MessageEntity(type="bold", offset=3, length=11),
        MessageEntity(type="italic", offset=6, length=13),
    ]
    node = Text.from_entities(text, crossing)
    rendered, entities = node.render()
    assert rendered == text
    assert [(e.type, e.offset, e.length) for e in entities] == [
        ("bold", 3, 11),
        ("italic", 6, 8),
        ("italic", 14, 5),
    ]
    inside_pair = MessageEntity(type="bold", offset=1, length=1)
    past_end = MessageEntity(type="italic", offset=2, length=50)
    assert Text.from_entities("👍x", [inside_pair, past_end]).render() == (
        "👍x",
        [MessageEntity(type="italic", offset=2, length=1)],
    )


def telegram_order(entities: list[Any]) -> list[Any]:
    """Entities as Telegram lists them: by offset, the outer of two first."""
    return sorted(entities, key=lambda e: (e.offset, -e.length))


def _aiogram(entity: MessageEntity) -> Any:
    return aiogram.types.MessageEntity(**entity.to_dict())


# -- generated trees ----------------------------------------------------------------------

ALPHABET = ["a", "b", " ", "<", "&", ".", "_", "*", "\n", "é", "e\u0301", "👍", "𝔸", "👩‍💻"]
BMP_ALPHABET = [char for char in ALPHABET if all(ord(c) <= 0xFFFF for c in char)]
KINDS: list[tuple[str, dict[str, Any]]] = [
    ("Text", {}),
    ("Bold", {}),
    ("Italic", {}),
    ("Underline", {}),
    ("Strikethrough", {}),
    ("Spoiler", {}),
    ("Code", {}),
    ("TextLink", {"url": "https://e.x/"}),
    ("TextMention", {"user": USER}),
    ("CustomEmoji", {"custom_emoji_id": "1"}),
    ("Url", {}),
    ("DateTime", {"unix_time": 1}),
]


def trees(alphabet: list[str], min_leaf: int = 0) -> st.SearchStrategy[Spec]:
    leaves = st.lists(st.sampled_from(alphabet), min_size=min_leaf, max_size=4).map("".join)

    def extend(children: st.SearchStrategy[Spec]) -> st.SearchStrategy[Spec]:
        return st.tuples(st.sampled_from(KINDS), st.lists(children, max_size=4)).map(
            lambda pair: (pair[0][0], pair[0][1], pair[1])
        )

    return st.recursive(leaves, extend, max_leaves=12).map(
        lambda spec: spec if isinstance(spec, tuple) else ("Text", {}, [spec])
    )


def entity_key(entity: dict[str, Any]) -> tuple[int, int, str]:
    return entity["offset"], entity["length"], entity["type"]


@settings(max_examples=300, deadline=None)
@given(trees(ALPHABET))
def test_generated_trees_render_as_aiogram(spec: Spec) -> None:
    mine, reference = build(ours, spec), build(theirs, spec)
    text, entities = mine.render()
    assert (text, dumped(entities)) == (reference.render()[0], dumped(reference.render()[1]))
    assert len(mine) == len(reference) == len(text.encode("utf-16-le")) // 2
    if "user" not in str(spec):  # a User's repr differs between the frameworks
        assert repr(mine) == reference.as_pretty_string()
        assert mine.as_pretty_string(indent=True) == reference.as_pretty_string(indent=True)
    # markup: aiogram's decorations given the entities in Telegram's order (its own
    # as_html() gives them inner first and garbles nested nodes that start together,
    # see test_nested_nodes_that_start_together_keep_their_text) and none empty
    if all(entity.length for entity in entities):
        their_entities = telegram_order(reference.render()[1])
        for language in ("html", "markdown"):
            decoration = getattr(a_decorations, f"{language}_decoration")
            expected = aiogram_markup(decoration.unparse(text, their_entities))
            assert getattr(mine, f"as_{language}")() == expected


@settings(max_examples=300, deadline=None)
@given(trees(ALPHABET))
def test_generated_trees_round_trip_through_from_entities(spec: Spec) -> None:
    text, entities = build(ours, spec).render()
    kept = [entity for entity in entities if entity.length]  # Telegram sends no empty one
    node = Text.from_entities(text, kept)
    again, again_entities = node.render()
    assert again == text
    assert Counter(map(str, dumped(again_entities))) == Counter(map(str, dumped(kept)))
    # aiogram's from_entities on the order Telegram sends (offset, then outer first)
    reference = theirs.Text.from_entities(text, [_aiogram(e) for e in telegram_order(kept)])
    assert reference.render()[0] == text
    assert sorted(dumped(again_entities), key=entity_key) == sorted(
        dumped(reference.render()[1]), key=entity_key
    )


def cut_units(text: str, start: int, stop: int) -> tuple[str, int, int]:
    """``text[start:stop]`` in UTF-16 units, a cut inside a surrogate pair moved past it;
    also the two cuts, so moved."""
    units = text.encode("utf-16-le")

    def move(pos: int) -> int:
        if (
            pos < len(units) // 2
            and 0xDC00 <= int.from_bytes(units[pos * 2 : pos * 2 + 2], "little") <= 0xDFFF
        ):
            return pos + 1
        return pos

    a, b = move(start), move(stop)
    return units[a * 2 : b * 2].decode("utf-16-le"), a, b


@settings(max_examples=300, deadline=None)
@given(trees(ALPHABET), st.data())
def test_generated_slices_cut_text_and_entities_in_utf16_units(spec: Spec, data: Any) -> None:
    node = build(ours, spec)
    text, entities = node.render()
    size = len(node)
    start = data.draw(st.integers(0, size))
    stop = data.draw(st.integers(start, size))
    expected_text, a, b = cut_units(text, start, stop)
    part = node[start:stop]
    part_text, part_entities = part.render()
    assert part_text == expected_text
    assert type(part) is type(node)
    clipped = Counter(
        (e.type, max(e.offset, a) - a, min(e.offset + e.length, b) - max(e.offset, a))
        for e in entities
        if min(e.offset + e.length, b) > max(e.offset, a)
    )
    assert Counter((e.type, e.offset, e.length) for e in part_entities if e.length) == clipped


@settings(max_examples=200, deadline=None)
@given(trees(BMP_ALPHABET, min_leaf=1), st.data())
def test_generated_slices_as_aiogram_within_the_bmp(spec: Spec, data: Any) -> None:
    mine, reference = build(ours, spec), build(theirs, spec)
    size = len(mine)
    start = data.draw(st.integers(0, size))
    stop = data.draw(st.integers(start, size))
    assume(start < stop)
    part, their_part = mine[start:stop], reference[start:stop]
    assert part.render()[0] == their_part.render()[0]
    assert dumped(part.render()[1]) == dumped(their_part.render()[1])


# -- sending ------------------------------------------------------------------------------


async def test_answer_sends_text_and_entities_without_the_default_parse_mode(
    fake: FakeTelegram,
) -> None:
    default = DefaultBotProperties(parse_mode="HTML")
    async with Bot(fake.token, server=fake.url, rate_limiter=None, default=default) as bot:
        message = Message.model_validate(updates.message("hi"), context={"bot": bot})
        content = as_list(
            as_marked_section(Bold("Menu 👍"), "<one>", Italic("two")),
            as_key_value("Link", TextLink("here", url="https://x/")),
        )
        await message.answer(**content.as_kwargs())
        await message.answer("<b>control</b>")  # no as_kwargs: the default applies
        await message.answer_photo("PHOTO", **Text("A ", Bold("cat")).as_caption_kwargs())
        await message.answer_poll(
            **Text("Pick ", Bold("one")).as_poll_question_kwargs(),
            options=["a", "b"],
        )
        await bot.send_gift("GIFT", user_id=1, **Text("For ", Bold("you")).as_gift_text_kwargs())
    first, control = fake.calls_to("sendMessage")
    text, entities = content.render()
    assert first.params["text"] == text
    assert first.params["entities"] == [entity.to_dict() for entity in entities]
    assert first.params["entities"][0] == {"type": "bold", "offset": 0, "length": 7}
    assert "parse_mode" not in first.params
    assert control.params["parse_mode"] == "HTML"
    (photo,) = fake.calls_to("sendPhoto")
    assert photo.params["caption"] == "A cat"
    assert photo.params["caption_entities"] == [{"type": "bold", "offset": 2, "length": 3}]
    assert "parse_mode" not in photo.params
    (poll,) = fake.calls_to("sendPoll")
    assert poll.params["question"] == "Pick one"
    assert poll.params["question_entities"] == [{"type": "bold", "offset": 5, "length": 3}]
    assert "question_parse_mode" not in poll.params
    (gift,) = fake.calls_to("sendGift")
    assert gift.params["text_entities"] == [{"type": "bold", "offset": 4, "length": 3}]
    assert "text_parse_mode" not in gift.params


# -- names and signatures -----------------------------------------------------------------


def _public(module: ModuleType) -> dict[str, Any]:
    return {
        name: value
        for name, value in vars(module).items()
        if not name.startswith("_")
        and (getattr(value, "__module__", None) == module.__name__ or name in {"NODE_TYPES"})
    }


def test_every_public_name_of_aiogram_is_here() -> None:
    missing = set(_public(theirs)) - set(dir(ours))
    assert not missing
    assert set(theirs.NODE_TYPES) <= set(ours.NODE_TYPES)
    for kind, node in theirs.NODE_TYPES.items():
        assert ours.NODE_TYPES[kind].__name__ == node.__name__
    assert set(ours.__all__) <= set(dir(ours))


def _callables() -> list[str]:
    out = []
    for name, value in _public(theirs).items():
        if isinstance(value, type):
            out.extend(
                f"{name}.{attr}"
                for attr, member in vars(value).items()
                if callable(member) or isinstance(member, classmethod)
                if not attr.startswith("_") or attr in {"__init__", "__add__", "__getitem__"}
            )
        elif callable(value):
            out.append(name)
    return sorted(out)


@pytest.mark.parametrize("path", _callables())
def test_signatures_take_aiogram_parameters(path: str) -> None:
    import inspect

    def resolve(module: ModuleType) -> Any:
        value: Any = module
        for part in path.split("."):
            value = getattr(value, part)
        return value

    theirs_params = inspect.signature(resolve(theirs)).parameters
    ours_params = inspect.signature(resolve(ours)).parameters
    assert list(ours_params) == list(theirs_params)
    for name, param in theirs_params.items():
        assert ours_params[name].kind == param.kind, name
        assert ours_params[name].default == param.default, name


@st.composite
def any_entities(draw: st.DrawFn) -> tuple[str, list[MessageEntity]]:
    """A text and entities in any order, crossing or not, some past the end or inside a
    surrogate pair: what a hand-built list may hold."""
    text = "".join(draw(st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=12)))
    size = len(text.encode("utf-16-le")) // 2
    entities = [
        MessageEntity(type=kind, offset=offset, length=length)
        for kind, offset, length in draw(
            st.lists(
                st.tuples(
                    st.sampled_from(["bold", "italic", "code", "mention", "spoiler"]),
                    st.integers(0, size),
                    st.integers(0, size + 2),
                ),
                max_size=6,
            )
        )
    ]
    return text, entities


def coverage(text: str, entities: list[MessageEntity]) -> list[Counter[str]]:
    """For each UTF-16 unit of ``text``, the entity types over it (a surrogate pair's
    halves counted as the pair: a cut inside one moves past it)."""
    units = text.encode("utf-16-le")
    size = len(units) // 2

    def move(pos: int) -> int:
        pos = min(pos, size)
        low = pos < size and 0xDC <= units[pos * 2 + 1] <= 0xDF
        return pos + 1 if low else pos

    out: list[Counter[str]] = [Counter() for _ in range(size)]
    for entity in entities:
        for pos in range(move(entity.offset), move(entity.offset + entity.length)):
            out[pos][entity.type] += 1
    return out


@settings(max_examples=300, deadline=None)
@given(any_entities())
def test_from_entities_keeps_every_unit_of_any_entity_list(
    case: tuple[str, list[MessageEntity]],
) -> None:
    text, entities = case
    node = Text.from_entities(text, entities)
    rendered, again = node.render()
    assert rendered == text
    assert coverage(text, again) == coverage(text, entities)
    assert all(entity.length > 0 for entity in again)
