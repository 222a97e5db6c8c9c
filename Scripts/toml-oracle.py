#!/usr/bin/env python3
"""The differential oracle of Strata's TOML parser: Python's tomllib (standard library, 3.11+).

  Scripts/toml-oracle.py collect DIR...   # copy the TOML files of extracted packages (one DIR each)
  Scripts/toml-oracle.py generate         # write the seeded random documents (Corpus/generated)
  Scripts/toml-oracle.py expect           # run tomllib on every corpus file, write Corpus/oracle.json
  Scripts/toml-oracle.py check            # as expect, but fail when oracle.json is not up to date (CI)

The corpus lives in Tests/StrataTests/Formats/TOML/Corpus (see its README.md for where each part comes
from). oracle.json holds, for each file, either {"valid": true, "value": V} or {"valid": false,
"reason": R}; TOMLCorpusTests compares Strata's parse of every file with it, so that the test needs no
Python. V is the document in toml-test's tagged form: a table is a JSON object, an array a JSON array,
a scalar {"type": T, "value": TEXT} with T one of string, integer, float, bool, datetime (an offset
date-time: TEXT is the seconds since 1970 with six decimals), datetime-local, date-local, time-local
(TEXT in ISO 8601 as Python writes it).

Where tomllib and TOML 1.0 part, the oracle follows TOML 1.0 and says so in the reason:
- an integer outside 64 bits must be refused (TOML 1.0, "Integer"); tomllib reads it as a big int;
- a UTF-8 byte order mark is skipped, as in Strata's other formats (tomllib refuses it).
"""
import datetime, json, os, random, shutil, sys

import corpus_oracle, tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Tests", "StrataTests", "Formats", "TOML", "Corpus")
ORACLE = os.path.join(CORPUS, "oracle.json")
# Files in TOML whose names end in .conf: containers-common's and its registries' configuration.
TOML_CONF_NAMES = ("containers.conf", "storage.conf", "registries.conf", "shortnames.conf")
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


class OutOfRange(Exception):
    pass


def tagged(value):
    if isinstance(value, dict):
        return {k: tagged(v) for k, v in value.items()}
    if isinstance(value, list):
        return [tagged(v) for v in value]
    if isinstance(value, bool):
        return {"type": "bool", "value": "true" if value else "false"}
    if isinstance(value, int):
        if not -(2**63) <= value < 2**63:
            raise OutOfRange()
        return {"type": "integer", "value": str(value)}
    if isinstance(value, float):
        text = "nan" if value != value else repr(value)
        return {"type": "float", "value": text}
    if isinstance(value, str):
        return {"type": "string", "value": value}
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            return {"type": "datetime-local", "value": value.isoformat()}
        delta = value - EPOCH
        seconds = delta.days * 86400 + delta.seconds
        return {"type": "datetime", "value": "%d.%06d" % (seconds, delta.microseconds)}
    if isinstance(value, datetime.date):
        return {"type": "date-local", "value": value.isoformat()}
    if isinstance(value, datetime.time):
        return {"type": "time-local", "value": value.isoformat()}
    raise TypeError(type(value))


def expectation(data):
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return {"valid": False, "reason": "not UTF-8: %s" % error}
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        return {"valid": False, "reason": str(error)}
    except (ValueError, RecursionError) as error:
        return {"valid": False, "reason": "%s: %s" % (type(error).__name__, error)}
    try:
        return {"valid": True, "value": tagged(document)}
    except OutOfRange:
        return {"valid": False, "reason": "an integer outside 64 bits (TOML 1.0 refuses it; tomllib reads it)"}


def corpus_files():
    for directory, _, names in os.walk(CORPUS):
        for name in names:
            if name.endswith(".toml"):
                yield os.path.relpath(os.path.join(directory, name), CORPUS)


def oracle_text():
    files = {path: expectation(open(os.path.join(CORPUS, path), "rb").read()) for path in sorted(corpus_files())}
    valid = sum(1 for e in files.values() if e["valid"])
    print("%d files: %d valid, %d invalid (tomllib)" % (len(files), valid, len(files) - valid), file=sys.stderr)
    return json.dumps({"files": files}, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def collect(directories):
    """Copies pyproject.toml, Cargo.toml and other *.toml (or TOML .conf) files of extracted packages."""
    target = os.path.join(CORPUS, "real")
    os.makedirs(target, exist_ok=True)
    seen = set()
    for top in directories:
        for directory, subdirectories, names in os.walk(top):
            # toml-test's own cases are copied by version (see Corpus/README.md), not collected here.
            subdirectories[:] = [d for d in subdirectories if d != "toml-test"]
            for name in names:
                if not name.endswith(".toml") and name not in TOML_CONF_NAMES:
                    continue
                path = os.path.join(directory, name)
                if os.path.islink(path) or os.path.getsize(path) > 64 * 1024:
                    continue
                data = open(path, "rb").read()
                if data in seen:
                    continue
                seen.add(data)
                # The package's folder name, then the file's last two path components.
                rel = os.path.relpath(path, top).split(os.sep)
                flat = "--".join([os.path.basename(os.path.normpath(top))] + rel[-2:])
                flat = flat if flat.endswith(".toml") else flat + ".toml"
                stem, number = flat[: -len(".toml")], 1
                while os.path.exists(os.path.join(target, flat)):
                    number += 1
                    flat = "%s-%d.toml" % (stem, number)
                shutil.copyfile(path, os.path.join(target, flat))


# The generator: random documents made of every construct, then mutated copies (a byte dropped,
# doubled or replaced) for the refusal side. Seeded: the same files every run.
BARE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"


def gen_key(rng):
    roll = rng.random()
    if roll < 0.7:
        return "".join(rng.choice(BARE) for _ in range(rng.randint(1, 8)))
    if roll < 0.85:
        return json.dumps(rng.choice(["a.b", "", "ü", "x y", "tab\t", "q\"", "1.2"]))
    return "'" + rng.choice(["lit", "a.b", "c\\d", ""]) + "'"


def gen_string(rng):
    pieces = ["plain", "é", "\\n", "\\t", "\\\"", "\\\\", "\\u00E9", "\\U0001F600", " ", "#", "'", "\\b", "\\f"]
    body = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 5)))
    roll = rng.random()
    if roll < 0.6:
        return '"' + body + '"'
    if roll < 0.75:
        return "'" + body.replace("'", "") + "'"
    if roll < 0.9:
        return '"""\n' + body + "\\\n   more\n" + '"""'
    return "'''" + rng.choice(["\n", ""]) + "raw \\ text\n'' line" + "'''"


def gen_scalar(rng):
    kind = rng.randrange(9)
    if kind == 0:
        return gen_string(rng)
    if kind == 1:
        return rng.choice(["0", "-0", "+17", "1_000", "9223372036854775807", "-9223372036854775808",
                           "0xDEAD_beef", "0o755", "0b1101", str(rng.randint(-10**12, 10**12))])
    if kind == 2:
        return rng.choice(["0.0", "-0.0", "+1.5", "3.1415", "1e10", "6.02E+23", "1_0.2_5", "-2e-3",
                           "inf", "-inf", "+nan", "5e-324", "1.7976931348623157e308", repr(rng.uniform(-1e6, 1e6))])
    if kind == 3:
        return rng.choice(["true", "false"])
    if kind == 4:
        return rng.choice(["1979-05-27T07:32:00Z", "1979-05-27T00:32:00.999999-07:00", "2000-02-29 12:00:00+05:30",
                           "0001-01-01T00:00:00z", "9999-12-31T23:59:59.123456789Z", "1987-07-05t17:45:00.5Z"])
    if kind == 5:
        return rng.choice(["1979-05-27T07:32:00", "1979-05-27 00:32:00.25", "1979-05-27", "07:32:00",
                           "00:32:00.999999", "23:59:59.1234567"])
    if kind == 6:
        return "[" + ", ".join(gen_scalar(rng) for _ in range(rng.randint(0, 3))) + rng.choice(["", ",", " "]) + "]"
    if kind == 7:
        keys = list(dict.fromkeys(gen_key(rng) for _ in range(rng.randint(0, 3))))
        return "{" + ", ".join("%s = %s" % (k, gen_scalar(rng)) for k in keys) + "}"
    return "[\n  " + ",\n  # note\n  ".join(gen_scalar(rng) for _ in range(rng.randint(1, 3))) + "\n]"


def gen_document(rng):
    lines = ["# generated"]
    for _ in range(rng.randint(1, 12)):
        roll = rng.random()
        if roll < 0.15:
            lines.append("[" + ".".join(gen_key(rng) for _ in range(rng.randint(1, 3))) + "]")
        elif roll < 0.22:
            lines.append("[[" + ".".join(gen_key(rng) for _ in range(rng.randint(1, 2))) + "]]")
        else:
            key = ".".join(gen_key(rng) for _ in range(rng.choice([1, 1, 1, 2, 3])))
            lines.append("%s = %s%s" % (key, gen_scalar(rng), rng.choice(["", "  # comment"])))
    return "\n".join(lines) + rng.choice(["\n", "", "\r\n"])


def generate():
    corpus_oracle.generate(CORPUS, "toml", gen_document, "=[]{}\"'.,#\n_+-:0aZ \\")


def main(argv):
    return corpus_oracle.main(argv, __doc__, "toml-oracle.py", ORACLE, oracle_text, collect, generate)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
