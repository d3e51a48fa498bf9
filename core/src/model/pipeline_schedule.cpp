#include "pplan/model/pipeline_schedule.h"

#include <algorithm>
#include <cstddef>

namespace pplan {

namespace {

struct Op {
  bool forward;
  int microbatch;
  int chunk;
};

/// Stage `stage`'s ops in Megatron-LM's order. Micro-batches go in groups of p; within a group
/// the forwards run chunk 0 .. v−1 and the backwards chunk v−1 .. 0. Warm-up: p − s − 1
/// forwards (1F1B), 2(p − s − 1) + (v − 1)·p chunk forwards (interleaved), at most all of them.
std::vector<Op> stage_order(int stage, int pp, int vpp, int m) {
  std::vector<Op> forwards;
  std::vector<Op> backwards;
  forwards.reserve(static_cast<std::size_t>(m) * vpp);
  backwards.reserve(static_cast<std::size_t>(m) * vpp);
  for (int group = 0; group < m; group += pp) {
    const int group_end = std::min(group + pp, m);
    for (int c = 0; c < vpp; ++c) {
      for (int mb = group; mb < group_end; ++mb) forwards.push_back({true, mb, c});
    }
    for (int c = vpp - 1; c >= 0; --c) {
      for (int mb = group; mb < group_end; ++mb) backwards.push_back({false, mb, c});
    }
  }
  const long long all = static_cast<long long>(m) * vpp;
  const long long warmup = vpp == 1 ? std::min<long long>(pp - stage - 1, m)
                                    : std::min<long long>(2LL * (pp - stage - 1) + (vpp - 1LL) * pp, all);
  std::vector<Op> order(forwards.begin(), forwards.begin() + warmup);
  order.reserve(forwards.size() + backwards.size());
  std::size_t f = static_cast<std::size_t>(warmup);
  std::size_t b = 0;
  while (f < forwards.size()) {
    order.push_back(forwards[f++]);
    order.push_back(backwards[b++]);
  }
  while (b < backwards.size()) order.push_back(backwards[b++]);
  return order;
}

}  // namespace

PipelineSchedule pipeline_schedule(int pp, int vpp, long long microbatches,
                                   long long max_drawn_passes) {
  PipelineSchedule s;
  s.pp = pp;
  s.vpp = vpp;
  s.microbatches = microbatches;
  if (pp < 1 || vpp < 1 || microbatches < 1) {
    s.reason = "a schedule needs pp, vpp and micro-batches of at least 1";
    return s;
  }
  // In double: p·v·m of a hostile scenario overflows any integer.
  if (2.0 * pp * vpp * static_cast<double>(microbatches) > static_cast<double>(kMaxSimulatedPasses)) {
    s.reason = "too large to draw: p = " + std::to_string(pp) + ", v = " + std::to_string(vpp) +
               ", m = " + std::to_string(microbatches) + " make 2·p·v·m passes, more than " +
               std::to_string(kMaxSimulatedPasses);
    return s;
  }
  s.total_passes = 2LL * pp * vpp * microbatches;
  const int m = static_cast<int>(microbatches);
  const double forward_units = 1.0 / vpp;
  const double backward_units = 2.0 / vpp;

  std::vector<std::vector<Op>> orders;
  orders.reserve(pp);
  for (int stage = 0; stage < pp; ++stage) orders.push_back(stage_order(stage, pp, vpp, m));
  // End time of each pass, by (direction, stage, chunk, micro-batch); negative until it ran.
  std::vector<double> end(static_cast<std::size_t>(s.total_passes), -1.0);
  const auto index = [&](bool forward, int stage, int chunk, int mb) {
    return ((static_cast<std::size_t>(forward ? 0 : 1) * pp + stage) * vpp + chunk) *
               static_cast<std::size_t>(m) + mb;
  };
  // The pass this one waits for: the previous stage's forward (the last stage's, of the previous
  // chunk, on stage 0), the next stage's backward (stage 0's of the next chunk on the last), and
  // for the very last chunk's backward on the last stage, its own forward.
  const auto dependency = [&](const Op& op, int stage) -> long long {
    if (op.forward) {
      if (stage > 0) return static_cast<long long>(index(true, stage - 1, op.chunk, op.microbatch));
      if (op.chunk > 0) return static_cast<long long>(index(true, pp - 1, op.chunk - 1, op.microbatch));
      return -1;
    }
    if (stage < pp - 1) return static_cast<long long>(index(false, stage + 1, op.chunk, op.microbatch));
    if (op.chunk < vpp - 1) return static_cast<long long>(index(false, 0, op.chunk + 1, op.microbatch));
    return static_cast<long long>(index(true, stage, op.chunk, op.microbatch));
  };

  std::vector<double> clock(pp, 0.0);
  std::vector<std::size_t> next(pp, 0);
  s.passes.reserve(static_cast<std::size_t>(s.total_passes));
  long long remaining = s.total_passes;
  while (remaining > 0) {
    bool progressed = false;
    for (int stage = 0; stage < pp; ++stage) {
      const std::vector<Op>& order = orders[stage];
      while (next[stage] < order.size()) {
        const Op& op = order[next[stage]];
        const long long dep = dependency(op, stage);
        if (dep >= 0 && end[static_cast<std::size_t>(dep)] < 0) break;
        const double start = std::max(clock[stage], dep >= 0 ? end[static_cast<std::size_t>(dep)] : 0.0);
        const double finish = start + (op.forward ? forward_units : backward_units);
        end[index(op.forward, stage, op.chunk, op.microbatch)] = finish;
        s.passes.push_back({stage, op.forward, op.microbatch, op.chunk, start, finish});
        clock[stage] = finish;
        ++next[stage];
        --remaining;
        progressed = true;
      }
    }
    if (!progressed) {  // cannot happen for Megatron's orders; never loop forever
      s.passes.clear();
      s.reason = "the schedule's op order deadlocks";
      return s;
    }
  }
  s.drawn = true;
  s.makespan_units = *std::max_element(clock.begin(), clock.end());
  s.ideal_units = 3.0 * static_cast<double>(m);
  s.idle_share = 1.0 - s.ideal_units / s.makespan_units;
  s.bubble_over_ideal = s.makespan_units / s.ideal_units - 1.0;
  std::stable_sort(s.passes.begin(), s.passes.end(), [](const ScheduledPass& a, const ScheduledPass& b) {
    return a.start_units < b.start_units || (a.start_units == b.start_units && a.stage < b.stage);
  });
  s.shown_until_units = s.makespan_units;
  const long long cap = std::max(1LL, max_drawn_passes);
  if (s.total_passes > cap) {
    // The first `cap` passes in time order: the warm-up and the steady phase.
    s.shown_until_units = s.passes[static_cast<std::size_t>(cap)].start_units;
    std::size_t keep = 0;
    while (keep < s.passes.size() && s.passes[keep].start_units < s.shown_until_units) ++keep;
    s.passes.resize(keep);
    s.complete = false;
  }
  return s;
}

}  // namespace pplan
