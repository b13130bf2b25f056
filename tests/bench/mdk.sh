#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# libmdk benchmark (make bench, or tests/bench/run mdk): the cost of
# memory performance curves against a floor pass over the same trace,
# measured in the same run.
#
#   floor      decode the trace, map page ids, update each page's
#              last-access window: what any pass over the trace costs
#   POLICY     its whole curve in one pass (every setting of its default
#              grid), from the interval stream and its histograms
#   all five   age, vmin, paw, pace and opp together in one pass
#   tier       the tiered AGE curve (mdk_tier_run(), tage's default grid)
#              over two tiers, one with a capacity
#   threads    all five through mdk_mpc_run_threads() on 1 thread and on
#              every CPU (mdkctl mpc --threads): the speed-up is the ratio
#              of their wall times, both measured in this run; beside it,
#              the speed-up of a busy loop on as many threads measured
#              just before (what the machine's shared cores gave then)
#   L-OPP      mdkctl train's work at rho 1%: features of every access,
#              OPP's labels per window, a liblinear fit on the sampled
#              rows (at most 512K) and their assessment; then lopp's curve
#              over theta with that model (features and a score for every
#              access, one pass)
#   sequential what the same grid costs simulated setting by setting
#              (mdk_simulate, one pass each); on the big trace measured
#              on a few settings spread over the grid and scaled to it
#
# Figures are CPU seconds (user + system, getrusage) -- other jobs share
# this machine's two cores, so wall time is shown beside them but ratios
# use CPU time -- records per CPU second, and peak RSS.  Each job runs
# MDK_BENCH_REPS times (default 2) and the fastest counts.  Traces are
# generated once into build/bench/ (the big one: ~4M pages x 240 windows,
# ~330M records, ~330 MB) and reused while their parameters match.
#
# Targets (from the libmdk issue): age, vmin, paw within 2x the floor;
# opp within 3x; pace within 5x; tiered AGE within 3x (the tiers
# issue); all five of the big trace in under 10 s and 1 GiB; the big trace's lopp curve within 10x (the L-OPP issue); on
# every CPU (2 or more) the big trace's five curves at least
# 1.7x faster in wall time than on one thread (the small trace's speed-up
# is shown without a target: its pass is shorter than the setup).  They are reported, not
# enforced: a benchmark measures.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
B=$top/build/tests/bench/bench_mdk
out=$top/build/bench
reps=${MDK_BENCH_REPS:-2}
mkdir -p "$out"
[ -x "$B" ] || { echo "bench: $B missing: run make"; exit 1; }

BIG_GEN="zipf:share=0.6,s=0.7,frac=0.35 periodic:share=0.15,period=4 scan:share=0.1,rate=104857 phase:share=0.15,frac=0.5,p=0.8"
BIG=(4194304 240 1)
SMALL_GEN="zipf:share=0.5,s=0.9,frac=0.25 periodic:share=0.15,period=6 scan:share=0.15 phase:share=0.2"
SMALL=(262144 60 2)

# val FILE KEY: a "key value" line of bench_mdk's output.
val() {
	sed -n "s/^$2 //p" "$1" | head -n 1
}

# run LABEL ARGS...: the fastest of $reps runs into $out/LABEL.txt, by
# CPU time (by wall time with by=seconds)
run() {
	local label=$1 best="" i f
	shift
	for ((i = 0; i < reps; i++)); do
		f=$out/$label.$i.txt
		"$B" "$@" >"$f" || { echo "bench: bench_mdk $* failed"; exit 1; }
		if [ -z "$best" ] || awk -v a="$(val "$f" "${by:-cpu}")" \
			-v b="$(val "$best" "${by:-cpu}")" 'BEGIN { exit !(a < b) }'; then
			best=$f
		fi
	done
	cp "$best" "$out/$label.txt"
}

# trace NAME PAGES WINDOWS SEED GEN: generate unless up to date
trace() {
	local name=$1 pages=$2 windows=$3 seed=$4 gen=$5
	local t=$out/mdk-$name.mdkt stamp=$out/mdk-$name.params
	local want="$pages $windows $seed $gen $(stat -c %Y "$B")"

	if [ -f "$t" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
		echo "# $name trace: $t (cached)"
		return
	fi
	# shellcheck disable=SC2086
	"$B" gen "$t" "$pages" "$windows" "$seed" $gen >"$out/gen-$name.txt" ||
		{ echo "bench: generating $t failed"; exit 1; }
	echo "$want" >"$stamp"
	echo "# $name trace: generated in $(val "$out/gen-$name.txt" cpu) s CPU," \
		"$(val "$out/gen-$name.txt" seconds) s wall," \
		"peak RSS $(($(val "$out/gen-$name.txt" rss_kib) / 1024)) MiB"
}

# threads NAME TRACE FLOORCPU RECORDS: all five on 1 thread and on every
# CPU, the fastest of $reps by wall time; the speed-up is wall 1 / wall N
threads() {
	local name=$1 t=$2 fcpu=$3 recs=$4 n k c w s1 spin verdict
	n=$(nproc)
	by=seconds run "$name-spin-1" spin 1
	by=seconds run "$name-spin-$n" spin "$n"
	by=seconds run "$name-threads-1" mpc "$t" age,vmin,paw,pace,opp 1
	by=seconds run "$name-threads-$n" mpc "$t" age,vmin,paw,pace,opp 0
	s1=$(val "$out/$name-threads-1.txt" seconds)
	# Each thread of the busy loop does the one thread's work.
	spin=$(awk -v a="$(val "$out/$name-spin-1.txt" seconds)" -v n="$n" \
		-v b="$(val "$out/$name-spin-$n.txt" seconds)" 'BEGIN { printf "%.2f", n * a / b }')
	for k in 1 "$n"; do
		c=$(val "$out/$name-threads-$k.txt" cpu)
		w=$(val "$out/$name-threads-$k.txt" seconds)
		verdict=""
		if [ "$k" = "$n" ]; then
			verdict=$(awk -v a="$s1" -v b="$w" -v n="$n" -v name="$name" \
				-v spin="$spin" 'BEGIN {
				x = a / b
				if (n < 2 || name != "big") printf "%.2fx of 1 thread", x
				else printf "%.2fx of 1 thread, >=1.7x %s", x,
					(x >= 1.7 ? "met" : "MISSED")
				printf " (busy loop: %sx)", spin }')
		fi
		printf '%-22s %9s %8.2f %8.2f %9.2f %9.1f %8d MiB  %s\n' \
			"all five, $k thread$([ "$k" = 1 ] || echo s)" \
			"$(val "$out/$name-threads-$k.txt" settings)" "$c" "$w" \
			"$(awk -v c="$c" -v f="$fcpu" 'BEGIN { print c / f }')" \
			"$(awk -v r="$recs" -v c="$c" 'BEGIN { print r / c / 1e6 }')" \
			$(($(val "$out/$name-threads-$k.txt" rss_kib) / 1024)) "$verdict"
	done
}

# bench NAME SIMSAMPLE PACESAMPLE: the table for one trace
bench() {
	local name=$1 sample=$2 psample=$3 t=$out/mdk-$1.mdkt
	local fcpu fwall recs p
	run "$name-floor" floor "$t"
	fcpu=$(val "$out/$name-floor.txt" cpu)
	fwall=$(val "$out/$name-floor.txt" seconds)
	recs=$(val "$out/$name-floor.txt" records)
	echo "# $name: $t, $(val "$out/$name-floor.txt" windows) windows," \
		"$(val "$out/$name-floor.txt" pages) pages, $recs records," \
		"$(($(stat -c %s "$t") / 1048576)) MiB"
	printf '%-22s %9s %8s %8s %9s %9s %12s %9s\n' job settings "cpu s" "wall s" \
		"x floor" "Mrec/s" "peak RSS" target
	printf '%-22s %9s %8.2f %8.2f %9.2f %9.1f %8d MiB\n' "floor pass" - "$fcpu" \
		"$fwall" 1 "$(awk -v r="$recs" -v c="$fcpu" 'BEGIN { print r / c / 1e6 }')" \
		$(($(val "$out/$name-floor.txt" rss_kib) / 1024))
	for p in age vmin paw opp pace "age,vmin,paw,pace,opp"; do
		local label=${p//,/-} lim c w s
		run "$name-$label" mpc "$t" "$p"
		c=$(val "$out/$name-$label.txt" cpu)
		w=$(val "$out/$name-$label.txt" seconds)
		s=$(val "$out/$name-$label.txt" settings)
		case $p in
		age | vmin | paw) lim=2 ;;
		opp) lim=3 ;;
		pace) lim=5 ;;
		*) lim="" ;;
		esac
		local verdict=""
		if [ -n "$lim" ]; then
			verdict=$(awk -v c="$c" -v f="$fcpu" -v l="$lim" \
				'BEGIN { printf "<=%sx %s", l, (c / f <= l ? "met" : "MISSED") }')
		elif [ "$name" = big ]; then
			verdict=$(awk -v c="$c" -v m="$(val "$out/$name-$label.txt" rss_kib)" \
				'BEGIN { printf "<10s,<1GiB %s", (c < 10 && m < 1048576 ? "met" : "MISSED") }')
		fi
		printf '%-22s %9s %8.2f %8.2f %9.2f %9.1f %8d MiB  %s\n' \
			"${p/age,vmin,paw,pace,opp/all five}" "$s" "$c" "$w" \
			"$(awk -v c="$c" -v f="$fcpu" 'BEGIN { print c / f }')" \
			"$(awk -v r="$recs" -v c="$c" 'BEGIN { print r / c / 1e6 }')" \
			$(($(val "$out/$name-$label.txt" rss_kib) / 1024)) "$verdict"
	done
	# The tiered AGE curve over its default grid, two tiers, one with a
	# capacity (so peak occupancy is tracked too): target <= 3x.
	run "$name-tier" tier "$t" "cxl:cost=2us,cap=1M;swap:cost=80us" tage
	c=$(val "$out/$name-tier.txt" cpu)
	printf '%-22s %9s %8.2f %8.2f %9.2f %9.1f %8d MiB  %s\n' "tier (tage, 2 tiers)" \
		"$(val "$out/$name-tier.txt" settings)" "$c" "$(val "$out/$name-tier.txt" seconds)" \
		"$(awk -v c="$c" -v f="$fcpu" 'BEGIN { print c / f }')" \
		"$(awk -v r="$recs" -v c="$c" 'BEGIN { print r / c / 1e6 }')" \
		$(($(val "$out/$name-tier.txt" rss_kib) / 1024)) \
		"$(awk -v c="$c" -v f="$fcpu" 'BEGIN { printf "<=3x %s", (c / f <= 3 ? "met" : "MISSED") }')"
	threads "$name" "$t" "$fcpu" "$recs"
	run "$name-train" train "$t" 0.01 "$out/$name.mdkm"
	c=$(val "$out/$name-train.txt" cpu)
	printf '%-22s %9s %8.2f %8.2f %9.2f %9.1f %8d MiB  %s\n' "L-OPP train (1%)" \
		"$(val "$out/$name-train.txt" rows)" "$c" "$(val "$out/$name-train.txt" seconds)" \
		"$(awk -v c="$c" -v f="$fcpu" 'BEGIN { print c / f }')" \
		"$(awk -v r="$recs" -v c="$c" 'BEGIN { print r / c / 1e6 }')" \
		$(($(val "$out/$name-train.txt" rss_kib) / 1024)) \
		"held-out P $(val "$out/$name-train.txt" precision) R $(val "$out/$name-train.txt" recall) AUC $(val "$out/$name-train.txt" auc)"
	run "$name-lopp" mpc "$t" "lopp:model=$out/$name.mdkm"
	c=$(val "$out/$name-lopp.txt" cpu)
	printf '%-22s %9s %8.2f %8.2f %9.2f %9.1f %8d MiB  %s\n' "lopp (theta curve)" \
		"$(val "$out/$name-lopp.txt" settings)" "$c" "$(val "$out/$name-lopp.txt" seconds)" \
		"$(awk -v c="$c" -v f="$fcpu" 'BEGIN { print c / f }')" \
		"$(awk -v r="$recs" -v c="$c" 'BEGIN { print r / c / 1e6 }')" \
		$(($(val "$out/$name-lopp.txt" rss_kib) / 1024)) \
		"$([ "$name" = big ] && awk -v c="$c" -v f="$fcpu" \
			'BEGIN { printf "<=10x %s", (c / f <= 10 ? "met" : "MISSED") }')"
	echo "# sequential simulation of the same grids ($([ "$sample" = all ] &&
		echo "every setting, pace $psample settings scaled to its grid" ||
		echo "$sample settings each, scaled to the grid")):"
	printf '%-22s %9s %12s %14s %12s\n' policy grid "s/setting" "grid, cpu s" "MPC faster"
	for p in age vmin paw opp pace; do
		local n=$sample c g per est mpc
		[ "$p" = pace ] && n=$psample
		[ "$n" = all ] && n=1000000
		"$B" sim "$t" "$p" "$n" >"$out/$name-sim-$p.txt" ||
			{ echo "bench: simulating $p failed"; exit 1; }
		c=$(val "$out/$name-sim-$p.txt" cpu)
		g=$(val "$out/$name-sim-$p.txt" grid)
		n=$(val "$out/$name-sim-$p.txt" simulated)
		per=$(awk -v c="$c" -v n="$n" 'BEGIN { print c / n }')
		est=$(awk -v p="$per" -v g="$g" 'BEGIN { print p * g }')
		mpc=$(val "$out/$name-$p.txt" cpu)
		printf '%-22s %9s %12.3f %14.1f %11.0fx\n' "$p" "$g" "$per" "$est" \
			"$(awk -v e="$est" -v m="$mpc" 'BEGIN { print e / m }')"
	done
}

trace small "${SMALL[@]}" "$SMALL_GEN"
bench small all 60
echo
trace big "${BIG[@]}" "$BIG_GEN"
bench big 3 3
