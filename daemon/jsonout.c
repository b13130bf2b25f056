// SPDX-License-Identifier: GPL-2.0
/* mdk's JSON output helpers (see jsonout.h). */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <json-c/printbuf.h>

#include "jsonout.h"

static int put_g10(struct json_object *o, struct printbuf *pb, int level,
		   int flags)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%.10g", json_object_get_double(o));

	return printbuf_memappend(pb, buf, n);
}

static int put_fixed(struct json_object *o, struct printbuf *pb, int level,
		     int flags)
{
	int decimals = (int)(intptr_t)json_object_get_userdata(o);
	/* DBL_MAX has 309 digits before the point. */
	char buf[336];
	int n = snprintf(buf, sizeof(buf), "%.*f", decimals,
			 json_object_get_double(o));

	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;
	return printbuf_memappend(pb, buf, n);
}

struct json_object *mdkd_json_double(double v)
{
	struct json_object *o;

	if (!isfinite(v))
		return NULL;
	o = json_object_new_double(v);
	if (o)
		json_object_set_serializer(o, put_g10, NULL, NULL);
	return o;
}

struct json_object *mdkd_json_fixed(double v, int decimals)
{
	struct json_object *o;

	if (!isfinite(v))
		return NULL;
	if (decimals < 0)
		decimals = 0;
	if (decimals > 9)
		decimals = 9;
	o = json_object_new_double(v);
	if (o)
		json_object_set_serializer(o, put_fixed,
					   (void *)(intptr_t)decimals, NULL);
	return o;
}

void mdkd_json_add(struct json_object *o, const char *key,
		   struct json_object *v)
{
	if (!o || json_object_object_add(o, key, v))
		json_object_put(v);
}

void mdkd_json_push(struct json_object *a, struct json_object *v)
{
	if (!a || json_object_array_add(a, v))
		json_object_put(v);
}

void mdkd_json_add_str(struct json_object *o, const char *key, const char *s)
{
	mdkd_json_add(o, key, json_object_new_string(s));
}

void mdkd_json_add_u64(struct json_object *o, const char *key, uint64_t v)
{
	mdkd_json_add(o, key, json_object_new_uint64(v));
}

void mdkd_json_add_i64(struct json_object *o, const char *key, int64_t v)
{
	mdkd_json_add(o, key, json_object_new_int64(v));
}

void mdkd_json_add_bool(struct json_object *o, const char *key, bool v)
{
	mdkd_json_add(o, key, json_object_new_boolean(v));
}

void mdkd_json_add_double(struct json_object *o, const char *key, double v)
{
	mdkd_json_add(o, key, mdkd_json_double(v));
}

void mdkd_json_add_fixed(struct json_object *o, const char *key, double v,
			 int decimals)
{
	mdkd_json_add(o, key, mdkd_json_fixed(v, decimals));
}

int mdkd_json_print(FILE *f, struct json_object *o)
{
	const char *s;
	size_t len;

	if (!o)
		return -ENOMEM;
	s = json_object_to_json_string_length(o, MDKD_JSON_FLAGS, &len);
	if (!s)
		return -ENOMEM;
	if (fwrite(s, 1, len, f) != len || fputc('\n', f) == EOF)
		return -EIO;
	return 0;
}

int mdkd_json_emit(struct json_object *o)
{
	int ret = mdkd_json_print(stdout, o);

	json_object_put(o);
	if (ret)
		fprintf(stderr, "%s: -j: %s\n", program_invocation_short_name,
			strerror(-ret));
	return ret;
}
