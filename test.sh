#!/usr/bin/env bash
# Runs the tests of every module in this repository (the core, examples, redisstore, upstream,
# bench): once with the race detector, and once without it, where the allocation pins
# (testing.AllocsPerRun), which the race detector's instrumentation skews, run too. Extra
# arguments go to `go test`, e.g. ./test.sh -count=1 -run Gate.
set -euo pipefail
cd "$(dirname "$0")"
status=0
for mod in $(git ls-files 'go.mod' '*/go.mod' | xargs -n1 dirname | sort); do
	echo "== go test -race ./... in $mod"
	(cd "$mod" && go test -race "$@" ./...) || status=1
	echo "== go test ./... in $mod (allocation pins)"
	(cd "$mod" && go test "$@" ./...) || status=1
done
exit $status
