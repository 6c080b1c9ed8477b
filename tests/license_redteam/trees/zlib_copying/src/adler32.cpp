/* adler32.cpp -- compute the Adler-32 checksum of a data stream
 * Copyright (C) 2017-2024 Jane Example
 * For conditions of distribution and use, see copyright notice in tinyz.h
 */
#include "tinyz.h"

#define BASE 65521U /* largest prime smaller than 65536 */
#define NMAX 5552

unsigned long tinyz_adler32(unsigned long adler, const unsigned char *buf, size_t len)
{
    unsigned long a = adler & 0xffff;
    unsigned long b = (adler >> 16) & 0xffff;
    while (len > 0) {
        size_t n = len < NMAX ? len : NMAX;
        len -= n;
        while (n--) {
            a += *buf++;
            b += a;
        }
        a %= BASE;
        b %= BASE;
    }
    return (b << 16) | a;
}
