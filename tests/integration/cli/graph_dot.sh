#!/usr/bin/env bash
# Issue 29 item 4: `slipway graph FILE [-o OUT]` writes the program graph as
# Graphviz DOT that Graphviz's dot accepts for every example topology (a box
# per node, an arrow per handle, colocate groups as clusters); an invalid
# topology is reported as `slipway validate` reports it (exit 2, nothing
# written), an unwritable OUT says so (exit 1).
source "$(dirname "$0")/lib.sh"
: "${EXAMPLES:?EXAMPLES must name the examples directory}"
command -v dot >/dev/null || fail "dot (Debian's graphviz, scripts/setup.sh) is not installed"

# matches REGEX FILE: how many lines match (0 is not a failure here).
matches() { grep -c -- "$1" "$2" || true; }

count=0
for topology in "$EXAMPLES"/*.toml; do
  name=$(basename "$topology" .toml)
  run_slipway "$WORK/$name.dot" graph "$topology"
  expect_status 0
  run_logged "$WORK/$name.dot.err" dot -Tsvg -o "$WORK/$name.svg" "$WORK/$name.dot"
  [ "$status" -eq 0 ] || fail "dot refused the graph of $topology"
  [ ! -s "$WORK/$name.dot.err" ] || fail "dot warned about the graph of $topology"
  # Every node of the topology is one box of the drawing, every handle one arrow.
  nodes=$(matches '^ *"[^"]*" \[label=' "$WORK/$name.dot")
  edges=$(matches '^ *"[^"]*" -> "[^"]*";$' "$WORK/$name.dot")
  [ "$nodes" -ge 1 ] || fail "no node box in the graph of $topology"
  assert_eq "$nodes" "$(matches '<g id="node[0-9]*" class="node">' "$WORK/$name.svg")" "boxes drawn for $topology"
  assert_eq "$edges" "$(matches '<g id="edge[0-9]*" class="edge">' "$WORK/$name.svg")" "arrows drawn for $topology"
  count=$((count + 1))
done
[ "$count" -ge 5 ] || fail "only $count example topologies found in $EXAMPLES"

# The actor-learner example: elastic replicas as MIN:MAX, arrows to what a node handles.
expect_line "$WORK/actor_learner.dot" '^  "actor" \[label="actor\\nexec, replicas 2:4"\];$'
expect_line "$WORK/actor_learner.dot" '^  "replay" \[label="replay\\nreplay, replicas 2, daemon"\];$'
expect_line "$WORK/actor_learner.dot" '^  "actor" -> "learner";$'

# A colocate group is a cluster that dot draws around its nodes; -o writes the file.
cat >"$WORK/pair.toml" <<'TOML'
[program]
name = "pair"

[node.server]
command = "true"
ports = ["api"]
colocate = "together"

[node.sidecar]
command = "true"
handles = ["server"]
colocate = "together"

[node.client]
command = "true"
replicas = "1:3"
handles = ["server"]
TOML
run_slipway "$WORK/out" graph "$WORK/pair.toml" -o "$WORK/pair.dot"
expect_status 0
[ ! -s "$WORK/out" ] || fail "graph -o printed something"
expect_line "$WORK/pair.dot" '^  subgraph "cluster_colocate_together" \{$'
run_logged "$WORK/out" dot -Tsvg -o "$WORK/pair.svg" "$WORK/pair.dot"
expect_status 0
expect_line "$WORK/pair.svg" '<g id="clust1" class="cluster">'
expect_line "$WORK/pair.svg" '>colocate together<'

# Invalid: validate's diagnostics, exit 2, no file.
printf '[program]\nname = "x"\n\n[node.a]\ncommand = "true"\nhandles = ["nowhere"]\n' >"$WORK/bad.toml"
run_slipway "$WORK/out" graph "$WORK/bad.toml" -o "$WORK/bad.dot"
expect_status 2
expect_line "$WORK/out" "bad.toml:6:[0-9]+: .*'nowhere'"
[ ! -e "$WORK/bad.dot" ] || fail "graph wrote a file for an invalid topology"

# Unwritable output: exit 1, naming the path.
run_slipway "$WORK/out" graph "$WORK/pair.toml" -o "$WORK/no/such/dir/pair.dot"
expect_status 1
expect_line "$WORK/out" "cannot write '$WORK/no/such/dir/pair.dot'"
echo "graph_dot: $count example topologies drawn by dot"
