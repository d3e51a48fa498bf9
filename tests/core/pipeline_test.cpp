// Pipeline: layer splits, micro-batches, bubble and in-flight activations, derived by hand.
#include "pplan/model/pipeline.h"

#include <gtest/gtest.h>

namespace pplan {
namespace {

TEST(SplitLayers, EvenSplitGivesEveryStageLOverP) {
  const StageSplit s = split_layers(96, 8);
  ASSERT_TRUE(s.valid);
  EXPECT_EQ(s.first_layers, 12);
  EXPECT_EQ(s.middle_layers, 12);
  EXPECT_EQ(s.last_layers, 12);
  EXPECT_FALSE(s.uneven);
}

TEST(SplitLayers, Llama3CountsEmbeddingAndLossAsLayers) {
  // 126 layers on 16 stages: (126 + 2) / 16 = 8 units; first and last hold 7 layers.
  const StageSplit s = split_layers(126, 16);
  ASSERT_TRUE(s.valid);
  EXPECT_EQ(s.first_layers, 7);
  EXPECT_EQ(s.middle_layers, 8);
  EXPECT_EQ(s.last_layers, 7);
  EXPECT_EQ(s.units_per_stage, 8);
  EXPECT_TRUE(s.embedding_counted);
  EXPECT_TRUE(s.loss_counted);
  EXPECT_EQ(s.first_layers + 14 * s.middle_layers + s.last_layers, 126);
  EXPECT_TRUE(vpp_divides(s, 8));
  EXPECT_TRUE(vpp_divides(s, 4));
  EXPECT_FALSE(vpp_divides(s, 3));
}

TEST(SplitLayers, ExplicitFirstAndLastStages) {
  const StageSplit s = split_layers(126, 16, 7, 7);
  ASSERT_TRUE(s.valid);
  EXPECT_EQ(s.middle_layers, 8);
  EXPECT_FALSE(split_layers(126, 16, 6, 7).valid);  // 113 layers over 14 stages
}

TEST(SplitLayers, MoreStagesThanLayersIsInvalid) {
  EXPECT_FALSE(split_layers(4, 8).valid);
  // 5 layers on 4 stages: (5 + 2)/4 and (5 + 1)/4 are not whole; ceil 2 leaves 1 for two stages.
  EXPECT_FALSE(split_layers(5, 4).valid);
}

TEST(SplitLayers, UnevenRemainderGoesToFirstAndLast) {
  // 100 layers, 7 stages: ceil = 15; 5 middle stages hold 75; 25 left: 12 and 13.
  const StageSplit s = split_layers(100, 7);
  ASSERT_TRUE(s.valid);
  EXPECT_EQ(s.middle_layers, 15);
  EXPECT_EQ(s.first_layers + s.last_layers, 25);
  EXPECT_EQ(s.first_layers, 12);
}

TEST(SplitLayers, VirtualChunksOfCeilLayersLeaveTheRestToTheLastChunk) {
  // DeepSeek-V3, 61 layers, pp 4, vpp 4: no even split cuts 4 chunks from every stage
  // (14/16/16/15), so Megatron runs a pipeline layout of 16 chunks of ceil(61 / 16) = 4 layers,
  // the last chunk holding 61 - 15·4 = 1 (Megatron-Bridge recipes/deepseek/h100/deepseek_v3.py
  // _get_deepseek_v3_pipeline_layout, (4, 4)): stages 16/16/16/13.
  EXPECT_FALSE(vpp_divides(split_layers(61, 4), 4));
  const StageSplit s = split_layers(61, 4, 0, 0, 4);
  ASSERT_TRUE(s.valid);
  EXPECT_EQ(s.chunk_layers, 4);
  EXPECT_EQ(s.first_layers, 16);
  EXPECT_EQ(s.middle_layers, 16);
  EXPECT_EQ(s.last_layers, 13);
  EXPECT_TRUE(vpp_divides(s, 4));
  EXPECT_FALSE(vpp_divides(s, 2));
  EXPECT_EQ(pipeline_layout(s, 4, 4, 1), "Et*4|(t*4|)*14tmL");
  // pp 2, vpp 8: chunks of ceil(61 / 16) = 4, the last stage 29 = 7·4 + 1.
  const StageSplit two = split_layers(61, 2, 0, 0, 8);
  ASSERT_TRUE(two.valid);
  EXPECT_EQ(two.first_layers, 32);
  EXPECT_EQ(two.last_layers, 29);
  EXPECT_EQ(pipeline_layout(two, 2, 8, 0), "Et*4|(t*4|)*14tL");
  // pp 8, vpp 4: 32 chunks of 2 would need 62 layers before the last, so the first chunk holds
  // 1 beside the embedding and the last none: Megatron-Bridge's H100 DeepSeek-V3 layout
  // (scripts/performance/configs/deepseek/deepseek_workload_base_configs.py at v0.4.0).
  const StageSplit eight = split_layers(61, 8, 0, 0, 4);
  ASSERT_TRUE(eight.valid);
  EXPECT_EQ(eight.first_layers, 7);
  EXPECT_EQ(eight.middle_layers, 8);
  EXPECT_EQ(eight.last_layers, 6);
  EXPECT_EQ(eight.first_layers + 6 * eight.middle_layers + eight.last_layers, 61);
  EXPECT_EQ(pipeline_layout(eight, 8, 4, 1), "Et|(t*2|)*30mL");
  // An even split that vpp divides is kept: 96 layers, pp 8, vpp 2 (6 a chunk).
  const StageSplit even = split_layers(96, 8, 0, 0, 2);
  EXPECT_EQ(even.chunk_layers, 0);
  EXPECT_EQ(even.first_layers, 12);
  // 10 layers on pp 4, vpp 2: chunks of 2 would need 14 layers before the last chunk, so the
  // split stays the even-unit one (2/3/3/2), which vpp 2 does not divide.
  const StageSplit short_stack = split_layers(10, 4, 0, 0, 2);
  EXPECT_EQ(short_stack.chunk_layers, 0);
  EXPECT_FALSE(vpp_divides(short_stack, 2));
}

TEST(Microbatches, GlobalBatchOverDpTimesMicroBatch) {
  EXPECT_DOUBLE_EQ(microbatches(1536, 16, 1), 96.0);
  EXPECT_DOUBLE_EQ(microbatches(1536, 16, 2), 48.0);
}

TEST(Bubble, OneF1BIsPMinusOneOverM) {
  // The method's ratio (p−1)/m, and the share of the pipeline's time idle: (p−1)/(m + p − 1).
  EXPECT_DOUBLE_EQ(bubble_ratio(8, 1, 96), 7.0 / 96.0);
  EXPECT_DOUBLE_EQ(bubble_fraction(8, 1, 96), 7.0 / 103.0);
  EXPECT_DOUBLE_EQ(bubble_fraction(1, 1, 96), 0.0);
  // Few micro-batches: the ratio passes 1, the fraction stays below it (2 of 3 stage times).
  EXPECT_DOUBLE_EQ(bubble_ratio(8, 1, 4), 7.0 / 4.0);
  EXPECT_DOUBLE_EQ(bubble_fraction(8, 1, 4), 7.0 / 11.0);
}

TEST(Bubble, InterleavingDividesByV) {
  EXPECT_DOUBLE_EQ(bubble_ratio(8, 3, 64), 7.0 / (3.0 * 64.0));
  EXPECT_DOUBLE_EQ(bubble_fraction(8, 3, 64), 7.0 / (3.0 * 64.0 + 7.0));
}

TEST(InflightActivations, OneF1BStageKHoldsPMinusKMicroBatches) {
  EXPECT_DOUBLE_EQ(inflight_layer_microbatches(0, 8, 1, 96, 12), 8.0 * 12);
  EXPECT_DOUBLE_EQ(inflight_layer_microbatches(7, 8, 1, 96, 12), 1.0 * 12);
  EXPECT_DOUBLE_EQ(inflight_layer_microbatches(0, 8, 1, 4, 12), 4.0 * 12);  // fewer micro-batches
}

TEST(InflightActivations, InterleavedFirstStageMatchesKorthikanti) {
  // L/p · p · (1 + (p−1)/(p·v)) with L = 96, p = 8, v = 3.
  EXPECT_DOUBLE_EQ(inflight_layer_microbatches(0, 8, 3, 96, 12), 96.0 * (1.0 + 7.0 / 24.0));
}

}  // namespace
}  // namespace pplan
