#!/usr/bin/env python3
"""The differential oracle of StrataYAML (Integrations/Sources/StrataYAML): PyYAML's pure-Python loader.

  Scripts/yaml-oracle.py collect DIR...   # copy the YAML files of extracted packages (one DIR each)
  Scripts/yaml-oracle.py generate         # write the seeded random documents (Corpus/generated)
  Scripts/yaml-oracle.py expect           # run PyYAML on every corpus file, write Corpus/oracle.json
  Scripts/yaml-oracle.py check            # as expect, but fail when oracle.json is not up to date (CI)

The corpus lives in Integrations/Tests/StrataYAMLTests/Corpus (its README.md says where each part comes
from). oracle.json holds, for each file, {"valid": true, "value": V} or {"valid": false, "reason": R};
YAMLCorpusTests compares StrataYAML's parse of every file with it, so that the test needs no Python.
V is the document in tagged form: a mapping is a JSON object, a sequence a JSON array, a scalar
{"type": T, "value": TEXT} with T one of string, integer, float, bool.

PyYAML reads YAML 1.1 (`yes` is a boolean, `017` octal, `2001-12-14` a date); Strata reads 1.2's core
schema. The oracle is PyYAML's parser and composer (the pure-Python ones, not libyaml, which Strata
uses) with the core schema's resolvers and constructors in place of 1.1's, and with Strata's documented
refusals, each named in its reason:
- more than one document; a top level that is not a mapping (an empty document is an empty table);
- a duplicate key; a key that is not a string (the core schema reads `1`, `true`, `~` as other types);
  an alias or a collection in a key's place, an explicit `? ` key not followed on its line by a scalar;
  two merge keys in one mapping;
- a tag outside the core schema (PyYAML's safe loader reads !!binary, !!timestamp, !!set, !!omap);
- an integer outside 64 bits; a document that expands past 1,000,000 values through its aliases;
- bytes that are not UTF-8 (a UTF-8 byte order mark is skipped).
A null is left out: a key set to null is absent from its table, a null sequence element is dropped.
"""
import json, os, random, re, shutil, sys

import corpus_oracle

import yaml
from yaml.nodes import MappingNode, ScalarNode

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Integrations", "Tests", "StrataYAMLTests", "Corpus")
ORACLE = os.path.join(CORPUS, "oracle.json")
MAX_VALUES = 1_000_000
CORE = "tag:yaml.org,2002:"
INT = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
FLOAT = re.compile(r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$")
BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
NULL = re.compile(r"^(?:~|null|Null|NULL|)$")


class Refused(Exception):
    pass


class CoreLoader(yaml.SafeLoader):
    """PyYAML's pure-Python safe loader with YAML 1.2's core schema."""

    def compose_scalar_node(self, anchor):
        # The non-specific tag `!` makes a scalar a string (YAML 1.2, 6.9.1; libyaml agrees); PyYAML
        # resolves it as if untagged.
        event = self.peek_event()
        if event.tag == "!":
            event.tag = CORE + "str"
        return super().compose_scalar_node(anchor)

    def construct_mapping(self, node, deep=False):
        if isinstance(node, MappingNode):
            names, merges = set(), 0
            for key, _ in node.value:
                if key.tag == CORE + "merge":
                    merges += 1
                    continue
                if not isinstance(key, ScalarNode) or key.tag != CORE + "str":
                    raise Refused("a key that is not a string")
                if key.value in names:
                    raise Refused("a duplicate key")
                names.add(key.value)
            if merges > 1:
                raise Refused("two merge keys in one mapping")
        return super().construct_mapping(node, deep)


CoreLoader.yaml_implicit_resolvers = {}
for tag, pattern in (("null", NULL), ("bool", re.compile("^(?:" + "|".join(BOOL) + ")$")), ("int", INT),
                     ("float", FLOAT), ("merge", re.compile(r"^<<$"))):
    CoreLoader.add_implicit_resolver(CORE + tag, pattern, None)


def scalar(loader, node, pattern, kind):
    text = loader.construct_scalar(node)
    if not pattern(text):
        raise Refused("'%s' is not a valid %s" % (text, kind))
    return text


def construct_int(loader, node):
    text = scalar(loader, node, INT.match, "!!int")
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)


def construct_float(loader, node):
    text = scalar(loader, node, lambda t: FLOAT.match(t) or INT.match(t), "!!float")
    if INT.match(text):
        return float(construct_int(loader, node))
    lower = text.lower().lstrip("+")
    return float("inf" if lower == ".inf" else "-inf" if lower == "-.inf" else "nan" if lower == ".nan" else text)


def construct_bool(loader, node):
    return BOOL[scalar(loader, node, lambda t: t in BOOL, "!!bool")]


def construct_null(loader, node):
    scalar(loader, node, NULL.match, "!!null")
    return None


def refuse_tag(loader, node):
    raise Refused("the tag %s is outside the core schema" % node.tag)


CoreLoader.yaml_constructors = dict(yaml.SafeLoader.yaml_constructors)
for tag in ("binary", "timestamp", "set", "omap", "pairs", "value"):
    CoreLoader.yaml_constructors.pop(CORE + tag, None)
CoreLoader.add_constructor(CORE + "int", construct_int)
CoreLoader.add_constructor(CORE + "float", construct_float)
CoreLoader.add_constructor(CORE + "bool", construct_bool)
CoreLoader.add_constructor(CORE + "null", construct_null)
CoreLoader.add_constructor(None, refuse_tag)
# A plain `<<` outside a key's place is text.
CoreLoader.add_constructor(CORE + "merge", lambda loader, node: loader.construct_scalar(node))


def check_keys(text):
    """Refuses what Strata refuses before composing: an alias, a collection or an explicit '? ' as a key."""
    tokens = list(yaml.scan(text, Loader=CoreLoader))
    for token, following in zip(tokens, tokens[1:]):
        explicit = isinstance(token, yaml.KeyToken) and text[token.start_mark.index:token.start_mark.index + 1] == "?"
        if explicit and (following.start_mark.line != token.start_mark.line or not isinstance(following, yaml.ScalarToken)):
            raise Refused("an explicit key ('? ') that is not a string on its line")
    stack = []  # [kind, items seen]
    for event in yaml.parse(text, Loader=CoreLoader):
        at_key = bool(stack) and stack[-1][0] == "map" and stack[-1][1] % 2 == 0
        if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            stack.pop()
            if stack:
                stack[-1][1] += 1
            continue
        if at_key and isinstance(event, yaml.AliasEvent):
            raise Refused("an alias as a key")
        if at_key and isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            raise Refused("a collection as a key")
        if isinstance(event, yaml.MappingStartEvent):
            stack.append(["map", 0])
        elif isinstance(event, yaml.SequenceStartEvent):
            stack.append(["seq", 0])
        elif isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent)) and stack:
            stack[-1][1] += 1


def tagged(value, budget):
    budget[0] += 1
    if budget[0] > MAX_VALUES:
        raise Refused("more than %d values through aliases" % MAX_VALUES)
    if isinstance(value, dict):
        return {k: tagged(v, budget) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [tagged(v, budget) for v in value if v is not None]
    if isinstance(value, bool):
        return {"type": "bool", "value": "true" if value else "false"}
    if isinstance(value, int):
        if not -(2**63) <= value < 2**64:
            raise Refused("an integer outside 64 bits")
        return {"type": "integer", "value": str(value)}
    if isinstance(value, float):
        return {"type": "float", "value": "nan" if value != value else repr(value)}
    if isinstance(value, str):
        return {"type": "string", "value": value}
    raise TypeError(type(value))


def expectation(data):
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return {"valid": False, "reason": "not UTF-8: %s" % error}
    try:
        check_keys(text)
        documents = list(yaml.load_all(text, Loader=CoreLoader))
        if len(documents) > 1:
            raise Refused("more than one document")
        document = documents[0] if documents else None
        if document is None:
            document = {}
        if not isinstance(document, dict):
            raise Refused("a top level that is not a mapping")
        return {"valid": True, "value": tagged(document, [0])}
    except Refused as refusal:
        return {"valid": False, "reason": "refused: %s" % refusal}
    except yaml.YAMLError as error:
        return {"valid": False, "reason": "PyYAML: %s" % str(error).splitlines()[0]}
    except (ValueError, RecursionError) as error:
        return {"valid": False, "reason": "%s: %s" % (type(error).__name__, error)}


def corpus_files():
    for directory, _, names in os.walk(CORPUS):
        for name in names:
            if name.endswith((".yaml", ".yml")):
                yield os.path.relpath(os.path.join(directory, name), CORPUS)


def oracle_text():
    files = {path: expectation(open(os.path.join(CORPUS, path), "rb").read()) for path in sorted(corpus_files())}
    valid = sum(1 for e in files.values() if e["valid"])
    print("%d files: %d valid, %d refused or invalid (PyYAML, core schema)" % (len(files), valid, len(files) - valid),
          file=sys.stderr)
    return json.dumps({"files": files}, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def collect(directories):
    """Copies the *.yml and *.yaml files (64 KiB at most, each content once) of extracted packages."""
    target = os.path.join(CORPUS, "real")
    os.makedirs(target, exist_ok=True)
    seen = set()
    for top in directories:
        for directory, subdirectories, names in sorted(os.walk(top)):
            subdirectories.sort()
            for name in sorted(names):
                if not name.endswith((".yml", ".yaml")):
                    continue
                path = os.path.join(directory, name)
                if os.path.islink(path) or os.path.getsize(path) > 64 * 1024:
                    continue
                data = open(path, "rb").read()
                if data in seen:
                    continue
                seen.add(data)
                rel = os.path.relpath(path, top).split(os.sep)
                flat = "--".join([os.path.basename(os.path.normpath(top))] + rel[-3:])
                stem, extension = os.path.splitext(flat)
                number = 1
                while os.path.exists(os.path.join(target, flat)):
                    number += 1
                    flat = "%s-%d%s" % (stem, number, extension)
                shutil.copyfile(path, os.path.join(target, flat))


# The generator: random documents of every construct, then mutated copies (a byte dropped, doubled or
# replaced) for the refusal side. Seeded: the same files every run.
WORDS = ["port", "host", "name", "yes", "on", "off", "no", "true", "null", "~", "017", "0o17", "0x1F", "1_000", "1e3",
         ".inf", "-.inf", ".nan", "2001-12-14", "12:30", "+5", "-0", "3.", ".5", "<<", "a b", "é", "x:y", "#not", "-1"]


def gen_key(rng):
    roll = rng.random()
    if roll < 0.85:
        return rng.choice(["port", "host", "name", "on", "yes", "level", "db", "url", "a-b", "a.b", "x_y", "n",
                           "timeout", "users", "tls", "log", "path", "mode", "retries", "z"])
    if roll < 0.95:
        return json.dumps(rng.choice(["a.b", "", "ü", "1", "true", "x y", "<<", "q\"x"]))
    return rng.choice(["1", "true", "~", "1.5", "'single'", "? k"])


def gen_scalar(rng, depth):
    kind = rng.randrange(10)
    if kind < 4:
        return rng.choice(WORDS)
    if kind == 4:
        return json.dumps(rng.choice(WORDS + ["tab\t", "line\nbreak", "\u2028"]))
    if kind == 5:
        return "'" + rng.choice(WORDS).replace("'", "''") + "'"
    if kind == 6 and rng.random() < 0.5:
        return rng.choice(["!!str 12", "!!int 7", "!!float 1", "!!bool true", "!!null ~", "! 12", "!!binary aGk=",
                           "!Ref x", "!!int abc", "99999999999999999999", "18446744073709551615"])
    if kind == 7 and depth < 3:
        return "[" + ", ".join(gen_scalar(rng, depth + 1) for _ in range(rng.randint(0, 3))) + "]"
    if kind == 8 and depth < 3:
        keys = list(dict.fromkeys(gen_key(rng) for _ in range(rng.randint(0, 3))))
        return "{" + ", ".join("%s: %s" % (k, gen_scalar(rng, depth + 1)) for k in keys) + "}"
    return str(rng.randint(-10**6, 10**6))


def gen_block(rng, indent, depth, lines, anchors):
    used = set()
    for _ in range(rng.randint(1, 5)):
        key = gen_key(rng)
        if key in used and rng.random() < 0.9:
            continue
        used.add(key)
        roll = rng.random()
        pad = " " * indent
        if roll < 0.45 or depth > 3:
            value = gen_scalar(rng, 0)
            if anchors and rng.random() < 0.1:
                value = "*" + rng.choice(anchors)
            lines.append("%s%s: %s%s" % (pad, key, value, rng.choice(["", "", "  # note"])))
        elif roll < 0.6:
            anchor = ""
            if rng.random() < 0.3:
                anchor = " &a%d" % len(anchors)
            lines.append("%s%s:%s" % (pad, key, anchor))
            gen_block(rng, indent + 2, depth + 1, lines, anchors)
            if anchor:
                anchors.append(anchor.strip()[1:])
        elif roll < 0.75:
            lines.append("%s%s:" % (pad, key))
            for _ in range(rng.randint(1, 3)):
                lines.append("%s  - %s" % (pad, gen_scalar(rng, 0)))
        elif roll < 0.85:
            lines.append("%s%s: %s" % (pad, key, rng.choice(["|", ">", "|-", ">+", "|2"])))
            for _ in range(rng.randint(1, 3)):
                lines.append("%s    %s" % (pad, rng.choice(WORDS + ["[unclosed", "key: value", "# text"])))
        elif anchors:
            lines.append("%s<<: %s" % (pad, rng.choice(["*" + rng.choice(anchors), "[*%s]" % rng.choice(anchors)])))
        else:
            lines.append("%s%s: %s" % (pad, key, gen_scalar(rng, 0)))


def gen_document(rng):
    lines = [rng.choice(["", "---", "# generated", "%YAML 1.2\n---"])]
    gen_block(rng, 0, 0, lines, [])
    if rng.random() < 0.05:
        lines += ["---", "second: document"]
    return "\n".join(lines) + rng.choice(["\n", "", "\r\n"])


def generate():
    corpus_oracle.generate(CORPUS, "yaml", gen_document, "-:[]{}\"'#&*!|>?,\n \t0aZ\\")


def main(argv):
    return corpus_oracle.main(argv, __doc__, "yaml-oracle.py", ORACLE, oracle_text, collect, generate)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
