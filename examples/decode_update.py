"""Decode a webhook body the way tgfast's server will, and show what came out."""

from __future__ import annotations

import tgfast

BODY = (
    b'{"update_id": 10001, "message": {"message_id": 1, "date": 1700000000,'
    b' "from": {"id": 42, "is_bot": false, "first_name": "Alice", "username": "alice"},'
    b' "chat": {"id": 42, "type": "private", "first_name": "Alice"},'
    b' "text": "/start", "entities": [{"type": "bot_command", "offset": 0, "length": 6}]}}'
)


def main() -> None:
    update = tgfast.decode_update(BODY)
    message = update.message
    assert message is not None and message.from_user is not None
    build = "compiled" if tgfast.__speedups__ else "pure-Python"
    print(f"tgfast {tgfast.__version__} ({build} build), Bot API {tgfast.API_VERSION}")
    print(f"update {update.update_id}: {message.from_user.first_name} said {message.text!r}")
    print(repr(update))
    try:
        tgfast.decode_update(b'{"update_id": 1, "message": {"message_id": "x"}}')
    except tgfast.DecodeError as error:
        print(f"a bad body is refused with: {error}")


if __name__ == "__main__":
    main()
