#!/usr/bin/env python3
"""Loads a corpus of real configuration files with config-dump and compares each with Python's own
readers where the dialects agree: configparser for INI files (.ini .cfg .cnf .conf), json, plistlib.

  Scripts/corpus.py fetch DIR        # download the packages named in Scripts/corpus-packages.txt into DIR
  Scripts/corpus.py compare DIR      # compare every file under DIR/x; prints counts and disagreements

The downloaded files are never committed. A file counts as "refused" when config-dump reports an error
for it, "agrees" when every value both readers have is equal, and "differs" otherwise (listed).
Differences that are documented dialect choices (Sources/Strata/Strata.docc/INIDialect.md) are skipped value by value:
quoted values (Strata decodes them), `\\`-joined lines (Strata joins them), `key[]` arrays and
`!include` directives (Strata reads them), and keys before any section (configparser rejects them).
"""
import configparser, glob, json, os, plistlib, re, subprocess, sys, tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DUMP = os.path.join(ROOT, ".build", "debug", "config-dump")
INI_EXT = (".ini", ".cfg", ".cnf", ".conf", ".local")


def fetch(target):
    deb, pypi, x = (os.path.join(target, d) for d in ("deb", "pypi", "x"))
    for d in (deb, pypi, x):
        os.makedirs(d, exist_ok=True)
    lines = [l.split("#")[0].strip() for l in open(os.path.join(ROOT, "Scripts", "corpus-packages.txt"))]
    debs = [l[4:] for l in lines if l.startswith("deb ")]
    pips = [l[5:] for l in lines if l.startswith("pypi ")]
    subprocess.run(["apt-get", "download", *debs], cwd=deb, check=False)
    subprocess.run(["pip", "download", "--no-deps", "--no-binary", ":all:", "-d", pypi, *pips], check=False)
    for path in glob.glob(os.path.join(deb, "*.deb")):
        subprocess.run(["dpkg-deb", "-x", path, x], check=False)
    for path in glob.glob(os.path.join(pypi, "*.tar.gz")):
        with tarfile.open(path) as archive:
            archive.extractall(x, filter="data")


def strata(path, fmt=None):
    args = [DUMP, path, "--format", "json", "--show-secrets"]
    if fmt:
        args += ["--input-format", fmt]
    run = subprocess.run(args, capture_output=True, text=True)
    errors = [l for l in run.stderr.splitlines()
              if ": error: " in l or (l.startswith("config-dump:") and "no keys found" not in l)]
    if run.returncode != 0 or errors:
        return None, (errors or [run.stderr.strip()])[0]
    return json.loads(run.stdout or "{}"), None


def leaves(node, path=(), out=None):
    out = {} if out is None else out
    if isinstance(node, dict) and node:
        for k, v in node.items():
            leaves(v, path + (k,), out)
    elif not isinstance(node, dict):
        out[path] = node
    return out


def section_names(section):
    # `[remote "origin"]` and `[a.b]` nest in Strata; configparser keeps one name.
    m = re.match(r'^\s*([^"]*?)\s+"(.*)"\s*$', section)
    if m:
        return tuple(p.strip() for p in m.group(1).split(".")) + (m.group(2),)
    return tuple(p.strip() for p in section.split("."))


def configparser_entries(path):
    text = open(path, encoding="utf-8-sig").read()
    lines = text.splitlines()
    first = next((i for i, l in enumerate(lines) if re.match(r"^\s*\[", l)), len(lines))
    if any(l.strip() and not l.strip().startswith(("#", ";")) for l in lines[:first]):
        text = "[__top__]\n" + text
    cp = configparser.ConfigParser(interpolation=None, strict=False, allow_no_value=True,
                                   delimiters=("=", ":"), comment_prefixes=("#", ";"),
                                   inline_comment_prefixes=("#", ";"), empty_lines_in_values=True)
    cp.optionxform = str
    cp.read_string(text)
    for name, options in cp._sections.items():
        for key, value in options.items():
            yield (None if name == "__top__" else name), key, value


def compare_ini(path, ours):
    flat = {}
    for names, value in leaves(ours).items():
        flat[names] = value
    joined = {".".join(k): v for k, v in flat.items()}
    compared, problems = 0, []
    for section, key, value in configparser_entries(path):
        if key.startswith("!") or key.endswith("[]"):
            continue
        if value is not None and (value.startswith(('"', "'")) or "\\\n" in value):
            continue
        expected = "true" if value is None else value
        # A flag's name is taken literally (Strata does not split it at dots).
        keyparts = (key.strip(),) if value is None else tuple(p.strip() for p in key.split("."))
        names = (section_names(section) if section else ()) + keyparts
        actual = flat.get(names)
        if actual is None:
            actual = joined.get(".".join(names))
        if actual is None:
            problems.append(f"{'.'.join(names)}: configparser {expected!r}, Strata has nothing")
        elif str(actual) != expected:
            problems.append(f"{'.'.join(names)}: configparser {expected!r}, Strata {actual!r}")
        compared += 1
    return compared, problems


def normalize(tree):
    """A tree as Strata's JSON dump writes it: data as base64, dates as ISO 8601 UTC whole seconds."""
    import base64, datetime
    def plain(v):
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, list):
            return [plain(x) for x in v]
        if isinstance(v, bytes):
            return base64.b64encode(v).decode()
        if isinstance(v, datetime.datetime):
            return v.strftime("%Y-%m-%dT%H:%M:%SZ").rjust(20, "0")
        return v
    return json.loads(json.dumps(plain(tree), sort_keys=True))


def differences(a, b, path=""):
    """(path, ours, theirs) for each leaf that differs."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            out += differences(a.get(k, "<absent>"), b.get(k, "<absent>"), f"{path}.{k}" if path else k)
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [(path, a, b)]


def compare(target):
    stats = {}
    report = []
    files = sorted(p for p in glob.glob(os.path.join(target, "x", "**", "*"), recursive=True)
                   if os.path.isfile(p) and not os.path.islink(p))
    for path in files:
        lower = path.lower()
        if lower.endswith(".json"):
            kind = "json"
        elif lower.endswith(".plist"):
            kind = "plist"
        elif lower.endswith(INI_EXT):
            kind = "ini"
        else:
            continue
        s = stats.setdefault(kind, {"files": 0, "loaded": 0, "refused": 0, "python refused": 0,
                                    "both": 0, "agree": 0, "differ": 0, "values": 0})
        s["files"] += 1
        ours, error = strata(path, "ini" if lower.endswith(".local") else None)
        try:
            if kind == "json":
                theirs = json.load(open(path, encoding="utf-8"))
            elif kind == "plist":
                theirs = plistlib.load(open(path, "rb"))
            else:
                theirs = list(configparser_entries(path))
        except Exception as e:  # noqa: BLE001 - any failure of Python's reader counts as a refusal
            theirs, python_error = None, f"{type(e).__name__}: {(str(e).splitlines() or [''])[0][:100]}"
        if ours is None:
            s["refused"] += 1
            report.append(f"REFUSED {path}: {error}" + ("" if theirs is not None else f" (Python too: {python_error})"))
            continue
        s["loaded"] += 1
        if theirs is None:
            s["python refused"] += 1
            report.append(f"PYTHON-ONLY-REFUSED {path}: {python_error}")
            continue
        s["both"] += 1
        if kind == "ini":
            compared, problems = compare_ini(path, ours)
        else:
            if not isinstance(theirs, dict):
                s["both"] -= 1
                report.append(f"SKIPPED {path}: top level is not an object")
                continue
            compared = len(leaves(theirs))
            problems = [] if normalize(ours) == normalize(theirs) else [
                f"{k}: Strata {a!r}, Python {b!r}" for k, a, b in differences(normalize(ours), normalize(theirs))]
        s["values"] += compared
        if problems:
            s["differ"] += 1
            report.append(f"DIFFERS {path}: " + "; ".join(problems[:5]))
        else:
            s["agree"] += 1
    for line in report:
        print(line)
    print()
    for kind, s in sorted(stats.items()):
        print(f"{kind}: " + ", ".join(f"{k} {v}" for k, v in s.items()))
    return stats


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("fetch", "compare"):
        sys.exit(__doc__)
    fetch(sys.argv[2]) if sys.argv[1] == "fetch" else compare(sys.argv[2])
