"""``tgfast.html``/``tgfast.md`` (text decorations) and ``tgfast.utils.markdown``: the same
markup as aiogram's for the same text and entities, offsets counted in UTF-16 code units,
checked against aiogram and against a reference renderer of our own on generated input."""

from __future__ import annotations

import html as std_html
import re
from typing import Any

import aiogram.types
import aiogram.utils.markdown as a_markdown
import aiogram.utils.text_decorations as a_decorations
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tgfast
from tgfast.types import MessageEntity, User
from tgfast.utils import markdown
from tgfast.utils.text_decorations import html_decoration, markdown_decoration

DECORATIONS = {"html": (html_decoration, a_decorations.html_decoration)}
DECORATIONS["md"] = (markdown_decoration, a_decorations.markdown_decoration)
# the kinds that only wrap their text: the reference renderer can split their markup
WRAPPING = ["bold", "italic", "code", "underline", "strikethrough", "spoiler", "text_link", "pre"]


def both(kind: str, offset: int, length: int, **extra: Any) -> tuple[MessageEntity, Any]:
    fields = {"type": kind, "offset": offset, "length": length, **extra}
    theirs = dict(fields)
    if "user" in extra:
        theirs["user"] = aiogram.types.User(**extra["user"].to_dict())
    return MessageEntity(**fields), aiogram.types.MessageEntity(**theirs)


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def test_top_level_names_are_the_decorations() -> None:
    assert tgfast.html is html_decoration
    assert tgfast.md is markdown_decoration
    assert tgfast.html.bold("x") == "<b>x</b>"
    assert tgfast.md.quote("a.b") == "a\\.b"


CASES = [
    ("plain <&> text.", []),
    ("Hi 👍 there", [("bold", 3, 2, {})]),
    ("👍👍 nested words", [("bold", 0, 16, {}), ("italic", 5, 6, {}), ("code", 12, 4, {})]),
    ("a link here", [("text_link", 2, 4, {"url": "https://example.com/?a=1&b=2"})]),
    ("to you", [("text_mention", 3, 3, {"user": User(id=7, is_bot=False, first_name="A")})]),
    ("print(1)", [("pre", 0, 8, {"language": "python"})]),
    ("print(1)", [("pre", 0, 8, {})]),
    ("secret!", [("spoiler", 0, 6, {}), ("underline", 0, 3, {}), ("strikethrough", 3, 3, {})]),
    ("/start @bot #tag $USD a@b.c +1 http://x", [("bot_command", 0, 6, {}), ("mention", 7, 4, {})]),
    ("e\u0301 quoted\nline two", [("blockquote", 0, 17, {})]),
    ("folded\nquote", [("expandable_blockquote", 0, 12, {})]),
    ("☺ x", [("custom_emoji", 0, 1, {"custom_emoji_id": "123"})]),
    ("at noon", [("date_time", 3, 4, {"unix_time": 1700000000, "date_time_format": "t"})]),
]


@pytest.mark.parametrize("language", ["html", "md"])
@pytest.mark.parametrize(("text", "spec"), CASES)
def test_unparse_matches_aiogram(language: str, text: str, spec: list[Any]) -> None:
    ours, theirs = DECORATIONS[language]
    pairs = [both(kind, offset, length, **extra) for kind, offset, length, extra in spec]
    expected = theirs.unparse(text, [pair[1] for pair in pairs])
    # where aiogram departs from Telegram's documented markup, tgfast follows Telegram:
    # tg://emoji?id=... (aiogram: emoji_id=), <code class="language-..."> (aiogram: language=)
    expected = expected.replace("emoji?emoji_id=", "emoji?id=")
    expected = expected.replace('<code language="', '<code class="')
    assert ours.unparse(text, [pair[0] for pair in pairs]) == expected


def test_an_entity_of_an_unknown_kind_keeps_its_text() -> None:
    entity = MessageEntity(type="from_the_future", offset=0, length=3)
    assert html_decoration.unparse("a<b", [entity]) == "a&lt;b"


def test_crossing_entities_are_split_not_lost() -> None:
    text = "Hi 👍 bold and italic"
    entities = [
        MessageEntity(type="bold", offset=3, length=11),
        MessageEntity(type="italic", offset=6, length=13),
    ]
    rendered = html_decoration.unparse(text, entities)
    assert rendered == "Hi <b>👍 <i>bold and</i></b><i> ital</i>ic"
    assert _strip_html(rendered) == text


def test_offsets_past_the_end_and_inside_a_surrogate_pair_are_clamped() -> None:
    text = "👍x"
    inside_pair = MessageEntity(type="bold", offset=1, length=1)  # ends on the pair's low half
    past_end = MessageEntity(type="italic", offset=2, length=50)
    assert html_decoration.unparse(text, [inside_pair, past_end]) == "👍<i>x</i>"


# -- generated input: well-nested entities over text with emoji, combining marks, markup --

ALPHABET = st.sampled_from(
    ["a", "b", " ", "<", "&", ".", "_", "*", "\n", "👍", "é", "e\u0301", "𝔸"]
)


@st.composite
def texts_with_entities(draw: st.DrawFn) -> tuple[str, list[tuple[str, int, int]]]:
    """A text, and entities nested as Telegram nests them (inner ones inside outer ones),
    on code-unit boundaries that never split a surrogate pair."""
    pieces = draw(st.lists(ALPHABET, min_size=1, max_size=30))
    bounds = [0]
    for piece in pieces:
        bounds.append(bounds[-1] + utf16_len(piece))
    entities: list[tuple[str, int, int]] = []

    def nest(lo: int, hi: int, depth: int) -> None:
        cursor = lo
        while cursor < hi and depth < 4 and draw(st.booleans()):
            start = draw(st.integers(cursor, hi - 1))
            end = draw(st.integers(start + 1, hi))
            entities.append((draw(st.sampled_from(WRAPPING)), bounds[start], bounds[end]))
            nest(start, end, depth + 1)
            cursor = end

    nest(0, len(pieces), 0)
    return "".join(pieces), entities


def reference(decoration: Any, text: str, entities: list[tuple[str, int, int]]) -> str:
    """Markup by events, one code unit at a time: the markup each entity opens before its
    first unit and closes after its last, outer entities opening first."""
    units = text.encode("utf-16-le")
    opens: dict[int, list[str]] = {}
    closes: dict[int, list[str]] = {}
    for index, (kind, start, end) in enumerate(entities):
        entity = MessageEntity(type=kind, offset=start, length=end - start, url="u", language="")
        marker = f"\x00{index}\x00"
        before, after = decoration.apply_entity(entity, marker).split(marker)
        opens.setdefault(start, []).append(before)
        closes.setdefault(end, []).insert(0, after)
    out, run = [], b""
    for pos in range(len(units) // 2 + 1):
        if pos in closes or pos in opens:
            out.append(decoration.quote(run.decode("utf-16-le")))
            run = b""
            out.extend(closes.get(pos, []))
            out.extend(opens.get(pos, []))
        run += units[pos * 2 : pos * 2 + 2]
    out.append(decoration.quote(run.decode("utf-16-le")))
    return "".join(out)


@settings(max_examples=300, deadline=None)
@given(texts_with_entities(), st.sampled_from(["html", "md"]))
def test_unparse_agrees_with_the_reference_and_aiogram(
    case: tuple[str, list[tuple[str, int, int]]], language: str
) -> None:
    text, spec = case
    ours, theirs = DECORATIONS[language]
    pairs = [both(kind, start, end - start, url="u") for kind, start, end in spec]
    rendered = ours.unparse(text, [pair[0] for pair in pairs])
    assert rendered == reference(ours, text, spec)
    assert rendered == theirs.unparse(text, [pair[1] for pair in pairs])
    if language == "html":
        assert _strip_html(rendered) == text


def _strip_html(markup: str) -> str:
    return std_html.unescape(re.sub(r"<[^>]+>", "", markup))


# -- tgfast.utils.markdown: aiogram's helpers -----------------------------------------

HELPERS = ["bold", "italic", "code", "pre", "underline", "strikethrough", "blockquote"]


@pytest.mark.parametrize("name", HELPERS + ["h" + name for name in HELPERS] + ["text"])
def test_markdown_helpers_match_aiogram(name: str) -> None:
    args = ("Hello,", "<world> & *friends*.", 42)
    assert getattr(markdown, name)(*args) == getattr(a_markdown, name)(*args)
    assert getattr(markdown, name)(*args, sep="|") == getattr(a_markdown, name)(*args, sep="|")


def test_link_helpers() -> None:
    assert markdown.hlink("a<b", "https://x/?q=1&r=2") == a_markdown.hlink(
        "a<b", "https://x/?q=1&r=2"
    )
    assert markdown.link("a.b", "https://x/") == a_markdown.link("a.b", "https://x/")
    assert markdown.hide_link("https://x/") == a_markdown.hide_link("https://x/")
    # where aiogram's markup would end early, ours stays well formed
    assert markdown.hlink("t", 'https://x/"onclick') == '<a href="https://x/&quot;onclick">t</a>'
    assert markdown.link("t", "https://x/(a)") == "[t](https://x/(a\\))"
    assert markdown.hspoiler("a<") == "<tg-spoiler>a&lt;</tg-spoiler>"
    assert markdown.spoiler("a.") == "||a\\.||"


@pytest.mark.parametrize("field", ["text", "caption"])
def test_message_html_text_and_md_text_match_aiogram(field: str) -> None:
    body: dict[str, Any] = {
        "message_id": 1,
        "date": 1_700_000_000,
        "chat": {"id": 1, "type": "private"},
        field: "Hi 👍 <you> & *me*.",
        ("entities" if field == "text" else "caption_entities"): [
            {"type": "bold", "offset": 0, "length": 5},
            {"type": "text_link", "offset": 6, "length": 5, "url": "https://x/"},
        ],
    }
    if field == "caption":
        body["photo"] = [{"file_id": "p", "file_unique_id": "p", "width": 1, "height": 1}]
    ours = tgfast.types.Message.model_validate(body)
    theirs = aiogram.types.Message.model_validate(body)
    assert ours.html_text == theirs.html_text
    assert ours.md_text == theirs.md_text
    assert ours.html_text.startswith("<b>Hi 👍</b> <a href")
