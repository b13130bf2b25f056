/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The journal of limits mdkd sets for a moment (STATE_DIR/KIND/): before
 * it writes one, an actuator writes an entry saying what to put back,
 * and removes it once the value is back; what a daemon that died in
 * between left is replayed at start and by "mdkd --restore".  Two kinds:
 *
 *  - high-pulse: memory.high, the actuator high-pulse's pulse (act_high.c);
 *  - zswap-off: memory.zswap.max at 0, actuator tier's page-outs past
 *    zswap to the swap device (zswap_off.c).
 */
#ifndef MDKD_JOURNAL_H
#define MDKD_JOURNAL_H

/*
 * mdkd_journal_write() - write the entry @file (under @state_dir/@kind/,
 * made if missing) for the cgroup at @cgroup: the control file's value
 * before (@orig) and the one set (@target), each a line.  Written to a
 * temporary file and renamed, so a crash leaves the whole entry or none.
 * Return: 0 or -errno.
 */
int mdkd_journal_write(const char *state_dir, const char *kind,
		       const char *file, const char *cgroup, const char *orig,
		       const char *target);

/*
 * mdkd_restore_journal() - put back the values that actuators recorded
 * in @state_dir, of every kind, and did not clear (the daemon died in
 * between); only where the value is still the one set.  Logs what it
 * restored.
 * Return: the number of values restored, or -errno.
 */
int mdkd_restore_journal(const char *state_dir, const char *cgroup_root);

#endif /* MDKD_JOURNAL_H */
