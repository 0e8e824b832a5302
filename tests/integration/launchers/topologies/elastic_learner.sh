#!/usr/bin/env bash
# The learner of none_elastic.toml: prints its start-time snapshot of the
# actors' addresses, then the live set each time the address file changes;
# once it has seen six actors it asks for two itself (a task scaling its
# program through the rendezvous). Ends when the file $1 exists.
set -u
echo "snapshot $SLIPWAY_ADDR_ACTOR_OBS"
prev="" asked=""
while [ ! -e "$1" ]; do
  cur=$(tr '\n' ' ' <"$SLIPWAY_ADDR_FILE_ACTOR_OBS")
  if [ "$cur" != "$prev" ]; then
    n=$(wc -w <<<"$cur")
    echo "live $n: $cur"
    prev=$cur
    if [ "$n" = 6 ] && [ -z "$asked" ]; then
      asked=1
      "$SLIPWAY" scale actor 2
    fi
  fi
  sleep 0.1
done
