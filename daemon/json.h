/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MDKD_JSON_H
#define MDKD_JSON_H

/*
 * A streaming JSON writer for mdkctl's -j output, in the manner of
 * bpftool's json_writer: callers open and close objects and arrays, name
 * members, and the writer places commas and escapes strings.  Output is
 * compact, one document per mdkd_json_new()/mdkd_json_free() pair,
 * followed by a newline.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct mdkd_json;

/* mdkd_json_new() - a writer on @f; NULL when out of memory. */
struct mdkd_json *mdkd_json_new(FILE *f);
/* mdkd_json_free() - end the document (newline) and free. */
void mdkd_json_free(struct mdkd_json *j);

void mdkd_json_start_object(struct mdkd_json *j);
void mdkd_json_end_object(struct mdkd_json *j);
void mdkd_json_start_array(struct mdkd_json *j);
void mdkd_json_end_array(struct mdkd_json *j);
/* mdkd_json_name() - the name of the next member of the current object. */
void mdkd_json_name(struct mdkd_json *j, const char *name);

void mdkd_json_string(struct mdkd_json *j, const char *s);
void mdkd_json_uint(struct mdkd_json *j, uint64_t v);
void mdkd_json_int(struct mdkd_json *j, int64_t v);
/* Non-finite values are written as null. */
void mdkd_json_double(struct mdkd_json *j, double v);
void mdkd_json_bool(struct mdkd_json *j, bool v);
void mdkd_json_null(struct mdkd_json *j);

/* Name + value in one call. */
void mdkd_json_string_field(struct mdkd_json *j, const char *name,
			    const char *s);
void mdkd_json_uint_field(struct mdkd_json *j, const char *name, uint64_t v);
void mdkd_json_double_field(struct mdkd_json *j, const char *name, double v);
void mdkd_json_bool_field(struct mdkd_json *j, const char *name, bool v);
void mdkd_json_null_field(struct mdkd_json *j, const char *name);

#endif /* MDKD_JSON_H */
