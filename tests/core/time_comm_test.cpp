// The time model proven term by term (issue #30): communication (model/comm.h), the pipeline
// (model/pipeline.h, model/pipeline_schedule.h) and the step's composition (model/estimate.h).
//
// Every test builds its input from constants typed in here (no preset, so a refit of the fitted
// constants in core/presets/calibration/calibration.json does not move the expected numbers),
// derives the expected figure in its comment from the formula and its source, and types that
// number into EXPECT_NEAR. The two worked-example tests at the end cannot avoid the presets
// (the example names them): they first assert the preset values they derive from.
//
// Constants of comm.h used throughout (typed here as the header states them):
//   NVLink: 0.8 of the line rate, 5 µs per step; network: 0.92 of the NIC rate, 10 µs per step;
//   size ramp: a ring phase moving `frac` of `bytes` over a link of bandwidth bw takes
//     frac·bytes / (bw·bytes/(bytes + 8e6)) = frac·(bytes + 8e6)/bw, plus steps·latency.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "pplan/model/architecture.h"
#include "pplan/model/comm.h"
#include "pplan/model/compute.h"
#include "pplan/model/estimate.h"
#include "pplan/model/kernels.h"
#include "pplan/model/memory.h"
#include "pplan/model/pipeline.h"
#include "pplan/model/pipeline_schedule.h"
#include "pplan/model/placement.h"
#include "../support/scenario_files.h"

namespace pplan {
namespace {

/// EXPECT_NEAR with a tolerance relative to the expected value.
#define EXPECT_REL(actual, expected, rel) \
  EXPECT_NEAR((actual), (expected), std::abs(double(expected)) * (rel))

constexpr double kTight = 1e-12;

// ---------------------------------------------------------------------------------------------
// Typed-in inputs.

/// A GPU with round figures: NVLink 100 GB/s (80 achieved), NIC 50 GB/s (46 achieved).
GpuSpec link_gpu() {
  GpuSpec g;
  g.id = g.name = "test-links";
  g.architecture = "hopper";
  g.nvlink_bytes_per_s = 100e9;
  g.network_bytes_per_s = 50e9;
  return g;
}

/// The GPU of the estimate tests: slow math (100 TFLOP/s, so that layer compute is long next to
/// the collectives), HBM 2 TB/s, NVLink 400 GB/s (320 achieved), NIC 50 GB/s (46 achieved).
GpuSpec estimate_gpu(double bf16_flops = 100e12) {
  GpuSpec g;
  g.id = g.name = "test-gpu";
  g.architecture = "hopper";
  g.memory_bytes = 1e12;
  g.marketed_memory_bytes = 1e12;
  g.bf16_flops_per_s = bf16_flops;
  g.fp8_flops_per_s = 0;
  g.hbm_bytes_per_s = 2e12;
  g.nvlink_bytes_per_s = 400e9;
  g.network_bytes_per_s = 50e9;
  g.sm_count = 100;
  g.mamf_fraction_bf16 = 0.8;
  return g;
}

/// Every constant of the time model typed in: overlap slowdown 0.5, HBM efficiency 0.75 (so
/// streaming runs at 0.75 · 2e12 = 1.5e12 B/s on estimate_gpu()).
Calibration test_calibration() {
  Calibration c;
  ArchitectureCalibration a;
  a.sm_count = 100;
  a.mamf_fraction_bf16 = 0.8;
  a.mamf_fraction_fp8 = 0.7;
  a.attention_peak_fraction = 0.6;
  a.attention_half_keys = 700;
  a.attention_backward_ratio = 0.9;
  a.gemm_in_step = 0.9;
  a.attention_in_step = 0.9;
  c.ampere = c.hopper = c.blackwell = a;
  c.host_kernel_s = 1e-6;
  c.host_collective_s = 1e-6;
  c.overlap_slowdown = 0.5;
  c.hbm_efficiency = 0.75;
  return c;
}

/// A 4-layer GPT-shaped model: h = 1024, 8 heads of d = 128 (MHA), f = 4h, V = 32000 (a multiple
/// of 128, so Megatron's padding leaves it), GeLU, rotary, untied head, no dropout.
/// Parameters: attention 4h² = 4,194,304, MLP 8h² = 8,388,608, norms 2h = 2,048 per layer.
ModelSpec tiny_dense() {
  ModelSpec m;
  m.id = m.name = "tiny";
  m.layers = 4;
  m.hidden = 1024;
  m.heads = 8;
  m.kv_heads = 8;
  m.ffn_hidden = 4096;
  m.vocab = 32000;
  m.activation = Activation::kGelu;
  m.tied_embeddings = false;
  m.dropout = false;
  m.learned_positions = false;
  return m;
}

/// The same with every layer a mixture of 8 experts (top-2, expert width 1024).
ModelSpec tiny_moe() {
  ModelSpec m = tiny_dense();
  m.id = m.name = "tiny-moe";
  MoeSpec moe;
  moe.experts = 8;
  moe.top_k = 2;
  moe.shared_experts = 0;
  moe.expert_ffn_hidden = 1024;
  moe.dense_layers = 0;
  m.moe = moe;
  return m;
}

/// A scenario on estimate_gpu(): every switch off (the tests turn on what they prove), CUDA
/// graphs on (no host term) unless a test says otherwise, fp32 gradients, fp32 Adam state.
Scenario make_scenario(const ModelSpec& model, int gpus, int seq_len, int global_batch,
                       int nvlink_domain_gpus = 8, double bf16_flops = 100e12) {
  Scenario s;
  s.model = model;
  s.cluster.gpu = estimate_gpu(bf16_flops);
  s.cluster.gpus = gpus;
  s.cluster.gpus_per_node = std::min(gpus, nvlink_domain_gpus);
  s.cluster.nvlink_domain_gpus = nvlink_domain_gpus;
  s.training.seq_len = seq_len;
  s.training.global_batch = global_batch;
  s.training.precision = Precision::kBf16;
  s.training.flash_attention = true;
  s.training.overlap_grad_reduce = false;
  s.training.overlap_param_gather = false;
  s.training.tp_comm_overlap = false;
  s.training.grad_reduce_in_fp32 = true;
  s.training.cuda_graphs = true;
  s.training.framework = Framework::kMegatronCore;
  s.training.optimizer_state_dtype = OptimizerStateDtype::kFp32;
  s.calibration = test_calibration();
  return s;
}

ParallelConfig make_plan(int tp, int pp, int dp, int cp = 1, int ep = 1, int vpp = 1) {
  ParallelConfig p;
  p.tp = tp;
  p.pp = pp;
  p.dp = dp;
  p.cp = cp;
  p.ep = ep;
  p.vpp = vpp;
  p.micro_batch = 1;
  p.sequence_parallel = false;
  p.recompute = Recompute::kNone;
  p.zero = 0;
  return p;
}

GroupPlacement group(int size, int ranks_per_node) {
  GroupPlacement g;
  g.size = size;
  g.ranks_per_node = ranks_per_node;
  g.nodes = (size + ranks_per_node - 1) / ranks_per_node;
  return g;
}

// =============================================================================================
// comm.h: links.

TEST(TimeComm, NvlinkIsEightyPercentOfItsLineRateWithFiveMicrosecondSteps) {
  // GpuSpec::nvlink_efficiency 0.8 (nccl-tests#212: ~370 of 450 GB/s): 100e9 · 0.8 = 80e9 B/s; 5e-6 s.
  const Link l = nvlink(link_gpu());
  EXPECT_REL(l.bytes_per_s, 80e9, kTight);
  EXPECT_REL(l.latency_s, 5e-6, kTight);
}

TEST(TimeComm, NetworkIsNinetyTwoPercentOfTheNicRateWithTenMicrosecondSteps) {
  // GpuSpec::network_efficiency 0.92 (46–48 of 50 GB/s per NDR NIC): 50e9 · 0.92 = 46e9 B/s; 10e-6 s.
  const Link l = network(link_gpu());
  EXPECT_REL(l.bytes_per_s, 46e9, kTight);
  EXPECT_REL(l.latency_s, 10e-6, kTight);
}

// =============================================================================================
// comm.h: ring all-reduce, reduce-scatter and the size ramp.

TEST(TimeComm, RingAllReduceInsideANodeMovesTwoTimesNMinusOneOverNOfTheBytes) {
  // 1 GB over 8 ranks of one node. Reduce-scatter phase: (n−1)/n = 7/8 of the bytes at 80e9 B/s
  // with the size ramp, ceil(log2 8) = 3 steps of 5 µs:
  //   7/8 · (1e9 + 8e6) / 80e9 + 3 · 5e-6 = 0.882e9/80e9 + 15e-6 = 0.011025 + 0.000015 = 0.01104 s.
  // All-reduce = reduce-scatter + all-gather = 2 · 0.01104 = 0.02208 s
  // (= 2(n−1)/n · bytes/bw, nccl-tests busbw factor, plus ramp and 2·log2(n) latencies).
  EXPECT_REL(all_reduce_s(1e9, group(8, 8), link_gpu()), 0.02208, kTight);
}

TEST(TimeComm, SizeRampHalvesTheBandwidthOfAnEightMegabyteMessage) {
  // kHalfBandwidthBytes = 8e6: at bytes = 8e6 the bandwidth is 80e9 · 8e6/(8e6 + 8e6) = 40e9.
  // Reduce-scatter over 2 ranks in a node: 1/2 · 8e6 / 40e9 + ceil(log2 2) = 1 step · 5e-6
  //   = 1e-4 + 5e-6 = 1.05e-4 s (without the ramp it would be 5e-5 + 5e-6).
  EXPECT_REL(reduce_scatter_s(8e6, group(2, 2), link_gpu()), 1.05e-4, kTight);
}

TEST(TimeComm, SizeRampGivesTwelvePercentAtOneMebibyteAndEightyNineAtSixtyFour) {
  // The ramp as implemented, bandwidth share bytes/(bytes + 8e6):
  //   1 MiB:  1,048,576 / 9,048,576   = 0.115883  (comm.h says "~20% at 1 MB"; its cited
  //           nccl-tests row, 18 of 235 GB/s, is 0.077)
  //   64 MiB: 67,108,864 / 75,108,864 = 0.893488  (comm.h: "~90% near 64 MB"; cited 172/235 = 0.732)
  // Measured as reduce-scatter time over 2 ranks without latency: 1/2 · bytes / (80e9 · share).
  const GpuSpec gpu = link_gpu();
  const double t1 = reduce_scatter_s(1048576.0, group(2, 2), gpu) - 5e-6;
  const double t64 = reduce_scatter_s(67108864.0, group(2, 2), gpu) - 5e-6;
  EXPECT_REL(0.5 * 1048576.0 / 80e9 / t1, 0.11588298534487637, 1e-9);
  EXPECT_REL(0.5 * 67108864.0 / 80e9 / t64, 0.8934879377219711, 1e-9);
}

TEST(TimeComm, HierarchicalAllReduceAddsANicPhaseOnOneKthOfTheData) {
  // 1 GB over 16 ranks, 8 per node on 2 nodes. Reduce-scatter inside the node (as above):
  //   7/8 · (1e9 + 8e6)/80e9 + 3·5e-6 = 0.01104 s.
  // Across nodes each of the k = 8 members carries 1/8 of the data, 1.25e8 bytes, over its own
  // NIC: (nodes−1)/nodes = 1/2 of it at 46e9 with the ramp, ceil(log2 2) = 1 step of 10 µs:
  //   1/2 · (1.25e8 + 8e6)/46e9 + 10e-6 = 6.65e7/46e9 + 1e-5 = 0.00144565217391 + 0.00001
  //   = 0.00145565217391304 s.
  // Reduce-scatter 0.01104 + 0.00145565217391304 = 0.0124956521739130 s; all-reduce twice that:
  //   0.0249913043478261 s. Latency 2·(3 + 1) = 8 steps = 2·log2(16), as the header says.
  EXPECT_REL(reduce_scatter_s(1e9, group(16, 8), link_gpu()), 0.0124956521739130, 1e-12);
  EXPECT_REL(all_reduce_s(1e9, group(16, 8), link_gpu()), 0.0249913043478261, 1e-12);
}

TEST(TimeComm, AllReduceOfTheHeaderExampleAddsRampAndLatencyToItsFortyPointEightMs) {
  // comm.h's example: "1 GB over 16 ranks, one per node, 46 GB/s: 2·15/16·1e9/46e9 = 40.8 ms".
  // That is the bandwidth term alone (40.7609 ms). As implemented, k = 1 so only the NIC phase
  // runs, with the size ramp and ceil(log2 16) = 4 steps of 10 µs per half:
  //   2 · (15/16 · (1e9 + 8e6)/46e9 + 4·10e-6) = 2 · (0.945e9/46e9 + 4e-5)
  //   = 2 · (0.0205434782608696 + 0.00004) = 0.0411669565217391 s = 41.17 ms.
  EXPECT_REL(all_reduce_s(1e9, group(16, 1), link_gpu()), 0.0411669565217391, 1e-12);
}

TEST(TimeComm, ReduceScatterIsHalfAnAllReduceTrafficAndLatency) {
  // 1 GB over 8 ranks in a node: the reduce-scatter phase alone, 0.01104 s (derived above),
  // half of the all-reduce's 0.02208 s.
  EXPECT_REL(reduce_scatter_s(1e9, group(8, 8), link_gpu()), 0.01104, kTight);
}

TEST(TimeComm, CollectivesOfOneRankOrOfNoBytesCostNothing) {
  const GpuSpec gpu = link_gpu();
  EXPECT_EQ(all_reduce_s(1e9, group(1, 1), gpu), 0.0);
  EXPECT_EQ(reduce_scatter_s(0.0, group(8, 8), gpu), 0.0);
  EXPECT_EQ(all_to_all_s(1e9, group(1, 1), gpu), 0.0);
  EXPECT_EQ(all_to_all_s(0.0, group(8, 8), gpu), 0.0);
  EXPECT_EQ(send_recv_s(0.0, true, gpu), 0.0);
}

// =============================================================================================
// comm.h: all-to-all and point-to-point (no size ramp, one latency, as implemented).

TEST(TimeComm, AllToAllInsideANodeSendsNMinusOneOverNOfTheBytesOverNvlink) {
  // 8e8 bytes per rank, 8 ranks in one node: (k−1)/n = 7/8 of them leave the GPU over NVLink,
  // nothing off the node: 7e8/80e9 + 5e-6 = 0.00875 + 0.000005 = 0.008755 s.
  EXPECT_REL(all_to_all_s(8e8, group(8, 8), link_gpu()), 0.008755, kTight);
}

TEST(TimeComm, AllToAllAcrossNodesIsPacedByTheOffNodeShareOnTheNic) {
  // 1.6e9 bytes per rank, 16 ranks, 8 per node: on-node (k−1)/n = 7/16 → 7e8 B over NVLink,
  // off-node (n−k)/n = 8/16 → 8e8 B over the NIC, concurrently; the slower sets the time:
  //   NVLink 7e8/80e9 + 5e-6 = 0.008755 s; NIC 8e8/46e9 + 10e-6 = 0.0173913043478261 + 0.00001
  //   = 0.0174013043478261 s.
  EXPECT_REL(all_to_all_s(1.6e9, group(16, 8), link_gpu()), 0.0174013043478261, 1e-12);
}

TEST(TimeComm, SendRecvIsTheBytesOverTheLinkPlusOneLatency) {
  // 1e8 bytes: inside a node 1e8/80e9 + 5e-6 = 0.00125 + 0.000005 = 0.001255 s;
  // across nodes 1e8/46e9 + 10e-6 = 0.00217391304347826 + 0.00001 = 0.00218391304347826 s.
  EXPECT_REL(send_recv_s(1e8, false, link_gpu()), 0.001255, kTight);
  EXPECT_REL(send_recv_s(1e8, true, link_gpu()), 0.00218391304347826, 1e-12);
}

// =============================================================================================
// comm.h: overlap.

TEST(TimeComm, OverlapExposesTheExcessOverTheWindowPlusSlowdownOfTheHiddenPart) {
  // comm 3 s, window 2 s, slowdown 0.3: hidden min(3, 2) = 2; exposed (3 − 2) + 0.3·2 = 1.6 s.
  EXPECT_REL(exposed_after_overlap_s(3.0, 2.0, 0.3), 1.6, kTight);
  // comm 1 s fully inside a 2 s window: only the slowdown, 0.3 · 1 = 0.3 s.
  EXPECT_REL(exposed_after_overlap_s(1.0, 2.0, 0.3), 0.3, kTight);
  // slowdown 0: max(0, comm − window) = 3 − 2 = 1 s.
  EXPECT_REL(exposed_after_overlap_s(3.0, 2.0, 0.0), 1.0, kTight);
}

TEST(TimeComm, WithoutAWindowTheWholeCommunicationIsExposed) {
  // No overlap (window 0) and a negative window (clamped to 0): 3 s stay 3 s.
  EXPECT_REL(exposed_after_overlap_s(3.0, 0.0, 0.3), 3.0, kTight);
  EXPECT_REL(exposed_after_overlap_s(3.0, -1.0, 0.3), 3.0, kTight);
}

// =============================================================================================
// comm.h: message sizes.

TEST(TimeComm, MessageSizesOfTheHeaderExampleGpt3AtTp8) {
  // GPT-3 shape typed in (h = 12288), s = 2048, b = 1, t = 8, cp = 1: tokens = 2048/1·1 = 2048;
  // TP tokens·h·2 = 2048·12288·2 = 50,331,648 B ("50.3 MB"); PP tokens·h·2/t = 6,291,456 B
  // ("6.3 MB"); dense model, so EP 0.
  ModelSpec m;
  m.layers = 96;
  m.hidden = 12288;
  m.heads = 96;
  m.kv_heads = 96;
  m.ffn_hidden = 49152;
  m.vocab = 50257;
  Scenario s;
  s.model = m;
  s.training.seq_len = 2048;
  const MessageSizes sizes = message_sizes(s, make_plan(8, 8, 16));
  EXPECT_REL(sizes.tokens, 2048.0, kTight);
  EXPECT_REL(sizes.tp_bytes, 50331648.0, kTight);
  EXPECT_REL(sizes.pp_bytes, 6291456.0, kTight);
  EXPECT_EQ(sizes.ep_bytes, 0.0);
}

TEST(TimeComm, MessageSizesOfTheCpRingCarryTheKvHeadsSplitOverTp) {
  // GQA: h = 4096, 32 heads (d = 128), 8 kv heads; s = 8192, cp 2, t 4, b 1.
  // tokens = 8192/2 = 4096; k_width = v_width = 8·128 = 1024;
  // CP K+V = tokens·(1024 + 1024)/t·2 = 4096·2048/4·2 = 4,194,304 B.
  ModelSpec m;
  m.layers = 32;
  m.hidden = 4096;
  m.heads = 32;
  m.kv_heads = 8;
  Scenario s;
  s.model = m;
  s.training.seq_len = 8192;
  const MessageSizes sizes = message_sizes(s, make_plan(4, 1, 1, 2));
  EXPECT_REL(sizes.tokens, 4096.0, kTight);
  EXPECT_REL(sizes.cp_kv_bytes, 4194304.0, kTight);
}

TEST(TimeComm, MessageSizesOfMlaCarryTheDecompressedKeysAndValues) {
  // MLA, 128 heads, d_nope 128 + d_rope 64 = 192 per key, d_v 128; s = 4096, cp 1, t 8:
  // tokens 4096; k_width = 128·192 = 24576, v_width = 128·128 = 16384;
  // CP K+V = 4096·(24576 + 16384)/8·2 = 4096·40960/4 = 41,943,040 B.
  ModelSpec m;
  m.layers = 4;
  m.hidden = 7168;
  m.heads = 128;
  m.kv_heads = 128;
  MlaSpec mla;
  mla.q_lora_rank = 1536;
  mla.kv_lora_rank = 512;
  mla.qk_nope_head_dim = 128;
  mla.qk_rope_head_dim = 64;
  mla.v_head_dim = 128;
  m.mla = mla;
  Scenario s;
  s.model = m;
  s.training.seq_len = 4096;
  EXPECT_REL(message_sizes(s, make_plan(8, 1, 1)).cp_kv_bytes, 41943040.0, kTight);
}

TEST(TimeComm, MessageSizesOfTheAllToAllCarryTopKCopiesSplitOverTp) {
  // tiny_moe: h = 1024, top-2; s = 2048, b 2, t 2: tokens = 2048·2 = 4096;
  // EP tokens·top_k·h·2/t = 4096·2·1024·2/2 = 8,388,608 B.
  Scenario s;
  s.model = tiny_moe();
  s.training.seq_len = 2048;
  ParallelConfig p = make_plan(2, 1, 4, 1, 4);
  p.micro_batch = 2;
  EXPECT_REL(message_sizes(s, p).ep_bytes, 8388608.0, kTight);
}

// =============================================================================================
// pipeline.h.

TEST(TimePipeline, OneF1BBubbleRatioIsPMinusOneOverM) {
  // Narayanan et al. 2021 §2.2.1: (p−1)/m = 7/96 = 0.0729166666666667 (the header's example).
  EXPECT_REL(bubble_ratio(8, 1, 96), 0.0729166666666667, 1e-14);
}

TEST(TimePipeline, InterleavedBubbleRatioIsDividedByV) {
  // §2.2.2: (p−1)/(v·m) = 7/(3·96) = 7/288 = 0.0243055555555556.
  EXPECT_REL(bubble_ratio(8, 3, 96), 0.0243055555555556, 1e-14);
}

TEST(TimePipeline, BubbleFractionIsPMinusOneOverVmPlusPMinusOne) {
  // (p−1)/v stage times of (m + (p−1)/v): (p−1)/(v·m + p − 1).
  //   1F1B:  7/(96 + 7)   = 7/103 = 0.0679611650485437 (the header's example, README's 6.8%)
  //   v = 3: 7/(288 + 7)  = 7/295 = 0.0237288135593220
  // and fraction = ratio/(1 + ratio): (7/96)/(103/96) = 7/103.
  EXPECT_REL(bubble_fraction(8, 1, 96), 0.0679611650485437, 1e-14);
  EXPECT_REL(bubble_fraction(8, 3, 96), 0.0237288135593220, 1e-14);
  const double r = bubble_ratio(8, 1, 96);
  EXPECT_REL(bubble_fraction(8, 1, 96), r / (1 + r), 1e-14);
}

TEST(TimePipeline, BubbleRatioExceedsOneWithFewerMicrobatchesThanStages) {
  // p = 8, m = 4: ratio 7/4 = 1.75 (above 1, as the header warns); fraction 7/11 = 0.636363...
  EXPECT_REL(bubble_ratio(8, 1, 4), 1.75, kTight);
  EXPECT_REL(bubble_fraction(8, 1, 4), 0.636363636363636, 1e-14);
}

TEST(TimePipeline, NoPipelineOrNoMicrobatchesHasNoBubble) {
  EXPECT_EQ(bubble_ratio(1, 1, 96), 0.0);
  EXPECT_EQ(bubble_fraction(1, 1, 96), 0.0);
  EXPECT_EQ(bubble_ratio(8, 1, 0), 0.0);
  EXPECT_EQ(bubble_fraction(8, 1, 0), 0.0);
}

TEST(TimePipeline, MicrobatchesAreTheGlobalBatchOverDpTimesTheMicroBatch) {
  // m = B/(N·b): 1536/(16·1) = 96; 1536/(16·2) = 48.
  EXPECT_REL(microbatches(1536, 16, 1), 96.0, kTight);
  EXPECT_REL(microbatches(1536, 16, 2), 48.0, kTight);
}

TEST(TimePipeline, RecomputedShareIsRecomputeLayersTimesVOverTheStageLayers) {
  // Header example: 8 layers, vpp 2, recompute_layers 1 -> 1·2/8 = 0.25; full without a count 1;
  // selective 0 (it is priced per layer instead).
  ParallelConfig p = make_plan(1, 4, 1, 1, 1, 2);
  p.recompute = Recompute::kFull;
  p.recompute_layers = 1;
  EXPECT_REL(recomputed_share(p, 8), 0.25, kTight);
  p.recompute_layers = 0;
  EXPECT_EQ(recomputed_share(p, 8), 1.0);
  p.recompute = Recompute::kSelective;
  EXPECT_EQ(recomputed_share(p, 8), 0.0);
}

TEST(TimePipeline, SimulatedOneF1BTakesThreeTimesMPlusPMinusOneForwardUnits) {
  // p = 2, m = 2, forward 1 unit, backward 2. Stage 0 warms up with p − 0 − 1 = 1 forward:
  // order F0 F1 B0 B1; stage 1 (none): F0 B0 F1 B1.
  //   s0 F0 [0,1]  F1 [1,2]                       s1 F0 [1,2]  B0 [2,4]  F1 [4,5]  B1 [5,7]
  //   s0 B0 waits for s1 B0: [4,6]; B1 waits for s1 B1: [7,9].   makespan 9 = 3·(2 + 1).
  // idle share 1 − 3m/9 = 1/3 = bubble_fraction(2, 1, 2) = 1/(2 + 1).
  const PipelineSchedule small = pipeline_schedule(2, 1, 2);
  ASSERT_TRUE(small.drawn);
  EXPECT_REL(small.makespan_units, 9.0, kTight);
  EXPECT_REL(small.idle_share, 1.0 / 3.0, kTight);
  EXPECT_REL(small.idle_share, bubble_fraction(2, 1, 2), kTight);
  // The header's example: p = 4, m = 8 -> 3·(8 + 3) = 33, idle 3/11 = bubble_fraction(4, 1, 8);
  // bubble over ideal 33/24 − 1 = 0.375 = 3/8 = bubble_ratio(4, 1, 8).
  const PipelineSchedule big = pipeline_schedule(4, 1, 8);
  EXPECT_REL(big.makespan_units, 33.0, kTight);
  EXPECT_REL(big.idle_share, 3.0 / 11.0, kTight);
  EXPECT_REL(big.bubble_over_ideal, bubble_ratio(4, 1, 8), kTight);
}

TEST(TimePipeline, SimulatedInterleavedTakesThreeTimesMPlusPMinusOneOverV) {
  // p = 2, v = 2, m = 2: a chunk's forward 1/2 unit, backward 1. Megatron's order: stage 0
  // warms up min(2·(2−0−1) + (2−1)·2, 4) = 4 chunk forwards, stage 1 min(0 + 2, 4) = 2.
  //   s0: F0c0 [0,.5] F1c0 [.5,1] F0c1 [1,1.5] (after s1 F0c0) F1c1 [1.5,2]
  //   s1: F0c0 [.5,1] F1c0 [1,1.5] F0c1 [1.5,2] B0c1 [2,3] F1c1 [3,3.5] B1c1 [3.5,4.5]
  //       B0c0 [4.5,5.5] (after s0 B0c1 [3,4]) B1c0 [5.5,6.5] (after s0 B1c1 [4.5,5.5])
  //   s0: B0c1 [3,4] B1c1 [4.5,5.5] B0c0 [5.5,6.5] B1c0 [6.5,7.5].
  // makespan 7.5 = 3·(m + (p−1)/v) = 3·(2 + 0.5); idle 1 − 6/7.5 = 0.2 = bubble_fraction(2, 2, 2)
  // = 1/(2·2 + 1).
  const PipelineSchedule s = pipeline_schedule(2, 2, 2);
  ASSERT_TRUE(s.drawn);
  EXPECT_REL(s.makespan_units, 7.5, kTight);
  EXPECT_REL(s.idle_share, 0.2, kTight);
  EXPECT_REL(s.idle_share, bubble_fraction(2, 2, 2), kTight);
  // p = 4, v = 2, m = 8: 3·(8 + 3/2) = 28.5, idle 1.5/9.5 = 3/19 = bubble_fraction(4, 2, 8).
  const PipelineSchedule big = pipeline_schedule(4, 2, 8);
  EXPECT_REL(big.makespan_units, 28.5, kTight);
  EXPECT_REL(big.idle_share, 3.0 / 19.0, kTight);
}

TEST(TimePipeline, SplitLayersEvenlyWhenPDividesL) {
  // 96/8 = 12 on every stage (GPT-3's worked example).
  const StageSplit s = split_layers(96, 8);
  ASSERT_TRUE(s.valid);
  EXPECT_EQ(s.first_layers, 12);
  EXPECT_EQ(s.middle_layers, 12);
  EXPECT_EQ(s.last_layers, 12);
  EXPECT_EQ(s.max_layers(), 12);
  EXPECT_FALSE(s.uneven);
}

TEST(TimePipeline, SplitLayersCountsEmbeddingAndLossAsLlama3Did) {
  // 126 % 16 != 0, (126 + 2)/16 = 8 units: first 7, middle 8, last 7 (the header's example).
  const StageSplit s = split_layers(126, 16);
  ASSERT_TRUE(s.valid);
  EXPECT_EQ(s.first_layers, 7);
  EXPECT_EQ(s.middle_layers, 8);
  EXPECT_EQ(s.last_layers, 7);
  EXPECT_EQ(s.units_per_stage, 8);
  EXPECT_TRUE(s.embedding_counted && s.loss_counted);
  EXPECT_EQ(s.layers_on_stage(5, 16), 8);
}

TEST(TimePipeline, SplitLayersCountsOnlyTheEmbeddingWhenOneLayerShort) {
  // 31 over 4: 31 % 4 = 3, 33 % 4 = 1, (31 + 1)/4 = 8 units: first 7, middle 8, last 8.
  const StageSplit s = split_layers(31, 4);
  ASSERT_TRUE(s.valid);
  EXPECT_EQ(s.first_layers, 7);
  EXPECT_EQ(s.middle_layers, 8);
  EXPECT_EQ(s.last_layers, 8);
  EXPECT_TRUE(s.embedding_counted);
  EXPECT_FALSE(s.loss_counted);
}

TEST(TimePipeline, SplitLayersFallsBackToCeilOnTheMiddleStages) {
  // 13 over 4: 13, 15, 14 all ≢ 0 mod 4; per = ceil(13/4) = 4 on the 2 middle stages, the rest
  // 13 − 8 = 5 split first 5/2 = 2, last 3.
  const StageSplit s = split_layers(13, 4);
  ASSERT_TRUE(s.valid);
  EXPECT_EQ(s.first_layers, 2);
  EXPECT_EQ(s.middle_layers, 4);
  EXPECT_EQ(s.last_layers, 3);
  EXPECT_EQ(s.max_layers(), 4);
}

TEST(TimePipeline, SplitLayersHonoursAnExplicitFirstAndLast) {
  // 96 over 8 with 6 first and 6 last: (96 − 12)/6 middle stages = 14.
  const StageSplit s = split_layers(96, 8, 6, 6);
  ASSERT_TRUE(s.valid);
  EXPECT_EQ(s.first_layers, 6);
  EXPECT_EQ(s.middle_layers, 14);
  EXPECT_EQ(s.last_layers, 6);
  EXPECT_EQ(s.max_layers(), 14);
  // 96 with 5 and 5: 86 over 6 stages does not divide.
  EXPECT_FALSE(split_layers(96, 8, 5, 5).valid);
  // One stage holds everything; more stages than layers is refused.
  EXPECT_EQ(split_layers(96, 1).max_layers(), 96);
  EXPECT_FALSE(split_layers(4, 8).valid);
}

// =============================================================================================
// estimate.cpp: exposed terms. Each scenario is tiny_dense() (or tiny_moe()) on estimate_gpu()
// with s = 2048, b = 1 unless stated: tokens per micro-batch per GPU 2048 (cp = 1).

TEST(TimeEstimate, TpWithoutOverlapIsTwoAllReducesPerPassOnEveryLayer) {
  // tp 2, 2 GPUs in one node, B = 4 -> m = 4/(1·1) = 4, pp 1: all 4 layers on one stage.
  // TP message tokens·h·2 = 2048·1024·2 = 4,194,304 B. All-reduce over 2 ranks in a node:
  //   2 · (1/2 · (4,194,304 + 8e6)/320e9 + 1·5e-6) = 2 · (1.90536e-5 + 5e-6) = 4.81072e-5 s.
  // Per pass 2 all-reduces (Narayanan et al. 2021 §3.2): 9.62144e-5 s; forward and backward.
  // tp_comm = m · layers · 2 passes · 9.62144e-5 = 4·4·2·9.62144e-5 = 0.0030788608 s.
  const Scenario s = make_scenario(tiny_dense(), 2, 2048, 4);
  const ParallelConfig p = make_plan(2, 1, 1);
  const Estimate e = evaluate(s, p);
  ASSERT_TRUE(e.timed);
  EXPECT_REL(layer_times_for(s, p).dense.tp_forward_s, 9.62144e-5, kTight);
  EXPECT_REL(e.time.tp_comm_s, 0.0030788608, kTight);
}

TEST(TimeEstimate, TpOverlapWithSequenceParallelLeavesOnlyTheSlowdownShare) {
  // As above with SP and tp_comm_overlap: each pass's 9.62144e-5 s hides behind that pass's
  // GEMMs (asserted longer, from layer_times), leaving slowdown 0.5 of it:
  //   tp_comm = 0.5 · 0.0030788608 = 0.0015394304 s.
  Scenario s = make_scenario(tiny_dense(), 2, 2048, 4);
  s.training.tp_comm_overlap = true;
  ParallelConfig p = make_plan(2, 1, 1);
  p.sequence_parallel = true;
  const LayerTimes lt = layer_times_for(s, p).dense;
  ASSERT_GT(lt.gemm_forward_s, 9.62144e-5);
  ASSERT_GT(lt.gemm_backward_s, 9.62144e-5);
  EXPECT_REL(evaluate(s, p).time.tp_comm_s, 0.0015394304, kTight);
}

TEST(TimeEstimate, TpOverlapWithoutSequenceParallelChangesNothing) {
  // Megatron accepts --tp-comm-overlap only with SP: without it the full 0.0030788608 s remain.
  Scenario s = make_scenario(tiny_dense(), 2, 2048, 4);
  s.training.tp_comm_overlap = true;
  EXPECT_REL(evaluate(s, make_plan(2, 1, 1)).time.tp_comm_s, 0.0030788608, kTight);
}

TEST(TimeEstimate, CpRingHiddenBehindAttentionLeavesOnlyTheSlowdownShare) {
  // cp 2, s = 4096: tokens 4096/2 = 2048 per GPU; K+V message 2048·(1024 + 1024)/1·2 =
  // 8,388,608 B per ring step, cp − 1 = 1 step over NVLink (the CP pair shares a node):
  //   forward 8,388,608/320e9 + 5e-6 = 2.62144e-5 + 5e-6 = 3.12144e-5 s; backward twice that.
  // Both shorter than the attention beside them (asserted), so slowdown 0.5 of each stays:
  //   per layer 0.5·(3.12144e-5 + 6.24288e-5) = 4.68216e-5 s; B = 4 -> m = 4;
  //   cp_comm = 4 · 4 layers · 4.68216e-5 = 7.491456e-4 s.
  const Scenario s = make_scenario(tiny_dense(), 2, 4096, 4);
  const ParallelConfig p = make_plan(1, 1, 1, 2);
  const LayerTimes lt = layer_times_for(s, p).dense;
  ASSERT_GT(lt.attention_forward_s, 3.12144e-5);
  ASSERT_GT(lt.attention_backward_s, 6.24288e-5);
  EXPECT_REL(evaluate(s, p).time.cp_comm_s, 7.491456e-4, kTight);
}

TEST(TimeEstimate, CpRingLongerThanAttentionExposesTheExcessPlusSlowdownOfTheRest) {
  // As above with every GPU its own NVLink domain and a 1 GB/s NIC (0.92e9 achieved): the ring
  // step crosses nodes, 8,388,608/0.92e9 + 10e-6 = 0.00911805217391304 + 0.00001
  //   = 0.00912805217391304 s forward, 0.0182561043478261 s backward: longer than attention,
  // whose times (a, a_b) come from layer_times (the kernels' tests derive them). Per layer:
  //   (c − a + 0.5·a) + (2c − a_b + 0.5·a_b); cp_comm = m · 4 layers · that.
  Scenario s = make_scenario(tiny_dense(), 2, 4096, 4, /*nvlink_domain_gpus=*/1);
  s.cluster.gpu.network_bytes_per_s = 1e9;
  const ParallelConfig p = make_plan(1, 1, 1, 2);
  const LayerTimes lt = layer_times_for(s, p).dense;
  const double c = 0.00912805217391304;
  ASSERT_LT(lt.attention_forward_s, c);
  ASSERT_LT(lt.attention_backward_s, 2 * c);
  const double per_layer = (c - 0.5 * lt.attention_forward_s) + (2 * c - 0.5 * lt.attention_backward_s);
  EXPECT_REL(evaluate(s, p).time.cp_comm_s, 4.0 * 4.0 * per_layer, 1e-12);
}

TEST(TimeEstimate, EpAllToAllInsideANodeIsTwoPerPassAndNeverHidden) {
  // tiny_moe, ep 4 = dp 4, 4 GPUs in one node, B = 16 -> m = 16/4 = 4. EP message
  // tokens·top_k·h·2/t = 2048·2·1024·2 = 8,388,608 B. All-to-all over 4 ranks in a node:
  // (k−1)/n = 3/4 of it over NVLink: 6,291,456/320e9 + 5e-6 = 1.96608e-5 + 5e-6 = 2.46608e-5 s.
  // Dispatch + combine per pass: 4.93216e-5 s, forward and backward; no overlap switch.
  //   ep_comm = m · 4 MoE layers · 2 passes · 4.93216e-5 = 0.0015782912 s.
  const Scenario s = make_scenario(tiny_moe(), 4, 2048, 16);
  const ParallelConfig p = make_plan(1, 1, 4, 1, 4);
  EXPECT_REL(layer_times_for(s, p).moe.ep_forward_s, 4.93216e-5, kTight);
  EXPECT_REL(evaluate(s, p).time.ep_comm_s, 0.0015782912, kTight);
}

TEST(TimeEstimate, EpAllToAllAcrossNodesIsPacedByTheNic) {
  // As above on NVLink domains of 2 GPUs: k = 2, n = 4. On node 1/4 · 8,388,608 = 2,097,152 B:
  // 2,097,152/320e9 + 5e-6 = 1.15536e-5 s; off node 2/4 → 4,194,304 B over the NIC:
  // 4,194,304/46e9 + 10e-6 = 9.11805217391304e-5 + 1e-5 = 1.01180521739130e-4 s (the max).
  //   ep_comm = 4 · 4 · 2 · 2 · 1.01180521739130e-4 = 0.00647555339130435 s.
  const Scenario s = make_scenario(tiny_moe(), 4, 2048, 16, /*nvlink_domain_gpus=*/2);
  EXPECT_REL(evaluate(s, make_plan(1, 1, 4, 1, 4)).time.ep_comm_s, 0.00647555339130435, 1e-12);
}

TEST(TimeEstimate, PpOneF1BBlocksOnTwoTransfersPerMicrobatchPlusFillAndDrain) {
  // pp 2, tp 1, dp 1 on 2 GPUs of a node (stride tp·cp·dp = 1): NVLink. B = 8 -> m = 8.
  // Activation tokens·h·2/t = 2048·1024·2 = 4,194,304 B: 4,194,304/320e9 + 5e-6
  //   = 1.31072e-5 + 5e-6 = 1.81072e-5 s one way.
  // 1F1B: 2 · (m + p − 1) · one way = 2 · 9 · 1.81072e-5 = 3.259296e-4 s.
  const Scenario s = make_scenario(tiny_dense(), 2, 2048, 8);
  EXPECT_REL(evaluate(s, make_plan(1, 2, 1)).time.pp_comm_s, 3.259296e-4, kTight);
}

TEST(TimeEstimate, PpAcrossNodesSendsOverTheNic) {
  // pp 2, dp 8, 16 GPUs in domains of 8: stage neighbours are tp·cp·dp = 8 ranks apart, on
  // different nodes. B = 64 -> m = 64/8 = 8. One way 4,194,304/46e9 + 10e-6
  //   = 9.11805217391304e-5 + 1e-5 = 1.01180521739130e-4 s;
  //   pp_comm = 2 · (8 + 1) · 1.01180521739130e-4 = 0.00182124939130435 s.
  const Scenario s = make_scenario(tiny_dense(), 16, 2048, 64);
  EXPECT_REL(evaluate(s, make_plan(1, 2, 8)).time.pp_comm_s, 0.00182124939130435, 1e-12);
}

TEST(TimeEstimate, PpInterleavedExposesFillAndDrainAndTheSlowdownOfTheRest) {
  // pp 2, vpp 2 on one node, m = 8 (a multiple of p), one way 1.81072e-5 s (above).
  // Fill and drain: 2·(p−1)·v transfers = 2·1·2 = 4 exposed; steady state 2·m·v = 32 transfers
  // overlapped (--overlap-p2p-communication), leaving slowdown 0.5 of them:
  //   pp_comm = (4 + 0.5·32) · 1.81072e-5 = 20 · 1.81072e-5 = 3.62144e-4 s.
  const Scenario s = make_scenario(tiny_dense(), 2, 2048, 8);
  EXPECT_REL(evaluate(s, make_plan(1, 2, 1, 1, 1, 2)).time.pp_comm_s, 3.62144e-4, kTight);
}

// Data parallelism: tiny_dense, dp 2 on one node, tp 1, pp 1, B = 8 -> m = 8/2 = 4.
// Parameters on the one stage (memory.cpp stage_params_per_gpu, derived from the architecture):
//   layers 4·(4h² + 2h) = 4·4,196,352 = 16,785,408; MLP 4·8h² = 33,554,432;
//   embedding V·h = 32000·1024 = 32,768,000 (rotary: no position table); untied head 32,768,000;
//   final norm h = 1024.  P = 115,876,864.
// Collectives over the 2-rank DP group in a node (1/2 of the data, 1 step of 5 µs, ramp):
//   RS(fp32 grads 4P = 463,507,456 B) = 1/2·(463,507,456 + 8e6)/320e9 + 5e-6
//     = 7.367304e-4 + 5e-6 = 7.417304e-4 s
//   AG(bf16 weights 2P = 231,753,728 B) = 1/2·(231,753,728 + 8e6)/320e9 + 5e-6
//     = 3.746152e-4 + 5e-6 = 3.796152e-4 s
constexpr double kRsGrads = 7.417304e-4;
constexpr double kAgWeights = 3.796152e-4;

/// Windows DP hides behind: one micro-batch's forward and backward on the stage (layer_times).
struct Windows {
  double forward_s, backward_s;
};
Windows dp_windows(const Scenario& s, const ParallelConfig& p) {
  const LayerTimes lt = layer_times_for(s, p).dense;
  return {4 * lt.forward_s(), 4 * (lt.backward_s() + lt.recompute_s)};
}

TEST(TimeEstimate, DpZero0AllReducesTheGradientsExposedOrBehindTheBackward) {
  // All-reduce = 2 reduce-scatters' traffic: 2 · 7.417304e-4 = 1.4834608e-3 s, exposed when
  // overlap_grad_reduce is off; on, it hides behind the last backward (asserted longer):
  //   0.5 · 1.4834608e-3 = 7.417304e-4 s.
  Scenario s = make_scenario(tiny_dense(), 2, 2048, 8);
  const ParallelConfig p = make_plan(1, 1, 2);
  EXPECT_REL(evaluate(s, p).time.dp_comm_s, 1.4834608e-3, kTight);
  s.training.overlap_grad_reduce = true;
  ASSERT_GT(dp_windows(s, p).backward_s, 1.4834608e-3);
  EXPECT_REL(evaluate(s, p).time.dp_comm_s, 7.417304e-4, kTight);
}

TEST(TimeEstimate, DpZero1ReduceScattersGradientsAndGathersWeightsEachUnderItsSwitch) {
  // Distributed optimizer: RS(grads) + AG(weights).
  //   both off:            7.417304e-4 + 3.796152e-4 = 1.1213456e-3 s
  //   grads overlapped:    0.5·7.417304e-4 + 3.796152e-4 = 3.708652e-4 + 3.796152e-4 = 7.504804e-4 s
  //   both overlapped:     0.5·1.1213456e-3 = 5.606728e-4 s (windows asserted longer)
  Scenario s = make_scenario(tiny_dense(), 2, 2048, 8);
  ParallelConfig p = make_plan(1, 1, 2);
  p.zero = 1;
  EXPECT_REL(evaluate(s, p).time.dp_comm_s, 1.1213456e-3, kTight);
  const Windows w = dp_windows(s, p);
  ASSERT_GT(w.backward_s, kRsGrads);
  ASSERT_GT(w.forward_s, kAgWeights);
  s.training.overlap_grad_reduce = true;
  EXPECT_REL(evaluate(s, p).time.dp_comm_s, 7.504804e-4, kTight);
  s.training.overlap_param_gather = true;
  EXPECT_REL(evaluate(s, p).time.dp_comm_s, 5.606728e-4, kTight);
}

TEST(TimeEstimate, DpZero2ReduceScattersEveryMicrobatchAndGathersOncePerStep) {
  // Megatron: m reduce-scatters + 1 gather: 4·7.417304e-4 + 3.796152e-4 = 3.3465368e-3 s.
  // torchtitan (FSDP2 without reshard after forward) gathers every micro-batch too:
  //   4·(7.417304e-4 + 3.796152e-4) = 4·1.1213456e-3 = 4.4853824e-3 s (switches off in both).
  Scenario s = make_scenario(tiny_dense(), 2, 2048, 8);
  ParallelConfig p = make_plan(1, 1, 2);
  p.zero = 2;
  EXPECT_REL(evaluate(s, p).time.dp_comm_s, 3.3465368e-3, kTight);
  s.training.framework = Framework::kTorchtitan;
  EXPECT_REL(evaluate(s, p).time.dp_comm_s, 4.4853824e-3, kTight);
}

TEST(TimeEstimate, DpZero3GathersTwiceOrThricePerMicrobatchAndReduceScatters) {
  // FSDP: per micro-batch 2 gathers (forward, backward) + 1 reduce-scatter:
  //   2·3.796152e-4 + 7.417304e-4 = 1.5009608e-3; m = 4 -> 6.0038432e-3 s.
  // Full recomputation gathers a third time: 3·3.796152e-4 + 7.417304e-4 = 1.880576e-3
  //   -> 4 · 1.880576e-3 = 7.522304e-3 s.
  // Overlapped (either switch) behind the micro-batch's forward + backward (asserted longer):
  //   0.5 · 6.0038432e-3 = 3.0019216e-3 s.
  Scenario s = make_scenario(tiny_dense(), 2, 2048, 8);
  ParallelConfig p = make_plan(1, 1, 2);
  p.zero = 3;
  EXPECT_REL(evaluate(s, p).time.dp_comm_s, 6.0038432e-3, kTight);
  ParallelConfig full = p;
  full.recompute = Recompute::kFull;
  EXPECT_REL(evaluate(s, full).time.dp_comm_s, 7.522304e-3, kTight);
  s.training.overlap_param_gather = true;
  const Windows w = dp_windows(s, p);
  ASSERT_GT(w.forward_s + w.backward_s, 1.5009608e-3);
  EXPECT_REL(evaluate(s, p).time.dp_comm_s, 3.0019216e-3, kTight);
}

TEST(TimeEstimate, DpDeepSpeedZero3GathersFlatOverEveryNic) {
  // dp 16 on 2 nodes of 8, m = 16/16 = 1, bf16 gradients (2 bytes). A 10 TFLOP/s GPU keeps the
  // micro-batch (forward + backward, asserted) longer than its collectives: all are hidden and
  // 0.5 of them stays. Weights and gradients are both 2P = 231,753,728 B.
  // Megatron-Core: hierarchical, NVLink phase 7/8·(2P + 8e6)/320e9 + 3·5e-6 = 6.705766e-4,
  //   NIC phase on 2P/8 = 28,969,216 B: 1/2·(28,969,216 + 8e6)/46e9 + 1e-5
  //   = 4.01839304347826e-4 + 1e-5 = 4.11839304347826e-4; one collective 1.08241590434783e-3;
  //   per micro-batch 2 gathers + 1 RS = 3.24724771304348e-3; exposed 0.5 · that
  //   = 1.62362385652174e-3 s.
  // DeepSpeed ZeRO-3 (overlap on by its own default): the gathers are flat, each GPU's NIC
  //   carrying 15/16 of the weights: 15/16·(2P + 8e6)/46e9 + 4·10e-6 = 4.88628521739130e-3
  //   + 4e-5 = 4.92628521739130e-3; per micro-batch 2·4.92628521739130e-3 + 1.08241590434783e-3
  //   = 1.09349863391304e-2; exposed 0.5 · that = 5.46749316956522e-3 s.
  Scenario s = make_scenario(tiny_dense(), 16, 2048, 16, 8, /*bf16_flops=*/10e12);
  s.training.grad_reduce_in_fp32 = false;
  s.training.overlap_grad_reduce = true;
  s.training.overlap_param_gather = true;
  ParallelConfig p = make_plan(1, 1, 16);
  p.zero = 3;
  const Windows w = dp_windows(s, p);
  ASSERT_GT(w.forward_s + w.backward_s, 1.09349863391304e-2);
  EXPECT_REL(evaluate(s, p).time.dp_comm_s, 1.62362385652174e-3, 1e-12);
  s.training.framework = Framework::kDeepSpeed;
  s.training.overlap_grad_reduce = false;
  s.training.overlap_param_gather = false;
  EXPECT_REL(evaluate(s, p).time.dp_comm_s, 5.46749316956522e-3, 1e-12);
}

TEST(TimeEstimate, OptimizerStreamsThirtyBytesPerLocallyHeldParameter) {
  // Adam with fp32 state: read the fp32 gradient 4 + read and write 12 bytes of state + write
  // the bf16 weight 2 = 30 bytes per parameter, at 0.75 · 2e12 = 1.5e12 B/s.
  //   ZeRO-0, P = 115,876,864 held: 30 · 115,876,864 / 1.5e12 = 2.31753728e-3 s.
  //   ZeRO-1 over dp 2: P/2 each: 1.15876864e-3 s.
  //   bf16 state (6 bytes, Megatron ZeRO-1): 4 + 12 + 2 = 18 bytes · P/2 / 1.5e12 = 6.95261184e-4 s.
  Scenario s = make_scenario(tiny_dense(), 2, 2048, 8);
  ParallelConfig p = make_plan(1, 1, 2);
  EXPECT_REL(evaluate(s, p).time.optimizer_s, 2.31753728e-3, kTight);
  p.zero = 1;
  EXPECT_REL(evaluate(s, p).time.optimizer_s, 1.15876864e-3, kTight);
  s.training.optimizer_state_dtype = OptimizerStateDtype::kBf16;
  EXPECT_REL(evaluate(s, p).time.optimizer_s, 6.95261184e-4, kTight);
}

// =============================================================================================
// estimate.cpp: the step's composition.

TEST(TimeEstimate, StepIsMPlusPMinusOneOverVStageTimesPlusPpDpAndOptimizer) {
  // pp 2 (1F1B), tp 1, dp 1, B = 8 -> m = 8; selective recomputation; the host is on (CUDA
  // graphs off). Split 4/2 = 2 layers per stage; the last stage also runs the LM head, so it is
  // the slowest. Stage time per micro-batch (estimate.cpp stage_time):
  //   T = 2 · layer.total_s() + lm_head_times_s()   (layer: forward + backward with host waits
  //       + recomputed attention; from layer_times, which the kernels' tests derive)
  // Terms:  compute = m·(2·(GEMM + attention + streaming, both passes) + LM head)
  //         host = m·2·host stall; recompute = m·2·attention forward; tp = cp = ep = 0
  //         bubble = (p−1)/v · T = T
  //         pp = 2·(8 + 1)·1.81072e-5 = 3.259296e-4 s (derived above); dp = 0 (dp 1)
  //         optimizer on the peak-memory stage (memory.h). A layer keeps 32·s·h bytes (replicated
  //           norms 4 + inputs 2 + 2; Q 2, K+V 4, output 2, MLP (2 + 2)·4 = 16 split: 24), so
  //           stage 0: 2 micro-batches in flight · 2 layers · 32·2048·1024 = 268,435,456 B;
  //           stage 1: 1 · 2 layers = 134,217,728 B + fp32/bf16 logits 6·2048·32000
  //           = 393,216,000 B -> 527,433,728 B: the last stage is the peak (model states differ
  //           by the final norm only). Its parameters: 2·(4h² + 2h) + 2·8h² + head V·h + h
  //           = 8,392,704 + 16,777,216 + 32,768,000 + 1,024 = 57,938,944;
  //           · 30 B / 1.5e12 = 1.15877888e-3 s
  // step = (m + (p−1)/v)·T + pp + dp + optimizer = 9·T + 3.259296e-4 + 1.15877888e-3.
  Scenario s = make_scenario(tiny_dense(), 2, 2048, 8);
  s.training.cuda_graphs = false;
  ParallelConfig p = make_plan(1, 2, 1);
  p.recompute = Recompute::kSelective;
  const LayerTimes lt = layer_times_for(s, p).dense;
  const double head = lm_head_times_s(s, p);
  const double stage = 2 * lt.total_s() + head;
  const Estimate e = evaluate(s, p);
  ASSERT_TRUE(e.timed);
  ASSERT_EQ(e.memory.peak_stage, 1);
  ASSERT_GT(lt.host_stall_s(), 0.0);
  const double m = 8;
  EXPECT_REL(e.time.compute_s,
             m * (2 * (lt.gemm_forward_s + lt.gemm_backward_s + lt.attention_forward_s +
                       lt.attention_backward_s + lt.memory_forward_s + lt.memory_backward_s) + head),
             1e-12);
  EXPECT_REL(e.time.host_s, m * 2 * lt.host_stall_s(), 1e-12);
  EXPECT_REL(e.time.recompute_s, m * 2 * lt.attention_forward_s, 1e-12);
  EXPECT_EQ(e.time.tp_comm_s + e.time.cp_comm_s + e.time.ep_comm_s, 0.0);
  EXPECT_REL(e.time.bubble_s, 1.0 * stage, 1e-12);
  EXPECT_REL(e.time.pp_comm_s, 3.259296e-4, kTight);
  EXPECT_EQ(e.time.dp_comm_s, 0.0);
  EXPECT_REL(e.time.optimizer_s, 1.15877888e-3, kTight);
  EXPECT_REL(e.step_time_s, (8.0 + 1.0) * stage + 3.259296e-4 + 0.0 + 1.15877888e-3, 1e-12);
  EXPECT_REL(e.step_time_s, e.time.total_s(), 1e-15);
}

TEST(TimeEstimate, InterleavingDividesTheBubbleStageTimesByV) {
  // As above with vpp 2 (one layer per chunk): stage time T unchanged, bubble (p−1)/v·T = T/2,
  // pp p2p 3.62144e-4 s (derived above). Peak memory still on the last stage: stage 0 holds
  // 2·(p−1) + (v−1)·p + 1 = 5 chunks of 1 layer = 5·67,108,864 = 335,544,320 B, stage 1
  // 0 + 2 + 1 = 3 chunks = 201,326,592 B + logits 393,216,000 B = 594,542,592 B.
  // step = (8 + 1/2)·T + 3.62144e-4 + 1.15877888e-3.
  Scenario s = make_scenario(tiny_dense(), 2, 2048, 8);
  s.training.cuda_graphs = false;
  ParallelConfig p = make_plan(1, 2, 1, 1, 1, 2);
  p.recompute = Recompute::kSelective;
  const double stage = 2 * layer_times_for(s, p).dense.total_s() + lm_head_times_s(s, p);
  const Estimate e = evaluate(s, p);
  ASSERT_EQ(e.memory.peak_stage, 1);
  EXPECT_REL(e.time.bubble_s, 0.5 * stage, 1e-12);
  EXPECT_REL(e.step_time_s, 8.5 * stage + 3.62144e-4 + 1.15877888e-3, 1e-12);
}

TEST(TimeEstimate, MfuAndHfuAreModelAndHardwareFlopsOverStepGpusAndPeak) {
  // tiny_dense on 1 GPU (100 TFLOP/s BF16), s = 2048, B = 8: T = 16,384 tokens per step.
  // Model FLOPs (Narayanan et al. 2021 eq. 3 generalised; architecture.h): 3 · forward, with
  // per token per layer 24h² + 4sh = 25,165,824 + 8,388,608 = 33,554,432 and the LM head
  // 2hV = 2·1024·32000 = 65,536,000: (4·33,554,432 + 65,536,000) = 199,753,728 per token;
  //   3 · 199,753,728 · 16,384 = 9,818,295,238,656 FLOPs.
  // Causal (half the score matrix): 24h² + 2sh = 29,360,128 -> 4·29,360,128 + 65,536,000 =
  //   182,976,512; · 3 · 16,384 = 8,993,661,517,824.
  // Selective recomputation reruns the attention core: 4 layers · 4sh · T
  //   = 4 · 8,388,608 · 16,384 = 549,755,813,888 -> hardware 10,368,051,052,544.
  // Full recomputation reruns every layer's forward: 4 · 33,554,432 · 16,384
  //   = 2,199,023,255,552 -> hardware 12,017,318,494,208.
  // MFU = model / (step · 1 · 1e14); HFU = hardware / (step · 1 · 1e14);
  // TFLOP/s per GPU = model/step/1e12; tokens/s = 16,384/step; days = budget/(tokens/s)/86,400.
  Scenario s = make_scenario(tiny_dense(), 1, 2048, 8);
  s.training.token_budget = 1e12;
  ParallelConfig p = make_plan(1, 1, 1);
  p.recompute = Recompute::kSelective;
  const Estimate e = evaluate(s, p);
  ASSERT_GT(e.step_time_s, 0.0);
  const double step = e.step_time_s;
  EXPECT_REL(e.model_flops_per_step, 9818295238656.0, kTight);
  EXPECT_REL(e.hardware_flops_per_step, 10368051052544.0, kTight);
  EXPECT_REL(e.mfu, 9818295238656.0 / (step * 1 * 100e12), kTight);
  EXPECT_REL(e.mfu_causal, 8993661517824.0 / (step * 1 * 100e12), kTight);
  EXPECT_REL(e.hfu, 10368051052544.0 / (step * 1 * 100e12), kTight);
  EXPECT_REL(e.tflops_per_gpu, 9818295238656.0 / step / 1e12, kTight);
  EXPECT_REL(e.tokens_per_s, 16384.0 / step, kTight);
  EXPECT_REL(e.days_to_train, 1e12 / (16384.0 / step) / 86400.0, kTight);
  p.recompute = Recompute::kFull;
  EXPECT_REL(evaluate(s, p).hardware_flops_per_step, 12017318494208.0, kTight);
}

// =============================================================================================
// The worked example, examples/gpt3-175b-1024-a100.json (README: step 21.84 s, compute 16.72 s,
// recompute 569 ms, bubble 1.41 s, exposed tp 2.10 s, pp 58 ms, dp 914 ms, MFU 48.5%, HFU 49.0%).
// The example names presets: the values derived from are asserted first (gpt3-175b: L 96,
// h 12288, a 96, V 50257, tied, learned positions; a100-80gb: 312 TFLOP/s, HBM 2039 GB/s,
// NVLink 300 GB/s, NIC 25 GB/s; calibration hbm_efficiency 0.8, a measured constant).
// Framework: Megatron-LM (the Ampere default): TP overlap off, DP overlap off, fp32 gradients.

Scenario worked_example() { return testing::load_scenario("examples/gpt3-175b-1024-a100.json"); }

void assert_worked_example_inputs(const Scenario& s, const ParallelConfig& p) {
  ASSERT_EQ(s.model.layers, 96);
  ASSERT_EQ(s.model.hidden, 12288);
  ASSERT_EQ(s.model.heads, 96);
  ASSERT_EQ(s.model.vocab, 50257);
  ASSERT_TRUE(s.model.tied_embeddings);
  ASSERT_TRUE(s.model.learned_positions);
  ASSERT_EQ(s.cluster.gpus, 1024);
  ASSERT_EQ(s.cluster.nvlink_domain_gpus, 8);
  ASSERT_EQ(s.cluster.gpu.bf16_flops_per_s, 312e12);
  ASSERT_EQ(s.cluster.gpu.hbm_bytes_per_s, 2039e9);
  ASSERT_EQ(s.cluster.gpu.nvlink_bytes_per_s, 300e9);
  ASSERT_EQ(s.cluster.gpu.network_bytes_per_s, 25e9);
  ASSERT_EQ(s.calibration.hbm_efficiency, 0.8);
  ASSERT_EQ(s.training.seq_len, 2048);
  ASSERT_EQ(s.training.global_batch, 1536);
  ASSERT_EQ(s.training.framework, Framework::kMegatronLm);
  ASSERT_FALSE(s.training.tp_comm_overlap);
  ASSERT_FALSE(s.training.overlap_grad_reduce);
  ASSERT_TRUE(s.training.grad_reduce_in_fp32);
  ASSERT_EQ(p.tp, 8);
  ASSERT_EQ(p.pp, 8);
  ASSERT_EQ(p.dp, 16);
  ASSERT_EQ(p.vpp, 1);
  ASSERT_EQ(p.micro_batch, 1);
  ASSERT_EQ(p.zero, 0);
  ASSERT_EQ(p.recompute, Recompute::kSelective);
}

TEST(TimeWorkedExample, Gpt3StepTimeIsReDerivedFromItsComponents) {
  const Scenario s = worked_example();
  const ParallelConfig p = resolve_defaults(s);
  ASSERT_NO_FATAL_FAILURE(assert_worked_example_inputs(s, p));
  const Estimate e = evaluate(s, p);
  ASSERT_TRUE(e.timed);

  // m = 1536/(16·1) = 96; split 96/8 = 12 layers per stage; bubble 7/96 and 7/103 (6.8%).
  const double m = 96;
  EXPECT_REL(e.microbatches, 96.0, kTight);
  EXPECT_REL(e.bubble_ratio, 0.0729166666666667, 1e-14);
  EXPECT_REL(e.bubble_fraction, 0.0679611650485437, 1e-14);

  // TP, inside the node (tp 8 = one DGX). Message 2048·12288·2 = 50,331,648 B. NVLink 300e9·0.8
  // = 240e9. Reduce-scatter 7/8·(50,331,648 + 8e6)/240e9 + 3·5e-6 = 51,040,192/240e9 + 15e-6
  //   = 2.12667466666667e-4 + 1.5e-5 = 2.27667466666667e-4; all-reduce 4.55334933333333e-4;
  // per pass 2 all-reduces: 9.10669866666667e-4 s, not overlapped (Megatron-LM).
  // tp_comm = m · 12 layers · 2 passes · 9.10669866666667e-4 = 2.0981833728 s (README 2.10 s).
  const LayerTimes lt = layer_times_for(s, p).dense;
  EXPECT_REL(lt.tp_forward_s, 9.10669866666667e-4, 1e-12);
  EXPECT_REL(lt.tp_backward_s, 9.10669866666667e-4, 1e-12);
  EXPECT_REL(e.time.tp_comm_s, 2.0981833728, 1e-12);

  // PP: stage neighbours are tp·cp·dp = 128 ranks apart, on other nodes: NIC 25e9·0.92 = 23e9.
  // Activation 2048·12288·2/8 = 6,291,456 B: 6,291,456/23e9 + 10e-6 = 2.73541565217391e-4
  //   + 1e-5 = 2.83541565217391e-4 s one way. 1F1B: 2·(96 + 7)·that = 0.0584095624347826 s
  //   (README 58 ms).
  const double pp_s = 0.0584095624347826;
  EXPECT_REL(e.time.pp_comm_s, pp_s, 1e-12);

  // DP: the peak-memory stage is stage 0 (8 micro-batches in flight against 1 on the last; it
  // also holds the most parameters). Its parameters per GPU (tp 8):
  //   12 layers · (4h²/8 + 2h + 8h²/8) = 12 · (75,497,472 + 24,576 + 150,994,944)
  //     = 12 · 226,516,992 = 2,718,203,904
  //   + embedding (padded V 51,200 at tp 8 + 2,048 positions) · h / 8 = 53,248·12288/8 = 81,788,928
  //   = 2,799,992,832 (README: weights 5.60 GB = 2 bytes each).
  // fp32 gradients 4 · 2,799,992,832 = 11,199,971,328 B, all-reduced over 16 ranks, one per node
  // (stride tp = 8): NIC phase only, 15/16 of the data, ceil(log2 16) = 4 steps:
  //   RS = 15/16·(11,199,971,328 + 8e6)/23e9 + 4e-5 = 0.456846657391304 + 0.00004
  //      = 0.456886657391304 s; all-reduce 0.913773314782609 s, not overlapped (README 914 ms).
  ASSERT_EQ(e.memory.peak_stage, 0);
  const double dp_s = 0.913773314782609;
  EXPECT_REL(e.time.dp_comm_s, dp_s, 1e-12);

  // Optimizer: 30 bytes · 2,799,992,832 params = 83,999,784,960 B at 2039e9·0.8 = 1.6312e12 B/s
  //   = 0.0514956994605199 s.
  const double optimizer_s = 0.0514956994605199;
  EXPECT_REL(e.time.optimizer_s, optimizer_s, 1e-12);

  // Stage time: stages 0, 1 and 7 hold 12 layers each; the last adds the LM head, so it is the
  // slowest: T = 12 · layer.total_s() + lm_head_times_s() (forward + backward with host waits,
  // exposed TP inside each pass, and the recomputed attention; layer_times and the head from
  // compute.h, whose kernels the kernels' tests derive). No CP or EP.
  const double stage = 12 * lt.total_s() + lm_head_times_s(s, p);
  // m·T is everything the stage does per step: compute + host + recompute + exposed TP.
  EXPECT_REL(e.time.compute_s + e.time.host_s + e.time.recompute_s + e.time.tp_comm_s +
                 e.time.cp_comm_s + e.time.ep_comm_s,
             m * stage, 1e-12);
  EXPECT_REL(e.time.bubble_s, 7.0 * stage, 1e-12);

  // The wait for the slowest of the 1,024 GPUs: the fitted Ampere speed spread times
  // E[max of 1,024 standard normals] = 3.2482, on compute, recompute and bubble: every part of
  // the stage but its exposed TP and its host stalls.
  const double spread = s.calibration.ampere.gpu_speed_spread;
  ASSERT_GT(spread, 0.0);
  const double straggler_s = spread * 3.2482 * (e.time.compute_s + e.time.recompute_s + e.time.bubble_s);
  EXPECT_REL(e.time.straggler_s, straggler_s, 1e-12);

  // The composition: step = (m + (p−1)/v)·T + pp + dp + optimizer + the slowest GPU's wait.
  const double step = (m + 7.0 / 1.0) * stage + pp_s + dp_s + optimizer_s + straggler_s;
  EXPECT_REL(e.step_time_s, step, 1e-9);
}

TEST(TimeWorkedExample, Gpt3MfuIsNarayananEquationThreeOverStepGpusAndPeak) {
  const Scenario s = worked_example();
  const ParallelConfig p = resolve_defaults(s);
  ASSERT_NO_FATAL_FAILURE(assert_worked_example_inputs(s, p));
  const Estimate e = evaluate(s, p);
  ASSERT_GT(e.step_time_s, 0.0);
  // model_flops_per_step counts the LM head at V padded for tp 1: ceil(50257/128)·128 = 50,304.
  // Narayanan et al. 2021 eq. 3 without recomputation (3 passes, their 96 → 72 and V/(16hL) →
  // V/(12hL)): F = 72·B·s·L·h²·(1 + s/(6h) + V/(12hL)). Per token: 3·(L·(24h² + 4sh) + 2hV)
  //   24h² = 3,623,878,656; 4sh = 100,663,296; L·(sum) = 96·3,724,541,952 = 357,556,027,392
  //   2hV = 2·12288·50304 = 1,236,271,104;  forward per token 358,792,298,496
  //   T = 2048·1536 = 3,145,728 tokens: F = 3 · 358,792,298,496 · 3,145,728
  //   = 3,385,988,938,689,675,264 ≈ 3.385989e18.
  // Selective recomputation adds the attention core: L·4sh·T = 96·100,663,296·3,145,728
  //   = 30,399,297,484,750,848 -> hardware 3,416,388,236,174,426,112.
  // MFU = F / (step · 1024 · 312e12); HFU the same with the hardware FLOPs.
  EXPECT_REL(e.model_flops_per_step, 3385988938689675264.0, 1e-12);
  EXPECT_REL(e.hardware_flops_per_step, 3416388236174426112.0, 1e-12);
  EXPECT_REL(e.mfu, 3385988938689675264.0 / (e.step_time_s * 1024 * 312e12), 1e-12);
  EXPECT_REL(e.hfu, 3416388236174426112.0 / (e.step_time_s * 1024 * 312e12), 1e-12);
}

}  // namespace
}  // namespace pplan
