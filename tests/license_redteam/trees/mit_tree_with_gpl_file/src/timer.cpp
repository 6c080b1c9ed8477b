// Copyright (c) The kperf developers.
// Licensed under the MIT License. See LICENSE file in the project root for
// full license information.

#include <chrono>
#include <vector>
#include <algorithm>

namespace kperf {

class Timer {
 public:
  void start() { t0_ = std::chrono::steady_clock::now(); }
  void stop() {
    auto t1 = std::chrono::steady_clock::now();
    samples_.push_back(std::chrono::duration<double, std::micro>(t1 - t0_).count());
  }
  double median() const {
    std::vector<double> s = samples_;
    std::sort(s.begin(), s.end());
    return s.empty() ? 0.0 : s[s.size() / 2];
  }

 private:
  std::chrono::steady_clock::time_point t0_;
  std::vector<double> samples_;
};

}  // namespace kperf
