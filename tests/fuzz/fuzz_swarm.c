// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz SWARM-KV against memory it did not write: the input overwrites a
 * stretch of one node of a formatted store (its header, then an attach;
 * or its index and registers, then operations of two clients).  Whatever
 * the memory holds, the library must return errors or values, never read
 * or write outside its buffers or the nodes, and never hang.
 *
 * Input: byte 0 picks the node (bits 0-1) and whether to hit the header
 * (bit 2); bytes 1-2 are an offset in 8-byte words; the rest is written
 * there.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <mdk/swarm.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mdk_swarm_opts o = { .capacity = 8, .max_clients = 3 };
	uint64_t bytes = mdk_swarm_node_bytes(&o), off;
	struct mdk_swarm_memnode *n[3];
	struct mdk_swarm *s, *s2;
	struct mdk_swarm_client *a, *b;
	unsigned int node;
	uint8_t buf[4096] = { 0 };
	char err[256], v[64];
	size_t len, vl;

	if (size < 3)
		return 0;
	for (int i = 0; i < 3; i++)
		n[i] = mdk_swarm_memnode_new_mem(bytes, err, sizeof(err));
	s = mdk_swarm_format(n, 3, &o, err, sizeof(err));
	a = mdk_swarm_client_new(s, err, sizeof(err));
	mdk_swarm_insert(a, "k1", 2, "one", 3);
	mdk_swarm_insert(a, "k2", 2, "two", 3);

	node = data[0] % 3;
	off = (uint64_t)(data[1] | data[2] << 8) * 8;
	len = size - 3 < sizeof(buf) ? size - 3 : sizeof(buf);
	len &= ~7UL;
	memcpy(buf, data + 3, len);
	if (data[0] & 4)
		off %= 512;
	else
		off = 4096 + off % (bytes - 4096);
	if (len > bytes - off)
		len = (bytes - off) & ~7ULL;
	if (len)
		mdk_swarm_memnode_write(n[node], off, buf, len);

	s2 = mdk_swarm_attach(n, 3, err, sizeof(err));
	b = s2 ? mdk_swarm_client_new(s2, err, sizeof(err)) : NULL;
	if (b) {
		vl = sizeof(v);
		mdk_swarm_get(b, "k1", 2, v, &vl);
		mdk_swarm_insert(b, "k2", 2, "deux", 4);
		vl = sizeof(v);
		mdk_swarm_get(a, "k2", 2, v, &vl);
		mdk_swarm_delete(b, "k1", 2);
		mdk_swarm_insert(b, "k3", 2, "trois", 5);
		vl = sizeof(v);
		mdk_swarm_get(a, "k3", 2, v, &vl);
		mdk_swarm_warm(b);
	}
	mdk_swarm_client_destroy(b);
	mdk_swarm_destroy(s2);
	mdk_swarm_client_destroy(a);
	mdk_swarm_destroy(s);
	for (int i = 0; i < 3; i++)
		mdk_swarm_memnode_destroy(n[i]);
	return 0;
}
