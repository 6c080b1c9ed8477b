/* tinyz.h -- interface of the tinyz compression library
  version 0.4.2

  Copyright (C) 2017-2024 Jane Example

  This software is provided 'as-is', without any express or implied
  warranty.  In no event will the authors be held liable for any damages
  arising from the use of this software.

  Permission is granted to anyone to use this software for any purpose,
  including commercial applications, and to alter it and redistribute it
  freely, subject to the following restrictions:

  1. The origin of this software must not be misrepresented; you must not
     claim that you wrote the original software. If you use this software
     in a product, an acknowledgment in the product documentation would be
     appreciated but is not required.
  2. Altered source versions must be plainly marked as such, and must not be
     misrepresented as being the original software.
  3. This notice may not be removed or altered from any source distribution.
*/
#ifndef TINYZ_H
#define TINYZ_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

int tinyz_compress(unsigned char *dst, size_t *dst_len,
                   const unsigned char *src, size_t src_len, int level);
int tinyz_uncompress(unsigned char *dst, size_t *dst_len,
                     const unsigned char *src, size_t src_len);
unsigned long tinyz_adler32(unsigned long adler, const unsigned char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* TINYZ_H */
