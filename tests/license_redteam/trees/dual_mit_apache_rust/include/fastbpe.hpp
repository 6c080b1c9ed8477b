// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2023 Contributors to the fastbpe C++ wrapper.
//
// RAII wrapper around the C ABI in fastbpe.h.

#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "fastbpe.h"

namespace fastbpe {

class Tokenizer {
 public:
  Tokenizer(const std::string& vocab, const std::string& merges)
      : tok_(fb_tokenizer_from_files(vocab.c_str(), merges.c_str())) {
    if (!tok_) throw std::runtime_error("failed to load tokenizer");
  }
  ~Tokenizer() { fb_tokenizer_free(tok_); }

  std::vector<uint32_t> encode(const std::string& text) const {
    FbEncoding e = fb_encode(tok_, text.data(), text.size());
    std::vector<uint32_t> out(e.ids, e.ids + e.len);
    fb_encoding_free(e);
    return out;
  }

 private:
  FbTokenizer* tok_;
};

}  // namespace fastbpe
