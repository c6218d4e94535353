"""Reading one Bot API request the way Telegram does, whatever its encoding.

Telegram takes parameters from the query string and from a JSON, urlencoded or
multipart body, and in the last three every value is text. The fake turns them all
into one normalized ``params`` dict, typed by the method's description, so that a
test asserts on the same values however the client chose to encode them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

import orjson
from aiohttp import BodyPartReader, MultipartReader, hdrs, web

from tgfast.methods import MethodDescription

__all__ = [
    "MAX_BODY_SIZE",
    "ApiError",
    "Call",
    "UploadedFile",
    "body_type",
    "normalize",
    "read_multipart",
    "read_params",
]

MAX_BODY_SIZE = 50 * 1024 * 1024
"""Telegram refuses uploads over 50 MB; so does the fake."""

_INT = re.compile(r"-?\d+")
_BOOLS = {"true": True, "1": True, "false": False, "0": False}
_PLAIN = frozenset({"int", "float", "bool", "true", "str", "InputFile"})


class ApiError(Exception):
    """A Telegram-style refusal: raised anywhere in the fake, answered as JSON."""

    def __init__(
        self, error_code: int, description: str, parameters: dict[str, Any] | None = None
    ) -> None:
        super().__init__(description)
        self.error_code = error_code
        self.description = description
        self.parameters = parameters

    def payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ok": False,
            "error_code": self.error_code,
            "description": self.description,
        }
        if self.parameters:
            out["parameters"] = self.parameters
        return out


@dataclass(frozen=True)
class UploadedFile:
    """One file part of a multipart request, byte for byte as the client sent it."""

    filename: str | None
    content_type: str | None
    data: bytes = field(repr=False)


@dataclass(frozen=True)
class Call:
    """One request the fake received, in the form a test asserts on.

    ``method`` is the canonical Bot API name even when the URL used another case;
    ``fault`` names the injected fault that answered it (``"fail"``, ``"http_error"``,
    ``"drop"``, ``"delay"``) or is ``None`` for a normal answer.
    """

    method: str
    params: dict[str, Any]
    files: dict[str, UploadedFile]
    content_type: str | None
    http_method: str
    fault: str | None = None


def body_type(request: web.BaseRequest) -> str | None:
    """The media type of the body (without parameters), None when there is no body."""
    return request.content_type if request.body_exists else None


async def read_params(
    request: web.BaseRequest, desc: MethodDescription | None, limit: int = MAX_BODY_SIZE
) -> tuple[dict[str, Any], dict[str, UploadedFile]]:
    """``(params, files)`` of a request, normalized; raises ApiError on a bad body."""
    params: dict[str, Any] = dict(request.query)
    files: dict[str, UploadedFile] = {}
    content_type = body_type(request)
    if request.content_length is not None and request.content_length > limit:
        raise _too_large()
    if content_type == "multipart/form-data":
        await _read_multipart(request, params, files, limit)
    elif content_type is not None:
        try:
            body = await request.read()
        except web.HTTPRequestEntityTooLarge:
            raise _too_large() from None
        if content_type == "application/json":
            params.update(_json_object(body))
        elif content_type == "application/x-www-form-urlencoded":
            try:
                params.update(parse_qsl(body.decode(), keep_blank_values=True))
            except UnicodeDecodeError:
                raise ApiError(400, "Bad Request: request body is not UTF-8") from None
    return normalize(desc, params, files), files


def normalize(
    desc: MethodDescription | None, params: dict[str, Any], files: dict[str, UploadedFile]
) -> dict[str, Any]:
    """Type text values by the method's parameter types, in place, the way Telegram does.

    A file part whose field is a parameter of the method stands for that parameter
    (``params["photo"] == "attach://photo"``); other file parts are the targets of
    ``attach://<name>`` references inside JSON parameters.
    """
    if desc is None:
        return params
    names = {p.name for p in desc.params}
    for name in files:
        if name in names:
            params[name] = f"attach://{name}"
    for p in desc.params:
        if p.name in params:
            params[p.name] = _coerce(p.name, p.type, params[p.name])
    return params


async def _read_multipart(
    request: web.BaseRequest,
    params: dict[str, Any],
    files: dict[str, UploadedFile],
    limit: int,
) -> None:
    # Read by hand rather than request.post(): that spools files to temporary files
    # and leaks them when it gives up half-way through an oversized body.
    try:
        reader = await request.multipart()
    except (ValueError, LookupError) as e:
        raise ApiError(400, f"Bad Request: malformed multipart body ({e})") from None
    await read_multipart(reader, params, files, limit)


async def read_multipart(
    reader: MultipartReader,
    params: dict[str, Any],
    files: dict[str, UploadedFile],
    limit: int = MAX_BODY_SIZE,
) -> None:
    """The parts of a multipart body into ``params`` (text) and ``files``; ApiError for
    a malformed or oversized one."""
    total = 0
    try:
        while (part := await reader.next()) is not None:
            if not isinstance(part, BodyPartReader) or part.name is None:
                raise ApiError(400, "Bad Request: malformed multipart body")
            chunks = bytearray()
            while chunk := await part.read_chunk():
                total += len(chunk)
                if total > limit:
                    raise _too_large()
                chunks.extend(chunk)
            data = bytes(part.decode(chunks))
            part_type = part.headers.get(hdrs.CONTENT_TYPE)
            if part.filename is None and _is_text(part_type):
                params[part.name] = data.decode(part.get_charset("utf-8"))
            else:
                files[part.name] = UploadedFile(part.filename, part_type, data)
    except (ValueError, LookupError) as e:
        raise ApiError(400, f"Bad Request: malformed multipart body ({e})") from None


def _is_text(content_type: str | None) -> bool:
    """A part without a file name is a parameter unless its type says it is binary."""
    if content_type is None:
        return True
    media_type = content_type.partition(";")[0].strip().lower()
    return media_type.startswith("text/") or media_type == "application/json"


def _json_object(body: bytes) -> dict[str, Any]:
    if not body.strip():
        return {}
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise ApiError(400, "Bad Request: can't parse JSON body") from None
    if type(value) is not dict:
        raise ApiError(400, "Bad Request: the JSON body must be an object")
    return value


def _coerce(name: str, tp: str, value: Any) -> Any:
    """A text value as the type Telegram reads it as; typed JSON values pass as they are."""
    if type(value) is not str:
        return value
    alternatives = [tp] if tp.startswith("[") else tp.split("|")
    if ("int" in alternatives or "date" in alternatives) and _INT.fullmatch(value):
        return int(value)
    if "float" in alternatives:
        try:
            return float(value)
        except ValueError:
            pass
    if ("bool" in alternatives or "true" in alternatives) and value.lower() in _BOOLS:
        return _BOOLS[value.lower()]
    if "str" in alternatives or "InputFile" in alternatives:
        return value
    if any(alt not in _PLAIN for alt in alternatives):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            raise ApiError(400, f"Bad Request: can't parse {name} JSON object") from None
    raise ApiError(400, f'Bad Request: parameter "{name}" must be of type {tp}')


def _too_large() -> ApiError:
    return ApiError(413, "Request Entity Too Large")
