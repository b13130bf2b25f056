// SPDX-License-Identifier: GPL-2.0
/*
 * cmm_mp: an emulation of Samsung's CMM-MP CXL Type 3 memory-pooling device.
 *
 * This file holds module init and exit.
 */
#define pr_fmt(fmt) "cmm_mp: " fmt

#include <linux/init.h>
#include <linux/module.h>

#define CMM_MP_VERSION "0.1.0"

static int __init cmm_mp_init(void)
{
	pr_info("loaded, version " CMM_MP_VERSION "\n");
	return 0;
}

static void __exit cmm_mp_exit(void)
{
	pr_info("unloaded\n");
}

module_init(cmm_mp_init);
module_exit(cmm_mp_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Emulated Samsung CMM-MP CXL memory-pooling device");
MODULE_AUTHOR("The mdk developers");
MODULE_VERSION(CMM_MP_VERSION);
