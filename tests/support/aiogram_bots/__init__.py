"""Bots written the aiogram 3 way (our own, not aiogram's), for tests/test_aiogram_compat.py.

Each module builds its bot with ``make_bot(api_url)`` and has a ``dp`` (or ``router``);
the compat test runs it once as written, on aiogram, and once with ``aiogram`` replaced
by ``tgfast`` in its imports, and compares the Bot API calls the two make.
"""
