"""aiogram's own examples, run on aiogram and on tgfast: see run.py."""
