#!/usr/bin/python3
"""The layering check (unit:repository:layering): every link between targets
of two different folders must be allowed by the fenced ```layering block of
docs/architecture.md, and the folder graph must have no cycle other than
those the block lists as `cycle:` (known debts, each to be removed).

Usage: check_layering.py LINK_GRAPH ARCHITECTURE_MD
LINK_GRAPH is written at configure time by cmake/SlipwayLayering.cmake.
"""
import re
import sys

graph_path, doc_path = sys.argv[1], sys.argv[2]
doc = open(doc_path, encoding="utf-8").read()
block = re.search(r"```layering\n(.*?)```", doc, re.S)
if not block:
    sys.exit(f"{doc_path}: no ```layering block")
allowed, known_cycles = {}, []
for line in block.group(1).splitlines():
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    head, _, rest = line.partition(":")
    if head.strip() == "cycle":
        known_cycles.append(frozenset(rest.split()))
        continue
    allowed[head.strip()] = set(rest.split())

edges = {}
for line in open(graph_path, encoding="utf-8"):
    folder, target, dep_folder, dep = line.rstrip("\n").split("|")
    top, dep_top = folder.split("/")[0], dep_folder.split("/")[0]
    if dep_top in ("-", ".") or top == dep_top:
        continue  # Debian's packages and cmake/'s imported targets; links inside a folder
    edges.setdefault((top, dep_top), []).append(f"{target} -> {dep}")

problems = []
folders = set()
for line in open(graph_path, encoding="utf-8"):
    folder, _, dep_folder, _ = line.rstrip("\n").split("|")
    folders |= {f.split("/")[0] for f in (folder, dep_folder)} - {"-", "."}
for folder in sorted(folders - set(allowed)):
    problems.append(f"folder {folder}/ is not in the layering block of {doc_path}: add it")
for (top, dep_top), links in sorted(edges.items()):
    if top not in allowed:
        continue  # reported above
    if dep_top not in allowed[top] and "*" not in allowed[top]:
        problems.append(f"{top}/ may not use {dep_top}/ ({doc_path}, Layering), but "
                        + ", ".join(sorted(set(links))))

# Cycles between folders (tests/ excluded: it may use everything).
succ = {}
for (a, b) in edges:
    if a != "tests":
        succ.setdefault(a, set()).add(b)


def reaches(start, goal, seen):
    for nxt in succ.get(start, ()):
        if nxt == goal:
            return True
        if nxt not in seen:
            seen.add(nxt)
            if reaches(nxt, goal, seen):
                return True
    return False


for (a, b) in sorted(edges):
    if a == "tests" or not reaches(b, a, {b}):
        continue
    if any({a, b} <= cycle for cycle in known_cycles):
        continue
    problems.append(f"cycle between folders: {a}/ -> {b}/ -> ... -> {a}/ ("
                    + ", ".join(sorted(set(edges[(a, b)]))) + ")")

for p in problems:
    print(p)
if problems:
    sys.exit(1)
print(f"layering: {len(edges)} folder dependencies, all allowed; known cycles: "
      + (", ".join("<->".join(sorted(c)) for c in known_cycles) or "none"))
