// SPDX-License-Identifier: GPL-2.0
/*
 * Description: not a test, a helper of mdkd_control.sh: raw bytes to mdkd's
 * control socket, the way a broken or hostile client would send them.
 *
 *   mdkd_rawsock SOCKET send FILE    send FILE's bytes and EOF, print the answer
 *                                    until the daemon closes or 5 s pass
 *   mdkd_rawsock SOCKET half         send half a request, then close
 *   mdkd_rawsock SOCKET flood N      hold N connections open at once and
 *                                    print how many were refused
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int conn(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror(path);
		exit(1);
	}
	return fd;
}

/* Print what arrives on @fd until EOF or @ms of silence. */
static void drain(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[65536];
	ssize_t n;

	while (poll(&p, 1, ms) > 0) {
		n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		fwrite(buf, 1, n, stdout);
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static char buf[1 << 20];
	int fd, i, n, refused = 0, *fds;
	ssize_t len;

	if (argc < 3)
		return 2;
	if (!strcmp(argv[2], "send") && argc == 4) {
		int in = open(argv[3], O_RDONLY);

		if (in < 0 || (len = read(in, buf, sizeof(buf))) < 0)
			return 1;
		fd = conn(argv[1]);
		if (send(fd, buf, len, MSG_NOSIGNAL) != len)
			perror("send");
		/* EOF after the request: the daemon answers, then closes. */
		shutdown(fd, SHUT_WR);
		drain(fd, 5000);
		return 0;
	}
	if (!strcmp(argv[2], "half")) {
		fd = conn(argv[1]);
		if (send(fd, "{\"v\":1,\"cm", 10, MSG_NOSIGNAL) != 10)
			return 1;
		close(fd);
		return 0;
	}
	if (!strcmp(argv[2], "flood") && argc == 4) {
		n = atoi(argv[3]);
		fds = calloc(n, sizeof(*fds));
		for (i = 0; i < n; i++)
			fds[i] = conn(argv[1]);
		usleep(500000);
		for (i = 0; i < n; i++) {
			struct pollfd p = { .fd = fds[i], .events = POLLIN };

			if (poll(&p, 1, 10) > 0 &&
			    (len = recv(fds[i], buf, sizeof(buf) - 1,
					MSG_DONTWAIT)) > 0) {
				buf[len] = '\0';
				if (strstr(buf, "too many clients"))
					refused++;
			}
		}
		printf("%d refused\n", refused);
		for (i = 0; i < n; i++)
			close(fds[i]);
		return 0;
	}
	return 2;
}
