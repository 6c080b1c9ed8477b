/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Minimal subset of the KFD ioctl interface, copied from the kernel uapi
 * headers so the loader can be built without kernel headers installed.
 */
#ifndef KFD_IOCTL_MIN_H_INCLUDED
#define KFD_IOCTL_MIN_H_INCLUDED

#include <linux/types.h>
#include <linux/ioctl.h>

#define KFD_IOCTL_MAJOR_VERSION 1
#define KFD_IOCTL_MINOR_VERSION 14

struct kfd_ioctl_get_version_args {
	__u32 major_version;	/* from KFD */
	__u32 minor_version;	/* from KFD */
};

#define AMDKFD_IOCTL_BASE 'K'
#define AMDKFD_IOR(nr, type) _IOR(AMDKFD_IOCTL_BASE, nr, type)

#define AMDKFD_IOC_GET_VERSION \
		AMDKFD_IOR(0x01, struct kfd_ioctl_get_version_args)

#endif
