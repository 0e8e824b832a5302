#!/usr/bin/env bash
# slipway doctor on the real test cluster. All is well first (users inside
# an allocation: the hosts reach this host's ports; admins: every host's
# plugin, versions and munge). Then faults, one at a time, each found with
# its host and exit status 1: slipway.so missing on fn2 and one built for
# Slurm 21.08 on fn3 (plugstack.conf names it under the hosts' private
# /var/tmp, as an `optional` line, as the package's snippet is); fn2's
# connections to this host's ephemeral ports dropped; munged stopped. The
# cluster is put back as it was.
source "$(dirname "$0")/../launchers/lib.sh"
HOSTS=$(sinfo -h -N -o %N | sort -u)

run_logged admin "$SLIPWAY" doctor --admin
[ "$status" -eq 0 ] || fail "doctor --admin found problems on the cluster as it starts"
for h in $HOSTS; do
  expect_line admin "^OK +$h +plugin +.*slipway\.so slipway_bin=.* \(built for Slurm [0-9]+\.[0-9]+\)$"
  expect_line admin "^OK +$h +munge "
  expect_line admin "^OK +$h +versions +slipway [^ ]+, Slurm [0-9.]+, as on "
done
expect_line admin "slipway doctor: all is well"

run_logged user salloc -N3 -p cpu "$SLIPWAY" doctor
[ "$status" -eq 0 ] || fail "doctor inside salloc -N3 found problems"
expect_line user "^OK +[^ ]+ +plugin +srun --help offers --program"
for h in fn1 fn2 fn3; do expect_line user "^OK +$h +ports +reaches [0-9.]+:[0-9]+ "; done
expect_line user "^OK +[^ ]+ +run-root +$SLIPWAY_RUN_ROOT is yours"

# slipway.so present on this host, fn1 and the GPU hosts; absent on fn2;
# built for Slurm 21.08 on fn3.
conf=$SLIPWAY_CLUSTER_DIR/etc/plugstack.conf
read -r _ plugin args <"$conf"
[ -e "$plugin" ] || fail "unexpected plugstack.conf: $(cat "$conf")"
D=slipway-st-doctor-$$
trap 'rm -rf "/var/tmp/$D" "$SLIPWAY_CLUSTER_DIR"/nodes/*/var-tmp/"$D"' EXIT
mkdir -p "/var/tmp/$D" && ln -sf "$plugin" "/var/tmp/$D/slipway.so"
for h in $HOSTS; do
  [ "$h" = fn2 ] && continue
  mkdir -p "$SLIPWAY_CLUSTER_DIR/nodes/$h/var-tmp/$D"
  ln -sf "$plugin" "$SLIPWAY_CLUSTER_DIR/nodes/$h/var-tmp/$D/slipway.so"
done
rm "$SLIPWAY_CLUSTER_DIR/nodes/fn3/var-tmp/$D/slipway.so"
/usr/bin/python3 - "$plugin" "$SLIPWAY_CLUSTER_DIR/nodes/fn3/var-tmp/$D/slipway.so" <<'PY'
# A copy whose plugin_version says Slurm 21.08.0 (what Slurm compares).
import subprocess, sys
src, dst = sys.argv[1], sys.argv[2]
syms = subprocess.run(["readelf", "-W", "--dyn-syms", src], capture_output=True, text=True, check=True).stdout
addr = next(int(l.split()[1], 16) for l in syms.splitlines() if l.split()[-1:] == ["plugin_version"])
secs = subprocess.run(["readelf", "-W", "-S", src], capture_output=True, text=True, check=True).stdout
for line in secs.splitlines():
    f = line.replace("[ ", "[").split()
    if len(f) > 5 and f[0].startswith("[") and f[0] != "[Nr]":
        start, off, size = int(f[3], 16), int(f[4], 16), int(f[5], 16)
        if start and start <= addr < start + size:
            break
data = bytearray(open(src, "rb").read())
at = addr - start + off
data[at:at + 4] = (0x150800).to_bytes(4, "little")
open(dst, "wb").write(data)
PY
echo "optional /var/tmp/$D/slipway.so $args" >"$conf"
run_logged planted "$SLIPWAY" doctor --admin
[ "$status" -eq 1 ] || fail "doctor --admin exited $status with a plugin missing on fn2 and one for Slurm 21.08 on fn3"
expect_line planted "^PROBLEM +fn2 +plugin +/var/tmp/$D/slipway\.so is missing or unreadable"
expect_line planted "fix: install the slipway-spank package on fn2"
expect_line planted "^PROBLEM +fn3 +plugin +/var/tmp/$D/slipway\.so was built for Slurm 21\.08 and fn3 runs Slurm [0-9.]+: Slurm refuses it"
expect_line planted "^OK +fn1 +plugin +"
expect_no_line planted "^PROBLEM +fn1 "
expect_line planted "slipway doctor: 2 problems found"
cp "$SLIPWAY_CLUSTER_DIR/etc/plugstack.conf.cluster" "$conf"

# fn2 cannot open connections to this host's ephemeral ports (a policy
# routing rule in fn2's network namespace drops its TCP to the controller's
# address at ports of ip_local_port_range, as a firewall would; srun's own
# ports are below that range, SrunPortRange).
ns=sw$SLIPWAY_CLUSTER_NET_ID-fn2
controller=${SLIPWAY_CLUSTER_CONTROLLER%:*}
read -r low high </proc/sys/net/ipv4/ip_local_port_range
[ "$low" -gt 30000 ] || fail "ip_local_port_range starts at $low, inside SrunPortRange 20000-30000"
block=(pref 10 to "$controller" ipproto tcp dport "$low-$high" blackhole)
ip -n "$ns" rule add "${block[@]}"
trap 'ip -n "$ns" rule del "${block[@]}" 2>/dev/null; rm -rf "/var/tmp/$D" "$SLIPWAY_CLUSTER_DIR"/nodes/*/var-tmp/"$D"' EXIT
run_logged blocked salloc -N3 -p cpu "$SLIPWAY" doctor
ip -n "$ns" rule del "${block[@]}"
[ "$status" -eq 1 ] || fail "doctor exited $status with fn2's connections to this host's ports dropped"
expect_line blocked "^PROBLEM +fn2 +ports +did not reach [0-9.]+:[0-9]+ in 30 s"
expect_line blocked "fix: let the compute hosts open TCP connections to .* ports $low-$high "
for h in fn1 fn3; do expect_line blocked "^OK +$h +ports +reaches "; done

# munged stopped: no credential, found without an allocation.
(
  source "$HARNESS/lib/common.sh"
  cluster_paths "$SLIPWAY_CLUSTER_DIR"
  kill "$(cat "$CL_MUNGE/munged.pid")"
)
restart_munged() {
  (
    source "$HARNESS/lib/common.sh"
    source "$HARNESS/lib/daemons.sh"
    cluster_paths "$SLIPWAY_CLUSTER_DIR"
    pgrep -f "munged --socket=$CL_MUNGE/munge.socket" >/dev/null || start_munged
  )
}
trap 'restart_munged; rm -rf "/var/tmp/$D" "$SLIPWAY_CLUSTER_DIR"/nodes/*/var-tmp/"$D"' EXIT
sleep 0.5
run_logged nomunge "$SLIPWAY" doctor
[ "$status" -eq 1 ] || fail "doctor exited $status with munged stopped"
expect_line nomunge "^PROBLEM +[^ ]+ +munge +munge cannot make a credential"
expect_line nomunge "fix: start munged on "
restart_munged
# The hosts were cut from slurmctld while munged was down: the next test
# gets them idle and responding again (sbatch --test-only refuses a job
# while they are not).
echo "hosts after munged came back: $(sinfo -h -N -o "%N=%T" | tr "\n" " ")"
deadline=$((SECONDS + 90))
until [ -z "$(sinfo -h -N -o '%N %T' | grep -v ' idle$' || true)" ]; do
  [ "$SECONDS" -lt "$deadline" ] || fail "hosts not idle 90 s after munged came back: $(sinfo -h -N -o '%N=%T' | tr '\n' ' ')"
  sleep 1
done
run_logged again "$SLIPWAY" doctor
[ "$status" -eq 0 ] || fail "doctor exited $status once munged was back"
expect_line again "^SKIPPED +[^ ]+ +ports +not in an allocation"
echo PASS
