#!/usr/bin/env bash
# Runs a command and prefixes each line of its output with the seconds since it started, so a
# cold run's log says when each step ended: `bench/cold/timed.sh npm start -- --once`.
set -uo pipefail
start=$(date +%s%N)
"$@" 2>&1 | while IFS= read -r line; do
  tenths=$(( ($(date +%s%N) - start) / 100000000 ))
  printf '%5d.%d %s\n' $((tenths / 10)) $((tenths % 10)) "$line"
done
exit "${PIPESTATUS[0]}"
