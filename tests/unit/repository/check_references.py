#!/usr/bin/python3
# What the code's comments and includes refer to exists: every doc under
# docs/ that a source file cites is there, no comment cites a section of a
# design file the repository does not have (the word DESIGN, then a section
# sign or "section N"), and no file includes itself. Usage: check_references.py SOURCE_DIR; exits 1 listing each
# FILE:LINE that refers to nothing, with what to write instead.
import os
import re
import sys

SOURCE_SUFFIXES = (".cpp", ".hpp", ".h", ".c", ".py", ".sh", ".cmake", ".txt", ".toml", ".in")
SKIPPED_DIRS = {"debian", "docs", "man"}  # the docs cite each other by relative links
DOC_CITATION = re.compile(r"\bdocs/([A-Za-z0-9_./-]+?\.md)\b")
DESIGN_CITATION = re.compile(r"\bDESIGN(?:\.md)?\s*(?:§|section\s+\d)")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
MAX_FILE_BYTES = 4 << 20


def source_files(root):
    for directory, subdirs, files in os.walk(root):
        relative = os.path.relpath(directory, root)
        if relative == ".":
            subdirs[:] = [d for d in subdirs
                          if not d.startswith((".", "build", "obj-")) and d not in SKIPPED_DIRS]
        for name in files:
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.normpath(os.path.join(relative, name))


def problems_of(root, path):
    full = os.path.join(root, path)
    if os.path.getsize(full) > MAX_FILE_BYTES:
        return
    with open(full, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    design_files = [n for n in os.listdir(root) if n.upper().startswith("DESIGN")]
    for number, line in enumerate(lines, 1):
        where = f"{path}:{number}"
        for doc in DOC_CITATION.findall(line):
            if not os.path.isfile(os.path.join(root, "docs", doc)):
                yield f"{where}: cites docs/{doc}, which does not exist; cite the doc that describes it"
        if DESIGN_CITATION.search(line) and not design_files:
            yield (f"{where}: cites a section of a design file the repository does not have; "
                   "cite the docs/ file that holds the rule")
        include = INCLUDE.match(line)
        included = os.path.normpath(include.group(1)) if include else None
        if included and (path == included or path.endswith(os.sep + included)):
            yield f"{where}: includes itself (\"{include.group(1)}\"); remove the line"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_references.py SOURCE_DIR")
    root = sys.argv[1]
    problems = [p for path in sorted(source_files(root)) for p in problems_of(root, path)]
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} reference(s) to nothing")
        return 1
    print("every cited doc exists, no design-file sections are cited, no file includes itself")
    return 0


if __name__ == "__main__":
    sys.exit(main())
