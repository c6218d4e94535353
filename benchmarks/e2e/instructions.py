"""Instructions per webhook update of a whole echo bot process, counted by callgrind.

    python benchmarks/e2e/instructions.py                      # tgfast and tgfast-fast
    python benchmarks/e2e/instructions.py --contender tgfast --contender tgfast-ref \\
        --ref-path /tmp/tgfast-at-b3dcbe4 --updates 300
    python benchmarks/e2e/instructions.py --contender tgfast --contender tgfast-ops
        # what logging at info and tracing switched off cost (issue #27)

CPU time per update on a shared machine drifts by 10 % and more from run to run, which
hides a regression of that size; instruction counts do not drift. Each contender's bot
(the e2e harness's command line: ``bots.command``) runs under valgrind's callgrind
twice against the harness's sink: both runs get ``--warmup`` updates, then one gets
``--base`` more and the other ``--base + --updates`` more; the difference of the two
totals over ``--updates`` is one update, start-up, warm-up and shutdown excluded.
Updates are posted one at a time, each after the previous echo reached the sink, so
both runs do the same work per update (no batching that depends on timing).
Instructions are not time (cache misses and syscalls cost time without instructions):
this shows where a change adds or removes work, the e2e table what it costs.

Needs valgrind; about a minute per contender.
"""

from __future__ import annotations

import sys

sys.dont_write_bytecode = True

import argparse  # noqa: E402
import asyncio  # noqa: E402
import contextlib  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from bots import NAMES, Launch, command, environment  # noqa: E402
from sink import Sink  # noqa: E402

# tgfast's lateness watch ticks 40 times a second of wall time: under callgrind an update
# takes ~50x its time, so the ticks would count as thousands of instructions per update
# that at real speed are a few dozen (tgfast-ref: a build older than the option)
_UNTIMED = ("--max-lag", "0")
TOKEN = "123456789:AAE2eBenchmarkTokenForTheSink_0000000"
SECRET = "e2e-benchmark-secret_1"
_TEMPLATE = (
    b'{"update_id":%d,"message":{"message_id":%d,'
    b'"from":{"id":%d,"is_bot":false,"first_name":"Load","last_name":"Test",'
    b'"username":"load_test_%d","language_code":"en"},'
    b'"chat":{"id":%d,"first_name":"Load","last_name":"Test",'
    b'"username":"load_test_%d","type":"private"},'
    b'"date":1700000000,"text":"e2e %d"}}'
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class _Webhook:
    """One kept-alive connection posting updates, as Telegram does."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    async def post(self, body: bytes) -> None:
        self.writer.write(
            b"POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"X-Telegram-Bot-Api-Secret-Token: %s\r\nContent-Length: %d\r\n\r\n%s"
            % (SECRET.encode(), len(body), body)
        )
        head = await self.reader.readuntil(b"\r\n\r\n")
        if b" 200 " not in head.split(b"\r\n", 1)[0]:
            raise RuntimeError(f"webhook answered {head[:60]!r}")
        length = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
        if length is not None:
            await self.reader.readexactly(int(length.group(1)))


def _keep(out: Path, to: Path) -> None:
    to.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(out, to)


async def _count(name: str, updates: int, warmup: int, args: argparse.Namespace) -> int:
    """Instructions of one whole bot process that handled ``warmup + updates`` updates."""
    sink = Sink()
    await sink.start()
    port = _free_port()
    launch = Launch(
        port=port, api_url=sink.url, token=TOKEN, secret=SECRET, path="/webhook",
        loop="uvloop", tgfast_path=args.tgfast_path, ref_path=args.ref_path,
        tgfast_args=() if name == "tgfast-ref" else _UNTIMED,
    )  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="tgfast-ir-") as tmp:
        out = Path(tmp) / "callgrind.out"
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
               *command(name, "webhook", launch)]  # fmt: skip
        env = environment(name, launch) | {"PYTHONHASHSEED": "0"}
        log = (Path(tmp) / "bot.log").open("wb")
        proc = subprocess.Popen(cmd, env=env, cwd=tmp, stdout=log, stderr=subprocess.STDOUT)  # noqa: ASYNC220
        try:
            deadline = time.monotonic() + 300
            while True:
                with contextlib.suppress(OSError):
                    _, w = await asyncio.open_connection("127.0.0.1", port)
                    w.close()
                    break
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"{name} did not start: {(Path(tmp) / 'bot.log').read_text()[-2000:]}"
                    )
                await asyncio.sleep(0.2)
            hook = _Webhook(*await asyncio.open_connection("127.0.0.1", port))
            for i in range(1, warmup + updates + 1):
                chat = 1000 + i % 50
                await hook.post(_TEMPLATE % (i, i, chat, chat, chat, chat, i))
                while sink.methods["sendmessage"] < i:
                    if proc.poll() is not None:
                        raise RuntimeError(f"{name} exited")
                    await asyncio.sleep(0.002)
        finally:
            proc.send_signal(signal.SIGTERM)
            await asyncio.get_running_loop().run_in_executor(None, proc.wait)
            log.close()
            await sink.close()
        if args.keep:  # for callgrind_annotate: where the instructions go
            _keep(out, Path(args.keep) / f"callgrind.{name}.{warmup + updates}")
        text = out.read_text(errors="replace")
        found = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
        if found is None:
            raise RuntimeError("no instruction total in the callgrind output")
        return int(found.group(1))


async def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--contender", action="append", choices=NAMES)
    p.add_argument("--updates", type=int, default=200, help="the difference between the runs")
    p.add_argument("--base", type=int, default=20, help="updates of the shorter run")
    p.add_argument("--warmup", type=int, default=30)
    p.add_argument("--tgfast-path", default=str(HERE.parents[1]))
    p.add_argument("--ref-path", default="")
    p.add_argument("--keep", metavar="DIR", help="keep callgrind's outputs there")
    args = p.parse_args()
    names = args.contender or ["tgfast", "tgfast-fast"]
    print(f"| contender | instructions per update ({args.updates} updates, callgrind) |")
    print("|:---|---:|")
    for name in names:
        short = await _count(name, args.base, args.warmup, args)
        long = await _count(name, args.base + args.updates, args.warmup, args)
        print(f"| {name} | {(long - short) / args.updates:,.0f} |", flush=True)


if __name__ == "__main__":
    os.environ.pop("TGFAST_TOKEN", None)
    asyncio.run(main())
