#!/usr/bin/env python3
"""Checks that every Swift sample of the README, the DocC articles and the doc comments is compiled code.

Each ```swift block of README.md, Sources/Strata/Strata.docc/*.md and the Integrations' catalogs
(Integrations/Sources/*/*.docc/*.md) must follow, on the line just
before its fence, a marker naming the file it is taken from, relative to the repository's root:

    <!-- snippet: Samples/QuickStart/Sources/hello/main.swift -->        the whole file
    <!-- snippet: Tests/DocSnippets/LiveReloadSnippets.swift#run -->    one region of it

A region is the lines between `// snippet: NAME` and `// snippet: end` (each alone on its line),
less their common indentation, and less any lines between `// snippet: hide` and `// snippet: show`
(set-up the reader does not need). The block must equal the file or region byte for byte. Every region
of the snippet files must be shown somewhere, and every shown manifest (`Package.swift`) must compile.
The Swift files themselves are compiled by `swift build --build-tests` (Tests/DocSnippets is a test
target, the Quick start an executable target).

The samples of the API's doc comments follow the same rule: each ```swift block in the `///` comments of
Sources/**/*.swift, Integrations/Sources/**/*.swift and Integrations/StrataVapor/Sources/**/*.swift has
its marker on the comment line before its fence, and the block, less each line's `///` and the one space
after it, must equal its region:

    /// <!-- snippet: Tests/DocSnippets/StoreSymbolSnippets.swift#SettingsStore -->
    /// ```swift
    /// let store = SettingsStore(app: "myserver")

Usage: Scripts/check-doc-snippets.py [ROOT]   (ROOT: the repository, by default this script's parent)
Exit status 0 when every block matches, 1 otherwise, each problem printed as path:line: message.
"""

import glob
import os
import re
import subprocess
import sys

MARKER = re.compile(r"^<!-- snippet: ([^#\s]+)(?:#([A-Za-z0-9_-]+))? -->$")
REGION = re.compile(r"^\s*// snippet: ([A-Za-z0-9_-]+)$")


DOC_COMMENT = re.compile(r"^\s*/// ?(.*)$")

# The Integrations package's samples are compiled in its test target (it needs the ecosystem packages),
# and StrataVapor's in its own package's.
INTEGRATION_SNIPPETS = "Integrations/Tests/StrataIntegrationsTests/DocSnippets"
VAPOR_SNIPPETS = "Integrations/StrataVapor/Tests/StrataVaporTests/DocSnippets"


def documents(root):
    paths = [os.path.join(root, "README.md")]
    paths += sorted(glob.glob(os.path.join(root, "Sources/Strata/Strata.docc/*.md")))
    paths += sorted(glob.glob(os.path.join(root, "Sources/**/*.swift"), recursive=True))
    paths += sorted(glob.glob(os.path.join(root, "Integrations/Sources/**/*.docc/*.md"), recursive=True))
    paths += sorted(glob.glob(os.path.join(root, "Integrations/Sources/**/*.swift"), recursive=True))
    paths += sorted(glob.glob(os.path.join(root, "Integrations/StrataVapor/Sources/**/*.swift"), recursive=True))
    return [path for path in paths if os.path.exists(path)]


def doc_comment_lines(lines):
    """The text of each `///` line less the `///` and one space after it; None for any other line."""
    texts = []
    for line in lines:
        match = DOC_COMMENT.match(line)
        texts.append(match.group(1) if match else None)
    return texts


def swift_blocks(path):
    """Yields (line number of the fence, marker line or None, content) for each ```swift block: in a
    Swift file, each block of its `///` comments (read less their `/// `), elsewhere each block."""
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    if path.endswith(".swift"):
        lines = doc_comment_lines(lines)
    index = 0
    while index < len(lines):
        if lines[index] is not None and lines[index].strip() == "```swift":
            fence = index
            marker = lines[index - 1] if index > 0 else None
            index += 1
            content = []
            while index < len(lines) and lines[index] is not None and lines[index].strip() != "```":
                content.append(lines[index])
                index += 1
            yield fence + 1, marker, "\n".join(content) + "\n"
        index += 1


def regions(path):
    """The regions of a snippet file: name -> (content, line of its marker)."""
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    found, current, body, hidden, start = {}, None, [], False, 0
    for number, line in enumerate(lines, 1):
        match = REGION.match(line)
        name = match.group(1) if match else None
        if current is None:
            if name in ("end", "hide", "show"):
                raise ValueError(f"{path}:{number}: '// snippet: {name}' outside a region")
            if name is not None:
                if name in found:
                    raise ValueError(f"{path}:{number}: region '{name}' is defined twice")
                current, body, hidden, start = name, [], False, number
            continue
        if name == "end":
            found[current] = (dedent(body), start)
            current = None
        elif name == "hide":
            hidden = True
        elif name == "show":
            hidden = False
        elif name is not None:
            raise ValueError(f"{path}:{number}: region '{name}' starts inside region '{current}'")
        elif not hidden:
            body.append(line)
    if current is not None:
        raise ValueError(f"{path}:{start}: region '{current}' has no '// snippet: end'")
    return found


def dedent(lines):
    indents = [len(line) - len(line.lstrip(" ")) for line in lines if line.strip()]
    cut = min(indents) if indents else 0
    return "\n".join(line[cut:] for line in lines) + "\n"


def whole(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def first_difference(shown, compiled):
    shown_lines, compiled_lines = shown.split("\n"), compiled.split("\n")
    for offset, (a, b) in enumerate(zip(shown_lines, compiled_lines)):
        if a != b:
            return offset, a, b
    offset = min(len(shown_lines), len(compiled_lines))
    return offset, "\n".join(shown_lines[offset:]) or "(end)", "\n".join(compiled_lines[offset:]) or "(end)"


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    problems, used, manifests, blocks = [], set(), set(), 0
    for document in documents(root):
        shown_path = os.path.relpath(document, root)
        for line, marker, content in swift_blocks(document):
            blocks += 1
            match = MARKER.match(marker or "")
            if not match:
                comment = "/// " if document.endswith(".swift") else ""
                problems.append(
                    f"{shown_path}:{line}: a ```swift block without '{comment}<!-- snippet: FILE[#REGION] -->' on "
                    "the line before it; put the sample in a compiled file (Tests/DocSnippets) and name it there")
                continue
            file, region = match.group(1), match.group(2)
            source = os.path.join(root, file)
            if not os.path.isfile(source):
                problems.append(f"{shown_path}:{line}: the snippet file {file} does not exist")
                continue
            try:
                if region:
                    found = regions(source)
                    if region not in found:
                        problems.append(f"{shown_path}:{line}: {file} has no region '{region}'")
                        continue
                    compiled = found[region][0]
                    used.add((file, region))
                else:
                    compiled = whole(source)
                    if os.path.basename(file) == "Package.swift":
                        manifests.add(os.path.dirname(source))
            except ValueError as error:
                problems.append(str(error))
                continue
            if content != compiled:
                offset, a, b = first_difference(content, compiled)
                problems.append(
                    f"{shown_path}:{line + 1 + offset}: differs from {file}{'#' + region if region else ''}:\n"
                    f"  shown:    {a}\n  compiled: {b}\n  copy the compiled code into the document (or fix the file)")
    snippet_files = glob.glob(os.path.join(root, "Tests/DocSnippets/*.swift"))
    snippet_files += glob.glob(os.path.join(root, INTEGRATION_SNIPPETS, "*.swift"))
    snippet_files += glob.glob(os.path.join(root, VAPOR_SNIPPETS, "*.swift"))
    for source in sorted(snippet_files):
        file = os.path.relpath(source, root)
        try:
            for name, (_, start) in regions(source).items():
                if (file, name) not in used:
                    problems.append(f"{file}:{start}: region '{name}' is shown in no document; show it or remove it")
        except ValueError as error:
            problems.append(str(error))
    for directory in sorted(manifests):
        result = subprocess.run(
            ["swift", "package", "dump-package", "--package-path", directory], capture_output=True, text=True)
        if result.returncode != 0:
            problems.append(f"{os.path.relpath(directory, root)}/Package.swift: does not compile:\n{result.stderr}")
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"error: {len(problems)} documentation sample problem(s)", file=sys.stderr)
        return 1
    print(f"{blocks} Swift samples match their compiled files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
