"""What serve.py accepts from a client, and the error it answers otherwise: the API key,
the request body as JSON, a chat message's text, the stream options. Each refusal is an
HTTPError with a 4xx status and a one-line reason."""

from __future__ import annotations

import os

from bundle_runtime import InputError

API_KEY_ENV = "MODEL_API_KEY"

# keys that documentation and examples show: a service started with one is open to anyone
PLACEHOLDER_KEYS = {"change-me", "changeme", "change_me", "replace-me", "replaceme", "your-api-key", "your_api_key",
                    "yourapikey", "your-key", "api-key", "api_key", "apikey", "key", "secret", "password", "token",
                    "test", "example", "default", "none", "null", "todo", "xxx", "123456", "12345678"}
MAX_JSON_DEPTH = 32  # a request body is an object of lists of objects; deeper is not one of ours
JSON_TYPE = "application/json"


def api_key(args):
    """The key every endpoint needs (None: open); InputError for a placeholder."""
    key = args.api_key if args.api_key is not None else (os.environ.get(API_KEY_ENV) or None)
    if key is None:
        return None
    if not key.strip() or key.strip().lower() in PLACEHOLDER_KEYS or len(set(key.strip().lower())) < 3 \
            or key.strip()[:1] in "<{$":
        raise InputError(f"the API key {key!r} is a placeholder, not a secret: anyone could call the service with "
                         f"it. Set a real one, for example {API_KEY_ENV}=$(python -c \"import secrets; "
                         "print(secrets.token_urlsafe(32))\"), and give the clients the same value.")
    return key


class HTTPError(Exception):
    """An answer other than 200, in the OpenAI API's error shape."""

    def __init__(self, status, message, kind="invalid_request_error", code=None, param=None, close=False):
        super().__init__(message)
        self.status, self.message, self.kind, self.code, self.param = status, message, kind, code, param
        self.close = close  # the body was not read to its end: the connection cannot carry another request


def usage_of(result):
    return {"prompt_tokens": result["prompt_tokens"], "completion_tokens": result["completion_tokens"],
            "total_tokens": result["prompt_tokens"] + result["completion_tokens"]}


def include_usage(body):
    options = body.get("stream_options")
    if options is None:
        return False
    if not body.get("stream"):
        raise HTTPError(400, "'stream_options' is only allowed with \"stream\": true", param="stream_options")
    if not isinstance(options, dict) or not isinstance(options.get("include_usage", False), bool):
        raise HTTPError(400, "'stream_options' must be an object such as {\"include_usage\": true}",
                        param="stream_options")
    return options.get("include_usage", False)


def not_json(name):
    raise HTTPError(400, f"the body is not valid JSON: {name} is not a JSON number (JSON has no NaN or Infinity)")


def check_json(value):
    """400 for what Python's JSON reader lets through but is not a request: a lone UTF-16
    surrogate escape (\\ud800 is no character; the model's tokenizer cannot take it) and
    nesting deeper than any request needs."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise HTTPError(400, f"the body is nested more than {MAX_JSON_DEPTH} levels deep")
        if isinstance(v, dict):
            stack.extend((k, depth) for k in v)
            stack.extend((x, depth + 1) for x in v.values())
        elif isinstance(v, list):
            stack.extend((x, depth + 1) for x in v)
        elif isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise HTTPError(400, f"the body holds the escape \\u{ord(v[exc.start]):04x}, half of a UTF-16 "
                                     "surrogate pair without its other half: it is no character. Send the text "
                                     "as UTF-8, or escape both halves of the pair") from None


def content_text(content, i):
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(p, dict) for p in content):
        texts = [p.get("text") for p in content if p.get("type") == "text"]
        if texts and all(isinstance(t, str) for t in texts):
            return "\n".join(texts)
    raise HTTPError(400, f"messages[{i}].content must be a text (or a list of text parts)")
