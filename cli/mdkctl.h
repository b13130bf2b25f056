/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MDKCTL_H
#define MDKCTL_H

/*
 * One "mdkctl OBJECT" or "mdkctl OBJECT VERB" handler.  fn gets argv from
 * its own word on (argv[0] is the object or verb) and returns the process
 * exit status: 0 on success, 1 on failure, 2 on a usage error.
 */
struct mdkctl_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

/*
 * mdkctl_dispatch() - run the entry of @cmds named by argv[0].  @what names
 * the level ("mdkctl", "pool") in messages.  Returns the handler's status,
 * or 2 when argv[0] is missing or unknown.
 */
int mdkctl_dispatch(const struct mdkctl_cmd *cmds, const char *what, int argc,
		    char **argv);

/*
 * Every command (or verb) takes one shape, in cli/cmd_<object>.c, or in
 * cli/<object>/ for a big one:
 *
 *   struct <cmd>_opts    its options and operands, their defaults set in
 *                        one place;
 *   parse_<cmd>()        static int parse_<cmd>(int argc, char **argv,
 *                        struct <cmd>_opts *o): getopt_long() into @o;
 *                        returns 0 to go on, the exit status after a
 *                        message or the usage, or MDKCTL_DONE once --help
 *                        was printed (the command then exits 0);
 *   the work             in functions of its own, the entry only calls
 *                        them in order;
 *   one cleanup path     an entry that holds something frees it after
 *                        one "out:" label, on success and failure alike.
 */
#define MDKCTL_DONE (-1)

/* The control socket of mdkd: -s SOCKET, or the default. */
extern const char *mdkctl_socket;

/* mdkctl objects (cli/cmd_<object>.c). */
int mdkctl_cmd_pool(int argc, char **argv);
int mdkctl_cmd_swarm(int argc, char **argv);
/*
 * The Memory Designer's Kit: cmd_trace.c, cmd_synth.c, cmd_mpc.c,
 * cmd_simulate.c, cmd_train.c, cmd_mrc.c
 */
int mdkctl_cmd_trace(int argc, char **argv);
/* mdkctl trace report (cmd_trace_report.c), dispatched by cmd_trace.c */
int mdkctl_cmd_trace_report(int argc, char **argv);
int mdkctl_cmd_synth(int argc, char **argv);
int mdkctl_cmd_mpc(int argc, char **argv);
int mdkctl_cmd_simulate(int argc, char **argv);
int mdkctl_cmd_mrc(int argc, char **argv);
int mdkctl_cmd_train(int argc, char **argv);
int mdkctl_cmd_status(int argc, char **argv);
int mdkctl_cmd_set(int argc, char **argv);
int mdkctl_cmd_cgroup(int argc, char **argv);
int mdkctl_cmd_sample(int argc, char **argv);
int mdkctl_cmd_record(int argc, char **argv);
/* mdkctl tier (cmd_tier.c, cli/tier/) */
int mdkctl_cmd_tier(int argc, char **argv);

#endif /* MDKCTL_H */
