#!/usr/bin/python3
"""Man pages of slipway's commands, made from their --help.

    man_pages.py write SLIPWAY OUTDIR VERSION [PROGRAM...]
    man_pages.py check SLIPWAY MANDIR [PROGRAM...]

`write` runs `SLIPWAY --help` and `SLIPWAY COMMAND --help` for every
subcommand that help lists, and `PROGRAM --help` for each further program
(slipway-exec, slipway-bench), and writes slipway.1, slipway-COMMAND.1 and
PROGRAM.1 (troff, man(7)) into OUTDIR. `check` fails, naming the page and
the option, when a page is missing for a command the help lists or when
an option or positional of a command's --help is not in its page: the
test that keeps the installed pages in step with the binaries.
"""
import os
import re
import subprocess
import sys

DATE = "2026-11-28"
MAX_HELP = 1 << 20


def help_of(argv):
    out = subprocess.run(argv + ["--help"], capture_output=True, text=True, timeout=60)
    text = (out.stdout or out.stderr)[:MAX_HELP]
    if out.returncode != 0 or not text.strip():
        sys.exit(f"man_pages: {' '.join(argv)} --help failed ({out.returncode}): {out.stderr[:200]}")
    return text


def parse(text):
    """Summary, usage, sections: [(title, [(head, description)] or [lines])]."""
    lines = text.rstrip("\n").split("\n")
    summary, usage, sections, current = [], "", [], None
    for line in lines:
        if line.startswith("Usage: "):
            usage = line[len("Usage: "):]
            current = ("", [])
            sections.append(current)
            continue
        if usage == "" and current is None:
            if line.strip():
                summary.append(line.strip())
            continue
        m = re.match(r"^(Positionals|Options|Subcommands|Benchmarks):$", line)
        if m:
            current = (m.group(1), [])
            sections.append(current)
            continue
        if current[0] and line.startswith("  ") and not line.startswith("    ") and line.strip():
            head, _, desc = line.strip().partition("  ")
            current[1].append([head.strip(), desc.strip()])
        elif current[0] and line.startswith("    ") and current[1]:
            current[1][-1][1] = (current[1][-1][1] + " " + line.strip()).strip()
        elif current[0] and not line.strip():
            current = ("", [])
            sections.append(current)
        else:
            current[1].append(line)
    return " ".join(summary), usage, sections


def esc(text):
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return text


def roff_line(text):
    line = esc(text)
    return "\\&" + line if line.startswith((".", "'")) else line


def page(name, text, version, see_also):
    summary, usage, sections = parse(text)
    out = [f'.TH {name.upper()} 1 "{DATE}" "slipway {version}" "slipway"', ".SH NAME",
           f"{esc(name)} \\- {esc(summary or name)}"]
    if usage:
        out += [".SH SYNOPSIS", ".B " + esc(usage)]
    description = []
    for title, body in sections:
        if title:
            out.append(".SH " + title.upper().replace("SUBCOMMANDS", "COMMANDS"))
            for head, desc in body:
                out += [".TP", ".B " + esc(head), roff_line(desc)]
        else:
            description += body
    paragraph = [l for l in description if l.strip() or True]
    if any(l.strip() for l in paragraph):
        out.append(".SH DESCRIPTION")
        for l in paragraph:
            out.append(".PP" if not l.strip() else roff_line(l.strip()))
    if see_also:
        out += [".SH SEE ALSO", ", ".join(f"\\fB{esc(s)}\\fR(1)" for s in see_also)]
    return "\n".join(out) + "\n"


def commands_of(top_text):
    _, _, sections = parse(top_text)
    return [head.split()[0] for title, body in sections if title == "Subcommands" for head, _ in body]


def pages(slipway, programs):
    top = help_of([slipway])
    cmds = commands_of(top)
    yield "slipway", top, ["slipway-" + c for c in cmds]
    for c in cmds:
        yield "slipway-" + c, help_of([slipway, c]), ["slipway"]
    for p in programs:
        yield os.path.basename(p), help_of([p]), ["slipway"]


def option_heads(text):
    """Each option's and positional's whole head (`--run RUN Needs: --resume`)."""
    return [head for title, body in parse(text)[2] if title in ("Options", "Positionals") for head, _ in body]


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("write", "check"):
        sys.exit(__doc__)
    mode, slipway = sys.argv[1], sys.argv[2]
    if mode == "write":
        outdir, version, programs = sys.argv[3], sys.argv[4], sys.argv[5:]
        os.makedirs(outdir, exist_ok=True)
        for name, text, see in pages(slipway, programs):
            with open(os.path.join(outdir, name + ".1"), "w") as f:
                f.write(page(name, text, version, see))
        return
    mandir, programs = sys.argv[3], sys.argv[4:]
    problems = []
    for name, text, _ in pages(slipway, programs):
        path = os.path.join(mandir, name + ".1")
        if not os.path.exists(path):
            problems.append(f"{path}: no man page for `{name.replace('slipway-', 'slipway ', 1)}`")
            continue
        with open(path) as f:
            roff = f.read(MAX_HELP)
        entries = set(roff.split("\n"))
        for head in option_heads(text):
            if ".B " + esc(head) not in entries:
                problems.append(f"{path}: `{head}` of `{name} --help` is not in the page (or differs)")
    for p in problems:
        print("man_pages:", p, file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
