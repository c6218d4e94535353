"""aiogram's own test suite on tgfast (``python -m tools.aiogram_tests``)."""
