// Benchmarks of the full search (issue #3 speed target: < 50 ms natively per search, nothing
// pinned). Prints configurations per second. Run: build/native/tests/pplan_bench_search
#include <benchmark/benchmark.h>

#include <string>

#include <nlohmann/json.hpp>

#include "pplan/io/json_io.h"
#include "pplan/search/search.h"

namespace {

pplan::Scenario scenario(const char* json) {
  return pplan::parse_scenario(nlohmann::json::parse(json), pplan::load_presets());
}

void run_search(benchmark::State& state, const pplan::Scenario& s) {
  pplan::SearchOptions options;
  options.top = 10;
  long long configs = 0;
  for (auto _ : state) {
    pplan::SearchResult r = pplan::search(s, options);
    configs += r.stats.configs_evaluated;
    benchmark::DoNotOptimize(r);
  }
  state.counters["configs"] = benchmark::Counter(double(configs) / state.iterations());
  state.counters["configs_per_s"] = benchmark::Counter(double(configs), benchmark::Counter::kIsRate);
}

void Megatron1tOn3072A100(benchmark::State& state) {
  static const pplan::Scenario s = scenario(R"({"model":"megatron-1t",
      "cluster":{"gpu":"a100-80gb","gpus":3072,"gpus_per_node":8},
      "training":{"seq_len":2048,"global_batch":3072}})");
  run_search(state, s);
}

void Llama3_405bOn16384H100(benchmark::State& state) {
  static const pplan::Scenario s = scenario(R"({"model":"llama3-405b",
      "cluster":{"gpu":"h100-sxm","gpus":16384,"gpus_per_node":8},
      "training":{"seq_len":8192,"global_batch":2048}})");
  run_search(state, s);
}

// examples/mixtral-8x7b-256-h100.json, which leaves every parallel size to the search.
void Mixtral8x7bOn256H100(benchmark::State& state) {
  static const pplan::Scenario s = scenario(R"({"model":"mixtral-8x7b",
      "cluster":{"gpu":"h100-sxm","gpus":256,"gpus_per_node":8},
      "training":{"seq_len":4096,"global_batch":1024,"precision":"bf16"}})");
  run_search(state, s);
}

// The largest space: 256 experts give nine EP sizes (examples/deepseek-v3-2048-h800.json pins
// DeepSeek's layout; here nothing is pinned).
void DeepseekV3On2048H100(benchmark::State& state) {
  static const pplan::Scenario s = scenario(R"({"model":"deepseek-v3",
      "cluster":{"gpu":"h100-sxm","gpus":2048,"gpus_per_node":8},
      "training":{"seq_len":4096,"global_batch":15360,"precision":"fp8"}})");
  run_search(state, s);
}

BENCHMARK(Megatron1tOn3072A100)->Unit(benchmark::kMillisecond);
BENCHMARK(Llama3_405bOn16384H100)->Unit(benchmark::kMillisecond);
BENCHMARK(Mixtral8x7bOn256H100)->Unit(benchmark::kMillisecond);
BENCHMARK(DeepseekV3On2048H100)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
