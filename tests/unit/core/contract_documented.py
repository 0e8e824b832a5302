#!/usr/bin/python3
"""The contract is defined once and documented: docs/contract.md, core's
contract.hpp and the product's sources agree (unit:core:contract_documented).

Fails when
 - a SLIPWAY_* name used in the product's C++, Python or shell sources is
   not in docs/contract.md (build-time identifiers, those CMake or the C
   preprocessor defines, are not environment variables and are skipped);
 - a documented name is used nowhere, or a constant of contract.hpp is not
   documented, or a documented key prefix has no constant;
 - a C++ file other than contract.hpp (bench/ aside: it drives other
   programs, not the product's processes) spells a SLIPWAY_* variable or a
   rendezvous key prefix as a string literal instead of using core::env /
   core::keys.
Usage: contract_documented.py SOURCE_DIR
"""
import re
import subprocess
import sys
from pathlib import Path

root = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
HEADER = "core/include/slipway/core/contract.hpp"
NAME = re.compile(r"SLIPWAY_[A-Z0-9_]+")
problems = []


def tracked(*patterns):
    out = subprocess.run(["git", "-C", str(root), "ls-files", "--", *patterns],
                         capture_output=True, text=True, check=True).stdout.split()
    return [p for p in out if not p.startswith(("tests/", "docs/"))]


def read(path):
    return (root / path).read_text(encoding="utf-8", errors="replace")


# The documented names: `SLIPWAY_X` or a family `SLIPWAY_X_<...>` as the first
# cell of a table row; and the key prefixes of the "Rendezvous keys" table.
doc = read("docs/contract.md")
documented, families = set(), set()
for m in re.finditer(r"^\| `(SLIPWAY_[A-Z0-9_]*)((?:<[A-Z]+>_?)*)`", doc, re.M):
    (families if m.group(2) else documented).add(m.group(1))
keys_section = doc.split("## Rendezvous keys", 1)[-1]
documented_keys = {m.group(1) for m in re.finditer(r"^\| `([a-z-]+/)", keys_section, re.M)}


def is_documented(name):
    return name in documented or any(name.startswith(f) for f in families)


# Build-time identifiers: defined by CMake or the C preprocessor, or C ABI
# constants of the courier header.
sources = tracked("*.cpp", "*.hpp", "*.h", "*.py", "*.sh", "*.in", "scripts/*", ".ci/*")
build_files = tracked("CMakeLists.txt", "*/CMakeLists.txt", "*.cmake")
identifiers = set()
for path in build_files:
    identifiers |= set(NAME.findall(read(path)))
for path in sources:
    text = read(path)
    identifiers |= set(re.findall(r"#\s*(?:define|ifndef|ifdef|if defined\(?)\s*(SLIPWAY_[A-Z0-9_]+)", text))
identifiers |= set(NAME.findall(read("channels/include/slipway/channels/courier.h")))

used = {}
for path in sources:
    for name in NAME.findall(read(path)):
        used.setdefault(name, path)
for name, path in sorted(used.items()):
    if name in identifiers or is_documented(name):
        continue
    problems.append(f"{path}: {name} is not in docs/contract.md; document it there (and in {HEADER} "
                    "when C++ uses it)")

# Every documented name is used somewhere; every constant is documented.
all_text = "\n".join(read(p) for p in sources)
for name in sorted(documented | families):
    if name not in all_text:
        problems.append(f"docs/contract.md: {name} is documented but no source uses it; remove the row")
header = read(HEADER)
for name in re.findall(r'= "(SLIPWAY_[A-Z0-9_]*)";', header):
    if not is_documented(name) and name not in families and name != "SLIPWAY_":
        problems.append(f"{HEADER}: {name} has no row in docs/contract.md")
header_keys = set(re.findall(r'= "([a-z-]+/)";', header))
for key in sorted(documented_keys ^ header_keys):
    where = "docs/contract.md" if key in documented_keys else HEADER
    problems.append(f"{where}: key prefix {key} is in one of docs/contract.md and {HEADER} only")

# No C++ literal of a contract name outside the header.
literal = re.compile(r'"(SLIPWAY_[A-Z0-9_]+=?|(?:' + "|".join(re.escape(k) for k in sorted(header_keys)) + r'))')
for path in tracked("*.cpp", "*.hpp"):
    if path == HEADER or path.startswith("bench/"):
        continue
    for number, line in enumerate(read(path).splitlines(), 1):
        code = line.split("//", 1)[0]
        for m in literal.finditer(code):
            text = m.group(1)
            if text.startswith("SLIPWAY_") and text.rstrip("=") in identifiers:
                continue
            # A literal that is exactly a name (or NAME=), or that starts a key.
            end = m.end()
            exact = text.startswith("SLIPWAY_") and code[end:end + 1] == '"'
            if exact or not text.startswith("SLIPWAY_"):
                problems.append(f"{path}:{number}: literal \"{text}...\": use core::env / core::keys "
                                f"({HEADER})")

for p in problems:
    print(p)
if problems:
    sys.exit(1)
print(f"contract: {len(documented)} names, {len(families)} families, {len(documented_keys)} key "
      "prefixes documented and used")
