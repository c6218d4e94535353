#!/usr/bin/env bash
# Set up and run tgfast on a fresh machine:
#   1. create .venv and install tgfast with its compiled extensions;
#   2. start examples/echo_bot.py under `tgfast webhook --fake` (the built-in
#      FakeTelegram as its Bot API, no token needed), feed it a short scripted
#      conversation through the fake and print what the bot answered;
#   3. stop it with SIGTERM, as a deployment would, and show that it drained.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
echo "== installing tgfast (accelerated build) =="
rm -rf build  # setuptools reuses build/lib: a module deleted since would come back
.venv/bin/python -m pip install -q --force-reinstall --no-deps .
.venv/bin/python -m pip install -q .
.venv/bin/tgfast --version
echo "== a conversation with examples/echo_bot.py =="
.venv/bin/python examples/demo_conversation.py
