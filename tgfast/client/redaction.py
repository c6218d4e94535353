"""Finding a bot token in text in any form it takes on the way: raw, percent-encoded
(once or more, any hex case), escaped for JSON or a Python ``repr``, or as an HTML
character reference.

A server that echoes the request path (an error page, a proxy's "not found") may write
``/bot123%3AAAH...`` or ``\\u0031\\u0032...``; replacing the exact token string misses
those. The pattern is built once per token: each character may appear as itself or in
any of its encoded forms, so a token with only some characters encoded is found too.
Matching ignores case (a lower-cased echo still carries the secret).
"""

from __future__ import annotations

import re

__all__ = ["REDACTED", "TokenRedactor"]

REDACTED = "<token>"

# the secret alone is redacted too when it is long enough not to match ordinary words;
# BotFather's secrets are 35 characters
_MIN_SECRET_ALONE = 8


def _char_forms(char: str) -> str:
    """A regular expression matching ``char`` raw or in one of its encodings."""
    code = ord(char)
    hex2 = f"{code:02x}"
    forms = [
        re.escape(char),
        rf"%(?:25)*{hex2}",  # percent-encoded, possibly again and again (%253A)
        rf"%(?:25)*u00{hex2}",  # the non-standard %uXXXX
        rf"\\+u00{hex2}",  # JSON and Python escapes, possibly escaped again by a repr
        rf"\\+x{hex2}",  # Python's \xNN
        rf"&#0*{code};?",  # HTML decimal reference
        rf"&#x0*{hex2};?",  # HTML hex reference
    ]
    if char == ":":
        forms.append(r"&colon;")
    return "(?:" + "|".join(forms) + ")"


class TokenRedactor:
    """``redactor(text)``: ``text`` with every form of the token replaced by
    ``<token>``. Used on every error text and log line the client writes."""

    __slots__ = ("_pattern",)

    def __init__(self, token: str) -> None:
        secret = token.partition(":")[2]
        parts = ["".join(_char_forms(c) for c in token)]
        if len(secret) >= _MIN_SECRET_ALONE:
            # the secret without its id: echoed apart, or after a colon in a form not
            # listed here
            parts.append("".join(_char_forms(c) for c in secret))
        self._pattern = re.compile("|".join(parts), re.IGNORECASE)

    def __call__(self, text: str) -> str:
        return self._pattern.sub(REDACTED, text)

    def __repr__(self) -> str:
        return "TokenRedactor(<token>)"
