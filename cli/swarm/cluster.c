// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl swarm: the memory nodes, in-process memory or with --cmm-mp one
 * shared segment per device of the emulated CMM-MP pool (/dev/cmm_mp).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kmod/uapi/cmm_mp.h"
#include "swarm.h"

void mdkctl_swarm_cluster_free(struct mdkctl_swarm_cluster *cl)
{
	for (unsigned int i = 0; i < cl->n; i++)
		mdk_swarm_memnode_destroy(cl->node[i]);
	cl->n = 0;
}

int mdkctl_swarm_cluster_new(struct mdkctl_swarm_cluster *cl,
			     const struct mdkctl_swarm_opts *o, unsigned int n,
			     uint64_t bytes)
{
	char err[256];

	cl->n = 0;
	for (unsigned int i = 0; i < n; i++) {
		struct mdk_swarm_memnode *m;

		m = o->cmm_mp ?
			    mdk_swarm_memnode_new_cmm_mp(
				    o->cmm_mp, i, MDK_SWARM_MEMNODE_CMM_MP_LAST,
				    (bytes + 4095) & ~4095ULL, err,
				    sizeof(err)) :
			    mdk_swarm_memnode_new_mem(bytes, err, sizeof(err));
		if (!m) {
			fprintf(stderr, "mdkctl swarm: memory node %u: %s\n", i,
				err);
			mdkctl_swarm_cluster_free(cl);
			return 1;
		}
		cl->rtt0[cl->n] = mdk_swarm_memnode_rtt(m);
		cl->node[cl->n++] = m;
	}
	return 0;
}

void mdkctl_swarm_cluster_set_rtt(struct mdkctl_swarm_cluster *cl, uint64_t rtt,
				  bool own)
{
	for (unsigned int i = 0; i < cl->n; i++)
		mdk_swarm_memnode_set_rtt(cl->node[i], own ? cl->rtt0[i] : rtt);
}

int mdkctl_swarm_cluster_fail(const struct mdkctl_swarm_opts *o,
			      struct mdkctl_swarm_cluster *cl, unsigned int i)
{
	if (o->cmm_mp) {
		struct cmm_mp_fault f = { .device = i };
		int fd = open(o->cmm_mp, O_RDWR | O_CLOEXEC), ret;

		if (fd < 0)
			return -errno;
		ret = ioctl(fd, CMM_MP_IOC_DEV_FAIL, &f) ? -errno : 0;
		close(fd);
		return ret;
	}
	mdk_swarm_memnode_crash(cl->node[i]);
	return 0;
}
