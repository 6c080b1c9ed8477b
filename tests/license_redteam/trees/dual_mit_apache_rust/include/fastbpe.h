/* Generated with cbindgen:0.26.0 */

#ifndef FASTBPE_H
#define FASTBPE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct FbTokenizer FbTokenizer;

typedef struct FbEncoding {
  const uint32_t *ids;
  size_t len;
} FbEncoding;

FbTokenizer *fb_tokenizer_from_files(const char *vocab_path, const char *merges_path);

FbEncoding fb_encode(const FbTokenizer *tok, const char *text, size_t text_len);

void fb_encoding_free(FbEncoding enc);

void fb_tokenizer_free(FbTokenizer *tok);

#endif /* FASTBPE_H */
