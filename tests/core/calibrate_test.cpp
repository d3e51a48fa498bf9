// pplan calibrate (issue #28): real nccl-tests pastes read to their printed figures, a known
// cluster recovered from measurements synthesised with it, a fit that never explains the
// measurements worse than the preset, and the refusals (physics, malformed pastes).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "pplan/calibrate/fit.h"
#include "pplan/calibrate/measurements.h"
#include "pplan/diagnostics.h"
#include "pplan/io/api.h"
#include "pplan/io/json_io.h"
#include "pplan/search/search.h"

namespace pplan {
namespace {

using nlohmann::json;

std::string read_text(const std::string& name) {
  std::ifstream in(std::string(PPLAN_DATA_DIR) + "/nccl-tests/" + name, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_FALSE(s.str().empty()) << name;
  return s.str();
}

const NcclTestsRow& largest(const NcclTestsTable& t) {
  const NcclTestsRow* best = &t.rows.front();
  for (const NcclTestsRow& r : t.rows) if (r.size_bytes > best->size_bytes) best = &r;
  return *best;
}

/// The largest row's out-of-place figures, as the paste prints them.
void expect_largest_row(const NcclTestsTable& t, double size_bytes, double time_us, double algbw, double busbw) {
  const NcclTestsRow& r = largest(t);
  EXPECT_EQ(r.size_bytes, size_bytes);
  EXPECT_EQ(r.time_us, time_us);
  EXPECT_EQ(r.algbw_gbytes_per_s, algbw);
  EXPECT_EQ(r.busbw_gbytes_per_s, busbw);
}

// --- real pastes: the figures each prints (tests/data/nccl-tests/SOURCES.md) ---

TEST(NcclTestsPaste, SingleNodeH100AllReduceReadsItsPrintedFigures) {
  const NcclTestsTable t = parse_nccl_tests(read_text("h100-8gpu-all_reduce.txt"), "/nccl_tests/0");
  EXPECT_EQ(t.collective, NcclCollective::kAllReduce);  // busbw/algbw = 1.75 = 2·7/8
  EXPECT_FALSE(t.collective_from_name);
  EXPECT_EQ(t.ranks, 8);
  EXPECT_EQ(t.nodes, 1);
  EXPECT_EQ(t.device, "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(t.rows.size(), 6u);
  expect_largest_row(t, 4294967296.0, 15870, 270.63, 473.60);
  EXPECT_EQ(largest(t).count, 1073741824.0);
  EXPECT_EQ(*largest(t).in_place_time_us, 15773);
  EXPECT_EQ(*largest(t).in_place_busbw_gbytes_per_s, 476.53);
  EXPECT_EQ(t.rows.front().time_us, 613.3);
  EXPECT_EQ(*t.avg_busbw_gbytes_per_s, 439.369);
  EXPECT_EQ(t.rows_wrong, 0);
}

TEST(NcclTestsPaste, TwoNodeAllReduceUnderSrunLabelsWithNoValidation) {
  const NcclTestsTable t = parse_nccl_tests(read_text("h100-2node-16gpu-all_reduce-srun-prefix.txt"), "/nccl_tests/0");
  EXPECT_EQ(t.collective, NcclCollective::kAllReduce);  // 1.875 = 2·15/16
  EXPECT_EQ(t.ranks, 16);
  EXPECT_EQ(t.nodes, 2);
  EXPECT_EQ(t.ranks_per_node, 8);
  expect_largest_row(t, 8589934592.0, 103530, 82.97, 155.57);
  EXPECT_EQ(*t.avg_busbw_gbytes_per_s, 142.735);
  EXPECT_EQ(t.rows_wrong, 0);  // "#wrong" is N/A: not counted as wrong
}

TEST(NcclTestsPaste, TwoNodeAllReduceAmongMpiNoise) {
  const NcclTestsTable t = parse_nccl_tests(read_text("h100-2node-16gpu-all_reduce-mpi-noise.txt"), "/nccl_tests/0");
  EXPECT_EQ(t.collective, NcclCollective::kAllReduce);
  EXPECT_EQ(t.ranks, 16);
  EXPECT_EQ(t.nodes, 2);
  EXPECT_EQ(t.rows.size(), 32u);  // 8 B to 16 GiB
  expect_largest_row(t, 17179869184.0, 68652, 250.24, 469.21);
  EXPECT_EQ(*t.avg_busbw_gbytes_per_s, 139.56);
}

TEST(NcclTestsPaste, AllToAllNeedsItsCommandLineToTellItFromAllGather) {
  const std::string output = read_text("h20-2node-4gpu-alltoall.txt");
  try {
    parse_nccl_tests(output, "/nccl_tests/0");
    FAIL() << "all_gather_perf and alltoall_perf print alike";
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "/nccl_tests/0");
    EXPECT_NE(std::string(e.what()).find("paste the command line"), std::string::npos) << e.what();
  }
  // As pasted with its command (NVIDIA/nccl-tests#321).
  const NcclTestsTable t = parse_nccl_tests(
      "$ mpirun -np 4 -H 30.159.184.2:2,30.159.184.22:2 /data/data/nccl-tests-master/build/alltoall_perf -b 1M "
      "-e 16G -f 2 -g 1 -n 200\n" + output, "/nccl_tests/0");
  EXPECT_EQ(t.collective, NcclCollective::kAllToAll);
  EXPECT_TRUE(t.collective_from_name);
  EXPECT_EQ(t.ranks, 4);
  EXPECT_EQ(t.nodes, 2);
  expect_largest_row(t, 4294967296.0, 64101, 67.00, 50.25);
  EXPECT_FALSE(t.avg_busbw_gbytes_per_s.has_value());  // the issue shows no footer
}

TEST(NcclTestsPaste, MalformedPastesNameTheLineAndColumn) {
  std::string text = read_text("h100-8gpu-all_reduce.txt");
  // The 1 GiB row's time becomes "40x8.8".
  const std::size_t at = text.find("4038.8");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 6, "40x8.8");
  const std::size_t line_start = text.rfind('\n', at) + 1;
  const std::string where = "line " + std::to_string(std::count(text.begin(), text.begin() + at, '\n') + 1) +
                            ", column " + std::to_string(at - line_start + 1) + ":";
  try {
    parse_nccl_tests(text, "/nccl_tests/2");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "/nccl_tests/2");
    EXPECT_EQ(std::string(e.what()).rfind(where, 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("\"40x8.8\""), std::string::npos) << e.what();
  }
  // Units are read, not assumed: a table in ms is refused.
  std::string ms = read_text("h100-8gpu-all_reduce.txt");
  ms.replace(ms.find("(us)"), 4, "(ms)");
  EXPECT_THROW(parse_nccl_tests(ms, "/nccl_tests/0"), InputError);
  EXPECT_THROW(parse_nccl_tests("hello\nworld\n", "/nccl_tests/0"), InputError);
}

// --- synthesised measurements of a known cluster ---

/// nccl-tests output as all_reduce_perf & co. print it, timed by pplan's own collectives on `gpu`.
std::string synthesise(NcclCollective c, int hosts, int per_host, const GpuSpec& gpu, double noise = 0,
                       std::mt19937* rng = nullptr) {
  NcclTestsTable shape;
  shape.collective = c;
  shape.ranks = hosts * per_host;
  shape.nodes = hosts;
  shape.ranks_per_node = per_host;
  std::ostringstream o;
  o << "$ ./build/" << nccl_program_name(c) << " -b 8 -e 8G -f 2 -g 1\n";
  o << "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
       "validation: 1 graph: 0\n#\n# Using devices\n";
  for (int r = 0; r < shape.ranks; ++r) {
    o << "#  Rank " << r << " Group  0 Pid " << 1000 + r << " on node" << r / per_host << " device  " << r % per_host
      << " [0x18] NVIDIA H100 80GB HBM3\n";
  }
  o << "#\n#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
       "busbw #wrong\n#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  "
       "(GB/s)  (GB/s)\n";
  std::normal_distribution<double> jitter(0.0, noise);
  const double factor = c == NcclCollective::kAllReduce ? 2.0 * (shape.ranks - 1) / shape.ranks
                                                          : double(shape.ranks - 1) / shape.ranks;
  for (double size = 8; size <= 8589934592.0; size *= 2) {
    double us = predicted_row_us(shape, size, gpu);
    if (rng) us *= std::exp(jitter(*rng));
    const double algbw = size / us / 1e3;
    char line[256];
    std::snprintf(line, sizeof line, "%12.0f %13.0f     float     sum      -1 %8.6g %7.2f %7.2f      0 %8.6g %7.2f %7.2f      0\n",
                  size, size / 4, us, algbw, algbw * factor, us, algbw, algbw * factor);
    o << line;
  }
  o << "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 100\n#\n";
  return o.str();
}

Scenario llama70b(int gpus) {
  const PresetCatalog presets = load_presets();
  return parse_scenario(json{{"model", "llama3-70b"},
                             {"cluster", {{"gpu", "h100-sxm"}, {"gpus", gpus}, {"gpus_per_node", 8}}},
                             {"training", {{"seq_len", 8192}, {"global_batch", 256}}}},
                        presets);
}

std::vector<NcclTestsTable> tables_of(const GpuSpec& truth) {
  return {parse_nccl_tests(synthesise(NcclCollective::kAllReduce, 1, 8, truth), "/nccl_tests/0"),
          parse_nccl_tests(synthesise(NcclCollective::kAllReduce, 4, 8, truth), "/nccl_tests/1"),
          parse_nccl_tests(synthesise(NcclCollective::kAllToAll, 2, 8, truth), "/nccl_tests/2")};
}

MeasuredStep step_of(const Scenario& truth, ParallelConfig p) {
  MeasuredStep s;
  s.parallel = p;
  s.step_time_s = evaluate(truth, p).step_time_s;
  s.what = "step";
  return s;
}

double fitted(const CalibrationResult& r, const std::string& name) {
  for (const ConstantFit& c : r.constants) if (c.name == name) return c.after;
  ADD_FAILURE() << name << " not reported";
  return 0;
}

TEST(CalibrateRecovery, AKnownClusterIsRecoveredWithinThreePercent) {
  // The truth: bandwidth −30%, latency ×2 on both links, GEMM efficiency −10%.
  Scenario scenario = llama70b(64);
  const GpuSpec preset = scenario.cluster.gpu;
  GpuSpec truth = preset;
  truth.nvlink_efficiency = 0.8 * 0.7;      // 0.56
  truth.network_efficiency = 0.92 * 0.7;    // 0.644
  truth.nvlink_latency_s = 2 * 5e-6;        // 10 µs
  truth.network_latency_s = 2 * 10e-6;      // 20 µs
  truth.mamf_fraction_bf16 = preset.mamf_fraction_bf16 * 0.9;
  Scenario true_scenario = scenario;
  true_scenario.cluster.gpu = truth;

  std::vector<MeasuredStep> steps;
  ParallelConfig p = resolve_defaults(scenario);
  p.tp = 8, p.pp = 2, p.dp = 4, p.zero = 1, p.recompute = Recompute::kSelective;
  steps.push_back(step_of(true_scenario, p));
  const std::vector<NcclTestsTable> tables = tables_of(truth);
  const CalibrationResult r = calibrate(scenario, tables, {"/nccl_tests/0", "/nccl_tests/1", "/nccl_tests/2"}, steps);
  EXPECT_NEAR(fitted(r, "nvlink_efficiency") / 0.56, 1, 0.03);
  EXPECT_NEAR(fitted(r, "network_efficiency") / 0.644, 1, 0.03);
  EXPECT_NEAR(fitted(r, "nvlink_latency_us") / 10, 1, 0.03);
  EXPECT_NEAR(fitted(r, "network_latency_us") / 20, 1, 0.03);
  EXPECT_NEAR(fitted(r, "mamf_fraction_bf16") / truth.mamf_fraction_bf16, 1, 0.03);
  // One step fits one constant: attention and the host cost stay as they were, and say so.
  for (const ConstantFit& c : r.constants) {
    if (c.name == "attention_scale" || c.name == "host_kernel_us") EXPECT_FALSE(c.fitted) << c.name;
  }
  EXPECT_LT(r.rms_log_error_after, 0.005);
  EXPECT_GT(r.rms_log_error_before, 0.05);
}

TEST(CalibrateRecovery, TheRecommendedPlanFollowsTheTruth) {
  // A network at a tenth of its datasheet rate (GPUDirect RDMA off: traffic through the hosts)
  // pulls the search's layout off the network: TP 4 · PP 2 · DP 4 · CP 2 becomes PP 4 · DP 2.
  Scenario scenario = llama70b(64);
  GpuSpec truth = scenario.cluster.gpu;
  truth.network_efficiency = 0.92 / 10;
  Scenario true_scenario = scenario;
  true_scenario.cluster.gpu = truth;
  SearchOptions top1;
  top1.top = 1;
  const Estimate before = search(scenario, top1).plans.front();
  const Estimate truly = search(true_scenario, top1).plans.front();
  ASSERT_NE(parallel_to_json(before.parallel), parallel_to_json(truly.parallel)) << "the truth must call for another plan";
  const CalibrationResult r = calibrate(scenario, tables_of(truth), {"/a", "/b", "/c"}, {});
  ASSERT_TRUE(r.has_plans);
  EXPECT_EQ(parallel_to_json(r.plan_after.parallel), parallel_to_json(truly.parallel));
  EXPECT_GT(r.previous_plan_after.step_time_s, r.plan_after.step_time_s);
}

TEST(CalibrateProperty, TheFitNeverExplainsTheMeasurementsWorse) {
  std::mt19937 rng(20261202);
  std::uniform_real_distribution<double> factor(0.4, 1.6);
  Scenario scenario = llama70b(64);
  for (int trial = 0; trial < 12; ++trial) {
    GpuSpec truth = scenario.cluster.gpu;
    truth.nvlink_efficiency *= factor(rng);
    truth.network_efficiency *= factor(rng);
    truth.nvlink_latency_s *= factor(rng) * 2;
    truth.network_latency_s *= factor(rng) * 2;
    const double noise = 0.05;
    std::vector<NcclTestsTable> tables = {
        parse_nccl_tests(synthesise(NcclCollective::kAllReduce, 1, 8, truth, noise, &rng), "/x"),
        parse_nccl_tests(synthesise(NcclCollective::kAllGather, 2, 8, truth, noise, &rng), "/y")};
    if (trial % 2) tables.pop_back();  // NVLink only: the network stays as it was
    const CalibrationResult r = calibrate(scenario, tables, {"/x", "/y"}, {});
    EXPECT_LE(r.rms_log_error_after, r.rms_log_error_before + 1e-12) << "trial " << trial;
    if (trial % 2) {
      for (const ConstantFit& c : r.constants) {
        if (c.name.rfind("network", 0) == 0) EXPECT_FALSE(c.fitted) << "trial " << trial << " " << c.name;
      }
    }
  }
}

// --- refusals ---

TEST(CalibrateRefusals, ARowFasterThanTheDatasheetIsRefusedByLine) {
  Scenario scenario = llama70b(64);
  GpuSpec impossible = scenario.cluster.gpu;
  impossible.nvlink_efficiency = 2.0;  // a ring at twice the line rate
  impossible.nvlink_bytes_per_s *= 3;
  const std::string text = synthesise(NcclCollective::kAllGather, 1, 8, impossible);
  try {
    calibrate(scenario, {parse_nccl_tests(text, "/nccl_tests/0")}, {"/nccl_tests/0"}, {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.code(), "calibrate.faster_than_physics");
    EXPECT_EQ(e.path(), "/nccl_tests/0");
    EXPECT_EQ(std::string(e.what()).rfind("line ", 0), 0u) << e.what();
  }
}

TEST(CalibrateRefusals, AStepFasterThanItsFlopsAtPeakIsRefused) {
  const std::string request = R"({"command": "calibrate", "scenario": {"model": "llama3-70b",
    "cluster": {"gpu": "h100-sxm", "gpus": 64}, "training": {"seq_len": 8192, "global_batch": 256}},
    "steps": [{"parallel": {"tp": 8, "pp": 2}, "step_time_s": 0.5}]})";
  const json answer = json::parse(handle_request(request));
  ASSERT_FALSE(answer["ok"].get<bool>());
  EXPECT_EQ(answer["error"]["code"], "calibrate.faster_than_physics");
  EXPECT_EQ(answer["error"]["path"], "/steps/0");
}

// The floor is the FLOPs at the peak of the precision the GEMMs run in: an NVFP4 step on GB300
// (FP4 15,000 TFLOP/s, FP8 5,000) at twice its FP4 floor is 2/3 of its FP8 floor, and possible.
TEST(CalibrateRefusals, AnNvfp4StepIsBoundedByTheFp4Peak) {
  const json scenario = json::parse(R"({"model": "llama3-70b", "cluster": {"gpu": "gb300", "gpus": 64},
    "training": {"seq_len": 8192, "global_batch": 256, "precision": "fp8", "fp8_recipe": "nvfp4"}})");
  const json parallel = {{"tp", 1}, {"pp", 4}};
  json pinned = scenario;
  pinned["parallel"] = parallel;
  const json priced = json::parse(handle_request(json({{"command", "evaluate"}, {"scenario", pinned}}).dump()));
  ASSERT_TRUE(priced["ok"].get<bool>()) << priced.dump().substr(0, 300);
  const double fp4_floor_s = priced["flops_per_step"]["hardware"].get<double>() / (64 * 15000e12);
  const json request = {{"command", "calibrate"},
                        {"scenario", scenario},
                        {"steps", {{{"parallel", parallel}, {"step_time_s", 2 * fp4_floor_s}}}}};
  const json answer = json::parse(handle_request(request.dump()));
  EXPECT_TRUE(answer["ok"].get<bool>()) << answer.dump().substr(0, 400);
}

TEST(CalibrateRequest, PastedTextKeepsNewlinesAndTabsButNothingElse) {
  json request = {{"command", "calibrate"},
                  {"scenario", {{"model", "llama3-70b"},
                                {"cluster", {{"gpu", "h100-sxm"}, {"gpus", 64}}},
                                {"training", {{"seq_len", 8192}, {"global_batch", 256}}}}},
                  {"nccl_tests", {read_text("h100-8gpu-all_reduce.txt")}}};
  json answer = json::parse(handle_request(request.dump()));
  ASSERT_TRUE(answer["ok"].get<bool>()) << answer.dump();
  EXPECT_EQ(answer["gpu"]["preset"], "h100-sxm");
  // NVLink SHARP all-reduce beats a ring at 80% of the line rate: the share rises.
  EXPECT_GT(answer["gpu"]["nvlink_efficiency"].get<double>(), 0.8);
  // A colour code (ESC) in a pasted log is refused, with its line and column.
  request["nccl_tests"] = {"# nThread 1\n\x1b[31mstep: 1\n"};
  answer = json::parse(handle_request(request.dump()));
  EXPECT_EQ(answer["error"]["code"], "input.control_character");
  EXPECT_EQ(answer["error"]["path"], "/nccl_tests/0");
  EXPECT_NE(answer["error"]["message"].get<std::string>().find("line 2, column 1"), std::string::npos);
  // Newlines stay refused everywhere else.
  request = json::parse(R"({"command": "plan", "scenario": {"model": "llama3-70b\n"}})");
  EXPECT_EQ(json::parse(handle_request(request.dump()))["error"]["code"], "input.control_character");
  // calibrate with nothing to fit says what it needs.
  request = json::parse(R"({"command": "calibrate", "scenario": {"model": "llama3-70b",
    "cluster": {"gpu": "h100-sxm", "gpus": 64}, "training": {"seq_len": 8192, "global_batch": 256}}})");
  answer = json::parse(handle_request(request.dump()));
  EXPECT_EQ(answer["error"]["path"], "/nccl_tests");
}

TEST(TrainingLogs, EachFrameworksLineGivesTheStepTime) {
  // Megatron-LM: the median of the iterations after the first (warm-up).
  const std::string megatron =
      " [2026-01-01 10:00:00.0] iteration       10/    1000 | consumed samples:         2560 | elapsed time per "
      "iteration (ms): 9500.0 | throughput per GPU (TFLOP/s/GPU): 380.1 |\n"
      " [2026-01-01 10:01:00.0] iteration       20/    1000 | consumed samples:         5120 | elapsed time per "
      "iteration (ms): 6100.0 |\n"
      " [2026-01-01 10:02:00.0] iteration       30/    1000 | consumed samples:         7680 | elapsed time per "
      "iteration (ms): 6000.0 |\n"
      " [2026-01-01 10:03:00.0] iteration       40/    1000 | consumed samples:        10240 | elapsed time per "
      "iteration (ms): 6200.0 |\n";
  LoggedSteps s = step_time_from_log(megatron, 256 * 8192.0, 256, 64, "/steps/0/log");
  EXPECT_DOUBLE_EQ(s.step_time_s, 6.1);  // median of 6.1, 6.0, 6.2
  EXPECT_EQ(s.iterations, 4);
  EXPECT_EQ(s.first_line, 1);
  EXPECT_EQ(s.last_line, 4);
  // torchtitan: tps is tokens per second per GPU; 256 × 8192 tokens on 64 GPUs at 5,120 tps:
  // 2,097,152 / (5,120 · 64) = 6.4 s.
  const std::string titan = "step: 10  loss:  7.9  grad_norm:  1.2  memory: 60.1GiB(75.9%)  tps: 5,120  "
                            "tflops: 320.00  mfu: 32.35%\n";
  s = step_time_from_log(titan, 256 * 8192.0, 256, 64, "/steps/0/log");
  EXPECT_DOUBLE_EQ(s.step_time_s, 6.4);
  // DeepSpeed: samples of the global batch per second; 256 / 40 = 6.4 s.
  s = step_time_from_log("epoch=0/micro_step=80/global_step=10, RunningAvgSamplesPerSec=39.5, CurrSamplesPerSec=40, "
                         "MemAllocated=30.1GB, MaxMemAllocated=60.2GB\n",
                         256 * 8192.0, 256, 64, "/steps/0/log");
  EXPECT_DOUBLE_EQ(s.step_time_s, 6.4);
  try {
    step_time_from_log("throughput per GPU (TFLOP/s/GPU): 380.1 |\n", 1, 1, 1, "/steps/3/log");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.path(), "/steps/3/log");
  }
}

}  // namespace
}  // namespace pplan
