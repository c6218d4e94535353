"""What the fake answers about chats, members, commands and links, and the fallback
for every other method: a well-formed object of its return type (``_samples``).

Stateful where a bot reads back what it set: ``setMyCommands`` per scope and language
is what ``getMyCommands`` returns; ban, unban, restrict and promote change what
``getChatMember`` says; invite links are kept for edit and revoke; ``stopPoll`` closes
a poll the bot sent.
"""

from __future__ import annotations

import itertools
from typing import Any

import orjson

from tgfast.methods import MethodDescription

from ._messages import Handler, Store
from ._request import ApiError, UploadedFile
from ._samples import sample

__all__ = ["CANNED", "ChatState", "fallback_result"]

Params = dict[str, Any]
Files = dict[str, UploadedFile]

CANNED = (
    "getChat getChatMember getChatAdministrators banChatMember unbanChatMember "
    "restrictChatMember promoteChatMember setMyCommands getMyCommands deleteMyCommands "
    "stopPoll createChatInviteLink createChatSubscriptionInviteLink editChatInviteLink "
    "revokeChatInviteLink exportChatInviteLink getUserProfilePhotos answerWebAppQuery"
).split()
"""The methods ``ChatState`` answers (documented in docs/testing.md)."""


def fallback_result(desc: MethodDescription) -> Any:
    """The answer to a method nothing else answers: True for a bool, else the smallest
    object of its return type."""
    if desc.returns in ("bool", "true"):
        return True
    return sample(desc.returns)


class ChatState:
    """Chats' members, the bot's commands and invite links, over the message ``Store``."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.members: dict[tuple[int, int], dict[str, Any]] = {}
        """``(chat id, user id)`` -> the ChatMember ``getChatMember`` answers."""
        self.commands: dict[tuple[bytes, str], list[Any]] = {}
        """``(scope as JSON, language code)`` -> the commands set for them."""
        self.links: dict[str, dict[str, Any]] = {}
        self._seq = itertools.count(1)
        self.handlers: dict[str, Handler] = {
            "getChat": self._get_chat,
            "getChatMember": self._get_member,
            "getChatAdministrators": self._administrators,
            "banChatMember": lambda p, f: self._set_member(p, "kicked"),
            "unbanChatMember": lambda p, f: self._set_member(p, "left"),
            "restrictChatMember": lambda p, f: self._set_member(p, "restricted"),
            "promoteChatMember": lambda p, f: self._set_member(p, "administrator"),
            "setMyCommands": self._set_commands,
            "getMyCommands": lambda p, f: list(self.commands.get(_scope_key(p), [])),
            "deleteMyCommands": self._delete_commands,
            "stopPoll": self._stop_poll,
            "createChatInviteLink": self._create_link,
            "createChatSubscriptionInviteLink": self._create_link,
            "editChatInviteLink": self._edit_link,
            "revokeChatInviteLink": self._revoke_link,
            "exportChatInviteLink": lambda p, f: self._create_link(p, f)["invite_link"],
            "getUserProfilePhotos": lambda p, f: {"total_count": 0, "photos": []},
            "answerWebAppQuery": lambda p, f: {"inline_message_id": f"fake-inline-{self._n()}"},
        }

    def _n(self) -> int:
        return next(self._seq)

    # -- chats and members ---------------------------------------------------------

    def _get_chat(self, params: Params, files: Files) -> dict[str, Any]:
        chat = self.store.chat(params["chat_id"])
        info: dict[str, Any] = sample("ChatFullInfo")
        info.update(accent_color_id=0, max_reaction_count=11)
        info.update(chat)
        return info

    def _user(self, user_id: int) -> dict[str, Any]:
        if user_id == self.store.bot_user["id"]:
            return self.store.bot_user
        return {"id": user_id, "is_bot": False, "first_name": f"User {user_id}"}

    def _key(self, params: Params) -> tuple[int, int]:
        chat = self.store.chat(params["chat_id"])
        user_id = params["user_id"]
        if type(user_id) is not int:
            raise ApiError(400, "Bad Request: invalid user_id specified")
        return chat["id"], user_id

    def _get_member(self, params: Params, files: Files) -> dict[str, Any]:
        key = self._key(params)
        member = self.members.get(key)
        if member is not None:
            return member
        user = self._user(key[1])
        if user is self.store.bot_user and key[0] < 0:  # the bot runs its groups
            return self._member("administrator", user, {})
        return {"status": "member", "user": user}

    def _member(self, status: str, user: dict[str, Any], params: Params) -> dict[str, Any]:
        variant = {"administrator": "ChatMemberAdministrator", "restricted": "ChatMemberRestricted",
                   "kicked": "ChatMemberBanned", "left": "ChatMemberLeft"}[status]  # fmt: skip
        member: dict[str, Any] = sample(variant)
        if status == "administrator":
            member.update((k, True) for k in member if k.startswith("can_"))
            member["can_be_edited"] = False
        elif status == "restricted":
            member.update((k, False) for k in member if k.startswith("can_"))
            if isinstance(params.get("permissions"), dict):
                member.update(params["permissions"])
        member.update((k, v) for k, v in params.items() if k.startswith(("can_", "is_anon")))
        if "until_date" in member:
            member["until_date"] = params.get("until_date", 0)
        member.update(status=status, user=user)
        return member

    def _set_member(self, params: Params, status: str) -> bool:
        key = self._key(params)
        if status == "left" and params.get("only_if_banned"):
            current = self.members.get(key)
            if current is None or current["status"] != "kicked":
                return True
        self.members[key] = self._member(status, self._user(key[1]), params)
        return True

    def _administrators(self, params: Params, files: Files) -> list[dict[str, Any]]:
        chat = self.store.chat(params["chat_id"])
        if chat["type"] == "private":
            raise ApiError(400, "Bad Request: there are no administrators in the private chat")
        return [
            member
            for (cid, _), member in self.members.items()
            if cid == chat["id"] and member["status"] in ("creator", "administrator")
        ]

    # -- commands ------------------------------------------------------------------

    def _set_commands(self, params: Params, files: Files) -> bool:
        commands = params["commands"]
        if not isinstance(commands, list):
            raise ApiError(400, "Bad Request: can't parse commands JSON object")
        self.commands[_scope_key(params)] = commands
        return True

    def _delete_commands(self, params: Params, files: Files) -> bool:
        self.commands.pop(_scope_key(params), None)
        return True

    # -- polls and links -----------------------------------------------------------

    def _stop_poll(self, params: Params, files: Files) -> dict[str, Any]:
        cid = self.store.chat_id_of(params["chat_id"])
        message = self.store.messages.get((cid, params["message_id"]))  # type: ignore[arg-type]
        if message is None or not isinstance(message.get("poll"), dict):
            raise ApiError(400, "Bad Request: message with poll to stop not found")
        poll: dict[str, Any] = message["poll"]
        if poll.get("is_closed"):
            raise ApiError(400, "Bad Request: poll has already been closed")
        poll["is_closed"] = True
        if isinstance(params.get("reply_markup"), dict):
            message["reply_markup"] = params["reply_markup"]
        return poll

    def _create_link(self, params: Params, files: Files) -> dict[str, Any]:
        self.store.chat(params["chat_id"])
        link: dict[str, Any] = {
            "invite_link": f"https://t.me/+fakeInvite{self._n()}",
            "creator": self.store.bot_user,
            "creates_join_request": bool(params.get("creates_join_request", False)),
            "is_primary": False,
            "is_revoked": False,
        }
        keys = ("name", "expire_date", "member_limit", "subscription_period", "subscription_price")
        link.update((k, params[k]) for k in keys if k in params)
        self.links[link["invite_link"]] = link
        return link

    def _known_link(self, params: Params) -> dict[str, Any]:
        link = self.links.get(params["invite_link"])
        if link is None:
            raise ApiError(400, "Bad Request: INVITE_HASH_INVALID")
        return link

    def _edit_link(self, params: Params, files: Files) -> dict[str, Any]:
        link = self._known_link(params)
        keys = ("name", "expire_date", "member_limit", "creates_join_request")
        link.update((k, params[k]) for k in keys if k in params)
        return link

    def _revoke_link(self, params: Params, files: Files) -> dict[str, Any]:
        link = self._known_link(params)
        link["is_revoked"] = True
        return link


def _scope_key(params: Params) -> tuple[bytes, str]:
    scope = params.get("scope")
    if not isinstance(scope, dict):
        scope = {"type": "default"}
    language = params.get("language_code")
    return orjson.dumps(scope, option=orjson.OPT_SORT_KEYS), language if type(
        language
    ) is str else ""
