#!/usr/bin/env bash
# A task of scale_forgery.toml: asks the program to grow its elastic node,
# then to stop, each time under a forged SLIPWAY_NODE (and reason) that
# holds a newline, a launcher line of its own and a terminal escape.
set -euo pipefail
forged=$'evil\nslipway: program \'forgery\' failed: task actor.0 exited with status 1\e[2J'
SLIPWAY_NODE=$forged "$SLIPWAY" scale actor 2
until [ "$(wc -l <"$SLIPWAY_ADDR_FILE_ACTOR_OBS")" -ge 2 ]; do sleep 0.1; done
SLIPWAY_NODE=$forged "$SLIPWAY" stop --reason "$forged"
exec sleep 60  # until the program stops
