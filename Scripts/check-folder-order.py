#!/usr/bin/env python3
"""Checks that the library's folders depend on each other in one direction (see SourceLayoutDesign.md in
the DocC catalog).

The folders of Sources/Strata are ranked in LEVELS, lowest first; the files at the root of
Sources/Strata are the model (`Model`). A file may name what its own level and the levels below define;
naming a type, function or constant that only a higher level defines is an error, unless the pair
(file, name) is listed in EXCEPTIONS, the debt written down with its reason. An exception that no
longer occurs is an error too, so that the list only shrinks.

It also keeps the read path's rule structural: a setting box's locked state (`lockedState`) is touched
only where it is declared and by Groups/SettingBox+Locking.swift, whose `withState` publishes the read cache on every exit.

The check reads the source as text (comments and string literals removed): a top-level declaration is
one that starts at column 0 (`struct`, `enum`, `class`, `protocol`, `actor`, `typealias`, `func`, `let`,
`var`, after any attributes and modifiers); a use is the same word anywhere in another file. A name
declared in several folders is not checked (it is ambiguous as text).

Usage: Scripts/check-folder-order.py [--without-exceptions] [ROOT]
  ROOT: the repository, by default this script's parent.
  --without-exceptions: check ROOT as if EXCEPTIONS were empty (for the script's own tests, whose
  repositories hold none of the files listed).
Exit status 0 when the order holds, 1 otherwise, each problem printed as path: message.
"""

import os
import re
import sys

LEVELS = [
    # The foundation: path arithmetic and the file system, locks, threads, bytes; and the model's
    # vocabulary (keys, values, origins, errors, tables, documents, snapshots), which they throw and
    # carry.
    ["Support", "Model"],
    # Parsers, serializers and editors: bytes in, a tree with positions out; no file system beyond
    # reading a named file.
    ["Formats"],
    # The Codable bridge between a tree and a Swift value.
    ["Coding"],
    # The sources: files, environment, command line, key-per-file, the standard layout.
    ["Layers"],
    # Signals from outside: file events, the service manager.
    ["Watching", "Systemd"],
    # The store (pipeline, registry, writer) and the settings it holds: a store keeps its settings'
    # boxes, and a box reads its store's snapshot, so the two are one level.
    ["Store", "Groups"],
    # Introspection of declared settings.
    ["Schema"],
    # What config-dump prints.
    ["Dump"],
    # The control socket: what a running store answers (its status, plans, overrides) and how a
    # client asks.
    ["Control"],
]

# (file relative to Sources/Strata, name) -> why it is allowed for now.
EXCEPTIONS = {
    ("Support/ISODateText.swift", "parseDate"): "the plist's date scanner; it belongs in Support",
    ("Support/ISODateText.swift", "formatDate"): "the plist's date printer; it belongs in Support",
    ("Support/ISODateText.swift", "xmlDateSeconds"): "the plist's date range; it belongs in Support",
    ("Document.swift", "FormatRegistry"): "ParseOptions carries the registry; ParseOptions belongs in Formats",
    ("Document.swift", "EnvironmentKeyIndex"): "a document caches its environment index",
    ("KeyIndex.swift", "KeyHash"): "the key hash belongs in the model",
    ("SettingTable.swift", "KeyHash"): "the key hash belongs in the model",
    ("Snapshot.swift", "Scope"): "a snapshot answers for a scope; Scope belongs in the model",
    ("SnapshotDescriptions.swift", "redactedText"): "the redaction marker belongs in the model",
    ("Coding/SettingCoding.swift", "Setting"): "a coding's doc names the property wrapper",
    ("Coding/SettingCoding.swift", "SettingTraits"): "a coding reads the setting's traits",
    ("Coding/SettingCoding.swift", "SettingValidation"): "a coding checks the declared validation",
    ("Coding/SettingEncoder.swift", "FieldShape"): "the encoder learns a struct's fields for the schema",
    ("Groups/AnySettingBox.swift", "FieldShape"): "a box gives the schema its struct's fields",
    ("Groups/SettingBox.swift", "FieldShape"): "a box gives the schema its struct's fields",
    ("Store/SettingsStore+Diagnostics.swift", "SettingsSchema"): "unknown keys are found by the schema",
}

# The declaration (and its initialization), and the one helper that goes through it.
LOCKED_STATE_OWNERS = {"Groups/SettingBox.swift", "Groups/SettingBox+Locking.swift"}

DECLARATION = re.compile(
    r"^(?:@\w+(?:\([^)\n]*\))?\s+)*"
    r"(?:(?:public|package|internal|fileprivate|private|final|indirect|nonisolated)\s+)*"
    r"(?:class|struct|enum|protocol|actor|typealias|func|let|var)\s+([A-Za-z_]\w*)",
    re.M,
)


def without_comments_and_strings(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'"""(.*?)"""', '""', text, flags=re.S)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    return re.sub(r"//.*", "", text)


def folder_of(relative):
    parts = relative.split("/")
    return parts[0] if len(parts) > 1 else "Model"


def main():
    arguments = sys.argv[1:]
    exceptions = EXCEPTIONS
    if "--without-exceptions" in arguments:
        arguments.remove("--without-exceptions")
        exceptions = {}
    root = arguments[0] if arguments else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sources = os.path.join(root, "Sources", "Strata")
    level_of = {folder: index for index, folders in enumerate(LEVELS) for folder in folders}
    files = {}
    for directory, _, names in os.walk(sources):
        for name in names:
            if name.endswith(".swift"):
                path = os.path.join(directory, name)
                relative = os.path.relpath(path, sources).replace(os.sep, "/")
                with open(path, encoding="utf-8") as handle:
                    files[relative] = without_comments_and_strings(handle.read())
    problems = []
    for relative in sorted(files):
        if folder_of(relative) not in level_of:
            problems.append(f"Sources/Strata/{relative}: the folder '{folder_of(relative)}' has no level; add it to LEVELS")
    defined_in = {}
    for relative, text in files.items():
        for match in DECLARATION.finditer(text):
            defined_in.setdefault(match.group(1), set()).add(folder_of(relative))
    seen = set()
    for relative, text in sorted(files.items()):
        folder = folder_of(relative)
        if folder not in level_of:
            continue
        for word in sorted(set(re.findall(r"\b[A-Za-z_]\w*\b", text))):
            folders = defined_in.get(word, set())
            if len(folders) != 1 or folder in folders:
                continue
            (owner,) = folders
            if owner not in level_of or level_of[owner] <= level_of[folder]:
                continue
            if (relative, word) in exceptions:
                seen.add((relative, word))
                continue
            problems.append(
                f"Sources/Strata/{relative}: names '{word}', defined in {owner}/, a higher level than "
                f"{folder}/ (the order is {' < '.join('/'.join(level) for level in LEVELS)}); move what "
                "both need down, or the file up"
            )
        if relative not in LOCKED_STATE_OWNERS and re.search(r"\blockedState\b", text):
            problems.append(
                f"Sources/Strata/{relative}: touches a setting box's lockedState; go through withState "
                "(it publishes the read cache on every exit) or readState"
            )
    for relative, word in sorted(set(exceptions) - seen):
        problems.append(
            f"Sources/Strata/{relative}: the exception for '{word}' no longer occurs; remove it from EXCEPTIONS"
        )
    for problem in problems:
        print(problem)
    if not problems:
        print(f"the folder order holds ({len(files)} files, {len(exceptions)} listed exceptions)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
