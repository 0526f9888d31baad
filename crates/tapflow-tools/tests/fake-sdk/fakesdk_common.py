"""Helpers shared by the fake SDK tools (hvigorw, java): a small JSON5 reader and call logging.

The fakes stand in for DevEco's hvigor and the SDK jars in tests (no SDK exists on CI). They validate
their arguments the way the real tools do (README.md beside this file) and write real-shaped outputs.
"""

import json
import os
import sys


def json5_to_json(text):
    """Converts the JSON5 subset DevEco projects use (comments, unquoted keys, single quotes,
    trailing commas) into JSON text."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '/' and i + 1 < n and text[i + 1] == '/':
            while i < n and text[i] != '\n':
                i += 1
            continue
        if c == '/' and i + 1 < n and text[i + 1] == '*':
            end = text.find('*/', i + 2)
            i = n if end < 0 else end + 2
            continue
        if c in '"\'':
            quote, j, buf = c, i + 1, []
            while j < n and text[j] != quote:
                if text[j] == '\\' and j + 1 < n:
                    buf.append(text[j:j + 2])
                    j += 2
                    continue
                buf.append('\\"' if text[j] == '"' else text[j])
                j += 1
            out.append('"' + ''.join(buf).replace("\\'", "'") + '"')
            i = j + 1
            continue
        if c.isalpha() or c in '_$':
            j = i
            while j < n and (text[j].isalnum() or text[j] in '_$'):
                j += 1
            word = text[i:j]
            k = j
            while k < n and text[k] in ' \t\r\n':
                k += 1
            if k < n and text[k] == ':' and word not in ('true', 'false', 'null'):
                out.append('"' + word + '"')
            else:
                out.append(word)
            i = j
            continue
        if c == ',':
            k = i + 1
            while k < n and (text[k] in ' \t\r\n' or text.startswith('//', k) or text.startswith('/*', k)):
                if text.startswith('//', k):
                    while k < n and text[k] != '\n':
                        k += 1
                elif text.startswith('/*', k):
                    end = text.find('*/', k + 2)
                    k = n if end < 0 else end + 2
                else:
                    k += 1
            if k < n and text[k] in ']}':
                i += 1
                continue
        out.append(c)
        i += 1
    return ''.join(out)


def read_json5(path):
    try:
        with open(path, encoding='utf-8') as f:
            return json.loads(json5_to_json(f.read()))
    except (OSError, ValueError):
        return None


def log_call(env_name, record):
    path = os.environ.get(env_name)
    if path:
        with open(path, 'a', encoding='utf-8') as f:
            f.write(json.dumps(record) + '\n')


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    mode = 'wb' if isinstance(data, bytes) else 'w'
    with open(path, mode) as f:
        f.write(data)


def out(line, stream=None):
    stream = stream or sys.stdout
    eol = '\r\n' if os.environ.get('FAKE_SDK_CRLF') == '1' else '\n'
    stream.write(line + eol)
    stream.flush()
