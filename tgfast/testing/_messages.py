"""Chats, messages and files: what sending, editing, forwarding and getFile do.

The fake keeps every message the bot posted (and every message an update showed
it), so that replies, edits, forwards and copies behave as they do on Telegram:
they name a stored message, or they fail with Telegram's own error.
"""

from __future__ import annotations

import itertools
import random
import re
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import orjson

from tgfast.methods import METHODS

from ._request import ApiError, UploadedFile

__all__ = ["Store", "StoredFile"]

Params = dict[str, Any]
Files = dict[str, UploadedFile]
Handler = Callable[[Params, Files], Any]

# Media kind (the Message field and the sending parameter) -> (folder, default suffix).
_MEDIA = {
    "photo": ("photos", ".jpg"),
    "document": ("documents", ""),
    "audio": ("music", ".mp3"),
    "video": ("videos", ".mp4"),
    "animation": ("animations", ".mp4"),
    "voice": ("voice", ".oga"),
    "video_note": ("video_notes", ".mp4"),
    "sticker": ("stickers", ".webp"),
    "live_photo": ("live_photos", ".mp4"),
}
_SIZES = {
    "photo": (800, 600),
    "video": (640, 360),
    "animation": (320, 240),
    "live_photo": (640, 480),
    "sticker": (512, 512),
}
_TIMED = frozenset({"audio", "video", "animation", "voice", "video_note", "live_photo"})
_NAMED = frozenset({"document", "audio", "video", "animation"})
_TYPED = frozenset({"document", "audio", "video", "animation", "voice", "live_photo"})
_GROUPABLE = frozenset({"audio", "document", "live_photo", "photo", "video"})
_CAPTION = ("caption", "caption_entities", "show_caption_above_media")
_LOCATION = (
    "latitude longitude horizontal_accuracy live_period heading proximity_alert_radius".split()
)
_VENUE = "title address foursquare_id foursquare_type google_place_id google_place_type".split()
_POLL = (
    "question_entities correct_option_ids explanation explanation_entities open_period"
    " close_date description description_entities"
).split()
_DICE = {"🎲": 6, "🎯": 6, "🎳": 6, "🏀": 5, "⚽": 5, "🎰": 64}
# Sending parameter -> the Message field that shows it.
_ECHO = {
    "business_connection_id": "business_connection_id",
    "message_thread_id": "message_thread_id",
    "text": "text",
    "entities": "entities",
    "link_preview_options": "link_preview_options",
    "caption": "caption",
    "caption_entities": "caption_entities",
    "show_caption_above_media": "show_caption_above_media",
    "has_spoiler": "has_media_spoiler",
    "protect_content": "has_protected_content",
    "message_effect_id": "effect_id",
}
# What a forward or a copy does not take from its source: who, where, when, and the keyboard.
_ENVELOPE = frozenset(
    (
        "message_id from sender_chat date chat forward_origin reply_to_message external_reply"
        " quote edit_date reply_markup message_thread_id is_topic_message media_group_id"
        " has_protected_content effect_id business_connection_id author_signature via_bot"
    ).split()
)
_INCOMING = (
    "message edited_message channel_post edited_channel_post business_message"
    " edited_business_message"
).split()
_NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup"
    " are exactly the same as a current content and reply markup of the message"
)


@dataclass
class StoredFile:
    """A file Telegram would hold; ``data`` is None for one known only by id or URL."""

    file_id: str
    file_unique_id: str
    file_path: str
    data: bytes | None = field(repr=False)
    filename: str | None = None
    mime_type: str | None = None

    def as_file(self) -> dict[str, Any]:
        """The Bot API ``File`` object, as getFile answers it."""
        out: dict[str, Any] = {"file_id": self.file_id, "file_unique_id": self.file_unique_id}
        if self.data is not None:
            out["file_size"] = len(self.data)
        out["file_path"] = self.file_path
        return out


class Store:
    """What the fake Telegram remembers, and the methods that read and change it."""

    def __init__(self, bot_user: dict[str, Any]) -> None:
        self.bot_user = bot_user
        self.chats: dict[int, dict[str, Any]] = {}
        self.usernames: dict[str, int] = {}
        self.messages: dict[tuple[int, int], dict[str, Any]] = {}
        # (chat id, ephemeral_message_id) -> an ephemeral message (message_id 0)
        self.ephemeral: dict[tuple[int, int], dict[str, Any]] = {}
        self._last_ephemeral: dict[int, int] = {}
        self.sent: list[dict[str, Any]] = []
        self.files: dict[str, StoredFile] = {}
        self.paths: dict[str, StoredFile] = {}
        self._last_id: dict[int, int] = {}
        self._seq = itertools.count(1)
        self._random = random.Random(0)  # plausible dice, the same in every run
        self.handlers: dict[str, Handler] = {
            "sendMediaGroup": self._send_media_group,
            "editMessageText": self._edit_text,
            "editMessageCaption": self._edit_caption,
            "editMessageMedia": self._edit_media,
            "editMessageReplyMarkup": lambda params, files: self._edit(params, dict),
            "deleteMessage": self._delete,
            "deleteMessages": self._delete_many,
            "forwardMessage": self._forward,
            "copyMessage": lambda params, files: {"message_id": self._copy(params)["message_id"]},
            "forwardMessages": partial(self._many, "forward", self._forward),
            "copyMessages": partial(self._many, "copy", lambda params, files: self._copy(params)),
            "getFile": self._get_file,
            "editEphemeralMessageText": partial(self._edit_text, ephemeral=True),
            "editEphemeralMessageCaption": partial(self._edit_caption, ephemeral=True),
            "editEphemeralMessageMedia": partial(self._edit_media, ephemeral=True),
            "editEphemeralMessageReplyMarkup": lambda params, files: self._edit_ephemeral(
                params, dict
            ),
            "deleteEphemeralMessage": self._delete_ephemeral,
        }
        for name, desc in METHODS.items():
            if name.startswith("send") and desc.returns == "Message":
                self.handlers[name] = partial(self._send, name)

    # -- chats ---------------------------------------------------------------------

    def chat(self, chat_id: Any) -> dict[str, Any]:
        """The chat a ``chat_id`` names, made up on first use.

        Positive ids are private chats, negative ones supergroups, ``@name`` a channel
        with a negative id derived from the name (the same in every run).
        """
        if type(chat_id) is str and chat_id.startswith("@") and len(chat_id) > 1:
            key = chat_id[1:].lower()
            if key not in self.usernames:
                cid = -1_000_000_000_000 - zlib.crc32(key.encode())
                self.usernames[key] = cid
                self.chats.setdefault(
                    cid,
                    {"id": cid, "type": "channel", "title": chat_id[1:], "username": chat_id[1:]},
                )
            return self.chats[self.usernames[key]]
        if type(chat_id) is not int or chat_id == 0:
            raise ApiError(400, "Bad Request: chat not found")
        if chat_id not in self.chats:
            if chat_id > 0:
                self.chats[chat_id] = {
                    "id": chat_id,
                    "type": "private",
                    "first_name": f"User {chat_id}",
                }
            else:
                self.chats[chat_id] = {
                    "id": chat_id,
                    "type": "supergroup",
                    "title": f"Group {chat_id}",
                }
        return self.chats[chat_id]

    def chat_id_of(self, chat_id: Any) -> int | None:
        """The numeric id a ``chat_id`` names, without making a chat up."""
        if type(chat_id) is int:
            return chat_id
        if type(chat_id) is str and chat_id.startswith("@"):
            return self.usernames.get(chat_id[1:].lower())
        return None

    # -- messages ------------------------------------------------------------------

    def remember(self, update: dict[str, Any]) -> None:
        """Keep the messages an update shows the bot, so that it can reply to or edit them."""
        for key in _INCOMING:
            self._keep(update.get(key), replace=True)
        query = update.get("callback_query")
        if isinstance(query, dict):
            self._keep(query.get("message"), replace=False)

    def _keep(self, message: Any, *, replace: bool) -> None:
        if not isinstance(message, dict):
            return
        chat, mid = message.get("chat"), message.get("message_id")
        if not isinstance(chat, dict) or type(chat.get("id")) is not int or type(mid) is not int:
            return
        cid = chat["id"]
        self.chats[cid] = chat
        if type(chat.get("username")) is str:
            self.usernames[chat["username"].lower()] = cid
        self._last_id[cid] = max(self._last_id.get(cid, 0), mid)
        if replace or (cid, mid) not in self.messages:
            self.messages[(cid, mid)] = message

    def post_ephemeral(
        self, chat: dict[str, Any], receiver: int, content: dict[str, Any]
    ) -> dict[str, Any]:
        """Store an ephemeral message for one user of ``chat``: ``message_id`` 0, the
        next ``ephemeral_message_id`` of that chat, its receiver."""
        cid = chat["id"]
        self._last_ephemeral[cid] = eid = self._last_ephemeral.get(cid, 0) + 1
        message: dict[str, Any] = {"message_id": 0, "date": int(time.time()), "chat": chat}
        message["from"] = self.bot_user
        message.update(content)
        message["ephemeral_message_id"] = eid
        user = self.chats.get(receiver)
        name = user.get("first_name", f"User {receiver}") if user else f"User {receiver}"
        message["receiver_user"] = {"id": receiver, "is_bot": False, "first_name": name}
        self.ephemeral[(cid, eid)] = message
        self.sent.append(orjson.loads(orjson.dumps(message)))
        return message

    def post(self, chat: dict[str, Any], content: dict[str, Any]) -> dict[str, Any]:
        """Store a new message from the bot in ``chat``: the next id of that chat, now."""
        cid = chat["id"]
        self._last_id[cid] = mid = self._last_id.get(cid, 0) + 1
        message: dict[str, Any] = {"message_id": mid, "date": int(time.time()), "chat": chat}
        if chat["type"] == "channel":
            message["sender_chat"] = chat  # channel posts have no sender user
        else:
            message["from"] = self.bot_user
        message.update(content)
        self.messages[(cid, mid)] = message
        self.sent.append(orjson.loads(orjson.dumps(message)))  # a snapshot: edits come later
        return message

    def _find(self, chat_id: Any, message_id: Any, verb: str) -> dict[str, Any]:
        cid = self.chat_id_of(chat_id)
        message = self.messages.get((cid, message_id)) if cid is not None else None
        if message is None:
            raise ApiError(400, f"Bad Request: message to {verb} not found")
        return message

    def _common(self, chat: dict[str, Any], params: Params) -> dict[str, Any]:
        """What every sending method echoes: text or caption, keyboard, the reply."""
        out = _echo(params)
        markup = params.get("reply_markup")
        if isinstance(markup, dict) and "inline_keyboard" in markup:
            out["reply_markup"] = markup  # other keyboards live on the client, not the message
        reply = params.get("reply_parameters")
        if isinstance(reply, dict) and reply.get("ephemeral_message_id") is not None:
            if (chat["id"], reply["ephemeral_message_id"]) not in self.ephemeral:
                raise ApiError(400, "Bad Request: message to be replied not found")
        elif isinstance(reply, dict):
            where = self.chat_id_of(reply.get("chat_id", chat["id"]))
            target = self.messages.get((where, reply.get("message_id")))  # type: ignore[arg-type]
            if target is None:
                if not reply.get("allow_sending_without_reply"):
                    raise ApiError(400, "Bad Request: message to be replied not found")
            elif where == chat["id"]:
                out["reply_to_message"] = {
                    k: v for k, v in target.items() if k != "reply_to_message"
                }
            else:
                out["external_reply"] = {
                    "origin": _origin(target),
                    "chat": target["chat"],
                    "message_id": target["message_id"],
                }
        return out

    def _send(self, method: str, params: Params, files: Files) -> dict[str, Any]:
        chat = self.chat(params["chat_id"])
        content = self._common(chat, params)
        kind = re.sub(r"(?<!^)([A-Z])", r"_\1", method[4:]).lower()
        if kind == "message" and not params["text"]:
            raise ApiError(400, "Bad Request: message text is empty")
        if kind in _MEDIA:
            content.update(self._media(kind, params[kind], params, files))
        elif kind == "location":
            content["location"] = {k: params[k] for k in _LOCATION if k in params}
        elif kind == "venue":
            content["location"] = {k: params[k] for k in _LOCATION[:2]}
            content["venue"] = {"location": content["location"]}
            content["venue"].update((k, params[k]) for k in _VENUE if k in params)
        elif kind == "contact":
            keys = ("phone_number", "first_name", "last_name", "vcard")
            content["contact"] = {k: params[k] for k in keys if k in params}
        elif kind == "poll":
            content["poll"] = self._poll(params)
        elif kind == "dice":
            emoji = params.get("emoji", "🎲")
            content["dice"] = {
                "emoji": emoji,
                "value": self._random.randint(1, _DICE.get(emoji, 6)),
            }
        elif kind == "invoice":
            prices = params["prices"] if isinstance(params["prices"], list) else []
            content["invoice"] = {
                "title": params["title"],
                "description": params["description"],
                "start_parameter": params.get("start_parameter", ""),
                "currency": params["currency"],
                "total_amount": sum(p.get("amount", 0) for p in prices if isinstance(p, dict)),
            }
        receiver = _receiver(params)
        if receiver is not None:
            if chat["type"] not in ("group", "supergroup"):
                raise ApiError(400, "Bad Request: ephemeral messages can be sent only to groups")
            return self.post_ephemeral(chat, receiver, content)
        return self.post(chat, content)

    def _send_media_group(self, params: Params, files: Files) -> list[dict[str, Any]]:
        chat = self.chat(params["chat_id"])
        media = params["media"]
        if not isinstance(media, list) or not 2 <= len(media) <= 10:
            raise ApiError(400, "Bad Request: media group must include 2-10 items")
        common = self._common(chat, params)
        group_id = str(next(self._seq))
        contents = []  # all built before any is posted: a bad item posts nothing
        for item in media:
            if not isinstance(item, dict) or item.get("type") not in _GROUPABLE:
                raise ApiError(400, "Bad Request: unsupported media type in a media group")
            content = {**common, **_echo(item), "media_group_id": group_id}
            content.update(self._media(item["type"], item.get("media"), item, files))
            contents.append(content)
        return [self.post(chat, content) for content in contents]

    def _poll(self, params: Params) -> dict[str, Any]:
        options = params["options"]
        if not isinstance(options, list) or len(options) < 2:
            raise ApiError(400, "Bad Request: poll must have at least 2 option")
        poll: dict[str, Any] = {
            "id": str(next(self._seq)),
            "question": params["question"],
            "options": [
                {
                    "persistent_id": str(i),
                    "text": str(o.get("text", "")) if isinstance(o, dict) else str(o),
                    "voter_count": 0,
                }
                for i, o in enumerate(options)
            ],
            "total_voter_count": 0,
            "is_closed": bool(params.get("is_closed", False)),
            "is_anonymous": bool(params.get("is_anonymous", True)),
            "type": params.get("type", "regular"),
            "allows_multiple_answers": bool(params.get("allows_multiple_answers", False)),
            "allows_revoting": bool(params.get("allows_revoting", False)),
            "members_only": bool(params.get("members_only", False)),
        }
        poll.update((k, params[k]) for k in _POLL if k in params)
        return poll

    # -- edits, deletes, forwards and copies ---------------------------------------

    def _edit(
        self, params: Params, change: Callable[[dict[str, Any]], dict[str, Any]]
    ) -> dict[str, Any] | bool:
        """Apply ``change`` to a stored message; an inline message is not stored: True."""
        if params.get("inline_message_id") is not None:
            return True
        message = self._find(params.get("chat_id"), params.get("message_id"), "edit")
        edited = change(message)
        edited.pop("reply_markup", None)  # an edit without a keyboard removes it
        if isinstance(params.get("reply_markup"), dict):
            edited["reply_markup"] = params["reply_markup"]
        if edited == message:
            raise ApiError(400, _NOT_MODIFIED)
        edited["edit_date"] = int(time.time())
        self.messages[(message["chat"]["id"], message["message_id"])] = edited
        return edited

    def _edit_ephemeral(
        self, params: Params, change: Callable[[dict[str, Any]], dict[str, Any]]
    ) -> bool:
        """An edit of an ephemeral message: found by chat, receiver and ephemeral id."""
        key, message = self._find_ephemeral(params, "edit")
        edited = change(message)
        edited.pop("reply_markup", None)
        if isinstance(params.get("reply_markup"), dict):
            edited["reply_markup"] = params["reply_markup"]
        if edited == message:
            raise ApiError(400, _NOT_MODIFIED)
        edited["edit_date"] = int(time.time())
        self.ephemeral[key] = edited
        return True

    def _find_ephemeral(self, params: Params, verb: str) -> tuple[tuple[int, int], dict[str, Any]]:
        cid = self.chat_id_of(params.get("chat_id"))
        key = (cid, params.get("ephemeral_message_id"))
        message = self.ephemeral.get(key) if cid is not None else None  # type: ignore[arg-type]
        if message is None or message["receiver_user"]["id"] != params.get("receiver_user_id"):
            raise ApiError(400, f"Bad Request: message to {verb} not found")
        return key, message  # type: ignore[return-value]

    def _delete_ephemeral(self, params: Params, files: Files) -> bool:
        key, _message = self._find_ephemeral(params, "delete")
        del self.ephemeral[key]
        return True

    def _edit_text(
        self, params: Params, files: Files, *, ephemeral: bool = False
    ) -> dict[str, Any] | bool:
        if not params.get("text"):
            raise ApiError(400, "Bad Request: message text is empty")

        def change(message: dict[str, Any]) -> dict[str, Any]:
            if "text" not in message:
                raise ApiError(400, "Bad Request: there is no text in the message to edit")
            keys = ("text", "entities", "link_preview_options")
            edited = {k: v for k, v in message.items() if k not in keys}
            edited.update(_echo({k: params[k] for k in keys if k in params}))
            return edited

        return self._edit_ephemeral(params, change) if ephemeral else self._edit(params, change)

    def _edit_caption(
        self, params: Params, files: Files, *, ephemeral: bool = False
    ) -> dict[str, Any] | bool:
        def change(message: dict[str, Any]) -> dict[str, Any]:
            if _media_kind(message) is None:
                raise ApiError(400, "Bad Request: there is no caption in the message to edit")
            edited = {k: v for k, v in message.items() if k not in _CAPTION}
            edited.update(_echo({k: params[k] for k in _CAPTION if k in params}))
            return edited

        return self._edit_ephemeral(params, change) if ephemeral else self._edit(params, change)

    def _edit_media(
        self, params: Params, files: Files, *, ephemeral: bool = False
    ) -> dict[str, Any] | bool:
        item = params["media"]
        if not isinstance(item, dict) or item.get("type") not in _MEDIA:
            raise ApiError(400, "Bad Request: can't parse InputMedia: unsupported media type")

        def change(message: dict[str, Any]) -> dict[str, Any]:
            if _media_kind(message) is None:
                raise ApiError(400, "Bad Request: there is no media in the message to edit")
            gone = {*_MEDIA, *_CAPTION, "has_media_spoiler"}
            edited = {k: v for k, v in message.items() if k not in gone}
            edited.update(_echo(item))
            edited.update(self._media(item["type"], item.get("media"), item, files))
            return edited

        return self._edit_ephemeral(params, change) if ephemeral else self._edit(params, change)

    def _delete(self, params: Params, files: Files) -> bool:
        message = self._find(params["chat_id"], params["message_id"], "delete")
        del self.messages[(message["chat"]["id"], message["message_id"])]
        return True

    def _delete_many(self, params: Params, files: Files) -> bool:
        cid = self.chat_id_of(params["chat_id"])
        ids = params["message_ids"] if isinstance(params["message_ids"], list) else []
        for mid in ids:
            self.messages.pop((cid, mid), None)  # type: ignore[arg-type]
        return True

    def _forward(self, params: Params, files: Files) -> dict[str, Any]:
        source = self._find(params["from_chat_id"], params["message_id"], "forward")
        chat = self.chat(params["chat_id"])
        content = {k: v for k, v in source.items() if k not in _ENVELOPE}
        content["forward_origin"] = source.get("forward_origin") or _origin(source)
        content.update(
            _echo({k: params[k] for k in ("message_thread_id", "protect_content") if k in params})
        )
        return self.post(chat, content)

    def _copy(self, params: Params) -> dict[str, Any]:
        source = self._find(params["from_chat_id"], params["message_id"], "copy")
        chat = self.chat(params["chat_id"])
        content = {k: v for k, v in source.items() if k not in _ENVELOPE}
        if "caption" in params:
            for key in _CAPTION:
                content.pop(key, None)
        content.update(self._common(chat, params))
        if _media_kind(content) is None:
            for key in _CAPTION:  # a caption only goes with media
                content.pop(key, None)
        return self.post(chat, content)

    def _many(self, verb: str, one: Handler, params: Params, files: Files) -> list[dict[str, int]]:
        ids = params["message_ids"] if isinstance(params["message_ids"], list) else []
        out = []
        for mid in sorted(i for i in ids if type(i) is int):
            try:
                out.append({"message_id": one({**params, "message_id": mid}, files)["message_id"]})
            except ApiError:
                continue  # Telegram skips the messages it cannot find
        if not out:
            raise ApiError(400, f"Bad Request: there are no messages to {verb}")
        return out

    # -- files ---------------------------------------------------------------------

    def add_file(
        self,
        data: bytes | None,
        *,
        kind: str = "document",
        filename: str | None = None,
        mime_type: str | None = None,
        file_id: str | None = None,
        file_path: str | None = None,
    ) -> StoredFile:
        """Register a file under a new id (or ``file_id``) and a path like Telegram's."""
        n = next(self._seq)
        folder, suffix = _MEDIA.get(kind, _MEDIA["document"])
        if filename and "." in filename:
            suffix = "." + filename.rsplit(".", 1)[1]
        stored = StoredFile(
            file_id=file_id or f"fake-{kind}-{n}",
            file_unique_id=f"fake-unique-{n}",
            file_path=file_path or f"{folder}/file_{n}{suffix}",
            data=data,
            filename=filename,
            mime_type=mime_type,
        )
        self.files[stored.file_id] = stored
        self.paths[stored.file_path] = stored
        return stored

    def _get_file(self, params: Params, files: Files) -> dict[str, Any]:
        stored = self.files.get(params["file_id"])
        if stored is None:
            raise ApiError(400, "Bad Request: invalid file_id")
        return stored.as_file()

    def _file(self, kind: str, source: Any, files: Files) -> StoredFile:
        """The file a media parameter names: an upload, a known id, a URL or a new id."""
        if type(source) is not str or not source:
            raise ApiError(400, "Bad Request: wrong file identifier/HTTP URL specified")
        if source.startswith("attach://"):
            upload = files.get(source[len("attach://") :])
            if upload is None:
                raise ApiError(400, f"Bad Request: no file was uploaded for {source}")
            return self.add_file(
                upload.data, kind=kind, filename=upload.filename, mime_type=upload.content_type
            )
        if source in self.files:
            return self.files[source]
        if source.startswith(("http://", "https://")):
            return self.add_file(None, kind=kind, filename=source.rsplit("/", 1)[-1] or None)
        return self.add_file(None, kind=kind, file_id=source)

    def _media(self, kind: str, source: Any, fields: Params, files: Files) -> dict[str, Any]:
        """The Message field for one piece of media, e.g. ``{"photo": [PhotoSize]}``."""
        stored = self._file(kind, source, files)
        obj: dict[str, Any] = {"file_id": stored.file_id, "file_unique_id": stored.file_unique_id}
        if kind in _SIZES:
            width, height = _SIZES[kind]
            obj["width"] = _int(fields.get("width"), width)
            obj["height"] = _int(fields.get("height"), height)
        if kind in _TIMED:
            obj["duration"] = _int(fields.get("duration"), 0)
        if kind == "video_note":
            obj["length"] = _int(fields.get("length"), 240)
        elif kind == "audio":
            obj.update((k, fields[k]) for k in ("performer", "title") if type(fields.get(k)) is str)
        elif kind == "sticker":
            obj.update(type="regular", is_animated=False, is_video=False)
            if type(fields.get("emoji")) is str:
                obj["emoji"] = fields["emoji"]
        elif kind == "live_photo":
            obj["photo"] = self._media("photo", fields.get("photo"), {}, files)["photo"]
        if kind in _NAMED and stored.filename:
            obj["file_name"] = stored.filename
        if kind in _TYPED and stored.mime_type:
            obj["mime_type"] = stored.mime_type
        if stored.data is not None:
            obj["file_size"] = len(stored.data)
        return {kind: [obj] if kind == "photo" else obj}


def _echo(params: Params) -> dict[str, Any]:
    return {
        key: params[name]
        for name, key in _ECHO.items()
        if params.get(name) is not None and params[name] is not False
    }


def _origin(message: dict[str, Any]) -> dict[str, Any]:
    """Where a forwarded message came from, as Telegram's MessageOrigin says it."""
    date = message["date"]
    if message["chat"].get("type") == "channel":
        return {
            "type": "channel",
            "date": date,
            "chat": message["chat"],
            "message_id": message["message_id"],
        }
    if isinstance(message.get("from"), dict):
        return {"type": "user", "date": date, "sender_user": message["from"]}
    if isinstance(message.get("sender_chat"), dict):
        return {"type": "chat", "date": date, "sender_chat": message["sender_chat"]}
    return {"type": "hidden_user", "date": date, "sender_user_name": "Hidden user"}


def _media_kind(message: dict[str, Any]) -> str | None:
    return next((kind for kind in _MEDIA if kind in message), None)


def _int(value: Any, default: int) -> int:
    return value if type(value) is int else default


def _receiver(params: Params) -> int | None:
    """Who an ephemeral message is for: its parameters' receiver, or the deprecated
    top-level ``receiver_user_id`` Telegram still accepts; None for a normal message."""
    eph = params.get("ephemeral_message_parameters")
    if isinstance(eph, dict):
        receiver = eph.get("receiver_user_id")
    else:
        receiver = params.get("receiver_user_id")
    if receiver is None:
        return None
    if type(receiver) is not int:
        raise ApiError(400, "Bad Request: invalid receiver_user_id specified")
    return receiver
