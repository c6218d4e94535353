"""aiogram's utilities at aiogram's paths: text decorations and markdown helpers so far."""
