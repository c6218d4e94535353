"""The bot of the album fleet tests: one answer per album, naming its parts and the
worker that handed it over; each part a worker handled is noted in ``ALBUM_PARTS_LOG``
(``worker message_id`` lines), so a test sees how the parts were split. ``ALBUM_DELAY``
sets the quiet period (0.4 s by default); the sweep for albums of dead workers runs
every 0.5 s."""

from __future__ import annotations

import os
from typing import Any

from tgfast import Dispatcher, F
from tgfast.dispatcher.middleware import Handler
from tgfast.types import Message, Update
from tgfast.utils.album import AlbumMiddleware

dp = Dispatcher()
WORKER = os.environ.get("TGFAST_WORKER_ID", "-")
WHO = f"[worker {WORKER} pid {os.getpid()}]"


@dp.update.outer_middleware()
async def note_part(handler: Handler, update: Update, data: dict[str, Any]) -> Any:
    if update.message is not None and "album" not in data:
        with open(os.environ["ALBUM_PARTS_LOG"], "a") as log:  # one short O_APPEND write
            log.write(f"{WORKER} {update.message.message_id}\n")
    return await handler(update, data)


AlbumMiddleware(float(os.environ.get("ALBUM_DELAY", "0.4")), sweep_every=0.5).setup(dp)


@dp.message(F.media_group_id)
async def album(message: Message, album: list[Message]) -> None:
    ids = " ".join(str(part.message_id) for part in album)
    await message.answer(f"album {ids} {WHO}")
