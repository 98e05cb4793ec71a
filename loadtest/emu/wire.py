"""T-Rex JSON-RPC 2.0 wire format: zlib framing, envelopes, batches and error replies."""

from __future__ import annotations

import json
import re
import struct
import zlib
from collections.abc import Callable
from typing import Any

MAGIC = 0xABE85CEA
HEADER = struct.Struct(">II")

# JSON-RPC error codes as the real server uses them
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
EXEC_FAILED = -32000


class RpcError(Exception):
    """An error reply; `specific` becomes error.specific_err (only on -32602 and -32000)."""

    def __init__(self, code: int, message: str, specific: str | None = None) -> None:
        super().__init__(specific or message)
        self.code = code
        self.message = message
        self.specific = specific


def exec_failed(text: str) -> RpcError:
    return RpcError(EXEC_FAILED, "Failed To Execute Method", text)


def bad_param(text: str) -> RpcError:
    return RpcError(INVALID_PARAMS, "Bad parameters for method", text)


def is_compressed(data: bytes) -> bool:
    return len(data) >= HEADER.size and HEADER.unpack_from(data)[0] == MAGIC


# The largest request inflated: far above any real one (a big profile's streams are
# a few MiB), far below what a zlib bomb of a few KiB asks for (gigabytes).
MAX_INFLATED = 64 * 1024 * 1024


def decompress(data: bytes, limit: int = MAX_INFLATED) -> bytes:
    """The inflated message; ValueError when it claims or inflates to more than `limit`."""
    _, length = HEADER.unpack_from(data)
    if length > limit:
        raise TooLarge(f"compressed message claims {length} bytes (the limit is {limit})")
    inflater = zlib.decompressobj()
    out = inflater.decompress(data[HEADER.size:], limit + 1)  # never more than that in memory
    if len(out) > limit or inflater.unconsumed_tail:
        raise TooLarge(f"compressed message inflates past {limit} bytes")
    if len(out) != length:
        raise ValueError("length mismatch in compressed message")
    return out


class TooLarge(ValueError):
    """A request that would take too much memory to read."""


def compress(data: bytes) -> bytes:
    return HEADER.pack(MAGIC, len(data)) + zlib.compress(data)


def dumps(obj: Any) -> str:
    """Reply text: compact, keys sorted, one trailing newline, as the server writes it."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":")) + "\n"


Handler = Callable[[dict, str], Any]  # (params, raw request text) -> result


class Dispatcher:
    """Decodes one REP message, runs the requests and encodes the reply."""

    def __init__(self, call: Callable[[str, dict, str], Any], known: Callable[[str], bool]):
        self.call = call  # (method, params, raw text) -> result; raises RpcError
        self.known = known

    def handle(self, data: bytes) -> bytes:
        compressed = is_compressed(data)
        try:
            text = (decompress(data) if compressed else data).decode()
            request = json.loads(text)
        except TooLarge as err:
            reply = dumps(_error(None, RpcError(INVALID_REQUEST, f"Request too large: {err}")))
        except RecursionError:  # e.g. 100,000 nested '[': answer, do not die
            reply = dumps(_error(None, RpcError(INVALID_REQUEST, "Request nested too deeply")))
        except (ValueError, UnicodeDecodeError, zlib.error, struct.error):
            reply = dumps(_error(None, RpcError(PARSE_ERROR, "Bad JSON Format")))
        else:
            reply = self._reply(request, text)
        raw = reply.encode()
        return compress(raw) if compressed else raw

    def _reply(self, request: Any, text: str) -> str:
        try:
            return self._dispatch(request, text)
        except RecursionError:  # nested params that a handler walks
            return dumps(_error(None, RpcError(INVALID_REQUEST, "Request nested too deeply")))

    def _dispatch(self, request: Any, text: str) -> str:
        if isinstance(request, list):
            if not request:
                return "null\n"
            replies = [self._single(r, text) for r in request]
            # a batch of one is answered with a bare object
            return dumps(replies[0] if len(replies) == 1 else replies)
        return dumps(self._single(request, text))

    def _single(self, req: Any, text: str) -> dict:
        if not isinstance(req, dict):
            return _error(None, RpcError(INVALID_REQUEST, "Invalid JSONRPC Version"))
        rid = req.get("id")
        try:
            if req.get("jsonrpc") != "2.0":
                raise RpcError(INVALID_REQUEST, "Invalid JSONRPC Version")
            method = req.get("method")
            if not isinstance(method, str):
                raise RpcError(INVALID_REQUEST, "Missing Method Name")
            if "id" not in req:
                raise RpcError(INVALID_REQUEST, "Missing 'id' field")
            if not self.known(method):
                raise RpcError(METHOD_NOT_FOUND, f"Method {method} not registered")
            params = req.get("params", {})
            if params is None:
                params = {}
            if not isinstance(params, dict):
                raise exec_failed("JSON-RPC2 params should be object in TRex case ")
            result = self.call(method, params, text)
        except RpcError as err:
            return _error(rid, err)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as err:
            # a malformed value deep in the params (e.g. mul.value "x"): answer it, as the
            # real server does, rather than let it end the server loop with no reply sent
            return _error(rid, bad_param(f"{type(err).__name__}: {err}"))
        return {"id": rid, "jsonrpc": "2.0", "result": result}


def _error(rid: Any, err: RpcError) -> dict:
    body: dict[str, Any] = {"code": err.code, "message": err.message}
    if err.specific is not None and err.code in (INVALID_PARAMS, EXEC_FAILED):
        body["specific_err"] = err.specific
    return {"error": body, "id": rid, "jsonrpc": "2.0"}


# JSON value type names as the server's parameter checker prints them
_TYPE_NAMES = ((bool, "bool"), (int, "int"), (float, "double"), (str, "string"),
               (list, "array"), (dict, "object"))


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    for kind, name in _TYPE_NAMES:
        if isinstance(value, kind):
            return name
    return "unknown"


class Params:
    """Typed access to request parameters with the server's error texts."""

    def __init__(self, params: dict, text: str) -> None:
        self.params = params
        self.text = text

    def get(self, name: str, expect: str, default: Any = ...) -> Any:
        if name not in self.params or self.params[name] is None:
            if default is not ...:
                return default
            raise bad_param(f"field '{name}' value is null")
        value = self.params[name]
        if not _type_ok(value, expect):
            raise bad_param(f"error at offset: {self._offset(name)} - '{name}' is "
                            f"'{type_name(value)}', expecting '{expect}'")
        return value

    def _offset(self, name: str) -> int:
        """Byte offset of the value in the request text (what the server reports)."""
        match = re.search(r'"' + re.escape(name) + r'"\s*:\s*', self.text)
        return match.end() if match else 0


def _type_ok(value: Any, expect: str) -> bool:
    if expect in ("byte", "int", "uint64"):
        ok = isinstance(value, int) and not isinstance(value, bool)
        return ok and (expect != "byte" or 0 <= value <= 255)
    if expect == "double":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if expect == "bool":
        return isinstance(value, bool)
    if expect == "string":
        return isinstance(value, str)
    if expect == "object":
        return isinstance(value, dict)
    if expect == "array":
        return isinstance(value, list)
    return True
