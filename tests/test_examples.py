"""The examples the README runs work, in a fresh interpreter, from any directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(script: str, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("TGFAST_TOKEN", "BOT_TOKEN")}
    result = subprocess.run(
        [sys.executable, "-W", "error", str(ROOT / "examples" / script)],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_decode_update_example(tmp_path: Path) -> None:
    out = _run("decode_update.py", tmp_path)
    assert "Alice said '/start'" in out
    assert "a bad body is refused with: $.message.message_id: expected int" in out


def test_client_demo_against_the_fake(tmp_path: Path) -> None:
    out = _run("client_demo.py", tmp_path)
    assert "the bot is @tgfast_test_bot" in out
    assert "downloaded the photo back: b'\\x89PNG fake'" in out
    assert "sendMessage: Forbidden: bot was blocked by the user [403]" in out
    assert "editMessageText" in out and "TEST-fake-token" not in out
