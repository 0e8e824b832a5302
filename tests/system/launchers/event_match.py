"""Finds events in a run's event record (the JSON lines of `slipway events
--json`, on standard input) for the system tests of the record:

    event_match.py [--after SEQ] [--all] [--field NAME] FILTER...

FILTER is KEY=VALUE (the field equals VALUE, compared as text), KEY~REGEX
(the field, as text, contains a match of REGEX) or KEY! (the record has no
such field). Events are taken in the order of their seq, never of their
time. Prints the seq (or the field NAME) of the first event after SEQ that
matches every filter, or of every such event with --all, one a line.

Exit status: 0 found, 1 none found, 2 a malformed record (a line that is no
JSON object, a seq missing or seen twice) or bad arguments."""
import json
import re
import sys

MAX_BYTES = 16 << 20  # the record rotates at 16 MiB


def parse_filter(text):
    for op in ("=", "~"):
        key, sep, value = text.partition(op)
        if sep and key and all(c.isalnum() or c == "_" for c in key):
            return key, op, value
    if text.endswith("!") and len(text) > 1:
        return text[:-1], "!", ""
    sys.exit(f"event_match: bad filter {text!r} (KEY=VALUE, KEY~REGEX or KEY!)")


def text_of(value):
    return value if isinstance(value, str) else json.dumps(value)


def matches(event, key, op, value):
    if op == "!":
        return key not in event
    if key not in event:
        return False
    if op == "=":
        return text_of(event[key]) == value
    return re.search(value, text_of(event[key])) is not None


def read_events():
    data = sys.stdin.buffer.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        print(f"event_match: the record is over {MAX_BYTES} bytes", file=sys.stderr)
        sys.exit(2)
    events, seen = [], set()
    for number, line in enumerate(data.decode().splitlines(), 1):
        try:
            event = json.loads(line)
        except ValueError as e:
            print(f"event_match: line {number} is no JSON ({e}): {line!r}", file=sys.stderr)
            sys.exit(2)
        seq = event.get("seq") if isinstance(event, dict) else None
        if not isinstance(seq, int) or seq in seen:
            print(f"event_match: line {number} has no seq of its own: {line!r}", file=sys.stderr)
            sys.exit(2)
        seen.add(seq)
        events.append(event)
    return sorted(events, key=lambda e: e["seq"])


def main(argv):
    after, every, field, filters = 0, False, "seq", []
    args = iter(argv)
    for arg in args:
        if arg == "--after":
            after = int(next(args))
        elif arg == "--all":
            every = True
        elif arg == "--field":
            field = next(args)
        else:
            filters.append(parse_filter(arg))
    found = [e for e in read_events()
             if e["seq"] > after and all(matches(e, *f) for f in filters)]
    for event in found if every else found[:1]:
        print(text_of(event.get(field, "")))
    return 0 if found else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
