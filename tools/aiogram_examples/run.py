"""aiogram's own examples on tgfast, ported by changing imports only: do they start and
make the same Bot API calls as on aiogram?  (The measure of issue #14.)

    .venv/bin/python -m tools.aiogram_examples [EXAMPLE ...] [--examples DIR]

The examples come from the sdist of the installed aiogram (downloaded from PyPI once,
into ~/.cache/tgfast/); they are run, never copied into this repository. Each runs in
its own process on each framework (boot.py), against a FakeTelegram in this process
that is given the same scripted updates (by getUpdates, or POSTed to the example's
webhook); the calls each made are compared, the framework's own getUpdates/getMe/
deleteWebhook left out. Needs network access to PyPI for the first download only.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

import aiohttp

from tgfast.testing import FakeTelegram

from .scripts import DEFAULT, SCRIPTS, WEBHOOKS

HERE = Path(__file__).parent
EXAMPLES = [
    "echo_bot", "echo_bot_webhook", "error_handling", "finite_state_machine", "multibot",
    "own_filter", "context_addition_from_filter", "specify_updates", "stars_invoice",
    "without_dispatcher", "multi_file_bot/bot", "web_app/main", "scene", "quiz_scene",
]  # fmt: skip
ARGS = {"without_dispatcher": ["--token", "42:TEST", "--chat-id", "1", "-m", "Hi <b>there</b>"]}
OWN = frozenset({"getUpdates", "getMe", "deleteWebhook", "close", "logOut"})
# aiogram also sends the deprecated disable_web_page_preview="true" next to
# link_preview_options when a default disables previews; Telegram reads the latter
QUIRKS = ("disable_web_page_preview",)
_IMPORT = re.compile(r"^(\s*)(from|import)\s+aiogram\b", re.MULTILINE)
Calls = list[tuple[str, dict[str, Any]]]


def port(source: str) -> str:
    """The one change a user makes: ``aiogram`` -> ``tgfast`` in import statements."""
    return _IMPORT.sub(r"\1\2 tgfast", source)


def fetch_examples() -> Path:
    """The examples/ folder of the installed aiogram's sdist, downloaded once."""
    release = version("aiogram")
    cache = Path.home() / ".cache" / "tgfast" / f"aiogram-{release}"
    if not (cache / "examples").is_dir():
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
             "-d", str(cache), f"aiogram=={release}"],
            check=True,
        )  # fmt: skip
        with tarfile.open(next(cache.glob("aiogram-*.tar.gz"))) as sdist:
            members = [m for m in sdist.getmembers() if "/examples/" in m.name]
            sdist.extractall(cache, members=members, filter="data")
        shutil.move(str(next(cache.glob("aiogram-*/examples"))), cache / "examples")
    return cache / "examples"


def workspace(examples: Path, framework: str) -> Path:
    work = Path("/tmp") / "tgfast-aiogram-examples" / framework
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(examples, work)
    if framework == "tgfast":
        for path in work.rglob("*.py"):
            path.write_text(port(path.read_text()))
    return work


async def run(
    work: Path, framework: str, name: str, quiet: float = 1.0
) -> tuple[Calls, str, int | None]:
    """The calls example ``name`` made on ``framework``, its output and exit status; the
    next update goes in once no call has come for ``quiet`` seconds."""
    path = work / f"{name}.py"
    hook = WEBHOOKS.get(name)
    async with FakeTelegram(token="42:TEST") as fake:
        env = dict(os.environ, FW=framework, FAKE_URL=fake.url, BOT_TOKEN="42:TEST")
        env.update(WEBHOOK_SECRET="my-secret", BASE_WEBHOOK_URL="http://127.0.0.1:8080")
        proc = await asyncio.create_subprocess_exec(
            sys.executable, str(HERE / "boot.py"), str(path), *ARGS.get(name, []),
            env=env, cwd=path.parent,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        )  # fmt: skip
        await _started(proc, fake, hook is not None, quiet)
        async with aiohttp.ClientSession() as http:
            for update_id, update in enumerate(SCRIPTS.get(name, DEFAULT)(), 1):
                update = fake.add_update({"update_id": update_id, **update})
                if hook is not None and proc.returncode is None:  # post it as Telegram would
                    headers = {"X-Telegram-Bot-Api-Secret-Token": hook[1]} if hook[1] else {}
                    url = f"http://127.0.0.1:8080{hook[0]}"
                    try:
                        async with http.post(url, json=update, headers=headers) as response:
                            await response.read()
                    except aiohttp.ClientError:
                        pass  # the example is not listening (it failed): its output says why
                await _quiet(proc, fake, quiet)
        if proc.returncode is None:
            proc.send_signal(signal.SIGINT)
            try:
                await asyncio.wait_for(proc.wait(), 15)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        assert proc.stdout is not None
        output = (await proc.stdout.read()).decode(errors="replace")
        calls = [(call.method, call.params) for call in fake.calls if call.method not in OWN]
        return calls, output, proc.returncode


async def _started(
    proc: asyncio.subprocess.Process, fake: FakeTelegram, webhook: bool, quiet: float
) -> None:
    """Until the example polls (or listens on its webhook port), or exits; at most 60 s."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.returncode is None:
        if webhook:
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", 8080)
                writer.close()
                break
            except OSError:
                pass
        elif any(call.method == "getUpdates" for call in fake.calls):
            break
        await asyncio.sleep(0.2)
    await _quiet(proc, fake, quiet)


async def _quiet(proc: asyncio.subprocess.Process, fake: FakeTelegram, period: float = 1.0) -> None:
    """Until no call has come for ``period`` seconds (or the example has exited)."""
    seen, since = -1, time.monotonic()
    while time.monotonic() - since < period and proc.returncode is None:
        if len(fake.calls) != seen:
            seen, since = len(fake.calls), time.monotonic()
        await asyncio.sleep(0.1)


def normalized(calls: Calls) -> Calls:
    return [(m, {k: v for k, v in p.items() if k not in QUIRKS}) for m, p in calls]


def problems(output: str) -> list[str]:
    return [line for line in output.splitlines() if "Error" in line and "Traceback" not in line]


def _first_difference(theirs: Calls, ours: Calls) -> None:
    for index in range(max(len(theirs), len(ours))):
        a = theirs[index] if index < len(theirs) else None
        b = ours[index] if index < len(ours) else None
        if a != b:
            print(f"    call {index}: aiogram {a}\n    call {index}: tgfast  {b}")
            return


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", default=EXAMPLES)
    parser.add_argument("--examples", type=Path, help="an examples/ folder (default: download)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print differing calls")
    parser.add_argument(
        "--quiet", type=float, default=1.0, help="seconds without a call before the next update"
    )
    options = parser.parse_args()
    examples = options.examples or fetch_examples()
    works = {fw: workspace(examples, fw) for fw in ("aiogram", "tgfast")}
    print(f"aiogram {version('aiogram')} examples, tgfast {version('tgfast')}")
    print(f"{'example':32} {'aiogram':>8} {'tgfast':>8}  verdict")
    same = 0
    for name in options.names:
        theirs, their_out, _ = await run(works["aiogram"], "aiogram", name, options.quiet)
        ours, our_out, _ = await run(works["tgfast"], "tgfast", name, options.quiet)
        verdict = "same calls" if normalized(theirs) == normalized(ours) else "DIFFERENT"
        same += verdict == "same calls"
        print(f"{name:32} {len(theirs):>8} {len(ours):>8}  {verdict}")
        if verdict != "same calls" or options.verbose:
            for line in problems(our_out)[:3]:
                print(f"    tgfast: {line[:160]}")
            _first_difference(normalized(theirs), normalized(ours))
    print(f"{same}/{len(options.names)} examples make the same calls")
    return 0 if same == len(options.names) else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
