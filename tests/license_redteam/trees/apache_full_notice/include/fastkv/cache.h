/*
 * Copyright 2021-2024 The FastKV Authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

#ifndef FASTKV_CACHE_H_
#define FASTKV_CACHE_H_

#include <stddef.h>
#include <stdint.h>

typedef struct fastkv_cache fastkv_cache;

/* Creates a cache holding up to `capacity` pages of `page_bytes` each. */
fastkv_cache* fastkv_cache_create(size_t capacity, size_t page_bytes);

/* Returns a pointer to the page for `key`, or NULL if it was evicted. */
void* fastkv_cache_lookup(fastkv_cache* cache, uint64_t key);

void fastkv_cache_destroy(fastkv_cache* cache);

#endif  // FASTKV_CACHE_H_
