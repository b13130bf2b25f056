/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MDKD_JSONOUT_H
#define MDKD_JSONOUT_H

/*
 * mdk's JSON output (mdkctl's documents, mdkd's replies and status),
 * built with json-c: the few things json-c's own calls do not say in one
 * line.
 *
 * Numbers keep the formats mdkctl's documents have always had.  json-c
 * prints a double with "%.17g" and gives an integral one a ".0" (0.1
 * becomes 0.10000000000000001, 4 becomes 4.0); mdkd_json_double() prints
 * "%.10g" and mdkd_json_fixed() "%.*f", from a serializer of their own
 * (no string is kept per number, so an MPC of tens of thousands of points
 * stays cheap).  Both give NULL, which json-c writes as null, for a value
 * that is not finite.
 *
 * mdkd_json_add() and mdkd_json_add_*() add one member to object @o,
 * copying @key; mdkd_json_push() appends to array @a.  They take the
 * caller's reference to the value.  An @o or @a of NULL (its allocation
 * failed) is left alone and the value dropped; a value that could not be
 * allocated is written as null, as json-c does.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

/* The flags of every document mdkctl prints: compact, '/' unescaped. */
#define MDKD_JSON_FLAGS \
	(JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* mdkd_json_double() - @v printed "%.10g"; NULL when not finite. */
struct json_object *mdkd_json_double(double v);

/*
 * mdkd_json_fixed() - @v printed with @decimals (0 to 9) digits after the
 * point ("%.*f"); NULL when not finite.
 */
struct json_object *mdkd_json_fixed(double v, int decimals);

void mdkd_json_add(struct json_object *o, const char *key,
		   struct json_object *v);
void mdkd_json_push(struct json_object *a, struct json_object *v);
void mdkd_json_add_str(struct json_object *o, const char *key, const char *s);
void mdkd_json_add_u64(struct json_object *o, const char *key, uint64_t v);
void mdkd_json_add_i64(struct json_object *o, const char *key, int64_t v);
void mdkd_json_add_bool(struct json_object *o, const char *key, bool v);
void mdkd_json_add_double(struct json_object *o, const char *key, double v);
void mdkd_json_add_fixed(struct json_object *o, const char *key, double v,
			 int decimals);

/*
 * mdkd_json_print() - @o as one compact line (MDKD_JSON_FLAGS) and a
 * newline on @f; @o stays the caller's.  Return: 0, -ENOMEM (also for
 * an @o of NULL: its allocation failed) or -EIO.
 */
int mdkd_json_print(FILE *f, struct json_object *o);

/*
 * mdkd_json_emit() - mdkd_json_print() on stdout, then drop the caller's
 * reference to @o; on failure, says so on stderr ("PROGRAM: -j: ...",
 * the program's name as it was run).
 * Return: 0 or the negative error.
 */
int mdkd_json_emit(struct json_object *o);

#endif /* MDKD_JSONOUT_H */
