#!/usr/bin/env bash
# slipway's Debian packages as installed: dpkg -i of the four packages that
# system:debian:build made, the test cluster pointed at the installed files
# only (its plugstack.conf becomes Debian's own include of
# /etc/slurm/plugstack.conf.d, the plugin gets no slipway_bin=, PATH holds no
# build folder), then srun --program, sbatch --program and slipway sbatch,
# import slipway, a C program built with find_package(slipway); an upgrade
# while a program runs (it keeps running and finishes), and a purge that
# leaves the system as it was. No daemon is restarted.
#   installed.sh PACKAGES_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../lib/checks.sh"
debs=$1
packages=(slipway slipway-spank libslipway-dev slipway-bench)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

for p in "${packages[@]}"; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q installed; then
    fail "$p is already installed on this machine: the test installs and purges its own packages (dpkg --purge ${packages[*]} first)"
  fi
done

# What the packages may touch, before: the purge must give it back.
watched=(/usr/bin /usr/libexec /usr/include /usr/share/man/man1 /usr/share/doc
  /usr/lib/python3/dist-packages "/usr/lib/$multiarch" /etc/slurm /usr/share/slipway)
snapshot() { { find "${watched[@]}" -xdev 2>/dev/null || true; } | LC_ALL=C sort; }
snapshot >before.list

purge() { dpkg --purge "${packages[@]}" >purge.log 2>&1 || true; }
trap purge EXIT
trap 'exit 143' TERM INT  # a timed-out test purges too

install_debs() {  # DIR
  dpkg -i "$1"/slipway_*.deb "$1"/slipway-spank_*.deb "$1"/libslipway-dev_*.deb \
    "$1"/slipway-bench_*.deb >"$2" 2>&1 || { cat "$2"; fail "dpkg -i of the packages in $1 failed"; }
}
install_debs "$debs" install.log
for p in "${packages[@]}"; do
  assert_contains "$(dpkg-query -W -f='${Status}' "$p")" "install ok installed" "$p installed"
done
echo "installed: $(dpkg-query -W -f='${Package} ${Version}  ' "${packages[@]}")"

# The installed files only: no build folder on PATH, no SLIPWAY_BIN, the
# plugin as Debian's plugstack.conf finds it (run-system-test.sh puts the
# cluster's own plugstack.conf back afterwards).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
unset SLIPWAY_BIN PYTHONPATH
export SLIPWAY_RUN_ROOT=$PWD/runs
assert_eq /usr/bin/slipway "$(command -v slipway)" "slipway on PATH"
snippet=/etc/slurm/plugstack.conf.d/slipway.conf
assert_contains "$(grep -v '^#' "$snippet")" "optional /usr/lib/$multiarch/slurm-wlm/slipway.so" "the installed snippet"
echo "include /etc/slurm/plugstack.conf.d/*.conf" >"$SLIPWAY_CLUSTER_DIR/etc/plugstack.conf"
assert_contains "$(srun --help 2>&1)" "--program" "srun --help with the installed plugin"

# Each task says which agent runs it: the installed slipway-exec.
cat >hello.toml <<'TOML'
[program]
name = "hello"

[node.greeter]
command = ["sh", "-c", "echo hello replica $SLIPWAY_REPLICA of $SLIPWAY_REPLICAS agent $(readlink /proc/$PPID/exe)"]
replicas = 3
TOML
check_hellos() {  # OUTPUT WHAT
  local hellos
  hellos=$(grep -E '^greeter\.[0-2]: hello replica [0-2] of 3 agent ' <<<"$1" | sort -u)
  assert_eq 3 "$(grep -c . <<<"$hellos")" "replicas that said hello ($2)"
  assert_eq 3 "$(grep -c 'agent /usr/bin/slipway-exec$' <<<"$hellos")" "tasks run by the installed slipway-exec ($2)"
  assert_contains "$1" "slipway: program 'hello' finished" "the controller's verdict ($2)"
}

out=$(srun -N3 --program=hello.toml 2>&1) || fail "srun --program failed: $out"
check_hellos "$out" "srun --program"
echo "srun --program: 3 replicas, each run by /usr/bin/slipway-exec"

sbatch --wait --quiet -N3 --output="$PWD/sbatch.out" --program=hello.toml ||
  fail "sbatch --program failed: $(cat sbatch.out 2>/dev/null)"
check_hellos "$(cat sbatch.out)" "sbatch --program"
echo "sbatch --program: 3 replicas, each run by /usr/bin/slipway-exec"

slipway sbatch --sbatch-arg=--wait --sbatch-arg=--quiet --sbatch-arg=-N3 \
  --sbatch-arg=--output="$PWD/slipway-sbatch.out" hello.toml ||
  fail "slipway sbatch failed: $(cat slipway-sbatch.out 2>/dev/null)"
check_hellos "$(cat slipway-sbatch.out)" "slipway sbatch"
echo "slipway sbatch: 3 replicas, each run by /usr/bin/slipway-exec"

# Python's package and the courier library it loads, from the installed files.
where=$(cd / && python3 -c 'import slipway, sys; print(slipway.__file__)')
assert_contains "$where" "/usr/lib/$multiarch/slipway/python/slipway/" "import slipway"
echo "import slipway: $where"

# libslipway-dev: a C program built against the installed package calls
# itself over courier; a C++ one links the replay client's wrapper.
mkdir -p client && cp "$here/courier_client.c" "$here/replay_header_check.cpp" "$here/courier_client.cmake" client/
mv client/courier_client.cmake client/CMakeLists.txt
cmake -S client -B client/build -G Ninja >client.log 2>&1 || { cat client.log; fail "find_package(slipway) failed"; }
cmake --build client/build >>client.log 2>&1 || { cat client.log; fail "building against libslipway-dev failed"; }
assert_eq "reply: hello over courier" "$(client/build/courier_client)" "the installed courier library"
out=$(client/build/replay_header_check 2>&1) || fail "the replay client's C++ wrapper: $out"
assert_contains "$out" "replay client: " "the replay client's C ABI, installed"
echo "libslipway-dev: a C courier client and a C++ replay client built with find_package(slipway)"

# An upgrade while a program runs: the tasks wait for a file; the upgraded
# packages (the same files under a higher version, made with dpkg-deb) are
# installed meanwhile; the program keeps running and finishes.
cat >waiter.toml <<TOML
[program]
name = "waiter"

[node.waiter]
command = ["sh", "-c", "touch $PWD/started.\$SLIPWAY_REPLICA; while [ ! -e $PWD/release ]; do sleep 0.2; done; echo released replica \$SLIPWAY_REPLICA agent \$(readlink /proc/\$PPID/exe)"]
replicas = 3
TOML
srun -N3 --program=waiter.toml >waiter.out 2>&1 &
waiter=$!
started() { [[ $(compgen -G "$PWD/started.*" | wc -l) -eq 3 ]]; }
wait_until 60 started

old_version=$(dpkg-query -W -f='${Version}' slipway)
new_version=$old_version+upgrade1
mkdir -p upgraded
for deb in "$debs"/*.deb; do
  "$here/bump_version.sh" "$deb" "$old_version" "$new_version" upgraded
done
install_debs upgraded upgrade.log
assert_eq "$new_version" "$(dpkg-query -W -f='${Version}' slipway)" "slipway upgraded"
assert_contains "$(dpkg-query -W -f='${Version}' slipway-spank)" "$new_version+slurm" "slipway-spank upgraded"
kill -0 "$waiter" 2>/dev/null || fail "the program ended during the upgrade: $(cat waiter.out)"

touch release
wait_for_child 60 "$waiter"
((status == 0)) || fail "the program running across the upgrade failed (exit $status): $(cat waiter.out)"
assert_eq 3 "$(grep -c '^waiter\.[0-2]: released replica' waiter.out)" "replicas that finished across the upgrade"
# The agents that ran them were the files the upgrade replaced.
assert_eq 3 "$(grep -c 'agent /usr/bin/slipway-exec (deleted)$' waiter.out)" "agents kept from before the upgrade"
assert_contains "$(cat waiter.out)" "slipway: program 'waiter' finished" "the verdict across the upgrade"
echo "upgrade to $new_version while a program ran: it finished, its 3 agents the replaced files"

out=$(srun -N3 --program=hello.toml 2>&1) || fail "srun --program after the upgrade failed: $out"
check_hellos "$out" "after the upgrade"

# Purge: everything goes, the conffile snippet included, and Slurm works on.
trap - EXIT
dpkg --purge "${packages[@]}" >purge.log 2>&1 || { cat purge.log; fail "dpkg --purge failed"; }
snapshot >after.list
left=$(comm -3 before.list after.list)
[[ -z $left ]] || fail "the purge did not give the system back as it was (+: left behind, -: removed):
$(comm -3 before.list after.list | sed -e 's/^\t/+ /' -e 's/^\([^+]\)/- \1/')"
assert_not_contains "$(srun --help 2>&1)" "--program" "srun --help after the purge"
out=$(srun -N1 true 2>&1) || fail "srun failed after the purge: $out"
echo "purge: the watched folders as before ($(wc -l <after.list) entries), srun works without the plugin"
