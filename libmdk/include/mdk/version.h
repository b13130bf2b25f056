/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef MDK_VERSION_H
#define MDK_VERSION_H

/*
 * mdk_version() - the version of the libmdk actually linked, "MAJOR.MINOR.PATCH".
 * The string is static; callers must not free it.
 */
const char *mdk_version(void);

#endif /* MDK_VERSION_H */
