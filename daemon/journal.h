/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The high-pulse journal (STATE_DIR/high-pulse/): before a pulse the
 * actuator high-pulse (act_high.c) writes an entry saying what to put
 * back, and removes it once memory.high is back; what a daemon that died
 * mid-pulse left is replayed at start and by "mdkd --restore".
 */
#ifndef MDKD_JOURNAL_H
#define MDKD_JOURNAL_H

/*
 * mdkd_journal_write() - write the entry @file (under
 * @state_dir/high-pulse/, made if missing) for the cgroup at @cgroup:
 * its memory.high before the pulse (@orig) and the pulse's (@target),
 * each a line.  Written to a temporary file and renamed, so a crash
 * leaves the whole entry or none.  Return: 0 or -errno.
 */
int mdkd_journal_write(const char *state_dir, const char *file,
		       const char *cgroup, const char *orig,
		       const char *target);

/*
 * mdkd_restore_journal() - put back the memory.high values that a
 * high-pulse actuator recorded in @state_dir before a pulse and did not
 * clear (the daemon died mid-pulse).  Logs what it restored.
 * Return: the number of cgroups restored, or -errno.
 */
int mdkd_restore_journal(const char *state_dir, const char *cgroup_root);

#endif /* MDKD_JOURNAL_H */
