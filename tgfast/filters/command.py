"""``Command`` and ``CommandStart``: ``/name@bot args`` in a message's text or caption.

The work is split so a routing table can share it: ``parse_command`` reads the text
once per update, ``Command.names`` lets handlers be found by name in a dict, and
``Command.check(parsed, username)`` finishes the test without parsing again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from .._aiogram import absent
from ..deep_linking import DeepLinkError, decode_payload
from ..types import BotCommand
from .base import Filter
from .magic import MagicFilter

__all__ = ["Command", "CommandObject", "CommandStart", "parse_command"]


class CommandObject:
    """A parsed command: ``/start@my_bot abc`` is prefix ``/``, command ``start``,
    mention ``my_bot``, args ``abc``. Immutable; ``regexp_match`` is set when a
    regexp command matched, ``magic_result`` when a ``Command(magic=...)`` passed."""

    __slots__ = ("_args", "_command", "_magic_result", "_mention", "_prefix", "_regexp_match")

    def __init__(
        self,
        prefix: str = "/",
        command: str = "",
        mention: str | None = None,
        args: str | None = None,
        regexp_match: re.Match[str] | None = None,
        magic_result: Any = None,
    ) -> None:
        self._prefix = prefix
        self._command = command
        self._mention = mention
        self._args = args
        self._regexp_match = regexp_match
        self._magic_result = magic_result

    @property
    def prefix(self) -> str:
        """The prefix character the command was written with."""
        return self._prefix

    @property
    def command(self) -> str:
        """The command name as written (its case kept), without prefix or mention."""
        return self._command

    @property
    def mention(self) -> str | None:
        """The bot username after ``@``, or None."""
        return self._mention

    @property
    def args(self) -> str | None:
        """Everything after the command and the whitespace that follows it, or None."""
        return self._args

    @property
    def regexp_match(self) -> re.Match[str] | None:
        """The match of a regexp command against ``command``."""
        return self._regexp_match

    @property
    def magic_result(self) -> Any:
        """What the ``magic`` filter of the ``Command`` that passed gave (else None)."""
        return self._magic_result

    @property
    def mentioned(self) -> bool:
        """Whether the command names a bot (``/start@my_bot``)."""
        return self._mention is not None

    @property
    def text(self) -> str:
        """The command written out again: ``/start@my_bot abc``."""
        line = self._prefix + self._command
        if self._mention is not None:
            line += "@" + self._mention
        if self._args is not None:
            line += " " + self._args
        return line

    def replace(self, **changes: Any) -> CommandObject:
        """A copy with some fields changed."""
        fields = {name: getattr(self, name) for name in _FIELDS}
        fields.update(changes)
        return CommandObject(**fields)

    def __eq__(self, other: object) -> bool:
        if type(other) is not CommandObject:
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in _FIELDS)

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, name) for name in _FIELDS[:5]))  # a magic's may be a dict

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in _FIELDS[:5])
        if self._magic_result is not None:
            shown += f", magic_result={self._magic_result!r}"
        return f"CommandObject({shown})"


_FIELDS = ("prefix", "command", "mention", "args", "regexp_match", "magic_result")


def parse_command(text: str, prefix: str = "/") -> CommandObject | None:
    """``text`` read as a command written with one of the ``prefix`` characters, or None."""
    if not text or text[0] not in prefix:
        return None
    cached = _bare.get(text)
    if cached is not None:
        return cached
    parts = text.split(None, 1)
    head = parts[0]
    at = head.find("@")
    if at < 0:
        if len(head) == 1:
            return None
        command = head[1:]
        mention = None
    else:
        command = head[1:at]
        if not command:
            return None
        mention = head[at + 1 :] or None
    parsed = _new(CommandObject)  # the slots directly: this runs once per update
    parsed._prefix = head[0]
    parsed._command = command
    parsed._mention = mention
    parsed._regexp_match = None
    parsed._magic_result = None
    if len(parts) == 2:
        parsed._args = parts[1]
    else:
        parsed._args = None
        if len(_bare) >= _BARE_MAX:
            _bare.clear()
        _bare[text] = parsed
    return parsed


_new = object.__new__
# Commands without arguments ("/start", "/menu") repeat endlessly and CommandObject is
# immutable, so each is parsed once; bounded, as anyone can send any text.
_bare: dict[str, CommandObject] = {}
_BARE_MAX = 4096


class Command(Filter):
    """Passes messages (text or caption) that are one of ``commands``; injects ``command``.

    A command is a name (``"start"``), a ``BotCommand``, or a compiled ``re.Pattern``
    matched (``re.match``) against the name, its match landing in
    ``command.regexp_match``. ``prefix`` lists the characters a command may start with.
    ``/name@other_bot`` does not pass; ``@`` with the bot's own username (compared
    without case) does, asking ``bot.me()`` only then. ``ignore_mention`` passes any
    mention; ``ignore_case`` compares names without case. ``magic`` (a magic filter,
    ``F.args.regexp(r"^\\d+$")``) is resolved against the ``CommandObject``: the command
    passes only when the value is truthy, and it lands in ``command.magic_result``.

    ``commands`` is every command as given (aiogram's), names lower-cased with
    ``ignore_case``; ``names`` holds the plain names alone and ``patterns`` the
    regexps, so a routing table can index handlers by name. ``ignore_case`` does not
    touch a regexp (give it ``re.IGNORECASE``), as in aiogram.

    A command that is not a str, ``BotCommand`` or ``re.Pattern`` (or ``commands`` that
    is not an iterable of them), or no command at all, is a ``ValueError`` as in aiogram.
    Awaiting the filter (``await Command("x")(message, bot)``) injects, besides
    ``command``, the items of a ``magic`` result that is a dict, as aiogram does.
    """

    __slots__ = (
        "_names", "commands", "ignore_case", "ignore_mention", "magic", "names", "patterns",
        "prefix",
    )  # fmt: skip

    def __init__(
        self,
        *values: str | re.Pattern[str] | BotCommand,
        commands: Iterable[str | re.Pattern[str] | BotCommand] | str | None = None,
        prefix: str = "/",
        ignore_case: bool = False,
        ignore_mention: bool = False,
        magic: MagicFilter | None = None,
    ) -> None:
        if magic is not None and not isinstance(magic, MagicFilter):
            raise TypeError(f"magic must be a magic filter (F.args...), not {magic!r}")
        if isinstance(commands, (str, re.Pattern, BotCommand)):
            commands = (commands,)
        elif commands is not None and not isinstance(commands, Iterable):
            raise ValueError(f"Command takes a str, re.Pattern, BotCommand or an iterable "
                             f"of them, not {commands!r}")  # fmt: skip
        items = (*values, *(commands or ()))
        if not items:
            raise ValueError("Command needs at least one command")
        if not isinstance(prefix, str) or not prefix:
            raise ValueError("prefix must be a non-empty string of prefix characters")
        names: list[str] = []
        patterns: list[re.Pattern[str]] = []
        given: list[str | re.Pattern[str]] = []
        for item in items:
            if isinstance(item, re.Pattern):
                patterns.append(item)
                given.append(item)
                continue
            name = item.command if isinstance(item, BotCommand) else item
            if not isinstance(name, str):
                raise ValueError(f"a command is a str, a BotCommand or a re.Pattern, not {item!r}")
            if not name or name[0] in prefix or any(c.isspace() or c == "@" for c in name):
                hint = f" (write Command({name[1:]!r}))" if name[:1] in prefix else ""
                raise ValueError(f"not a command name: {name!r}{hint}")
            names.append(name.lower() if ignore_case else name)
            given.append(names[-1])
        self.commands: tuple[str | re.Pattern[str], ...] = tuple(given)
        self.names: tuple[str, ...] = tuple(dict.fromkeys(names))
        self.patterns: tuple[re.Pattern[str], ...] = tuple(patterns)
        self.prefix = prefix
        self.ignore_case = ignore_case
        self.ignore_mention = ignore_mention
        self.magic = magic
        self._names = frozenset(self.names)

    def update_handler_flags(self, flags: dict[str, Any]) -> None:
        """aiogram's hook: a handler's ``commands`` flag lists its ``Command`` filters."""
        flags.setdefault("commands", []).append(self)

    async def __call__(self, message: Any, bot: Any = None) -> bool | dict[str, Any]:
        text = getattr(message, "text", None) or getattr(message, "caption", None)
        if not text or text[0] not in self.prefix:
            return False
        parsed = parse_command(text, self.prefix)
        if parsed is None:
            return False
        result = self._accept(parsed)
        if result is None:
            return False
        mention = parsed._mention
        if mention is not None and not self.ignore_mention:
            username = None if bot is None else (await bot.me()).username
            if username is None or username.lower() != mention.lower():
                return False
        magic = result._magic_result
        if type(magic) is dict:
            return {"command": result, **magic}
        return {"command": result}

    def check(self, parsed: CommandObject, username: str | None) -> CommandObject | None:
        """The ``CommandObject`` to inject when ``parsed`` (from ``parse_command``) passes,
        else None. ``username`` is the bot's own; it is only read when ``parsed`` has a
        mention, and None then fails the check (unless ``ignore_mention``)."""
        if parsed._prefix not in self.prefix:
            return None
        mention = parsed._mention
        if (
            mention is not None
            and not self.ignore_mention
            and (username is None or username.lower() != mention.lower())
        ):
            return None
        return self._accept(parsed)

    def _accept(self, parsed: CommandObject) -> CommandObject | None:
        """``_match``, then the ``magic`` filter on what matched."""
        result = self._match(parsed)
        if result is None or self.magic is None:
            return result
        value = self.magic.resolve(result)
        return result.replace(magic_result=value) if value else None

    def _match(self, parsed: CommandObject) -> CommandObject | None:
        name = parsed._command
        if (name.lower() if self.ignore_case else name) in self._names:
            return parsed
        for pattern in self.patterns:
            match = pattern.match(name)
            if match is not None:
                return parsed.replace(regexp_match=match)
        return None

    def __repr__(self) -> str:
        shown = [repr(c) for c in self.names] + [repr(p) for p in self.patterns]
        if self.prefix != "/":
            shown.append(f"prefix={self.prefix!r}")
        if self.ignore_case:
            shown.append("ignore_case=True")
        if self.ignore_mention:
            shown.append("ignore_mention=True")
        if self.magic is not None:
            shown.append(f"magic={self.magic!r}")
        return f"{type(self).__name__}({', '.join(shown)})"

    def __str__(self) -> str:  # aiogram's: every argument written out
        return _signature(
            self, *self.commands, prefix=self.prefix, ignore_case=self.ignore_case,
            ignore_mention=self.ignore_mention, magic=self.magic,
        )  # fmt: skip


def _signature(obj: object, *args: Any, **kwargs: Any) -> str:
    """aiogram's ``str()`` of a filter: its arguments, those that are None left out."""
    shown = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items() if v is not None]
    return f"{type(obj).__name__}({', '.join(shown)})"


class CommandStart(Command):
    """``/start``, with the deep-link payload as ``command.args``.

    ``deep_link=None`` (the default) passes ``/start`` with or without a payload,
    ``deep_link=False`` only without one, ``deep_link=True`` only with one (aiogram's
    three values);
    ``deep_link_encoded=True`` decodes a base64url payload (see ``tgfast.deep_linking``)
    into ``command.args``, and a payload that does not decode does not pass. ``magic``
    is checked as for ``Command``, on the decoded payload.
    """

    __slots__ = ("deep_link", "deep_link_encoded")

    def __init__(
        self,
        deep_link: bool | None = None,
        deep_link_encoded: bool = False,
        ignore_case: bool = False,
        ignore_mention: bool = False,
        magic: MagicFilter | None = None,
    ) -> None:
        super().__init__(
            "start", ignore_case=ignore_case, ignore_mention=ignore_mention, magic=magic
        )
        self.deep_link = deep_link
        self.deep_link_encoded = deep_link_encoded

    def _match(self, parsed: CommandObject) -> CommandObject | None:
        result = super()._match(parsed)
        if result is None:
            return None
        if not result._args:
            return None if self.deep_link else result
        if self.deep_link is False:
            return None
        if self.deep_link_encoded:
            try:
                return result.replace(args=decode_payload(result._args))
            except DeepLinkError:
                return None
        return result

    def __repr__(self) -> str:
        shown = [
            f"{name}=True"
            for name in ("deep_link_encoded", "ignore_case", "ignore_mention")
            if getattr(self, name)
        ]
        if self.deep_link is not None:
            shown.insert(0, f"deep_link={self.deep_link}")
        if self.magic is not None:
            shown.append(f"magic={self.magic!r}")
        return f"CommandStart({', '.join(shown)})"

    def __str__(self) -> str:
        return _signature(
            self, ignore_case=self.ignore_case, ignore_mention=self.ignore_mention,
            magic=self.magic, deep_link=self.deep_link, deep_link_encoded=self.deep_link_encoded,
        )  # fmt: skip


__getattr__ = absent(
    __name__,
    {
        "CommandException": "aiogram raises it inside its Command filter and catches it there; "
        "tgfast's Command rejects a message without raising, so there is nothing to catch",
    },
)
