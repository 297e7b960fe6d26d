#!/usr/bin/env bash
# benchcmp.sh: run the benchmarks that guard ptxvm's speed at two commits
# and compare them with benchstat, so that a change that slows the
# interpreter, the counters, the timing model or the sampler is seen in
# review. docs/performance.md says what each benchmark measures.
#
#   .ci/benchcmp.sh [flags] OLD [NEW]
#
# OLD and NEW are anything git rev-parse takes (main, HEAD~3, a hash). NEW
# left out is the working tree as it is, uncommitted changes included.
# Each commit is checked out in a temporary git worktree and its test
# binaries built once; then the two sides' binaries run alternately,
# -n times each, so that a machine's load drifting during the comparison
# falls on both sides alike. Benchmarks run on one host core (-test.cpu 1)
# unless -c says otherwise.
#
# Flags:
#   -n COUNT      runs of each side (default 6; benchstat wants at least 6
#                 for a confidence interval, 10 or more on a loaded machine)
#   -b REGEX      the benchmarks (default: the four that guard the figures:
#                 functional, counters, timing, sampling)
#   -p PKGS       the packages, separated by spaces (default: ./kernels
#                 ./scheduler/timing)
#   -t BENCHTIME  go test -benchtime (default 1s; NNx for a fixed count)
#   -c CPUS       go test -cpu (default 1; 2 for BenchmarkTimingTiledMatmul512Workers2)
#   -o DIR        keep old.txt and new.txt (benchstat's input) in DIR
#                 (default: a new temporary folder, printed at the end)
#
# benchstat: go install golang.org/x/perf/cmd/benchstat@latest
set -euo pipefail

count=6
bench='^(BenchmarkTiledMatmul256Bare|BenchmarkTiledMatmul256|BenchmarkTimingTiledMatmul|BenchmarkTimingSampled)$'
pkgs='./kernels ./scheduler/timing'
benchtime=1s
cpus=1
out=''
usage() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
	exit 2
}
while getopts 'n:b:p:t:c:o:h' opt; do
	case $opt in
	n) count=$OPTARG ;;
	b) bench=$OPTARG ;;
	p) pkgs=$OPTARG ;;
	t) benchtime=$OPTARG ;;
	c) cpus=$OPTARG ;;
	o) out=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "benchcmp: give the commit to compare against (OLD), and optionally NEW (default: the working tree)" >&2
	usage
fi
case $count in '' | *[!0-9]* | 0)
	echo "benchcmp: -n must be a count of runs, at least 1 (got '$count')" >&2
	exit 2
	;;
esac

root=$(git rev-parse --show-toplevel)
cd "$root"
old=$(git rev-parse --verify --quiet "$1^{commit}") || {
	echo "benchcmp: $1 is not a commit here" >&2
	exit 2
}
new=''
if [ $# -eq 2 ]; then
	new=$(git rev-parse --verify --quiet "$2^{commit}") || {
		echo "benchcmp: $2 is not a commit here" >&2
		exit 2
	}
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/benchcmp.XXXXXX")
cleanup() {
	for t in "$tmp/old" "$tmp/new"; do
		if [ -d "$t" ]; then git worktree remove --force "$t" >/dev/null 2>&1 || true; fi
	done
	rm -rf "$tmp/old" "$tmp/new" "$tmp/bin"
}
trap cleanup EXIT
if [ -z "$out" ]; then out=$tmp/results; fi
mkdir -p "$out" "$tmp/bin"
: >"$out/old.txt"
: >"$out/new.txt"

# tree SIDE: the folder holding SIDE's sources.
git worktree add --detach --quiet "$tmp/old" "$old"
if [ -n "$new" ]; then
	git worktree add --detach --quiet "$tmp/new" "$new"
	newtree=$tmp/new
	newname=$(git rev-parse --short "$new")
else
	newtree=$root
	newname="the working tree"
	if [ -n "$(git status --porcelain --untracked-files=no)" ]; then newname="$newname (uncommitted changes included)"; fi
fi
echo "benchcmp: old = $(git rev-parse --short "$old"), new = $newname; $count runs each, alternated; benchmarks $bench" >&2

# Build each side's test binary per package once. A package or benchmark
# missing on one side shows in benchstat as a figure on one side only.
for side in old new; do
	tree=$tmp/old
	if [ $side = new ]; then tree=$newtree; fi
	for p in $pkgs; do
		name=$(echo "$p" | tr '/.' '__')
		if [ ! -d "$tree/$p" ]; then
			echo "benchcmp: $p does not exist at the $side commit; skipped there" >&2
			continue
		fi
		(cd "$tree" && go test -c -o "$tmp/bin/$side$name.test" "$p") || {
			echo "benchcmp: could not build $p's tests at the $side commit" >&2
			exit 1
		}
	done
done

# Run them alternately, in each package's folder (benchmarks read test
# data by relative paths).
for i in $(seq 1 "$count"); do
	for side in old new; do
		tree=$tmp/old
		if [ $side = new ]; then tree=$newtree; fi
		for p in $pkgs; do
			name=$(echo "$p" | tr '/.' '__')
			bin=$tmp/bin/$side$name.test
			if [ ! -x "$bin" ]; then continue; fi
			echo "benchcmp: run $i of $count, $side, $p" >&2
			(cd "$tree/$p" && "$bin" -test.run '^$' -test.bench "$bench" -test.benchtime "$benchtime" -test.count 1 -test.cpu "$cpus") >"$tmp/run.txt" || {
				cat "$tmp/run.txt" >&2
				echo "benchcmp: $p's benchmarks failed at the $side commit" >&2
				exit 1
			}
			grep -v -e '^PASS$' -e '^ok ' "$tmp/run.txt" >>"$out/$side.txt" || true
		done
	done
done

benchstat=$(command -v benchstat || true)
if [ -z "$benchstat" ] && [ -x "$(go env GOPATH)/bin/benchstat" ]; then
	benchstat=$(go env GOPATH)/bin/benchstat
fi
if [ -z "$benchstat" ]; then
	echo "benchcmp: benchstat is not installed: go install golang.org/x/perf/cmd/benchstat@latest" >&2
	echo "benchcmp: then: benchstat $out/old.txt $out/new.txt" >&2
	trap - EXIT
	cleanup
	exit 1
fi
"$benchstat" "$out/old.txt" "$out/new.txt"
echo "benchcmp: the raw results: $out/old.txt, $out/new.txt" >&2
trap - EXIT
cleanup
