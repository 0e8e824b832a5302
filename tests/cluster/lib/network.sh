# shellcheck shell=bash
# Network of the test cluster (sourced by cluster.sh): one bridge in the host
# namespace holding the controller address 10.213.N.1/24, and per compute host
# a network namespace with a veth peer on that bridge (10.213.N.(10+K)).
#
# N (the cluster's net id) is the lowest id whose bridge does not exist yet,
# chosen under a lock, so that two clusters on one machine never share a
# subnet, a bridge or a namespace. Traffic stays on addresses this harness
# made; nothing is routed or forwarded off the bridge.

NET_LOCK=/run/slipway-cluster.lock

bridge_name() { echo "swbr$1"; }
netns_name() { echo "sw$1-$2"; }       # net id, host name
veth_name() { echo "sw$1v$2"; }        # net id, host index
net_prefix() { echo "10.213.$1"; }

# net_allocate DIR: pick a free net id, create its bridge (the bridge is the
# reservation) and record the id in DIR/net_id. Prints the id.
net_allocate() {
  local dir=$1 id br
  exec {lockfd}>"$NET_LOCK"
  flock -w 30 "$lockfd" || die "could not lock $NET_LOCK within 30s"
  for id in $(seq 0 200); do
    br=$(bridge_name "$id")
    ip link show "$br" >/dev/null 2>&1 && continue
    ip link add "$br" type bridge || continue
    echo "$id" >"$dir/net_id"
    ip link set "$br" alias "slipway-cluster:$dir"
    ip addr add "$(net_prefix "$id").1/24" dev "$br"
    ip link set "$br" up
    flock -u "$lockfd"; exec {lockfd}>&-
    echo "$id"
    return 0
  done
  flock -u "$lockfd"; exec {lockfd}>&-
  die "no free net id (bridges swbr0..swbr200 all exist)"
}

# net_add_host ID INDEX NAME: a namespace NAME for host INDEX (1-based) with
# address 10.213.ID.(10+INDEX) on the bridge, loopback up.
net_add_host() {
  local id=$1 idx=$2 name=$3
  local ns veth addr
  ns=$(netns_name "$id" "$name")
  veth=$(veth_name "$id" "$idx")
  addr="$(net_prefix "$id").$((10 + idx))"
  ip netns add "$ns"
  ip link add "$veth" type veth peer name eth0 netns "$ns"
  ip link set "$veth" master "$(bridge_name "$id")"
  ip link set "$veth" up
  ip -n "$ns" link set lo up
  ip -n "$ns" addr add "$addr/24" dev eth0
  ip -n "$ns" link set eth0 up
}

# net_host_pids ID NAME: pids of every process in host NAME's namespace.
net_host_pids() {
  local ns
  ns=$(netns_name "$1" "$2")
  [[ -e /run/netns/$ns ]] || return 0
  ip netns pids "$ns" 2>/dev/null || true
}

# net_remove ID NAME...: delete the hosts' namespaces (their veths go with
# them, asynchronously), any leftover host-side veth, then the bridge.
# Idempotent; never fails (a link may vanish between look-up and delete).
net_remove() {
  local id=$1; shift
  local name idx=0 ns veth
  for name in "$@"; do
    idx=$((idx + 1))
    ns=$(netns_name "$id" "$name")
    veth=$(veth_name "$id" "$idx")
    if [[ -e /run/netns/$ns ]]; then ip netns del "$ns" 2>/dev/null || true; fi
    if ip link show "$veth" >/dev/null 2>&1; then ip link del "$veth" 2>/dev/null || true; fi
  done
  local br
  br=$(bridge_name "$id")
  if ip link show "$br" >/dev/null 2>&1; then ip link del "$br" 2>/dev/null || true; fi
  return 0
}
