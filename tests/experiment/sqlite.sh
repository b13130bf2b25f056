#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A scan-heavy access-bit trace of a real program, for L-OPP's offline
# table (Documentation/mdk.rst, "L-OPP results"), inside the guest:
#
#   tests/vm/run -k KVER -o DIR --run tests/experiment/sqlite.sh
#
# One sqlite3 process in a cgroup of its own holds an in-memory database
# of SQLITE_ROWS rows of 400 random bytes (about 45 MiB of heap).  Every
# round it sweeps the next slice of the table in rowid order, so that the
# whole table is read every SQLITE_SWEEP windows, and reads SQLITE_HOT_N
# random rows of the first SQLITE_HOT (a hot tenth).  mdkctl record takes
# its pages' Accessed bits for SQLITE_WINDOWS windows of SQLITE_WINDOW
# seconds into $MDK_OUT/sqlite.mdkt.  No reclaimer runs: the trace is the
# program's accesses alone.
set -eu
. "$MDK_TOP/tests/vm/lib/lib.sh"

W=${SQLITE_WINDOW:-5}
WINDOWS=${SQLITE_WINDOWS:-100}
ROWS=${SQLITE_ROWS:-110000}
SWEEP=${SQLITE_SWEEP:-8}
HOT=${SQLITE_HOT:-11000}
HOT_N=${SQLITE_HOT_N:-40}
ROUND=${SQLITE_ROUND:-0.5}
CG=/sys/fs/cgroup/mdk-exp-sqlite
FIFO=/tmp/mdk-exp-sqlite.fifo
out=$MDK_OUT

# The statements of the setup, then of every round until killed.
workload() {
	local per at=1 i
	# rows a round: the table in SWEEP windows of W / ROUND rounds
	per=$(awk -v r="$ROWS" -v s="$SWEEP" -v w="$W" -v q="$ROUND" \
		'BEGIN { printf "%d", r / (s * w / q) + 1 }')
	echo "CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB);"
	echo "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < $ROWS)"
	echo "  INSERT INTO t SELECT x, randomblob(400) FROM c;"
	echo "SELECT 'loaded', count(*) FROM t;"
	while :; do
		echo "SELECT sum(length(v)) FROM t WHERE id BETWEEN $at AND $((at + per - 1));"
		at=$((at + per > ROWS ? 1 : at + per))
		for ((i = 0; i < HOT_N; i++)); do
			echo "SELECT length(v) FROM t WHERE id = $(((RANDOM * 32768 + RANDOM) % HOT + 1));"
		done
		sleep "$ROUND"
	done
}

echo "sqlite: $(uname -r), $ROWS rows, sweep of $SWEEP windows, hot $HOT rows x $HOT_N a round, $WINDOWS windows of ${W}s"
mkdir "$CG"
rm -f "$FIFO"
mkfifo "$FIFO"
sh -c "echo \$\$ >$CG/cgroup.procs && exec sqlite3 :memory: <$FIFO >/dev/null" &
spid=$!
workload >"$FIFO" &
wpid=$!
"$MDKCTL" record "$spid" -o "$out/sqlite.mdkt" --window "${W}s" \
	--duration "$((W * WINDOWS))s" -q \
	--desc "sqlite3 :memory:, $ROWS rows swept every $SWEEP windows, hot $HOT rows ($HOT_N reads a round), $(uname -r)"
kill "$wpid" "$spid" 2>/dev/null || true
wait "$spid" 2>/dev/null || true
rmdir "$CG"
rm -f "$FIFO"
"$MDKCTL" trace info "$out/sqlite.mdkt"
