// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>

#include "errname.h"

#define E(name) [name] = #name

/* The errnos the kernel's BPF, securityfs and LSM paths return. */
static const char *const names[] = {
	E(EPERM),   E(ENOENT),  E(ESRCH),     E(EINTR),   E(EIO),
	E(ENXIO),   E(E2BIG),   E(ENOEXEC),   E(EBADF),   E(ECHILD),
	E(EAGAIN),  E(ENOMEM),  E(EACCES),    E(EFAULT),  E(EBUSY),
	E(EEXIST),  E(EXDEV),   E(ENODEV),    E(ENOTDIR), E(EISDIR),
	E(EINVAL),  E(ENFILE),  E(EMFILE),    E(ENOTTY),  E(ETXTBSY),
	E(EFBIG),   E(ENOSPC),  E(ESPIPE),    E(EROFS),   E(EMLINK),
	E(EPIPE),   E(EDOM),    E(ERANGE),    E(EDEADLK), E(ENAMETOOLONG),
	E(ENOSYS),  E(ENOTEMPTY), E(ELOOP),   E(ENODATA), E(EOVERFLOW),
	E(EBADFD),  E(EOPNOTSUPP), /* ENOTSUP is EOPNOTSUPP on Linux */
	E(ENOTCONN), E(ETIMEDOUT), E(ECANCELED), E(ENOKEY),
	E(EKEYREJECTED), E(ENOTRECOVERABLE), E(ENOTSOCK), E(EPROTO),
	E(EADDRINUSE), E(ECONNREFUSED), E(ENOPKG), E(EAFNOSUPPORT),
	E(ESTALE),  E(EBADMSG), E(ENOLINK),
};

/*
 * The kernel-internal ENOTSUPP (524, include/linux/errno.h) is not in the
 * C library, but the BPF verifier returns it to user space, for example
 * for a helper a program type may not call.
 */
#define KERNEL_ENOTSUPP 524

const char *errname(int err)
{
	if (err < 0)
		err = -err;
	if (err == KERNEL_ENOTSUPP)
		return "ENOTSUPP";
	if ((size_t)err < sizeof(names) / sizeof(names[0]) && names[err])
		return names[err];
	return "E?";
}
