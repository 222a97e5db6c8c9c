#!/usr/bin/env python3
"""Real-file corpus: fetch configuration files shipped by Debian and PyPI packages, parse each with
Strata (the built `config-dump --format json`) and with Python's configparser / json / plistlib, and
compare where the dialects agree.

Usage:
  Scripts/corpus.py [--dir /var/tmp/strata-corpus] [--config-dump PATH] [--no-fetch] [--verbose]

The downloaded packages and extracted files live in --dir (outside the repository; never commit
them). The packages are listed in Scripts/corpus-packages.txt. Fetching needs `apt-get` (Debian) and
`pip`; run `apt-get update` once before the first fetch.

Comparison (each file is copied to a scratch name with the dialect's extension, so `.conf`, `.cnf`,
`.cfg` and extension-less files are read as INI):
  INI   configparser(strict=False, interpolation=None, allow_no_value=True, optionxform=str,
        comment_prefixes=('#', ';'), inline comments not stripped). Both trees are flattened to
        "section.key" -> value strings (Strata's nested names are joined with '.', so a dotted key
        compares equal whether Strata nests it or not). Known dialect differences are classified
        rather than counted as disagreements only when the script can say which rule caused them.
  JSON  json.load vs Strata's JSON dump, compared as Python values.
  plist plistlib.load vs Strata's JSON dump (dates and data compared by their JSON rendering).
"""
import argparse
import configparser
import glob
import json
import os
import plistlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

INI_NAMES = {"tox.ini", "setup.cfg", "pytest.ini", "hgrc", ".gitconfig", "gitconfig", "my.cnf"}
INI_EXTS = {".ini", ".cfg", ".conf", ".cnf", ".rc"}
SKIP_PARTS = {"testing", "tests", "test"}  # test fixtures of the packages: often broken on purpose


def packages():
    result = []
    with open(os.path.join(HERE, "corpus-packages.txt")) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if len(line) == 2:
                result.append(tuple(line))
    return result


def fetch(root):
    debs, sdists, tree = (os.path.join(root, d) for d in ("deb", "pypi", "x"))
    for d in (debs, sdists, tree):
        os.makedirs(d, exist_ok=True)
    for kind, name in packages():
        if kind == "deb":
            if glob.glob(os.path.join(debs, name + "_*.deb")):
                continue
            r = subprocess.run(["apt-get", "download", name], cwd=debs, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"fetch: apt-get download {name} failed: {r.stderr.strip()}", file=sys.stderr)
        else:
            stem = name.lower().replace("-", "[-_]")
            if glob.glob(os.path.join(sdists, stem + "-*")):
                continue
            r = subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-d", sdists,
                 name], capture_output=True, text=True)
            if r.returncode != 0:
                print(f"fetch: pip download {name} failed: {r.stderr.strip()[-300:]}", file=sys.stderr)
    for deb in sorted(glob.glob(os.path.join(debs, "*.deb"))):
        subprocess.run(["dpkg-deb", "-x", deb, tree], check=True)
    for sdist in sorted(glob.glob(os.path.join(sdists, "*.tar.gz"))):
        with tarfile.open(sdist) as t:
            t.extractall(tree, filter="data")


def dialect(path):
    name = os.path.basename(path)
    ext = os.path.splitext(name)[1].lower()
    if ext == ".json":
        return "json"
    if ext == ".plist":
        return "plist"
    if name in INI_NAMES or ext in INI_EXTS or ".ini-" in name or name.startswith("smb.conf"):
        return "ini"
    return None


def files(tree):
    """(dialect, path) of every config file; INI and JSON files under test directories are skipped
    (package test fixtures are often broken on purpose), property lists are taken from everywhere (the
    packages that ship them ship them as test data)."""
    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        in_tests = any(part in SKIP_PARTS for part in os.path.relpath(dirpath, tree).split(os.sep))
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            kind = dialect(path)
            if kind and (kind == "plist" or not in_tests):
                yield kind, path


def strata(config_dump, kind, path, scratch):
    """Strata's tree as JSON, or (None, message)."""
    ext = {"ini": ".ini", "json": ".json", "plist": ".plist"}[kind]
    copy = os.path.join(scratch, "corpus" + ext)
    shutil.copyfile(path, copy)
    try:
        r = subprocess.run([config_dump, "--format", "json", copy], capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        return None, "timed out"
    if r.returncode != 0:
        msg = (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[0]
        return None, msg.replace(copy, os.path.basename(path))
    try:
        return json.loads(r.stdout or "{}"), None
    except ValueError as e:
        return None, f"config-dump printed invalid JSON: {e}"


def python(kind, path):
    """Python's reading, or raises."""
    if kind == "json":
        with open(path, "rb") as f:
            data = f.read()
        return json.loads(data) if data.strip() else {}
    if kind == "plist":
        with open(path, "rb") as f:
            data = f.read()
        return plistlib.loads(data) if data.strip() else {}
    cp = configparser.RawConfigParser(strict=False, interpolation=None, allow_no_value=True,
                                      comment_prefixes=("#", ";"), default_section="\0none")
    cp.optionxform = str
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    try:
        cp.read_string(text, source=path)
    except configparser.MissingSectionHeaderError:
        # Keys before any section: Strata puts them at the top level; configparser refuses them.
        cp.read_string("[\0top]\n" + text, source=path)
    out = {}
    for section in cp.sections():
        if not cp.items(section, raw=True):
            out[(section, None)] = {}  # an empty section: Strata keeps it as an empty table
        for key, value in cp.items(section, raw=True):
            out[(section, key)] = value
    return out


def normalize(value):
    """Python's reading in the shape of Strata's JSON dump: data as base64, dates as ISO 8601 UTC
    seconds, integers above 2^63-1 as decimal strings (Strata's documented representation)."""
    import base64
    import datetime
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, datetime.datetime):
        return value.strftime("%Y-%m-%dT%H:%M:%SZ").rjust(20, "0")
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value > 2**63 - 1:
        return str(value)
    return value


def flatten(value, prefix, out):
    if isinstance(value, dict):
        if not value and prefix:
            out[prefix] = {}
        for k, v in value.items():
            flatten(v, prefix + (str(k),), out)
    else:
        out[prefix] = value


def compare_ini(ours, theirs):
    """Differences between Strata's tree and configparser's (section, key) -> value."""
    mine = {}
    flatten(ours, (), mine)
    mine = {".".join(k): v for k, v in mine.items()}
    py = {}
    for (section, key), value in theirs.items():
        if key is None:
            py[section] = value
            continue
        flat = key if section == "\0top" else section + "." + key
        py[flat] = value
    diffs = []
    for key in sorted(set(mine) | set(py)):
        a, b = mine.get(key, "<absent>"), py.get(key, "<absent>")
        if b is None and a in ("", True, "true"):
            continue  # a key without '=': configparser None, Strata an empty string or true
        if a != b:
            diffs.append((key, a, b))
    return diffs


def classify_ini(diffs):
    reasons = set()
    continued = [line for _, _, b in diffs if isinstance(b, str) for line in b.split("\n")[1:]]
    for key, a, b in diffs:
        if a != "<absent>" and b == "<absent>" and any(
                line and (key.endswith(line.split("=")[0].split(":")[0].strip()) or line.startswith(
                    key.split(".", 1)[-1])) for line in continued):
            reasons.add("multi-line value (indented continuation)")
        elif isinstance(b, str) and "\n" in b:
            reasons.add("multi-line value (indented continuation)")
        elif isinstance(b, str) and isinstance(a, str) and (";" in b or "#" in b) and b.startswith(a):
            reasons.add("inline comment (Strata strips it, configparser keeps it)")
        elif isinstance(b, str) and isinstance(a, str) and b.strip('"') == a:
            reasons.add("quoted value (Strata unquotes)")
        elif a == "<absent>" and '"' in key:
            reasons.add("git-style [section \"sub\"] header")
        elif isinstance(a, list):
            reasons.add("repeated key (Strata makes an array, configparser keeps the last)")
        else:
            reasons.add("other")
    return sorted(reasons)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="/var/tmp/strata-corpus")
    ap.add_argument("--config-dump", default=None)
    ap.add_argument("--no-fetch", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    config_dump = args.config_dump or os.path.join(
        subprocess.run(["swift", "build", "--show-bin-path"], cwd=REPO, capture_output=True, text=True)
        .stdout.strip(), "config-dump")
    if not args.no_fetch:
        fetch(args.dir)
    tree = os.path.join(args.dir, "x")
    counts = defaultdict(Counter)
    refused = defaultdict(list)
    disagree = defaultdict(list)
    scratch = tempfile.mkdtemp(prefix="strata-corpus-")
    try:
        for kind, path in files(tree):
            rel = os.path.relpath(path, tree)
            counts[kind]["files"] += 1
            ours, error = strata(config_dump, kind, path, scratch)
            try:
                theirs, perror = python(kind, path), None
            except Exception as e:  # noqa: BLE001 - any parse failure is a finding
                theirs, perror = None, f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
            if error is not None:
                counts[kind]["refused"] += 1
                refused[kind].append((rel, error, perror))
                if perror is not None:
                    counts[kind]["both refuse"] += 1
                continue
            counts[kind]["loaded"] += 1
            if perror is not None:
                counts[kind]["python refuses"] += 1
                disagree[kind].append((rel, [f"Python refuses: {perror}"], []))
                continue
            if kind == "ini":
                diffs = compare_ini(ours, theirs)
                if diffs:
                    counts[kind]["disagree"] += 1
                    disagree[kind].append((rel, classify_ini(diffs), diffs))
                else:
                    counts[kind]["agree"] += 1
            else:
                expected = normalize(theirs)
                if ours == expected:
                    counts[kind]["agree"] += 1
                else:
                    counts[kind]["disagree"] += 1
                    mine, py = {}, {}
                    flatten(ours, (), mine)
                    flatten(expected, (), py)
                    diffs = [(".".join(k), mine.get(k, "<absent>"), py.get(k, "<absent>"))
                             for k in sorted(set(mine) | set(py), key=str) if mine.get(k) != py.get(k)]
                    disagree[kind].append((rel, ["values differ"], diffs))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    for kind in sorted(counts):
        c = counts[kind]
        print(f"{kind}: {c['files']} files, {c['loaded']} loaded, {c['refused']} refused "
              f"({c['both refuse']} also refused by Python), {c['agree']} agree, {c['disagree']} disagree"
              + (f", {c['python refuses']} loaded but refused by Python" if c["python refuses"] else ""))
    for kind in sorted(refused):
        print(f"\n## {kind}: refused by Strata")
        for rel, error, perror in refused[kind]:
            print(f"- {rel}: {error}" + (f"  [Python: {perror}]" if perror else "  [Python loads it]"))
    for kind in sorted(disagree):
        print(f"\n## {kind}: loaded, but differs from Python")
        for rel, reasons, diffs in disagree[kind]:
            print(f"- {rel}: {'; '.join(reasons)}")
            for key, a, b in diffs[: (50 if args.verbose else 3)]:
                print(f"    {key}: Strata {a!r} / Python {b!r}")


if __name__ == "__main__":
    main()
