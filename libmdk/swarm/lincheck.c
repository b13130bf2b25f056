// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Linearizability checking, after Wing & Gong (1993) with the memoization
 * of Lowe (2017) that Porcupine also uses: walk the history's call and
 * return events in time order; at a call, try to linearize that operation
 * now (apply it to the register model, take it out of the event list,
 * push a backtracking point); at a return whose operation is not yet
 * linearized, backtrack.  A configuration (set of linearized operations,
 * register value) seen once is never explored again.  Sets of operations
 * are hashed with two independent Zobrist keys (128 bits).
 *
 * Pending operations have no return event: they may be linearized at any
 * point after their call or left out, which is exactly what the walk does
 * when it runs off the end of the list with only their calls left.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mdk/lincheck.h>
#include <mdk/util.h>

uint64_t mdk_swarm_lin_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

struct ev {
	uint64_t t;
	uint32_t op;
	bool ret;
	struct ev *prev, *next;
	struct ev *match; /* a call's return event (NULL: pending) */
};

struct memo {
	uint64_t *k; /* triples: h1, h2, state; h1 == 0 marks free */
	size_t cap, used;
};

/* Returns 1 if added, 0 if present, -ENOMEM. */
static int memo_add(struct memo *m, uint64_t h1, uint64_t h2, uint64_t st)
{
	size_t i;

	h1 |= 1;
	if ((m->used + 1) * 2 > m->cap) {
		struct memo n = { 0 };

		n.cap = m->cap ? m->cap * 2 : 1024;
		n.k = calloc(n.cap, 3 * sizeof(uint64_t));
		if (!n.k)
			return -ENOMEM;
		for (i = 0; i < m->cap; i++) {
			uint64_t *e = &m->k[3 * i];

			if (e[0])
				memo_add(&n, e[0], e[1], e[2]);
		}
		free(m->k);
		*m = n;
	}
	for (i = (h1 ^ st * 0x9e3779b97f4a7c15ULL) & (m->cap - 1);;
	     i = (i + 1) & (m->cap - 1)) {
		uint64_t *e = &m->k[3 * i];

		if (!e[0]) {
			e[0] = h1;
			e[1] = h2;
			e[2] = st;
			m->used++;
			return 1;
		}
		if (e[0] == h1 && e[1] == h2 && e[2] == st)
			return 0;
	}
}

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	/* At equal times calls go first: the two operations overlap. */
	if (x->ret != y->ret)
		return x->ret ? 1 : -1;
	return x->op < y->op ? -1 : x->op > y->op;
}

static void lift(struct ev *call)
{
	call->prev->next = call->next;
	if (call->next)
		call->next->prev = call->prev;
	if (call->match) {
		struct ev *r = call->match;

		r->prev->next = r->next;
		if (r->next)
			r->next->prev = r->prev;
	}
}

static void unlift(struct ev *call)
{
	if (call->match) {
		struct ev *r = call->match;

		r->prev->next = r;
		if (r->next)
			r->next->prev = r;
	}
	call->prev->next = call;
	if (call->next)
		call->next->prev = call;
}

struct frame {
	struct ev *call;
	uint64_t state;
};

/*
 * Check one key's operations.  Returns 1 linearizable, 0 not, or -errno.
 */
/*
 * The calls and returns of @ops in time order, in @evs (2 * @n room), as a
 * doubly linked list behind @head, each call matched with its return.
 */
static int history(const struct mdk_swarm_lin_op *const *ops, size_t n,
		   struct ev *evs, struct ev *head)
{
	struct ev **call_of = calloc(n, sizeof(*call_of)), *e;
	size_t nev = 0;

	if (!call_of)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		evs[nev++] =
			(struct ev){ .t = ops[i]->call_ns, .op = (uint32_t)i };
		if (ops[i]->ret_ns != MDK_SWARM_LIN_PENDING)
			evs[nev++] = (struct ev){ .t = ops[i]->ret_ns,
						  .op = (uint32_t)i,
						  .ret = true };
	}
	qsort(evs, nev, sizeof(*evs), cmp_ev);
	for (size_t i = 0; i < nev; i++) {
		if (!evs[i].ret)
			call_of[evs[i].op] = &evs[i];
		else
			call_of[evs[i].op]->match = &evs[i];
	}
	free(call_of);
	e = head;
	for (size_t i = 0; i < nev; i++) {
		e->next = &evs[i];
		evs[i].prev = e;
		e = &evs[i];
	}
	return 0;
}

static int check_key(const struct mdk_swarm_lin_op *const *ops, size_t n,
		     uint64_t budget, uint64_t *explored)
{
	struct ev *evs, head = { 0 }, *e;
	struct frame *stack;
	uint64_t *z1, *z2, h1 = 0, h2 = 0, state = MDK_SWARM_LIN_ABSENT;
	uint64_t seed = 0x5eed5eed ^ n;
	struct memo memo = { 0 };
	size_t sp = 0;
	int ret = -ENOMEM;

	evs = calloc(2 * n, sizeof(*evs));
	stack = calloc(n + 1, sizeof(*stack));
	z1 = calloc(n, sizeof(*z1));
	z2 = calloc(n, sizeof(*z2));
	if (!evs || !stack || !z1 || !z2)
		goto out;
	for (size_t i = 0; i < n; i++) {
		z1[i] = mdk_splitmix64(&seed);
		z2[i] = mdk_splitmix64(&seed);
	}
	if (history(ops, n, evs, &head))
		goto out;

	e = head.next;
	ret = 1;
	while (head.next) {
		if (!e)
			break; /* only pending calls are left */
		if (budget && *explored > budget) {
			ret = -E2BIG;
			break;
		}
		if (!e->ret) {
			const struct mdk_swarm_lin_op *op = ops[e->op];
			uint64_t ns = state;
			bool ok;

			if (op->kind == MDK_SWARM_LIN_PUT) {
				ns = op->value;
				ok = true;
			} else {
				ok = op->value == state;
			}
			if (ok) {
				int add = memo_add(&memo, h1 ^ z1[e->op],
						   h2 ^ z2[e->op], ns);

				(*explored)++;
				if (add < 0) {
					ret = add;
					break;
				}
				if (add) {
					stack[sp].call = e;
					stack[sp++].state = state;
					state = ns;
					h1 ^= z1[e->op];
					h2 ^= z2[e->op];
					lift(e);
					e = head.next;
					continue;
				}
			}
			e = e->next;
		} else {
			if (!sp) {
				ret = 0;
				break;
			}
			sp--;
			e = stack[sp].call;
			state = stack[sp].state;
			h1 ^= z1[e->op];
			h2 ^= z2[e->op];
			unlift(e);
			e = e->next;
		}
	}
out:
	free(memo.k);
	free(z1);
	free(z2);
	free(stack);
	free(evs);
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Drop the pending writes whose value no read returned: linearizing one
 * can only hide the values around it, so a history is linearizable with
 * them iff it is without them.  Each pending write otherwise doubles the
 * search (it may be anywhere after its call, or nowhere).
 */
static size_t drop_unread_pending(const struct mdk_swarm_lin_op **ops, size_t n)
{
	uint64_t *seen = malloc((n ? n : 1) * sizeof(*seen));
	size_t nseen = 0, k = 0;

	if (!seen)
		return n;
	for (size_t i = 0; i < n; i++)
		if (ops[i]->kind == MDK_SWARM_LIN_GET)
			seen[nseen++] = ops[i]->value;
	qsort(seen, nseen, sizeof(*seen), cmp_u64);
	for (size_t i = 0; i < n; i++) {
		const struct mdk_swarm_lin_op *op = ops[i];

		if (op->kind == MDK_SWARM_LIN_PUT &&
		    op->ret_ns == MDK_SWARM_LIN_PENDING &&
		    !bsearch(&op->value, seen, nseen, sizeof(*seen), cmp_u64))
			continue;
		ops[k++] = op;
	}
	free(seen);
	return k;
}

static int cmp_key(const void *a, const void *b)
{
	const struct mdk_swarm_lin_op *x =
		*(const struct mdk_swarm_lin_op *const *)a;
	const struct mdk_swarm_lin_op *y =
		*(const struct mdk_swarm_lin_op *const *)b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x < y ? -1 : x > y;
}

int mdk_swarm_lincheck(const struct mdk_swarm_lin_op *ops, size_t n,
		       uint64_t max_explored, struct mdk_swarm_lin_report *rep)
{
	const struct mdk_swarm_lin_op **by;
	int ret = 0;

	memset(rep, 0, sizeof(*rep));
	rep->linearizable = true;
	for (size_t i = 0; i < n; i++) {
		if (ops[i].kind > MDK_SWARM_LIN_PUT ||
		    (ops[i].ret_ns != MDK_SWARM_LIN_PENDING &&
		     ops[i].ret_ns < ops[i].call_ns)) {
			snprintf(rep->msg, sizeof(rep->msg),
				 "operation %zu: %s", i,
				 ops[i].kind > MDK_SWARM_LIN_PUT ?
					 "unknown kind (expected get or put)" :
					 "returns before its call");
			return -EINVAL;
		}
	}
	by = malloc((n ? n : 1) * sizeof(*by));
	if (!by)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		by[i] = &ops[i];
	qsort(by, n, sizeof(*by), cmp_key);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		int r;

		while (j < n && by[j]->key == by[i]->key)
			j++;
		rep->keys++;
		rep->ops += j - i;
		r = check_key(by + i, drop_unread_pending(by + i, j - i),
			      max_explored, &rep->explored);
		if (r < 0) {
			snprintf(rep->msg, sizeof(rep->msg),
				 "key %llu: %s after %llu configurations",
				 (unsigned long long)by[i]->key,
				 r == -E2BIG ? "search budget exhausted" :
					       "out of memory",
				 (unsigned long long)rep->explored);
			ret = r;
			break;
		}
		if (!r) {
			rep->linearizable = false;
			rep->bad_key = by[i]->key;
			snprintf(
				rep->msg, sizeof(rep->msg),
				"key %llu: its %zu operations have no linearization",
				(unsigned long long)by[i]->key, j - i);
			break;
		}
		i = j;
	}
	free(by);
	return ret;
}
