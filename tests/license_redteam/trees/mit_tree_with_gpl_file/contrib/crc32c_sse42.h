/*
 * crc32c_sse42.h - CRC32C (Castagnoli) using the SSE4.2 crc32 instruction
 *
 * Copyright (C) 2013 Mark Example <mark@example.org>
 *
 * This program is free software; you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 2 of the License, or
 * (at your option) any later version.
 *
 * This program is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
 * GNU General Public License for more details.
 *
 * You should have received a copy of the GNU General Public License
 * along with this program; if not, write to the Free Software
 * Foundation, Inc., 51 Franklin Street, Fifth Floor, Boston, MA 02110-1301 USA.
 */

#ifndef CRC32C_SSE42_H
#define CRC32C_SSE42_H

#include <stddef.h>
#include <stdint.h>
#include <nmmintrin.h>

static inline uint32_t crc32c_sse42(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)buf;

	crc = ~crc;
	while (len >= 8) {
		crc = (uint32_t)_mm_crc32_u64(crc, *(const uint64_t *)p);
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = _mm_crc32_u8(crc, *p++);
	return ~crc;
}

#endif /* CRC32C_SSE42_H */
