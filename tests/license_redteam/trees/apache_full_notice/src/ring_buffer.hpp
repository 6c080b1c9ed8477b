// Copyright 2021-2024 The FastKV Authors
// Copyright (c) Facebook, Inc. and its affiliates.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

#pragma once

#include <atomic>
#include <cstddef>
#include <vector>

namespace fastkv {

template <typename T>
class RingBuffer {
 public:
  explicit RingBuffer(size_t capacity) : slots_(capacity), head_(0), tail_(0) {}

  bool push(const T& v) {
    size_t t = tail_.load(std::memory_order_relaxed);
    size_t next = (t + 1) % slots_.size();
    if (next == head_.load(std::memory_order_acquire)) return false;
    slots_[t] = v;
    tail_.store(next, std::memory_order_release);
    return true;
  }

 private:
  std::vector<T> slots_;
  std::atomic<size_t> head_;
  std::atomic<size_t> tail_;
};

}  // namespace fastkv
