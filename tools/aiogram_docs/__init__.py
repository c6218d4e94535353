"""aiogram documentation snippets on tgfast: see run.py."""
