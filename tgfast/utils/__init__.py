"""aiogram's utilities at aiogram's paths (``tgfast.utils.keyboard``, ``markdown``...)."""
