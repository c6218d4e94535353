"""MediaGroupBuilder: the same operations on aiogram's builder and on tgfast's build the
same media list, refuse the same mistakes, and reach Telegram as one album."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import aiogram.types as a_types
import aiogram.utils.media_group as a_mg
import pytest
from aiogram.client.default import Default as ADefault

import tgfast.types as t_types
import tgfast.utils.media_group as t_mg
from tgfast import Bot
from tgfast.testing import FakeTelegram
from tgfast.utils.media_group import MediaGroupBuilder, MediaGroupError


def dump(media: list[Any]) -> list[dict[str, Any]]:
    """The JSON each item becomes: tgfast's ``to_dict``; aiogram's ``model_dump`` without
    the fields left to the bot's defaults (neither sends those)."""
    out = []
    for item in media:
        if isinstance(item, t_types.TelegramObject):
            out.append(item.to_dict())
        else:
            raw = item.model_dump(exclude_none=True)
            out.append({k: v for k, v in raw.items() if not isinstance(v, ADefault)})
    return out


Ops = Callable[[Any, Any], Any]


def album_with_caption(mg: Any, types: Any) -> Any:
    builder = mg.MediaGroupBuilder(caption="Trip")
    builder.add_photo(media="P1", caption="own caption, replaced")
    builder.add(type="photo", media="P2", has_spoiler=True)
    builder.add_video(media="V1", width=640, height=360, duration=5, supports_streaming=True)
    return builder.build()


def caption_entities(mg: Any, types: Any) -> Any:
    bold = [types.MessageEntity(type="bold", offset=0, length=4)]
    builder = mg.MediaGroupBuilder(
        [types.InputMediaDocument(media="D1")], caption="Docs", caption_entities=bold
    )
    builder.add_document(media="D2", disable_content_type_detection=True, parse_mode="HTML")
    return builder.build()


def no_caption(mg: Any, types: Any) -> Any:
    builder = mg.MediaGroupBuilder()
    builder.add_audio(media="A1", performer="X", title="One", parse_mode="HTML", caption="<b>1</b>")
    builder.add(type="audio", media="A2", duration=10)
    return builder.build()


def ten_items(mg: Any, types: Any) -> Any:
    builder = mg.MediaGroupBuilder(caption="ten")
    for n in range(10):
        builder.add_photo(media=f"P{n}")
    return builder.build()


@pytest.mark.parametrize("ops", [album_with_caption, caption_entities, no_caption, ten_items])
def test_build_matches_aiogram(ops: Ops) -> None:
    ours = ops(t_mg, t_types)
    assert dump(ours) == dump(ops(a_mg, a_types))
    assert all(isinstance(item, t_types.InputMedia) for item in ours)


def test_caption_goes_on_a_copy_of_the_first_item() -> None:
    first = t_types.InputMediaPhoto(media="P1", caption="own")
    builder = MediaGroupBuilder([first], caption="album")
    builder.add_photo(media="P2", caption="second keeps its own")
    media = builder.build()
    assert [m.caption for m in media] == ["album", "second keeps its own"]
    assert first.caption == "own"  # the builder's item is untouched: build() twice is the same
    assert dump(builder.build()) == dump(media)


@pytest.mark.parametrize(
    ("mistake", "aiogram_raises"),
    [
        ("eleventh item", True),
        ("not InputMedia", True),
        ("unknown type", True),
        ("no type", True),
    ],
)
def test_refuses_what_aiogram_refuses(mistake: str, aiogram_raises: bool) -> None:
    def run(mg: Any, types: Any) -> None:
        builder = mg.MediaGroupBuilder()
        if mistake == "eleventh item":
            for n in range(11):
                builder.add_photo(media=f"P{n}")
        elif mistake == "not InputMedia":
            mg.MediaGroupBuilder(["P1"])
        elif mistake == "unknown type":
            builder.add(type="sticker", media="S")
        else:
            builder.add(media="S")

    with pytest.raises(ValueError):
        run(a_mg, a_types)
    with pytest.raises(MediaGroupError) as raised:
        run(t_mg, t_types)
    assert isinstance(raised.value, ValueError)


def test_eleventh_item_is_refused_when_added_and_ten_are_kept() -> None:
    builder = MediaGroupBuilder()
    for n in range(10):
        builder.add_photo(media=f"P{n}")
    with pytest.raises(MediaGroupError, match="at most 10"):
        builder.add_photo(media="P10")
    assert len(builder.build()) == 10


def test_extend_adds_items_as_add_does() -> None:
    builder = MediaGroupBuilder()
    builder._extend([t_types.InputMediaPhoto(media="P0"), t_types.InputMediaPhoto(media="P1")])
    assert [item.media for item in builder.build()] == ["P0", "P1"]
    with pytest.raises(MediaGroupError, match="InputMedia"):
        builder._extend(["P2"])  # type: ignore[list-item]


@pytest.mark.parametrize("count", [0, 1])
def test_build_refuses_fewer_than_two(count: int) -> None:
    builder = MediaGroupBuilder()
    for n in range(count):
        builder.add_photo(media=f"P{n}")
    with pytest.raises(MediaGroupError, match=f"2 to 10 items, this one has {count}"):
        builder.build()


def test_signatures_take_aiogram_arguments() -> None:
    for name in ("__init__", "add_photo", "add_video", "add_audio", "add_document", "build"):
        theirs = inspect.signature(getattr(a_mg.MediaGroupBuilder, name)).parameters
        ours = inspect.signature(getattr(MediaGroupBuilder, name)).parameters
        assert list(ours) == list(theirs), name


async def test_send_media_group_posts_one_album(fake: FakeTelegram, bot: Bot) -> None:
    builder = MediaGroupBuilder(caption="Trip")
    builder.add_photo(media="P1")
    builder.add_video(media="V1", width=2)
    sent = await bot.send_media_group(chat_id=5, media=builder.build())
    (call,) = fake.calls_to("sendMediaGroup")
    assert call.params["media"] == dump(album_with_caption(a_mg, a_types))[:1] + [
        {"type": "video", "media": "V1", "width": 2}
    ]
    assert [m.caption for m in sent] == ["Trip", None]
    assert len({m.media_group_id for m in sent}) == 1
    assert sent[0].media_group_id is not None
