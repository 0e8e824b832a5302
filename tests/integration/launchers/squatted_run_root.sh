#!/usr/bin/env bash
# Issue 27 item 5: a run root another user could change is refused, with a
# message saying what to do, and nothing is written through it. With HOME
# unset the run root is $TMPDIR/slipway-UID/runs: another user (nobody,
# here) who made that directory first, with a run directory's temporary
# files and links waiting in it, gets nothing (no secret, no file, no
# change); nor does one whose directory --run-root names through a link;
# a run root or a directory above it that group or others may write is
# refused too; `slipway rendezvous --token-out` refuses a directory of
# another user. A private run root (under a sticky, world-writable
# directory, as /tmp) still works.
source "$(dirname "$0")/lib.sh"
program=$(topology one_echo)
nobody=65534
snapshot() { find "$1" -printf '%p %U %m %s %l\n' | sort; find "$1" -type f -exec md5sum {} + | sort; }
# refused OUT DIR: slipway run refused the run root, naming DIR, and ran nothing.
refused() {
  expect_status 1
  expect_line "$1" "is not private: $2"
  expect_line "$1" "or use a directory of your own \(--run-root DIR, or SLIPWAY_RUN_ROOT\)$"
  expect_no_line "$1" "$MARKER ran"
}

export TMPDIR="$WORK/tmp"
mkdir -m 1777 "$TMPDIR"
if [ "$(id -u)" -eq 0 ]; then
  # 1. The default run root, made first by another user, with bait inside.
  squat="$TMPDIR/slipway-0"
  mkdir -p "$squat/runs/one-echo-bait/logs"
  echo "attacker's" >"$squat/runs/one-echo-bait/rendezvous.tmp"
  ln -s "$WORK/elsewhere" "$squat/runs/latest.tmp1"
  ln -s one-echo-bait "$squat/runs/latest"
  chown -R -h "$nobody:$nobody" "$squat"
  chmod -R a+rwX "$squat"
  before=$(snapshot "$squat")
  run_logged "$WORK/out1" env -u HOME -u SLIPWAY_RUN_ROOT timeout 120 "$SLIPWAY" run "$program"
  refused "$WORK/out1" "$squat belongs to nobody \(uid $nobody\), not to you"
  expect_line "$WORK/out1" "run root $squat/runs is not private"
  assert_eq "$before" "$(snapshot "$squat")" "the squatted run root was changed"
  [ ! -e "$WORK/elsewhere" ] || fail "a link in the squatted run root was followed"

  # 2. --run-root through a link to another user's directory.
  mkdir "$WORK/theirs"
  chown "$nobody:$nobody" "$WORK/theirs"
  ln -s "$WORK/theirs" "$WORK/link"
  run_slipway "$WORK/out2" run --run-root "$WORK/link" "$program"
  refused "$WORK/out2" "$WORK/theirs belongs to nobody \(uid $nobody\), not to you"
  [ -z "$(ls -A "$WORK/theirs")" ] || fail "slipway wrote into another user's directory: $(ls -A "$WORK/theirs")"

  # 3. --token-out into another user's directory.
  run_logged "$WORK/out3" env -u SLIPWAY_TOKEN timeout 20 "$SLIPWAY" rendezvous --token-out "$WORK/theirs/token"
  expect_status 2
  expect_line "$WORK/out3" "secret file's directory $WORK/theirs/ is not private: it belongs to nobody"
  [ -z "$(ls -A "$WORK/theirs")" ] || fail "slipway wrote into another user's directory: $(ls -A "$WORK/theirs")"
else
  echo "not root: the scenarios with another user's directories need root to make them; the others run"
fi

# 4. A run root of ours that others may write.
mkdir -m 0777 "$WORK/open"
chmod 0777 "$WORK/open"
run_slipway "$WORK/out4" run --run-root "$WORK/open" "$program"
refused "$WORK/out4" "it can be written by its group and other users \(mode 0777\), so another user could replace what slipway writes there and read the program's secret; run chmod go-w $WORK/open"
[ -z "$(ls -A "$WORK/open")" ] || fail "slipway wrote into a run root others may write: $(ls -A "$WORK/open")"

# 5. A directory above the run root that its group may write.
mkdir -m 0770 "$WORK/shared"
chmod 0770 "$WORK/shared"
mkdir -m 0700 "$WORK/shared/runs"
run_slipway "$WORK/out5" run --run-root "$WORK/shared/runs" "$program"
refused "$WORK/out5" "$WORK/shared can be written by its group \(mode 0770\)"
[ -z "$(ls -A "$WORK/shared/runs")" ] || fail "slipway wrote under a group-writable directory"

# 6. With HOME unset, under a TMPDIR of ours (sticky and world-writable,
# as /tmp): slipway makes the run root, private, and runs.
export TMPDIR="$WORK/tmp2"
mkdir -m 1777 "$TMPDIR"
run_logged "$WORK/out6" env -u HOME -u SLIPWAY_RUN_ROOT timeout 120 "$SLIPWAY" run "$program"
expect_status 0
expect_line "$WORK/out6" "^talker\.0: $MARKER ran$"
mine="$TMPDIR/slipway-$(id -u)"
run=$(find "$mine/runs" -mindepth 1 -maxdepth 1 -type d -name 'one-echo-*')
assert_eq "700 700 700" "$(stat -c %a "$mine" "$mine/runs" "$run" | xargs)" "the modes of the run root, its parent and the run directory"
assert_eq "600" "$(stat -c %a "$run/rendezvous")" "the rendezvous file's mode"
echo PASS
