// SPDX-License-Identifier: GPL-2.0
/* gnuplot as mdkctl's plots run it (see gnuplot.h). */
#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>

#include "gnuplot.h"

void mdkctl_gnuplot_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		if (*s != '\n')
			fputc(*s, f);
	}
	fputc('\'', f);
}

int mdkctl_gnuplot_check(const char *path, char *err, size_t errlen)
{
	const char *ext = strrchr(path, '.');

	if (ext && !strcasecmp(ext, ".svg"))
		return 1;
	if (ext && !strcasecmp(ext, ".png"))
		return 0;
	snprintf(err, errlen, "%s: expected a plot file ending in .svg or .png",
		 path);
	return -EINVAL;
}

int mdkctl_gnuplot_open(const char *path, int width, int height, FILE **gp,
			char *err, size_t errlen)
{
	int svg = mdkctl_gnuplot_check(path, err, errlen);

	if (svg < 0)
		return svg;
	fflush(NULL);
	*gp = popen("gnuplot", "w");
	if (!*gp) {
		snprintf(err, errlen, "gnuplot: %s", strerror(errno));
		return -errno;
	}
	if (svg)
		fprintf(*gp,
			"set terminal svg size %d,%d dynamic background rgb 'white' font 'sans,12'\n",
			width, height);
	else
		fprintf(*gp,
			"set terminal pngcairo size %d,%d font 'sans,11'\n",
			width, height);
	fputs("set output ", *gp);
	mdkctl_gnuplot_quote(*gp, path);
	fputc('\n', *gp);
	return 0;
}

int mdkctl_gnuplot_close(FILE *gp, const char *path, char *err, size_t errlen)
{
	int status = pclose(gp);

	if (status == -1) {
		snprintf(err, errlen, "gnuplot: %s", strerror(errno));
		return -errno;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		snprintf(
			err, errlen,
			"gnuplot not found: install gnuplot-nox (tests/install-deps.sh)");
		return -ENOENT;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(err, errlen, "gnuplot failed (status %d) writing %s",
			 status, path);
		return -EIO;
	}
	return 0;
}
