"""tgfast.utils.auth_widget: the Login Widget hash, checked against aiogram's functions."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

import pytest
from aiogram.utils import auth_widget as aiogram_auth

from tgfast.utils.auth_widget import check_integrity, check_signature

TOKEN = "42:TEST-token"


def _sign(token: str, fields: dict[str, Any]) -> str:
    """The hash per Telegram's Login Widget docs, written out independently."""
    lines = "\n".join(f"{key}={fields[key]}" for key in sorted(fields))
    key = hashlib.sha256(token.encode()).digest()
    return hmac.new(key, lines.encode(), hashlib.sha256).hexdigest()


FIELDS: dict[str, Any] = {
    "id": 1234567,
    "first_name": "Ana",
    "last_name": "Ñúñez",
    "username": "ana",
    "photo_url": "https://t.me/i/userpic/320/ana.jpg",
    "auth_date": 1700000000,
}


def _cases() -> list[dict[str, Any]]:
    signed = {**FIELDS, "hash": _sign(TOKEN, FIELDS)}
    return [
        signed,
        {**signed, "first_name": "Eve"},  # a field changed after signing
        {**signed, "is_admin": "true"},  # a field added
        {k: v for k, v in signed.items() if k != "username"},  # a field removed
        {**signed, "hash": signed["hash"].upper()},
        {**signed, "hash": "0" * 64},
        {**signed, "hash": ""},
        {**signed, "hash": "ñ" * 64},  # not ASCII: False, not an error
        {"hash": _sign(TOKEN, {})},  # nothing but the hash
    ]


def test_signed_data_passes_and_tampered_fails() -> None:
    signed = {**FIELDS, "hash": _sign(TOKEN, FIELDS)}
    assert check_integrity(TOKEN, signed) is True
    assert check_signature(TOKEN, **signed) is True
    assert check_integrity("43:other-token", signed) is False
    assert check_integrity(TOKEN, {**signed, "auth_date": 1700000001}) is False
    # values are compared as text: "1234567" signs the same as 1234567
    assert check_integrity(TOKEN, {**signed, "id": "1234567"}) is True


@pytest.mark.parametrize("data", _cases())
def test_agrees_with_aiogram(data: dict[str, Any]) -> None:
    expected = aiogram_auth.check_integrity(TOKEN, data)
    assert check_integrity(TOKEN, data) is expected
    assert check_signature(TOKEN, **data) is expected


def test_missing_hash_raises_like_aiogram() -> None:
    with pytest.raises(TypeError):
        aiogram_auth.check_integrity(TOKEN, dict(FIELDS))
    with pytest.raises(TypeError):
        check_integrity(TOKEN, dict(FIELDS))


def test_non_string_hash_is_false_like_aiogram() -> None:
    assert aiogram_auth.check_signature(TOKEN, None, **FIELDS) is False  # type: ignore[arg-type]
    assert check_signature(TOKEN, None, **FIELDS) is False  # type: ignore[arg-type]
