#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cmm_mp's options out of tree, read from the Kconfig next to this script
# (in a kernel tree, kconfig reads it instead).
#
#   kconfig.sh config [CONFIG_X=V...]
#	Every option as CONFIG_X=V, one a line: its Kconfig default (a
#	tristate without one is m: out of tree the module is a module, and
#	a bool without one is n), or the value an argument gives it.
#
#   kconfig.sh check KDIR KVER [CONFIG_X=V...]
#	Whether kernel KVER, built in KDIR, has every option the enabled
#	options depend on, set to y or m in its configuration
#	(KDIR/include/config/auto.conf, or KDIR/.config).  If not, it says
#	which, "cmm_mp: kernel KVER lacks CONFIG_Y (needed by CONFIG_X)",
#	and exits 1.  An option that depends on one of ours that is off is
#	off, as kconfig would have it.
#
# Exits 2 with a message when the Kconfig or an argument is not understood.
set -eu

kconfig=$(dirname "$0")/Kconfig
mode=${1:-}
case $mode in
config)
	shift
	kernel=/dev/null
	kver=
	;;
check)
	[ $# -ge 3 ] || { echo "usage: $0 check KDIR KVER [CONFIG_X=V...]" >&2; exit 2; }
	kernel=$2/include/config/auto.conf
	[ -r "$kernel" ] || kernel=$2/.config
	[ -r "$kernel" ] || { echo "cmm_mp: kernel $3: no configuration in $2" >&2; exit 2; }
	kver=$3
	shift 3
	;;
*)
	echo "usage: $0 config|check ..." >&2
	exit 2
	;;
esac

exec awk -v mode="$mode" -v kver="$kver" -v args="$*" '
function die(msg) {
	print msg > "/dev/stderr"
	failed = 2
	exit 2
}

# The Kconfig: options in order, their type, default and dependencies.
FILENAME == kconfig && /^config / { name = $2; opts[++n] = name; next }
FILENAME == kconfig && /^\t(bool|tristate)/ { type[name] = $1; next }
FILENAME == kconfig && /^\tdefault / {
	if (NF != 2 || $2 !~ /^[ymn]$/)
		die(kconfig ":" FNR ": only \"default y|m|n\" is understood")
	def[name] = $2
	next
}
FILENAME == kconfig && /^\tdepends on / {
	expr = $0
	sub(/^\tdepends on /, "", expr)
	k = split(expr, terms, /&&/)
	for (i = 1; i <= k; i++) {
		gsub(/[ \t]/, "", terms[i])
		if (terms[i] !~ /^[A-Z0-9_]+$/)
			die(kconfig ":" FNR ": only \"depends on A && B\" is understood")
		deps[name] = deps[name] " " terms[i]
	}
	next
}
# Out of tree a select cannot change the kernel.
FILENAME == kconfig && /^\t(select|imply) / {
	die(kconfig ":" FNR ": \"" $1 "\" cannot work out of tree: use depends on")
}

# The kernel configuration: what it sets.
FILENAME != kconfig && /^CONFIG_[A-Za-z0-9_]+=[ym]$/ {
	split($0, kv, "=")
	kernel_has[substr(kv[1], 8)] = 1
}

END {
	if (failed)
		exit failed
	if (!n)
		die(kconfig ": no options")
	for (i = 1; i <= n; i++) {
		o = opts[i]
		if (!(o in type))
			die(kconfig ": " o " has no type (bool or tristate)")
		val[o] = o in def ? def[o] : type[o] == "tristate" ? "m" : "n"
	}
	k = split(args, a, " ")
	for (i = 1; i <= k; i++) {
		o = a[i]
		v = o
		sub(/=.*/, "", o)
		sub(/^[^=]*=/, "", v)
		sub(/^CONFIG_/, "", o)
		if (!(o in type))
			die("cmm_mp: " a[i] ": not an option of " kconfig)
		if (v !~ (type[o] == "tristate" ? "^[ymn]$" : "^[yn]$"))
			die("cmm_mp: " a[i] ": " type[o] " takes " \
			    (type[o] == "tristate" ? "y, m or n" : "y or n"))
		val[o] = v
	}
	if (mode == "config") {
		for (i = 1; i <= n; i++)
			print "CONFIG_" opts[i] "=" val[opts[i]]
		exit 0
	}
	# Options come before those that depend on them (kconfig wants it).
	for (i = 1; i <= n; i++) {
		o = opts[i]
		if (val[o] == "n")
			continue
		k = split(deps[o], d, " ")
		for (j = 1; j <= k; j++)
			if (d[j] in type && val[d[j]] == "n")
				val[o] = "n"
		if (val[o] == "n")
			continue
		for (j = 1; j <= k; j++) {
			if (d[j] in type || d[j] in kernel_has)
				continue
			printf "cmm_mp: kernel %s lacks CONFIG_%s (needed by CONFIG_%s)\n",
			       kver, d[j], o > "/dev/stderr"
			failed = 1
		}
	}
	exit failed
}' kconfig="$kconfig" "$kconfig" "$kernel"
