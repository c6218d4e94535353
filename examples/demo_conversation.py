"""A short conversation with examples/echo_bot.py, served by ``tgfast webhook --fake``.

    python examples/demo_conversation.py

Starts the bot in its own process exactly as a user would (the ``tgfast`` command
next to this Python, else ``python -m tgfast``), with the built-in FakeTelegram as its
Bot API. Each line the user says goes to ``POST /fake/updates``: the fake delivers it
to the bot's webhook with the secret, like Telegram. What the bot sent back is read
from ``GET /fake/calls``. Then the bot gets SIGTERM and drains.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BOT = HERE / "echo_bot.py"
CONVERSATION = ["Hello!", "How are you?", "tgfast echoes every word"]
_READY = re.compile(r"feed it: .* (http://\S+)/fake/updates")


def tgfast_command() -> list[str]:
    script = Path(sys.executable).parent / "tgfast"
    if script.exists():
        return [str(script)]
    found = shutil.which("tgfast")
    if found and Path(found).resolve().parent == Path(sys.executable).resolve().parent:
        return [found]
    return [sys.executable, "-m", "tgfast"]


def request(url: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read())


def main() -> int:
    command = [*tgfast_command(), "webhook", f"{BOT}:dp", "--fake", "--port", "0"]
    env = {k: v for k, v in os.environ.items() if k not in ("TGFAST_TOKEN", "BOT_TOKEN")}
    print("$ tgfast webhook examples/echo_bot.py:dp --fake --port 0")
    bot = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
    assert bot.stderr is not None
    log: list[str] = []
    base = None
    for line in bot.stderr:
        log.append(line)
        match = _READY.search(line)
        if match:
            base = match.group(1)
            break
    if base is None:
        bot.wait()
        print("".join(log), file=sys.stderr)
        print(f"the bot did not start (exit status {bot.returncode})", file=sys.stderr)
        return 1
    reader = threading.Thread(target=lambda: log.extend(bot.stderr or ()), daemon=True)
    reader.start()
    try:
        print(f"echo bot serving webhooks at {base}/webhook, Bot API: FakeTelegram\n")
        seen = request(f"{base}/fake/calls")["next"]
        for text in CONVERSATION:
            [delivery] = request(f"{base}/fake/updates", {"text": text, "chat_id": 42,
                                                          "first_name": "Ann"})  # fmt: skip
            print(f"Ann: {text}    (webhook answered {delivery['status']})")
            answer = request(f"{base}/fake/calls?after={seen}&wait=10")
            seen = answer["next"]
            for call in answer["calls"]:
                if call["method"] == "sendMessage":
                    print(f"bot: {call['params']['text']}")
        metrics = urllib.request.urlopen(f"{base}/metrics", timeout=10).read().decode()
        handled = re.search(r'updates_handled_total\{kind="message"\} (\d+)', metrics)
        print(f"\n/metrics: {handled.group(1) if handled else 0} messages handled")
    finally:
        bot.send_signal(signal.SIGTERM)
        status = bot.wait(timeout=30)
        reader.join(timeout=5)
        bot.stderr.close()
    drained = any("drained" in line for line in log)
    print(f"SIGTERM: the bot drained and exited with status {status}"
          + ("" if drained else " (no drain message!)"))  # fmt: skip
    return 0 if status == 0 and drained else 1


if __name__ == "__main__":
    sys.exit(main())
