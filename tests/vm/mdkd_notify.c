// SPDX-License-Identifier: GPL-2.0
/*
 * Description: mdkd speaks the sd_notify protocol for real, as systemd
 * would see it (the guest runs no systemd): with NOTIFY_SOCKET pointing at
 * a datagram socket this test listens on and WATCHDOG_USEC set, mdkd sends
 * READY=1 with a STATUS, WATCHDOG=1 at least every half period, STATUS
 * updates, RELOADING=1 then READY=1 around a SIGHUP, and STOPPING=1 on
 * SIGTERM before exiting 0 -- every message from its main pid, as
 * NotifyAccess=main requires.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"

static int sock;
static pid_t child;
static int foreign; /* messages from another pid */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Wait up to @secs for a message containing @want; count @want seen. */
static int wait_for(const char *want, double secs, int *count)
{
	double end = now_s() + secs;
	int found = 0;

	while (now_s() < end) {
		char buf[4096], ctl[CMSG_SPACE(sizeof(struct ucred))];
		struct iovec iov = { buf, sizeof(buf) - 1 };
		struct msghdr mh = { .msg_iov = &iov,
				     .msg_iovlen = 1,
				     .msg_control = ctl,
				     .msg_controllen = sizeof(ctl) };
		struct pollfd p = { .fd = sock, .events = POLLIN };
		struct cmsghdr *c;
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recvmsg(sock, &mh, 0);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_type == SCM_CREDENTIALS &&
			    ((struct ucred *)CMSG_DATA(c))->pid != child)
				foreign++;
		if (strstr(buf, want)) {
			found = 1;
			if (count)
				(*count)++;
			if (!count)
				return 1;
		}
	}
	return found;
}

int main(void)
{
	char dir[PATH_MAX], conf[PATH_MAX + 16], cg[128], mdkd[PATH_MAX];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int one = 1, status, watchdogs = 0;
	const char *build = getenv("MDK_BUILD");
	FILE *f;

	ksft_print_header();
	if (geteuid())
		ksft_exit_skip("needs root\n");
	snprintf(mdkd, sizeof(mdkd), "%s/bin/mdkd", build ? build : "build");
	if (access(mdkd, X_OK))
		ksft_exit_skip("%s missing\n", mdkd);
	ksft_set_plan(6);

	if (!getcwd(dir, sizeof(dir)))
		ksft_exit_fail_msg("getcwd: %s\n", strerror(errno));
	snprintf(cg, sizeof(cg), "mdk-test-mdkd-notify-%d", getpid());
	snprintf(conf, sizeof(conf), "/sys/fs/cgroup/%s", cg);
	if (mkdir(conf, 0755))
		ksft_exit_fail_msg("mkdir %s: %s\n", conf, strerror(errno));
	snprintf(conf, sizeof(conf), "%s/mdkd.conf", dir);
	f = fopen(conf, "w");
	if (!f)
		ksft_exit_fail_msg("%s: %s\n", conf, strerror(errno));
	fprintf(f,
		"[global]\nsocket = %s/mdkd.sock\nstate_dir = %s/state\n"
		"interval = 200ms\n[cgroup %s]\n",
		dir, dir, cg);
	fclose(f);

	if (strlen(dir) + 13 > sizeof(sa.sun_path))
		ksft_exit_skip("%s: too long for a socket path\n", dir);
	memcpy(sa.sun_path, dir, strlen(dir));
	strcat(sa.sun_path, "/notify.sock");
	sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0 || bind(sock, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(sock, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)))
		ksft_exit_fail_msg("notify socket: %s\n", strerror(errno));
	setenv("NOTIFY_SOCKET", sa.sun_path, 1);
	setenv("WATCHDOG_USEC", "400000", 1);

	child = fork();
	if (child < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!child) {
		int log = open("mdkd.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(log, 2);
		execl(mdkd, "mdkd", "-f", "-c", conf, (char *)NULL);
		_exit(127);
	}

	ksft_test_result(wait_for("READY=1", 60, NULL),
			 "READY=1 once started\n");
	/* 400 ms period: a ping at least every 200 ms, so 5+ in 3 s. */
	wait_for("WATCHDOG=1", 3, &watchdogs);
	ksft_print_msg("%d WATCHDOG=1 in 3 s\n", watchdogs);
	ksft_test_result(watchdogs >= 5, "WATCHDOG=1 every half period\n");
	ksft_test_result(wait_for("STATUS=managing 1 cgroup", 10, NULL),
			 "STATUS= tells what it manages\n");
	kill(child, SIGHUP);
	ksft_test_result(wait_for("RELOADING=1", 20, NULL) &&
				 wait_for("READY=1", 20, NULL),
			 "SIGHUP: RELOADING=1, then READY=1\n");
	kill(child, SIGTERM);
	ksft_test_result(wait_for("STOPPING=1", 20, NULL) &&
				 waitpid(child, &status, 0) == child &&
				 WIFEXITED(status) && !WEXITSTATUS(status),
			 "SIGTERM: STOPPING=1, exit 0\n");
	ksft_test_result(!foreign,
			 "every message comes from the main pid (%d other)\n",
			 foreign);

	snprintf(conf, sizeof(conf), "/sys/fs/cgroup/%s", cg);
	rmdir(conf);
	unlink(sa.sun_path);
	ksft_finished();
}
