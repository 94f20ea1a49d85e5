#!/usr/bin/env bash
# Runs the tests of every module in this repository (the core, examples, redisstore, bench), with
# the race detector. Extra arguments go to `go test`, e.g. ./test.sh -count=1 -run Gate.
set -euo pipefail
cd "$(dirname "$0")"
status=0
for mod in $(git ls-files 'go.mod' '*/go.mod' | xargs -n1 dirname | sort); do
	echo "== go test -race ./... in $mod"
	(cd "$mod" && go test -race "$@" ./...) || status=1
done
exit $status
