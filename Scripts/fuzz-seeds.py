#!/usr/bin/env python3
"""Writes the fuzzing seed corpora for Scripts/fuzz.sh.

Usage: fuzz-seeds.py REPO OUTDIR

Seeds come from the test fixtures (the INI real-world files, the TOML corpus, the samples, Fuzz/Seeds/dotenv), the string
literals of the format and coding tests, and ../shared/conformance next to the repository
(JSONTestSuite). Each target gets a directory OUTDIR/<target>; the fuzz binary then adds seeds converted between formats.
"""

import hashlib
import os
import re
import sys

TARGETS = ["json", "json-splice", "plist-xml", "plist-binary", "ini", "dotenv", "toml", "env", "decoder"]
MAX_SEED = 1 << 20

PLIST_HEADER = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" '
    '"http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n'
    '<plist version="1.0">\n'
)

MULTILINE = re.compile(r'(#*)"""[ \t]*\n(.*?)\n([ \t]*)"""\1', re.S)
SINGLE = re.compile(r'(#*)"((?:[^"\\\n]|\\.)*)"\1')
ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}


def unescape(text):
    """Swift's escapes in a non-raw literal; interpolations stay as written."""

    def replace(match):
        body = match.group(1)
        if body.startswith("u{"):
            try:
                return chr(int(body[2:-1], 16))
            except ValueError:
                return match.group(0)
        return ESCAPES.get(body, match.group(0))

    return re.sub(r"\\(u\{[0-9A-Fa-f]{1,8}\}|.)", replace, text)


def literals(path):
    """The string literals of a Swift file, decoded (best effort)."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    found = []
    for match in MULTILINE.finditer(source):
        raw, body, indent = match.group(1), match.group(2), match.group(3)
        lines = [line[len(indent):] if line.startswith(indent) else line for line in body.split("\n")]
        text = "\n".join(lines)
        # A backslash at the end of a line of a multi-line literal joins it to the next.
        text = text.replace("\\\n", "") if not raw else text
        found.append(text if raw else unescape(text))
    rest = MULTILINE.sub("", source)
    for match in SINGLE.finditer(rest):
        raw, body = match.group(1), match.group(2)
        found.append(body if raw else unescape(body))
    return [text for text in found if text]


class Corpus:
    def __init__(self, root):
        self.root = root
        self.count = {target: 0 for target in TARGETS}
        for target in TARGETS:
            os.makedirs(os.path.join(root, target), exist_ok=True)

    def add(self, target, data):
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogatepass")
        if not data or len(data) > MAX_SEED:
            return
        if target == "json" and data.lstrip().startswith(b"{"):
            for pair in splice_pairs(data):
                self.add("json-splice", pair)
        name = hashlib.sha1(data).hexdigest()[:16]
        path = os.path.join(self.root, target, name)
        if not os.path.exists(path):
            with open(path, "wb") as f:
                f.write(data)
            self.count[target] += 1


def splice_pairs(data):
    """A JSON document, a NUL byte, and the document after one edit (the json-splice target's input)."""
    edits = []
    digit = next((i for i, b in enumerate(data) if 0x30 <= b <= 0x39), None)
    if digit is not None:
        edits.append(data[:digit] + b"7" + data[digit + 1:])
        edits.append(data[:digit] + b"42" + data[digit + 1:])
    quote = data.rfind(b'"')
    if quote > 0:
        edits.append(data[:quote] + b"x" + data[quote:])
    middle = len(data) // 2
    edits.append(data[:middle] + b" " + data[middle:])
    return [data + b"\0" + edit for edit in edits]


def files_under(directory, suffixes=None):
    for base, _, names in os.walk(directory):
        for name in sorted(names):
            if suffixes is None or name.endswith(suffixes):
                yield os.path.join(base, name)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def main():
    repo, out = sys.argv[1], sys.argv[2]
    corpus = Corpus(out)
    tests = os.path.join(repo, "Tests", "StrataTests")

    # Whole files: JSONTestSuite, the INI real-world files, the samples.
    conformance = os.environ.get("STRATA_CONFORMANCE_DIR") or os.path.join(repo, "..", "shared", "conformance")
    suite = os.path.join(conformance, "JSONTestSuite", "test_parsing")
    if os.path.isdir(suite):
        for path in files_under(suite, (".json",)):
            corpus.add("json", read(path))
            corpus.add("decoder", read(path))
    else:
        print(f"fuzz-seeds: no {suite}; JSON starts from the test literals only", file=sys.stderr)
    for path in files_under(os.path.join(tests, "Formats", "INI", "RealWorld")):
        if not path.endswith("README.md"):
            corpus.add("ini", read(path))
    for path in files_under(os.path.join(repo, "Samples")):
        if path.endswith(".json"):
            corpus.add("json", read(path))
            corpus.add("decoder", read(path))
        elif path.endswith(".plist"):
            data = read(path)
            corpus.add("plist-binary" if data.startswith(b"bplist") else "plist-xml", data)
        elif path.endswith((".ini", ".conf", ".cfg", ".cnf")):
            corpus.add("ini", read(path))
        elif path.endswith(".env"):
            corpus.add("dotenv", read(path))

    # String literals of the tests, sorted by the folder they come from.
    for path in files_under(os.path.join(tests, "Formats", "JSON"), (".swift",)):
        for text in literals(path):
            corpus.add("json", text)
            if text.lstrip().startswith(("{", "[", '"')):
                corpus.add("decoder", text)
    for path in files_under(os.path.join(tests, "Formats", "PropertyList"), (".swift",)):
        for text in literals(path):
            if "<" not in text:
                continue
            corpus.add("plist-xml", text)
            if "<plist" not in text and "<?xml" not in text:
                corpus.add("plist-xml", PLIST_HEADER + "<dict>\n" + text + "\n</dict>\n</plist>\n")
    for path in files_under(os.path.join(tests, "Formats", "INI"), (".swift",)):
        for text in literals(path):
            corpus.add("ini", text)
    for path in files_under(os.path.join(tests, "Formats", "DotEnv"), (".swift",)):
        for text in literals(path):
            if "=" in text:
                corpus.add("dotenv", text)
    # TOML: the differential corpus (toml-test's cases, real files, generated documents and mutants).
    for path in files_under(os.path.join(tests, "Formats", "TOML", "Corpus"), (".toml",)):
        corpus.add("toml", read(path))
    for path in files_under(os.path.join(tests, "Formats", "TOML"), (".swift",)):
        for text in literals(path):
            if "=" in text or "[" in text:
                corpus.add("toml", text)
    for path in files_under(os.path.join(repo, "Fuzz", "Seeds", "dotenv")):
        corpus.add("dotenv", read(path))
    coding = [os.path.join(tests, "Layers", "EnvironmentLayerTests.swift")]
    coding += list(files_under(os.path.join(tests, "Coding"), (".swift",)))
    values = []
    for path in coding:
        values += [text for text in literals(path) if "\n" not in text and len(text) < 200]
    keys = ["server.port", "server.maxConnections", "tlsCertPath", "db.pool-size", "log_level"]
    for index, value in enumerate(values):
        corpus.add("decoder", value)
        corpus.add("decoder", '{"a": "%s"}' % value.replace("\\", "\\\\").replace('"', '\\"'))
        key = keys[index % len(keys)]
        other = values[(index * 7 + 3) % len(values)]
        corpus.add("env", f"demo\n{key}\n{value}\nDEMO_DB__POOL_SIZE={other}\n@{other}\nDEMO_server_port=1")
    for value in ["8080", " -12 ", "1h30m", "250ms", "2024-05-01T12:00:00Z", "aGVsbG8=", "a, b, c",
                  "https://example.org/x", "/run/x.sock", "yes", "0.25", '{"host": "x", "port": 80}']:
        corpus.add("env", f"my-app\nendpoint.timeout\n{value}\nMY_APP_ENDPOINT__HOST={value}\nMY_APP_X=1")

    print("fuzz-seeds: " + ", ".join(f"{target} {n}" for target, n in corpus.count.items()))


if __name__ == "__main__":
    main()
