// SPDX-License-Identifier: LGPL-2.1-or-later
#include <mdk/version.h>

const char *mdk_version(void)
{
	return MDK_VERSION;
}
