"""What logging at info, metrics hooks and tracing switched off cost per update, in
instructions counted by valgrind's callgrind (repeatable on a noisy machine).

    python benchmarks/scripts/ops_overhead.py --build /tmp/main-build --build /tmp/this-build

For each build (a directory put first on ``PYTHONPATH``, e.g. an unpacked wheel) a
child process feeds updates through ``UpdateProcessor`` to an echo handler that calls
``sendMessage`` on an in-process ``FakeTelegram``: the serving path of the e2e
benchmark without its HTTP intake. It runs twice under callgrind, with ``--updates``
more updates the second time; the difference over ``--updates`` is one update.
``--trace`` also counts the build with ``tgfast.tracing.instrument()`` on (the SDK's
``TracerProvider``, no exporter).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

WARM_UP = 30

CHILD = """
import asyncio, gc, sys
from tgfast import Dispatcher
from tgfast.client import Bot
from tgfast.decoding import convert
from tgfast.server.processing import UpdateProcessor
from tgfast.testing import FakeTelegram
from tgfast.types import Message, Update

if {trace}:
    from opentelemetry.sdk.trace import TracerProvider
    from tgfast import tracing
    tracing.instrument(TracerProvider())


def update(n):
    return convert(Update, {{"update_id": n, "message": {{"message_id": n, "date": 1,
        "chat": {{"id": 1000 + n % 50, "type": "private"}}, "text": "hi " + str(n)}}}})


async def main():
    dp = Dispatcher()

    @dp.message()
    async def echo(message: Message) -> None:
        await message.answer(message.text)

    async with FakeTelegram() as fake:
        async with Bot(fake.token, server=fake.url, rate_limiter=None) as bot:
            processor = UpdateProcessor(dp, bot, seen=None)
            updates = [update(n) for n in range({count})]
            gc.collect()
            gc.freeze()
            for u in updates:
                assert processor.put(u).taken
                await processor.join()


asyncio.run(main())
"""


def instructions(build: str, count: int, trace: bool) -> int:
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": build}
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
         "-c", CHILD.format(count=count, trace=trace)],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    found = re.search(r"I\s+refs:\s+([\d,]+)", run.stderr)
    if run.returncode != 0 or found is None:
        raise RuntimeError(f"the child failed:\n{run.stderr[-3000:]}")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", action="append", required=True, help="repeatable")
    parser.add_argument("--updates", type=int, default=300)
    parser.add_argument("--trace", action="store_true", help="also with tracing on")
    args = parser.parse_args()
    rows = []
    for build in args.build:
        for trace in (False, True) if args.trace else (False,):
            if trace and build != args.build[-1]:
                continue  # tracing exists in the last build only (this branch)
            base = instructions(build, WARM_UP, trace)
            more = instructions(build, WARM_UP + args.updates, trace)
            per = (more - base) / args.updates
            rows.append((build + (" (tracing on)" if trace else ""), per))
            print(f"{rows[-1][0]}: {per:,.0f}", file=sys.stderr)
    first = rows[0][1]
    print(f"Instructions per update (callgrind, {args.updates} updates, Python "
          f"{sys.version.split()[0]}), relative to the first build:\n")  # fmt: skip
    print("| build | instructions/update | × |")
    print("|:---|---:|---:|")
    for name, per in rows:
        print(f"| {name} | {per / 1000:,.1f}k | {per / first:.3f} |")


if __name__ == "__main__":
    main()
