// Cluster topology: hosts and NVLink domains apart (GB200 NVL72: 4-GPU trays, 72-GPU domains),
// the scale-out network from NICs, and presets with overrides. Expected values by hand.
#include <gtest/gtest.h>

#include "../support/scenario_files.h"
#include "pplan/io/api.h"
#include "pplan/model/comm.h"
#include "pplan/model/compute.h"
#include "pplan/model/placement.h"
#include "pplan/report/explain.h"
#include "pplan/search/search.h"

namespace pplan {
namespace {

using testing::scenario_from;

Scenario deepseek_on(const std::string& gpu, int gpus) {
  return scenario_from(R"({"model":"deepseek-v3","cluster":{"gpu":")" + gpu + R"(","gpus":)" +
                       std::to_string(gpus) + R"(},"training":{"seq_len":4096,"global_batch":4096},
                       "parallel":{"tp":1,"pp":4,"ep":64,"zero":1}})");
}

TEST(Topology, Gb200PresetIsFourGpuTraysInSeventyTwoGpuDomains) {
  const Scenario s = deepseek_on("gb200", 144);
  EXPECT_EQ(s.cluster.gpus_per_node, 4);
  EXPECT_EQ(s.cluster.nvlink_domain_gpus, 72);
  // 4 NICs of 400 Gb/s per tray of 4 GPUs: 50 GB/s per GPU.
  EXPECT_DOUBLE_EQ(s.cluster.gpu.network_bytes_per_s, 50e9);
}

TEST(Topology, Ep64InsideOneNvl72DomainPaysNvlinkAcrossDgxNodesTheNetwork) {
  const Scenario rack = deepseek_on("gb200", 256);
  const Scenario dgx = deepseek_on("h100-sxm", 256);
  ParallelConfig p;
  p.tp = 1;
  p.pp = 4;
  p.dp = 64;
  p.ep = 64;
  // EP ranks are adjacent (stride tp = 1): 64 of them fit one 72-GPU domain, or 8 DGX nodes.
  const GroupPlacement in_rack = place_group(p, rack.cluster, Axis::kEp);
  const GroupPlacement across = place_group(p, dgx.cluster, Axis::kEp);
  EXPECT_FALSE(in_rack.crosses_nodes());
  EXPECT_EQ(across.nodes, 8);
  // All-to-all of B bytes per rank: 63/64 of it over NVLink at 0.8 · 900 GB/s in the rack;
  // across DGX nodes, 56/64 of it over the 50 GB/s NIC at 92%.
  const double bytes = 100e6;
  EXPECT_NEAR(all_to_all_s(bytes, in_rack, rack.cluster.gpu), 63.0 / 64 * bytes / (0.8 * 900e9) + 5e-6, 1e-9);
  EXPECT_NEAR(all_to_all_s(bytes, across, dgx.cluster.gpu), 56.0 / 64 * bytes / (0.92 * 50e9) + 10e-6, 1e-9);
  // And the layer times follow: the MoE layer's all-to-all is >10x cheaper in the rack.
  const LayerTimes rack_moe = layer_times(rack, p, 10);
  const LayerTimes dgx_moe = layer_times(dgx, p, 10);
  EXPECT_GT(dgx_moe.ep_forward_s, 10 * rack_moe.ep_forward_s);
}

TEST(Topology, NicsPerNodeSetTheNetworkPerGpu) {
  // Half the NICs: 4 × 400 Gb/s shared by 8 GPUs = 25 GB/s per GPU.
  const Scenario s = scenario_from(R"({"model":"llama3-8b","cluster":{"gpu":"h100-sxm","gpus":16,
      "network":{"nics_per_node":4}},"training":{"seq_len":8192,"global_batch":64}})");
  EXPECT_DOUBLE_EQ(s.cluster.gpu.network_bytes_per_s, 25e9);
  const Scenario fast = scenario_from(R"({"model":"llama3-8b","cluster":{"gpu":"h100-sxm","gpus":16,
      "network":{"nic_gbits_per_s":800}},"training":{"seq_len":8192,"global_batch":64}})");
  EXPECT_DOUBLE_EQ(fast.cluster.gpu.network_bytes_per_s, 100e9);
  // A 2:1 oversubscribed fabric halves what leaves the host.
  const Scenario shared = scenario_from(R"({"model":"llama3-8b","cluster":{"gpu":"h100-sxm","gpus":16,
      "network":{"oversubscription":2}},"training":{"seq_len":8192,"global_batch":64}})");
  EXPECT_DOUBLE_EQ(shared.cluster.gpu.network_bytes_per_s, 25e9);
}

TEST(Topology, APresetWithOverridesKeepsItsCalibration) {
  const Scenario base = scenario_from(R"({"model":"llama3-8b","cluster":{"gpu":"a100-80gb","gpus":8},
      "training":{"seq_len":4096,"global_batch":64}})");
  const Scenario s = scenario_from(R"({"model":"llama3-8b","cluster":{"gpu":{"preset":"a100-80gb",
      "network_gbytes_per_s":12.5},"gpus":8},"training":{"seq_len":4096,"global_batch":64}})");
  EXPECT_DOUBLE_EQ(s.cluster.gpu.network_bytes_per_s, 12.5e9);
  EXPECT_DOUBLE_EQ(s.cluster.gpu.bf16_flops_per_s, base.cluster.gpu.bf16_flops_per_s);
  EXPECT_DOUBLE_EQ(s.cluster.gpu.memory_bytes, base.cluster.gpu.memory_bytes);
  EXPECT_DOUBLE_EQ(s.cluster.gpu.mamf_fraction_bf16, base.cluster.gpu.mamf_fraction_bf16);
  EXPECT_EQ(s.cluster.gpu.sm_count, base.cluster.gpu.sm_count);
  EXPECT_EQ(s.cluster.gpus_per_node, 8);
}

TEST(Topology, UnknownOverrideKeysAndDomainsThatSplitHostsAreErrors) {
  const std::string bad_key = handle_request(R"({"command":"evaluate","scenario":{"model":"llama3-8b",
      "cluster":{"gpu":{"preset":"h100-sxm","network_gbyte_per_s":25},"gpus":8},
      "training":{"seq_len":4096,"global_batch":64}}})");
  EXPECT_NE(bad_key.find("schema.unknown_field"), std::string::npos) << bad_key;
  EXPECT_NE(bad_key.find("/cluster/gpu/network_gbyte_per_s"), std::string::npos) << bad_key;
  const std::string bad_domain = handle_request(R"({"command":"evaluate","scenario":{"model":"llama3-8b",
      "cluster":{"gpu":"gb200","gpus":144,"nvlink_domain_gpus":70},
      "training":{"seq_len":4096,"global_batch":64}}})");
  EXPECT_NE(bad_domain.find("input.inconsistent"), std::string::npos) << bad_domain;
  EXPECT_NE(bad_domain.find("/cluster/nvlink_domain_gpus"), std::string::npos) << bad_domain;
}

TEST(Topology, HostsThatDoNotTileTheSystemsDomainPlanOnTheWholeHostsThatFit) {
  // An NVL72 rack described as 64-GPU hosts (as published tables list a 64-GPU GB300 job):
  // 72 is not a whole number of 64-GPU hosts, so the domain is the one host that fits (64),
  // with a warning, not a refusal. 16-GPU hosts: 4 fit in 72 (64); 8-GPU hosts tile it (72).
  const auto domain_of = [](int gpus_per_node) {
    return scenario_from(R"({"model":"llama3-70b","cluster":{"gpu":"gb300","gpus":64,"gpus_per_node":)" +
                         std::to_string(gpus_per_node) + R"(},"training":{"seq_len":4096,"global_batch":128}})")
        .cluster.nvlink_domain_gpus;
  };
  EXPECT_EQ(domain_of(64), 64);
  EXPECT_EQ(domain_of(16), 64);
  EXPECT_EQ(domain_of(8), 72);
  EXPECT_EQ(domain_of(4), 72);
  const std::string planned = handle_request(R"({"command":"plan","scenario":{"model":"llama3-70b",
      "cluster":{"gpu":"gb300","gpus":64,"gpus_per_node":64},"training":{"seq_len":4096,"global_batch":128}}})");
  EXPECT_NE(planned.find(R"("ok": true)"), std::string::npos) << planned.substr(0, 400);
  EXPECT_NE(planned.find("cluster.nvlink_domain_trimmed"), std::string::npos);
  EXPECT_NE(planned.find("NVLink domain of 72 GPUs is not a whole number of 64-GPU hosts"), std::string::npos);
  // The system's own hosts: no warning.
  const std::string trays = handle_request(R"({"command":"plan","scenario":{"model":"llama3-70b",
      "cluster":{"gpu":"gb300","gpus":64},"training":{"seq_len":4096,"global_batch":128}}})");
  EXPECT_EQ(trays.find("cluster.nvlink_domain_trimmed"), std::string::npos);
}

TEST(Topology, OldScenariosWithOnlyGpusPerNodeKeepOneDomainPerNode) {
  // Schema-v1 scenarios name only gpus_per_node, which was the NVLink domain.
  const Scenario s = scenario_from(R"({"model":"llama3-8b","cluster":{"gpu":{"name":"x","memory_gb":80,
      "bf16_tflops":989,"nvlink_gbytes_per_s":450,"network_gbytes_per_s":50},"gpus":144,"gpus_per_node":72},
      "training":{"seq_len":4096,"global_batch":72}})");
  EXPECT_EQ(s.cluster.nvlink_domain_gpus, 72);
  const Scenario dgx = scenario_from(R"({"model":"llama3-8b","cluster":{"gpu":"h100-sxm","gpus":16,
      "gpus_per_node":4},"training":{"seq_len":4096,"global_batch":64}})");
  EXPECT_EQ(dgx.cluster.nvlink_domain_gpus, 8);  // the DGX's domain holds whole 4-GPU hosts
}


// Megatron's rank order puts TP group k on ranks 3k..3k+2: on 8-GPU hosts the third group is
// ranks 6, 7 | 8, across two hosts, and the step waits for it.
TEST(Placement, GroupsThatCannotTileTheHostsStraddleTwo) {
  const GroupPlacement tp3 = place_ranks(1, 3, 8, 0, 384);
  EXPECT_EQ(tp3.nodes, 2);
  EXPECT_EQ(tp3.ranks_per_node, 1);  // rank 8 alone on host 1 carries the ring over its NIC
  EXPECT_TRUE(tp3.crosses_nodes());
  EXPECT_EQ(place_ranks(1, 6, 8, 0, 384).nodes, 2);
  EXPECT_EQ(place_ranks(1, 4, 8, 0, 384).nodes, 1);
  EXPECT_EQ(place_ranks(1, 16, 8, 0, 384).nodes, 2);
  // A CP group of 3 at stride 2 (tp 2): ranks 6, 8, 10 start on host 0 and end on host 1.
  EXPECT_EQ(place_ranks(2, 3, 8, 0, 384).nodes, 2);
  // DP 2 at stride 4 (tp 4) holds ranks b, b + 4 of one host.
  EXPECT_EQ(place_ranks(4, 2, 8, 0, 384).nodes, 1);
  // A job of one group never straddles: ranks 0, 1, 2 on one host.
  EXPECT_EQ(place_ranks(1, 3, 8, 0, 3).nodes, 1);
}

// NVL72 racks are 18 trays of 4: a job of 64-rank groups takes 16 trays a rack, so EP 64 stays
// in one NVLink domain; on 8-GPU hosts, where no host can be skipped, TP 3 still straddles.
TEST(Placement, SkippableHostsLetGroupsTileALargerDomain) {
  EXPECT_EQ(place_ranks(1, 64, 72, 4, 256).nodes, 1);
  EXPECT_EQ(place_ranks(1, 3, 72, 4, 288).nodes, 1);
  EXPECT_EQ(place_ranks(1, 64, 72, 0, 256).nodes, 2);  // a 72-GPU host: nothing to skip
  EXPECT_EQ(place_ranks(1, 3, 8, 8, 384).nodes, 2);
}

// The search no longer prices a TP group that straddles hosts at NVLink speed: GPT-3 175B on
// 384 A100s (Narayanan et al. 2021 Table 2's PTD-P row) plans TP inside each 8-GPU host.
TEST(Placement, TheSearchKeepsTpInsideEightGpuHosts) {
  const Scenario s = scenario_from(R"({"model":"gpt3-175b","cluster":{"gpu":"a100-80gb","gpus":384},
                                       "training":{"seq_len":2048,"global_batch":1536,"framework":"megatron-lm"},
                                       "parallel":{"cp":1,"dp":4,"micro_batch":1,"recompute":"full",
                                                   "sequence_parallel":false,"zero":0}})");
  const SearchResult r = search(s, SearchOptions{});
  ASSERT_FALSE(r.plans.empty());
  EXPECT_EQ(8 % r.plans.front().parallel.tp, 0) << "tp " << r.plans.front().parallel.tp;
  // Pinned to t = 3, explain says why its collectives leave NVLink.
  Scenario pinned = s;
  pinned.parallel.tp = 3;
  const Explanation x = explain(pinned, search(pinned, SearchOptions{}));
  ASSERT_GE(x.steps.size(), 2u);
  EXPECT_EQ(x.steps[1].title, "Tensor parallelism");
  EXPECT_NE(x.steps[1].text.find("t = 3, straddling NVLink domains of 8 GPUs"), std::string::npos)
      << x.steps[1].text;
}

}  // namespace
}  // namespace pplan
