"""Unknown fields read as attributes (``message.future_field``, as aiogram's models keep
them) through a ``__getattr__`` that a class gets only once one of its objects holds
some: a class with ``__getattr__`` sends every attribute read of its objects down
CPython's slow path, so the classes that never meet unknown fields must stay without.
The class-level checks run in a fresh interpreter, where no other test gave extras."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
import tempfile
import textwrap
from types import ModuleType
from typing import Any

import pytest

import tgfast.methods as tm
import tgfast.types as tt
from tgfast.types.base import TelegramObject

UPDATE = (
    b'{"update_id":1,"message":{"message_id":2,"date":3,'
    b'"from":{"id":4,"is_bot":false,"first_name":"A"},'
    b'"chat":{"id":4,"type":"private","colour":"mauve"},"text":"hi","future":[1]}}'
)


def _fresh(code: str) -> None:
    """Run ``code`` in a new interpreter: its assertions see no other test's classes.
    Not from the repository's root, whose ``tgfast/`` (``-c`` puts the working directory
    first on the path) would stand for the build installed in a fresh clone's venv."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True, text=True, timeout=60, cwd=tempfile.gettempdir(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok", done.stdout


def test_the_base_class_has_no_getattr() -> None:
    assert "__getattr__" not in vars(TelegramObject)


def test_decoded_unknown_fields_read_as_attributes(decoder: ModuleType) -> None:
    update = decoder.decode_update(UPDATE)
    assert update.message.future == [1]
    assert update.message.chat.colour == "mauve"
    assert update.message.text == "hi"  # fields still read as fields
    with pytest.raises(AttributeError) as caught:
        _ = update.message.chat.shade
    assert str(caught.value) == "'Chat' object has no attribute 'shade'"
    assert caught.value.name == "shade"


def test_an_unknown_union_variant_reads_its_fields(decoder: ModuleType) -> None:
    reaction = decoder.convert(tt.ReactionType, {"type": "hologram", "depth": 3})
    assert type(reaction) is tt.ReactionType and reaction.depth == 3


def test_constructed_unknown_fields_read_as_attributes() -> None:
    button = tt.InlineKeyboardButton(text="a", callback_data="b", sparkle=True)
    assert button.sparkle is True
    method = tm.SendMessage(chat_id=1, text="hi", future_flag=2)
    assert method.future_flag == 2
    copied = tt.User(id=1, is_bot=False, first_name="A").model_copy(update={"mood": "ok"})
    assert copied.mood == "ok"


@pytest.mark.parametrize(
    "make", [copy.copy, copy.deepcopy, lambda o: pickle.loads(pickle.dumps(o))]
)
def test_copies_keep_unknown_fields_readable(make: Any) -> None:
    user = tt.User(id=1, is_bot=False, first_name="A", mood="ok")
    again = make(user)
    assert again == user and again.mood == "ok" and again.first_name == "A"


@pytest.mark.parametrize("cls", [tt.User, tt.Message, tm.SendMessage, tt.ReactionType])
def test_a_missing_attribute_names_the_class_and_the_name(cls: type[TelegramObject]) -> None:
    obj = cls.__new__(cls)
    obj._extra = None
    with pytest.raises(AttributeError, match=rf"^'{cls.__name__}' object has no attribute 'nope'$"):
        _ = obj.nope  # type: ignore[attr-defined]
    with pytest.raises(AttributeError, match=r"no attribute '_private'$"):
        _ = obj._private  # type: ignore[attr-defined]


def test_ordinary_updates_give_no_class_a_getattr(decoder: ModuleType) -> None:
    """The property that makes attribute reads fast: decoding ordinary updates (and
    building what a handler answers with) leaves every class without ``__getattr__``;
    one with unknown fields gives it to its own class only."""
    _fresh(f"""
        import tgfast.methods as tm
        import tgfast.types as tt
        from {decoder.__name__} import decode, decode_update
        from tgfast.methods import _methods
        from tgfast.types import _types

        def hooked():
            classes = [*vars(_types).values(), *vars(_methods).values()]
            return {{c.__name__ for c in classes if isinstance(c, type)
                    and any("__getattr__" in vars(k) for k in c.__mro__)}}

        for i in range(3):
            update = decode_update({UPDATE.replace(b',"colour":"mauve"', b"").replace(b',"future":[1]', b"")!r})
            _ = update.message.text, update.message.chat.id
        decode(tt.Message, b'{{"message_id":1,"date":2,"chat":{{"id":3,"type":"group"}}}}')
        markup = tt.InlineKeyboardMarkup(
            inline_keyboard=[[tt.InlineKeyboardButton(text="a", callback_data="b")]])
        tm.SendMessage(chat_id=1, text="x", reply_markup=markup).build()
        update.message.model_copy(update={{"text": "y"}})
        assert hooked() == set(), hooked()
        decode_update({UPDATE!r})
        assert hooked() == {{"Chat", "Message"}}, hooked()
        print("ok")
    """)


def test_a_subclass_gets_it_alone_and_inherits_it() -> None:
    _fresh("""
        import tgfast.types as tt

        class Mine(tt.User):
            __slots__ = ()

        class Below(Mine):
            __slots__ = ()

        Mine(id=1, is_bot=False, first_name="A")
        assert not any("__getattr__" in vars(k) for k in Below.__mro__)
        below = Below(id=1, is_bot=False, first_name="A", mood="ok")
        assert below.mood == "ok" and "__getattr__" in vars(Below)
        assert "__getattr__" not in vars(Mine) and "__getattr__" not in vars(tt.User)
        mine = Mine(id=2, is_bot=False, first_name="B", mood="fine")
        assert mine.mood == "fine" and "__getattr__" in vars(Mine)
        assert "__getattr__" not in vars(tt.User)
        # a base that has it: its subclasses read through the inherited one
        tt.User(id=3, is_bot=False, first_name="C", mood="meh")

        class Later(tt.User):
            __slots__ = ()

        assert Later(id=4, is_bot=False, first_name="D", mood="new").mood == "new"
        assert "__getattr__" not in vars(Later)
        try:
            Later(id=4, is_bot=False, first_name="D").nope
        except AttributeError as e:
            assert str(e) == "'Later' object has no attribute 'nope'", e
        else:
            raise AssertionError("no AttributeError")
        print("ok")
    """)


def test_a_users_own_getattr_stays_theirs() -> None:
    _fresh("""
        import tgfast.types as tt

        class Mine(tt.User):
            __slots__ = ()

            def __getattr__(self, name):
                return "theirs"

        mine = Mine(id=1, is_bot=False, first_name="A", mood="ok")
        assert mine.mood == "theirs" and mine.anything == "theirs"
        assert mine.model_extra == {"mood": "ok"}
        print("ok")
    """)


def test_unpickling_in_a_fresh_process_reads_unknown_fields() -> None:
    user = tt.User(id=1, is_bot=False, first_name="A", mood="ok")
    _fresh(f"""
        import pickle
        user = pickle.loads({pickle.dumps(user)!r})
        assert user.mood == "ok" and user.first_name == "A"
        print("ok")
    """)


def test_dicts_anywhere_in_a_list_field_become_objects() -> None:
    """The constructors' list check looks at every item (the first ones being objects
    says nothing of the rest): a dict in any row, at any place, is converted."""
    button = tt.InlineKeyboardButton(text="a", callback_data="b")
    raw = {"text": "c", "callback_data": "d"}
    for rows in ([[button, button, raw]], [[button], [raw, button]], [[raw]]):
        markup = tt.InlineKeyboardMarkup(inline_keyboard=rows)  # type: ignore[arg-type]
        flat = [b for row in markup.inline_keyboard for b in row]
        assert all(type(b) is tt.InlineKeyboardButton for b in flat), flat
        assert flat[0] is button or rows == [[raw]]  # objects given stay the very objects
    objects = [[button] * 3, [button]]
    assert tt.InlineKeyboardMarkup(inline_keyboard=objects).inline_keyboard is objects
    entity = tt.MessageEntity(type="bold", offset=0, length=1)
    message = tt.Message(
        message_id=1,
        date=0,
        chat=tt.Chat(id=1, type="private"),
        entities=[entity, {"type": "italic", "offset": 1, "length": 1}],  # type: ignore[list-item]
    )
    assert message.entities is not None and message.entities[0] is entity
    assert type(message.entities[1]) is tt.MessageEntity
    kept = [entity, []]  # a list holding no dict is left as given
    assert tt.Message(message_id=1, date=0, chat=message.chat, entities=kept).entities is kept  # type: ignore[arg-type]
