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


# the request fields each endpoint honours; any other is refused with a 400 that names it
# (an OpenAI client's option this service would silently ignore, such as "tools" or
# "presence_penalty", would otherwise change nothing while the client believes it did)
SAMPLING_FIELDS = {"temperature", "top_p", "seed", "repetition_penalty", "no_repeat_ngram"}
PREDICT_FIELDS = {"inputs", "max_tokens", "max_new_tokens"} | SAMPLING_FIELDS
CHAT_FIELDS = {"model", "messages", "max_tokens", "max_completion_tokens", "n", "stream", "stream_options", "stop",
               "user"} | SAMPLING_FIELDS
MAX_STOPS = 4  # as the OpenAI API allows


def stop_texts(stop):
    """The request's "stop": a text or a list of up to four; the answer ends before the first."""
    if stop is None:
        return []
    stops = [stop] if isinstance(stop, str) else stop
    if not isinstance(stops, list) or not all(isinstance(s, str) for s in stops) or len(stops) > MAX_STOPS:
        raise HTTPError(400, f"'stop' must be a text or a list of at most {MAX_STOPS} texts", param="stop")
    if any(not s for s in stops):
        raise HTTPError(400, "'stop' holds an empty text, which would end every answer before it starts",
                        param="stop")
    return stops


def chat_turns(messages, chat):
    """``(system text or None, [(user text, answer or None), ...])`` from a request's messages:
    an optional system (or developer) message first, then user and assistant messages taking
    turns, ending with the user's. What the bundle's chat format cannot carry is refused with
    a 400 that says so, never dropped."""
    if not isinstance(messages, list) or not messages:
        raise HTTPError(400, "missing field 'messages': a list of {\"role\", \"content\"} objects",
                        param="messages")
    system, turns, expect = None, [], "user"
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or "role" not in m or "content" not in m:
            raise HTTPError(400, f"messages[{i}] must be an object with 'role' and 'content'", param="messages")
        extra = [k for k in m if k not in ("role", "content", "name")]
        if extra:
            raise HTTPError(400, f"messages[{i}] has the field '{extra[0]}', which this service does not support "
                                 "(no tools or function calls)", param="messages")
        role, text = m["role"], content_text(m["content"], i)
        if role in ("system", "developer"):
            if i != 0:
                raise HTTPError(400, f"messages[{i}] is a {role} message after the conversation began; send one "
                                     "system message, first", param="messages")
            if chat is not None and not chat.get("system_message"):
                raise HTTPError(400, "this model's prompt format has no place for a system message; leave it out "
                                     "(the model uses the system prompt it was trained with)", param="messages")
            system = text.strip()
            continue
        if role not in ("user", "assistant"):
            raise HTTPError(400, f"messages[{i}] has the role '{role}'; this service takes system, user and "
                                 "assistant messages", param="messages")
        if role != expect:
            raise HTTPError(400, f"messages[{i}] is a {role} message where a {expect} message was expected: user "
                                 "and assistant messages take turns, starting with the user's", param="messages")
        if role == "user":
            if not text.strip():
                raise HTTPError(400, f"messages[{i}].content is empty: nothing to answer", param="messages")
            turns.append([text.strip(), None])
            expect = "assistant"
        else:
            turns[-1][1] = text.strip()
            expect = "user"
    if not turns:
        raise HTTPError(400, "'messages' has no message with the role 'user'", param="messages")
    if turns[-1][1] is not None:
        raise HTTPError(400, "the last message is the assistant's: this service does not continue a prefilled "
                             "answer; end 'messages' with the user's message", param="messages")
    if len(turns) > 1 and (chat is None or not chat.get("multi_turn")):
        raise HTTPError(400, "this bundle answers one user message at a time (its prompt format was not checked "
                             "for earlier turns); send the last user message alone", param="messages")
    if system is not None and chat is None:
        raise HTTPError(400, "this bundle was exported before a system message could be honoured; leave it out or "
                             "export the model again", param="messages")
    return system, [tuple(t) for t in turns]
