// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl trace info|import|export|report: access-bit traces (.mdkt, see
 * Documentation/trace-format.rst), their CSV form and libCacheSim's
 * oracleGeneral traces.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <mdk/trace.h>

#include "daemon/jsonout.h"
#include "mdkctl.h"
#include "parse.h"
#include "report.h"

static int trace_usage(void)
{
	fprintf(stderr,
		"usage: mdkctl trace info TRACE [-j] [--partial]\n"
		"       mdkctl trace import IN OUT.mdkt [--format csv|oracleGeneral]\n"
		"                           [--window-seconds S] [--page-size BYTES]\n"
		"                           [--byte-offsets] [--phys] [--desc TEXT]\n"
		"       mdkctl trace export TRACE [OUT] [--format csv|oracleGeneral]\n"
		"       mdkctl trace report TRACE [-j | --csv TABLE] [--plot FILE.png|FILE.svg]\n"
		"                           [--ranges N] [--columns N] [--partial]\n"
		"IN and TRACE may be zstd-compressed; a name containing .oracleGeneral\n"
		"means --format oracleGeneral.\n");
	return 2;
}

enum trace_fmt { FMT_CSV, FMT_ORACLE };

/* --format, or the name's hint: "x.oracleGeneral", ".oracleGeneral.bin.zst". */
static int trace_fmt(const char *arg, const char *name, enum trace_fmt *f)
{
	if (!arg) {
		*f = strstr(name, ".oracleGeneral") ? FMT_ORACLE : FMT_CSV;
		return 0;
	}
	if (!strcmp(arg, "csv"))
		*f = FMT_CSV;
	else if (!strcasecmp(arg, "oracleGeneral"))
		*f = FMT_ORACLE;
	else {
		fprintf(stderr,
			"mdkctl: --format '%s': expected csv or oracleGeneral\n",
			arg);
		return 2;
	}
	return 0;
}

struct info_opts {
	unsigned int flags; /* MDK_TRACE_DENSE, and --partial */
	bool json;
	const char *trace;
};

/* What reading every window of a trace found. */
struct info_stats {
	uint64_t umin, umax; /* pages accessed in a window */
	uint64_t nonempty, records, bytes;
};

static int parse_info(int argc, char **argv, struct info_opts *o)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "partial", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;

	*o = (struct info_opts){ .flags = MDK_TRACE_DENSE };
	optind = 1;
	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			o->json = true;
			break;
		case 'p':
			o->flags |= MDK_TRACE_PARTIAL;
			break;
		default:
			return trace_usage();
		}
	}
	if (optind != argc - 1)
		return trace_usage();
	o->trace = argv[optind];
	return 0;
}

/* Read every block: info also verifies the whole trace.  0, or 1. */
static int info_read(struct mdk_trace_reader *r, struct info_stats *s)
{
	struct mdk_trace_chunk c;
	uint64_t u = 0;
	char err[512];
	int ret;

	*s = (struct info_stats){ .umin = UINT64_MAX };
	while ((ret = mdk_trace_reader_next(r, &c, err, sizeof(err))) > 0) {
		u += c.n;
		if (!c.window_end)
			continue;
		s->umin = u < s->umin ? u : s->umin;
		s->umax = u > s->umax ? u : s->umax;
		s->nonempty += u > 0;
		s->records += u;
		u = 0;
	}
	if (ret < 0) {
		fprintf(stderr, "mdkctl: %s\n", err);
		return 1;
	}
	if (s->umin == UINT64_MAX)
		s->umin = 0;
	return 0;
}

static int info_json(const char *trace, struct mdk_trace_reader *r,
		     const struct info_stats *s)
{
	const struct mdk_trace_info *info = mdk_trace_reader_info(r);
	struct json_object *o = json_object_new_object(),
			   *v = json_object_new_array_ext(2);

	mdkd_json_add_str(o, "file", trace);
	mdkd_json_push(v, json_object_new_uint64(info->version_major));
	mdkd_json_push(v, json_object_new_uint64(info->version_minor));
	mdkd_json_add(o, "version", v);
	mdkd_json_add_double(o, "window_seconds",
			     (double)info->window_us / 1e6);
	mdkd_json_add_u64(o, "page_size", info->page_size);
	mdkd_json_add_u64(o, "flags", info->flags);
	mdkd_json_add_bool(o, "physical", info->flags & MDK_TRACE_F_PHYS);
	mdkd_json_add_u64(o, "start_us", info->start_us);
	mdkd_json_add_str(o, "description", info->desc);
	mdkd_json_add_bool(o, "indexed", info->indexed);
	mdkd_json_add_u64(o, "windows", mdk_trace_reader_windows(r));
	mdkd_json_add_u64(o, "records", s->records);
	mdkd_json_add_u64(o, "pages", mdk_trace_reader_pages(r));
	mdkd_json_add_u64(o, "nonempty_windows", s->nonempty);
	mdkd_json_add_u64(o, "min_accessed", s->umin);
	mdkd_json_add_u64(o, "max_accessed", s->umax);
	mdkd_json_add_u64(o, "bytes", s->bytes);
	return mdkd_json_emit(o) ? 1 : 0;
}

static void info_text(const char *trace, struct mdk_trace_reader *r,
		      const struct info_stats *s)
{
	const struct mdk_trace_info *info = mdk_trace_reader_info(r);
	uint32_t W = mdk_trace_reader_windows(r);

	printf("file         %s\n", trace);
	printf("format       mdkt %u.%u, %s\n", info->version_major,
	       info->version_minor, info->indexed ? "indexed" : "no index");
	printf("description  %s\n", *info->desc ? info->desc : "-");
	if (info->window_us)
		printf("window       %g s\n", (double)info->window_us / 1e6);
	else
		printf("window       unknown\n");
	if (info->page_size)
		printf("page size    %u bytes%s\n", info->page_size,
		       info->flags & MDK_TRACE_F_PHYS ? " (physical frames)" :
							"");
	printf("windows      %u (%" PRIu64 " with accesses)\n", W, s->nonempty);
	printf("records      %" PRIu64 " page accesses\n", s->records);
	printf("pages        %" PRIu64 " distinct\n",
	       (uint64_t)mdk_trace_reader_pages(r));
	printf("accessed     %" PRIu64 " to %" PRIu64
	       " pages a window, %.1f on average\n",
	       s->umin, s->umax, W ? (double)s->records / W : 0.0);
	if (s->bytes)
		printf("size         %" PRIu64 " bytes (%.2f a record)\n",
		       s->bytes,
		       s->records ? (double)s->bytes / (double)s->records :
				    0.0);
}

static int trace_info(int argc, char **argv)
{
	struct mdk_trace_reader *r;
	struct info_stats s;
	struct info_opts o;
	char err[512];
	struct stat st;
	int ret;

	ret = parse_info(argc, argv, &o);
	if (ret)
		return ret;
	if (mdk_trace_reader_open(o.trace, o.flags, &r, err, sizeof(err))) {
		fprintf(stderr, "mdkctl: %s\n", err);
		return 1;
	}
	ret = info_read(r, &s);
	if (ret)
		goto out;
	s.bytes = stat(o.trace, &st) ? 0 : (uint64_t)st.st_size;
	if (o.json)
		ret = info_json(o.trace, r, &s);
	else
		info_text(o.trace, r, &s);
out:
	mdk_trace_reader_close(r);
	return ret;
}

struct import_opts {
	struct mdk_trace_writer_opts wo;
	const char *in, *out, *format;
	unsigned int oflags; /* MDK_ORACLE_* */
};

static int parse_import(int argc, char **argv, struct import_opts *o)
{
	static const struct option opts[] = {
		{ "window-seconds", required_argument, NULL, 'w' },
		{ "page-size", required_argument, NULL, 'p' },
		{ "phys", no_argument, NULL, 'P' },
		{ "desc", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "byte-offsets", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	unsigned long long v;
	int opt;

	*o = (struct import_opts){
		.wo = { .window_us = 30000000, .page_size = 4096 },
	};
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'w':
			if (mdkctl_parse_seconds(optarg, &o->wo.window_us)) {
				fprintf(stderr,
					"mdkctl: --window-seconds '%s': expected seconds (e.g. 30 or 0.5)\n",
					optarg);
				return 2;
			}
			break;
		case 'p':
			if (mdkctl_parse_count(optarg, &v) || v > UINT32_MAX) {
				fprintf(stderr,
					"mdkctl: --page-size '%s': expected bytes (e.g. 4096 or 2M)\n",
					optarg);
				return 2;
			}
			o->wo.page_size = (uint32_t)v;
			break;
		case 'P':
			o->wo.flags |= MDK_TRACE_F_PHYS;
			break;
		case 'd':
			o->wo.desc = optarg;
			break;
		case 'f':
			o->format = optarg;
			break;
		case 'b':
			o->oflags |= MDK_ORACLE_OFFSETS;
			break;
		default:
			return trace_usage();
		}
	}
	if (optind != argc - 2)
		return trace_usage();
	o->in = argv[optind];
	o->out = argv[optind + 1];
	if (!o->wo.desc)
		o->wo.desc = o->in;
	return 0;
}

static int trace_import(int argc, char **argv)
{
	struct import_opts o;
	enum trace_fmt f;
	char err[512];
	int ret;

	ret = parse_import(argc, argv, &o);
	if (!ret)
		ret = trace_fmt(o.format, o.in, &f);
	if (ret)
		return ret;
	if (f == FMT_CSV && o.oflags) {
		fprintf(stderr,
			"mdkctl: --byte-offsets is for oracleGeneral traces\n");
		return 2;
	}
	if (f == FMT_ORACLE)
		ret = mdk_trace_import_oracle(o.in, o.out, &o.wo, o.oflags, err,
					      sizeof(err));
	else
		ret = mdk_trace_import_csv(o.in, o.out, &o.wo, err,
					   sizeof(err));
	if (ret) {
		fprintf(stderr, "mdkctl: %s\n", err);
		return 1;
	}
	return 0;
}

struct export_opts {
	const char *trace, *csv; /* csv NULL: stdout */
	enum trace_fmt fmt;
};

static int parse_export(int argc, char **argv, struct export_opts *o)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *format = NULL;
	int opt, n;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (opt != 'f')
			return trace_usage();
		format = optarg;
	}
	n = argc - optind;
	if (n < 1 || n > 2)
		return trace_usage();
	o->trace = argv[optind];
	o->csv = n == 2 && strcmp(argv[optind + 1], "-") ? argv[optind + 1] :
							   NULL;
	return trace_fmt(format, o->csv ? o->csv : "", &o->fmt);
}

/* The oracleGeneral export: to a file only (it fills records in). */
static int export_oracle(const struct export_opts *o)
{
	char err[512];

	if (!o->csv) {
		fprintf(stderr,
			"mdkctl: an oracleGeneral export needs an output file\n");
		return 2;
	}
	if (mdk_trace_export_oracle(o->trace, o->csv, err, sizeof(err))) {
		fprintf(stderr, "mdkctl: %s\n", err);
		return 1;
	}
	return 0;
}

static int trace_export(int argc, char **argv)
{
	struct export_opts o;
	char err[512];
	FILE *out = stdout;
	int ret;

	ret = parse_export(argc, argv, &o);
	if (ret)
		return ret;
	if (o.fmt == FMT_ORACLE)
		return export_oracle(&o);
	if (o.csv) {
		out = fopen(o.csv, "we");
		if (!out) {
			perror(o.csv);
			return 1;
		}
	}
	ret = mdk_trace_export_csv(o.trace, out, err, sizeof(err));
	if (out != stdout && fclose(out) && !ret) {
		snprintf(err, sizeof(err), "%s: write error", o.csv);
		ret = -1;
	}
	if (ret) {
		fprintf(stderr, "mdkctl: %s\n", err);
		return 1;
	}
	return 0;
}

static int trace_help(int argc, char **argv)
{
	trace_usage();
	return 0;
}

static const struct mdkctl_cmd trace_cmds[] = {
	{ "info", trace_info, "header, index and statistics of a trace" },
	{ "import", trace_import,
	  "convert window,page CSV or an oracleGeneral trace to a trace" },
	{ "export", trace_export,
	  "write a trace as window,page CSV or an oracleGeneral trace" },
	{ "report", mdkctl_cmd_trace_report,
	  "accesses, footprint, idle ages, reuse, popularity, heatmap" },
	{ "help", trace_help, "show usage" },
	{ 0 },
};

int mdkctl_cmd_trace(int argc, char **argv)
{
	return mdkctl_dispatch(trace_cmds, "trace", argc - 1, argv + 1);
}
