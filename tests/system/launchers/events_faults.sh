#!/usr/bin/env bash
# The event record (RUN/events.jsonl, issue 29) and the metrics endpoint of
# a program under Slurm, against a scripted sequence of faults in one batch
# job (topologies/events_faults.toml; `slipway launch` is the batch script,
# so the controller runs on the batch host):
#  1. worker.0's command is SIGKILLed: an exit (attempt 0, signal 9 or its
#     status 137), then a restart (attempt 1) with its host;
#  2. rank 1 of the torch world is SIGKILLed: its exit, rank 0's stopped
#     exit, an epoch event (epoch 1), a restart of each rank in epoch 1;
#  3. `slipway scale trainer 2` with no room in the job: satellite_request,
#     satellite_grant on the third host, a resize naming who asked, trainer.1
#     started there; `slipway scale trainer 1`: a resize and the satellite's
#     release;
#  4. the launcher said the ssh -L line naming the batch host; inside that
#     host's network namespace /metrics counts worker.0's restart, and it is
#     not reachable at the host's address; `slipway status --json` from the
#     login side is schema 1 with every node;
#  5. `slipway checkpoint`, `slipway stop`: a notice, a stop, and the
#     program_end last.
# Every order is checked by seq (event_match.py), never by time.
source "$(dirname "$0")/lib.sh"
program=events-faults
file=$(topology events_faults)
job=$(sbatch --parsable -N2 -n2 -c4 -p cpu --job-name="$program" -o "$PWD/job.out" \
  --wrap "exec '$SLIPWAY' launch '$file'")
record() { "$SLIPWAY" events "$program" --json 2>/dev/null; }
show() {
  echo "--- the event record:"; record || true
  echo "--- the job's output:"; cat job.out 2>/dev/null || true
  squeue -a || true
}
trap 'rc=$?; [ "$rc" -eq 0 ] || show
      scancel "$job" 2>/dev/null || true; scancel --name="$program:satellite:trainer" 2>/dev/null || true
      pkill -9 -f "$MARKER" || true' EXIT

# event [--after SEQ] [--all] [--field NAME] FILTER...: the first (or every)
# matching event's seq (or field) in the record (event_match.py); fails on a
# malformed record.
event() {
  local rc=0
  record | /usr/bin/python3 "$HERE/event_match.py" "$@" || rc=$?
  [ "$rc" -ne 2 ] || fail "the event record of $program is malformed"
  return "$rc"
}
# wait_event SECONDS [--after SEQ] FILTER...: waits for such an event and
# sets $found to its seq.
wait_event() {
  local limit=$1 deadline=$((SECONDS + $1))
  shift
  until found=$(event "$@"); do
    [ "$SECONDS" -lt "$deadline" ] || fail "no event $* within ${limit}s"
    sleep 0.2
  done
}
# A SIGKILLed command's exit. Under Slurm its agent passes the end on as
# the shell's status (137 = 128 + 9), which is all the record says today.
sigkilled='cause~^(killed by signal 9|exited with status 137)$'
running() { pgrep -f "^$MARKER-$1 1000\$" >/dev/null; }

# 1. A task killed, restarted.
wait_until 120 running worker-0
pkill -9 -f "^$MARKER-worker-0 1000\$"
wait_event 60 kind=exit node=worker replica=0 attempt=0 "$sigkilled"
killed=$found
wait_event 60 --after "$killed" kind=restart node=worker replica=0 attempt=1 'host~^fn[1-3]$'
restarted=$found
wait_until 30 running worker-1

# 2. A world restarted: rank 1 killed, rank 0 stopped, both in epoch 1.
wait_until 30 running world-0-0
wait_until 30 running world-1-0
pkill -9 -f "^$MARKER-world-1-0 1000\$"
wait_event 60 --after "$restarted" kind=exit node=world replica=1 attempt=0 epoch=0 "$sigkilled"
rank_killed=$found
wait_event 60 --after "$rank_killed" kind=exit node=world replica=0 attempt=0 epoch=0 'cause~stopped'
rank_stopped=$found
wait_event 60 --after "$rank_stopped" kind=epoch node=world epoch=1 'cause~^epoch 1 of its world: the world of world\.1 '
epoch=$found
for r in 0 1; do
  wait_event 60 --after "$epoch" kind=restart node=world replica=$r attempt=1 epoch=1 'host~^fn[1-3]$'
  wait_until 30 running "world-$r-1"
done

# 3. A resize onto a satellite job, and back.
job_hosts=$(scontrol show hostnames "$(squeue -h -j "$job" -o %N)")
third=$(printf '%s\n' fn1 fn2 fn3 | grep -vxF "$job_hosts")
[ "$(echo "$third" | wc -l)" -eq 1 ] || fail "job $job holds '$job_hosts': no single third host"
"$SLIPWAY" scale trainer 2 --program "$program"
wait_event 30 --after "$epoch" kind=satellite_request node=trainer 'cause~asked Slurm for satellite job'
requested=$found
wait_event 120 --after "$requested" kind=satellite_grant node=trainer host="$third"
granted=$found
wait_event 30 --after "$granted" kind=resize node=trainer \
  'cause~^trainer grows from 1 to 2 replicas \(asked by slipway scale \(.*@.*\); satellite job [0-9]+ granted on '"$third"'\)'
grown=$found
wait_event 30 --after "$grown" kind=start node=trainer replica=1 attempt=0
wait_until 30 running trainer-1

# 4. The endpoint under Slurm, and the status document from the login side.
batch=$(squeue -h -j "$job" -o %B)
line="page and metrics of the program: http://127\.0\.0\.1:([0-9]+)/ on $batch; from the login node: ssh -N -L \1:127\.0\.0\.1:\1 $batch, then open http://127\.0\.0\.1:\1/$"
port=$(sed -En "s|.*$line|\1|p" job.out)
[ -n "$port" ] || fail "no line /$line/ in the job's output: $(grep 'page and metrics' job.out)"
in_batch_host() { nsenter --net="/run/netns/sw$SLIPWAY_CLUSTER_NET_ID-$batch" -- "$@"; }
scrape() { in_batch_host curl -sS --max-time 5 "http://127.0.0.1:$port/metrics" >metrics; }
# Rendered from the status document, at most 1 s old.
metric_lines=('^slipway_task_restarts_total\{program="events-faults",node="worker",replica="0"\} [1-9][0-9]*$'
  '^slipway_world_epoch\{program="events-faults",node="world"\} 1$'
  '^slipway_task_up\{program="events-faults",node="trainer",replica="1"\} 1$')
scraped() {
  local l
  scrape || return 1
  for l in "${metric_lines[@]}"; do grep -Eq -- "$l" metrics || return 1; done
}
(wait_until 15 scraped) || true
for l in "${metric_lines[@]}"; do expect_line metrics "$l"; done
address=$(sinfo -h -n "$batch" -o %o)
if curl -sS --max-time 5 -o /dev/null "http://$address:$port/metrics" 2>/dev/null; then
  fail "the metrics answer at $batch's address $address:$port: they bind to its loopback only by default"
fi
status_ok() {
  "$SLIPWAY" status "$program" --json >status.json &&
    /usr/bin/python3 - status.json <<'EOF'
import json, sys
with open(sys.argv[1]) as f:
    doc = json.loads(f.read(1 << 20))
nodes = {n["name"]: n for n in doc["nodes"]}
assert doc["schema"] == 1, doc["schema"]
assert list(nodes) == ["worker", "world", "trainer"], list(nodes)
assert nodes["worker"]["restarts"] >= 1, nodes["worker"]
assert nodes["world"]["epoch"] == 1, nodes["world"]
assert nodes["trainer"]["replicas"] == 2, nodes["trainer"]
assert doc["state"] == "running", doc["state"]
EOF
}
wait_until 15 status_ok
"$SLIPWAY" scale trainer 1 --program "$program"
wait_event 30 --after "$grown" kind=resize node=trainer \
  'cause~^trainer shrinks from 2 to 1 replicas \(asked by slipway scale \(.*@.*\)\)'
shrunk=$found
wait_event 30 --after "$shrunk" kind=satellite_release node=trainer host="$third"

# 5. A notice, a stop, and the end.
"$SLIPWAY" checkpoint "$program"
wait_event 30 --after "$shrunk" kind=notice 'cause~^checkpoint requested by slipway checkpoint '
noticed=$found
"$SLIPWAY" stop "$program"
gone() { [ -z "$(squeue -h -j "$job" 2>/dev/null)" ]; }
wait_until 60 gone
wait_event 1 --after "$noticed" kind=stop 'cause~^stop requested by slipway stop '
stopped=$found
wait_event 1 --after "$stopped" kind=exit node=worker replica=0 attempt=1 'cause~stopped'
wait_event 1 --after "$stopped" kind=program_end 'cause~exit status 0'
ended=$found
assert_eq "$ended" "$(event --all | tail -n1)" "the program_end is the newest event"
assert_eq program_start "$(event --field kind)" "the oldest event"
# Each fault recorded once: no event twice.
count() { event --all "$@" | wc -l; }
assert_eq 1 "$(count kind=restart node=worker)" "worker's restarts recorded"
assert_eq 2 "$(count kind=restart node=world)" "world's restarts recorded (one a rank)"
assert_eq 2 "$(count kind=epoch node=world)" "world's epochs recorded (0 and 1)"
assert_eq 2 "$(count kind=resize node=trainer)" "trainer's resizes recorded"
# The same record, readable: TIME KIND TASK ATTEMPT EPOCH HOST CAUSE.
"$SLIPWAY" events "$program" >events.txt
expect_line events.txt '^TIME +KIND +TASK +ATTEMPT +EPOCH +HOST +CAUSE$'
expect_line events.txt '^[0-9-]+T[0-9:.]+Z +restart +world\.1 +1 +1 +fn[1-3] +attempt 1$'
expect_line events.txt '^[0-9-]+T[0-9:.]+Z +program_end +- +- +- +- +stop requested by slipway stop '
satellite_gone() { [ -z "$(squeue -h -n "$program:satellite:trainer" 2>/dev/null)" ]; }
wait_until 30 satellite_gone
# Checked last, so that every step above runs meanwhile: trainer.1's start
# and exit name the host its satellite job ran it on (not the plan's
# placeholder for it, satellite:trainer.1).
hosts=$(event --all --field host node=trainer replica=1 | sort -u)
assert_eq "$third" "$hosts" "the hosts trainer.1's events name (its satellite job ran on $third)"
echo PASS
