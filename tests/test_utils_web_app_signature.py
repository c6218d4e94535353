"""``tgfast.utils.web_app_signature``: Mini App init data checked with Telegram's Ed25519
signature and the bot id only. The tests sign data with a key pair of their own, the way
Telegram describes ("Validating data for Third-Party Use"), and compare with aiogram's
module on the same inputs."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import subprocess
import sys
import time
from urllib.parse import urlencode

import aiogram.utils.web_app_signature as ag_signature
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from tgfast.utils.web_app import WebAppInitData
from tgfast.utils.web_app import check_webapp_signature as check_hash
from tgfast.utils.web_app_signature import (
    PRODUCTION_PUBLIC_KEY,
    TEST_PUBLIC_KEY,
    check_webapp_signature,
    safe_check_webapp_init_data_from_signature,
)

BOT_ID = 7342037359
TOKEN = f"{BOT_ID}:AAE-test-token"
PRIVATE = Ed25519PrivateKey.generate()
PUBLIC = PRIVATE.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def signed(
    fields: dict[str, str],
    *,
    bot_id: int = BOT_ID,
    key: Ed25519PrivateKey = PRIVATE,
    padded: bool = False,
    with_hash: bool = True,
) -> str:
    """Init data as Telegram makes it: ``signature`` (Ed25519 over ``bot_id:WebAppData``
    and the sorted fields) and ``hash`` (HMAC under the token, over the fields and
    ``signature``)."""
    check = "\n".join(f"{k}={fields[k]}" for k in sorted(fields))
    raw = key.sign(f"{bot_id}:WebAppData\n{check}".encode())
    signature = base64.urlsafe_b64encode(raw).decode()
    out = {**fields, "signature": signature if padded else signature.rstrip("=")}
    if with_hash:
        secret = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
        lines = "\n".join(f"{k}={out[k]}" for k in sorted(out))
        out["hash"] = hmac.new(secret, lines.encode(), hashlib.sha256).hexdigest()
    return urlencode(out)


def fields(auth_date: int | None = None) -> dict[str, str]:
    user = {"id": 42, "first_name": "Ann", "language_code": "en", "is_premium": True}
    return {
        "query_id": "AAHdF6IQAAAAAN0XohDhrOrc",
        "user": json.dumps(user, separators=(",", ":")),
        "auth_date": str(int(time.time()) if auth_date is None else auth_date),
        "start_param": "ref=ünïcode & more",
    }


def both(bot_id: int, data: str, key: bytes = PUBLIC) -> bool:
    """Our answer, asserted equal to aiogram's."""
    ours = check_webapp_signature(bot_id, data, key)
    assert ours == ag_signature.check_webapp_signature(bot_id, data, key)
    return ours


def test_telegrams_published_keys() -> None:
    # from core.telegram.org/bots/webapps#validating-data-for-third-party-use
    assert PRODUCTION_PUBLIC_KEY.hex() == (
        "e7bf03a2fa4602af4580703d88dda5bb59f32ed8b02a56c187fe7d34caed242d"
    )
    assert TEST_PUBLIC_KEY.hex() == (
        "40055058a4ee38156a06562e52eece92a771bcd8346a8c4615cb7376eddf72ec"
    )
    assert PRODUCTION_PUBLIC_KEY == ag_signature.PRODUCTION_PUBLIC_KEY
    assert TEST_PUBLIC_KEY == ag_signature.TEST_PUBLIC_KEY


def test_valid_data_passes_with_or_without_hash_and_padding() -> None:
    assert both(BOT_ID, signed(fields()))
    assert both(BOT_ID, signed(fields(), with_hash=False))
    assert both(BOT_ID, signed(fields(), padded=True))
    # the same string passes the token holder's check too: the two coexist
    assert check_hash(TOKEN, signed(fields()))


def test_tampered_data_fails() -> None:
    data = signed(fields())
    assert not both(BOT_ID, data.replace("ref%3D", "ref%3E"))
    assert not both(BOT_ID, data + "&extra=1")  # a field added after signing
    dropped = "&".join(p for p in data.split("&") if not p.startswith("query_id="))
    assert not both(BOT_ID, dropped)


def test_wrong_bot_or_key_fails() -> None:
    data = signed(fields())
    assert not both(BOT_ID + 1, data)
    assert not both(BOT_ID, data, PRODUCTION_PUBLIC_KEY)
    assert not both(BOT_ID, data, TEST_PUBLIC_KEY)
    assert not both(BOT_ID, signed(fields(), key=Ed25519PrivateKey.generate()))
    # the default is Telegram's production key, which did not sign this
    assert check_webapp_signature(BOT_ID, data) is False


@pytest.mark.parametrize("data", ["", "auth_date=1&hash=abc", "signature=&auth_date=1", "a&&b"])
def test_missing_signature_or_malformed_data_fails(data: str) -> None:
    assert not both(BOT_ID, data)


@pytest.mark.parametrize("signature", ["%%%", "abc", "A" * 86, "A" * 200])
def test_a_signature_that_is_not_base64_or_of_wrong_size_is_invalid(signature: str) -> None:
    assert not both(BOT_ID, urlencode({**fields(), "signature": signature}))


def test_a_non_ascii_signature_is_invalid_not_an_error() -> None:
    """aiogram 3.31 lets ``ValueError`` out of the base64 decoder here; we answer False:
    a forged request must not become a server error."""
    data = urlencode({**fields(), "signature": "не base64"})
    with pytest.raises(ValueError, match="ASCII"):
        ag_signature.check_webapp_signature(BOT_ID, data, PUBLIC)
    assert check_webapp_signature(BOT_ID, data, PUBLIC) is False


def test_safe_check_parses_what_passes() -> None:
    data = signed(fields())
    parsed = safe_check_webapp_init_data_from_signature(BOT_ID, data, PUBLIC)
    theirs = ag_signature.safe_check_webapp_init_data_from_signature(BOT_ID, data, PUBLIC)
    assert isinstance(parsed, WebAppInitData)
    assert parsed.user is not None and theirs.user is not None
    assert (parsed.user.id, parsed.user.first_name) == (theirs.user.id, theirs.user.first_name)
    assert parsed.start_param == theirs.start_param == "ref=ünïcode & more"
    assert parsed.auth_date == theirs.auth_date
    assert parsed.signature == theirs.signature
    with pytest.raises(ValueError, match="Invalid init data signature"):
        safe_check_webapp_init_data_from_signature(BOT_ID + 1, data, PUBLIC)


def test_max_age_refuses_old_data() -> None:
    old = signed(fields(auth_date=int(time.time()) - 3600))
    assert check_webapp_signature(BOT_ID, old, PUBLIC)  # the signature itself never expires
    with pytest.raises(ValueError, match="older than 60 seconds"):
        safe_check_webapp_init_data_from_signature(BOT_ID, old, PUBLIC, max_age=60)
    fresh = signed(fields())
    assert safe_check_webapp_init_data_from_signature(BOT_ID, fresh, PUBLIC, max_age=3600)


def test_without_cryptography_the_import_error_names_the_extra() -> None:
    code = (
        "import sys\n"
        "sys.modules['cryptography'] = None\n"
        "try:\n"
        "    import tgfast.utils.web_app_signature\n"
        "except ImportError as e:\n"
        "    print(e)\n"
        "import tgfast.utils.web_app\n"  # the token check needs nothing extra
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert "pip install 'tgfast[signature]'" in result.stdout
    assert "cryptography" in result.stdout
