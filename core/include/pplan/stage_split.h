#pragma once
/// How a plan's layer stack is cut into pipeline stages: vocabulary shared by the framework
/// rules (which splits a framework can run), the model (what each stage holds and costs) and
/// the launch generators (the flags that reproduce the split). Pure, below every layer.

#include <string>

#include "pplan/specs.h"

namespace pplan {

/// How the layer stack is cut into pp stages. Middle stages all hold `middle_layers`.
struct StageSplit {
  bool valid = false;
  std::string reason;   ///< why not, when !valid
  int first_layers = 0;
  int middle_layers = 0;  ///< 0 when pp <= 2
  int last_layers = 0;
  /// Units one stage is measured in for vpp divisibility: its layers, plus one each for the
  /// embedding and the loss when they are counted as layers (Llama 3: 126 layers = 16 × 8 − 2).
  int units_per_stage = 0;
  bool embedding_counted = false;  ///< Megatron --account-for-embedding-in-pipeline-split
  bool loss_counted = false;       ///< Megatron --account-for-loss-in-pipeline-split
  bool uneven = false;             ///< first/last differ from the middle
  /// > 0: Megatron's pipeline layout (--pipeline-model-parallel-layout): every virtual chunk
  /// holds chunk_layers layers but the first (first_chunk_layers, beside the embedding) and the
  /// very last, which holds the rest; the split then serves only the vpp it was cut for.
  int chunk_layers = 0;
  int first_chunk_layers = 0;
  int layout_vpp = 0;
  /// Most layers any stage holds (the stage that sets the pipeline's pace).
  int max_layers() const;
  /// Layers on stage `stage` (0-based).
  int layers_on_stage(int stage, int pp) const;
};

/**
 * Splits `layers` over `pp` stages. In order of preference: explicit first/last counts;
 * an even split; counting the embedding and the loss as one layer each (Megatron's
 * --account-for-{embedding,loss}-in-pipeline-split, what Llama 3 did: "one layer less on the
 * first and the last stage", Llama Team 2024 §3.3.2); otherwise ceil(L/p) on middle stages and
 * the rest shared by the first and last stages.
 * Example: 126 layers, pp 16 -> first 7, middle 8, last 7, units 8.
 */
StageSplit split_layers(int layers, int pp, int first_override = 0, int last_override = 0);

/**
 * The same, for `vpp` virtual chunks per stage (V-shaped schedules: pass 1). When the split
 * above is not cut evenly into vpp chunks per stage and no first/last counts are given, Megatron
 * runs a pipeline layout instead, as NVIDIA's DeepSeek-V3 recipes do (Megatron-Bridge
 * recipes/deepseek/h100/deepseek_v3.py _get_deepseek_v3_pipeline_layout; Megatron-LM
 * core_v0.16.0 transformer/pipeline_parallel_layer_layout.py): pp·vpp chunks of
 * ceil(L / (pp·vpp)) layers in layer order, the last chunk holding the rest (at least none);
 * where those leave the last chunk short, the first chunk holds one layer less beside the
 * embedding (Megatron-Bridge scripts/performance/configs/deepseek/deepseek_workload_base_configs.py
 * at v0.4.0, H100 pp 8 vpp 4: "Et|(tt|)*30mL").
 * Examples: 61 layers, pp 4, vpp 4 -> chunks of 4, stages 16/16/16/13; pp 8, vpp 4 -> chunks of
 * 2 and a first of 1, stages 7/8/6.
 */
StageSplit split_layers(int layers, int pp, int first_override, int last_override, int vpp);

/// Megatron's --pipeline-model-parallel-layout string for a layout split (chunk_layers > 0):
/// E the embedding, t a transformer layer, m an MTP layer, L the loss, | between chunks in
/// chunk order (chunk v of stage s is the (v·pp + s)-th). Example: "Et*4|(t*4|)*14tmL".
std::string pipeline_layout(const StageSplit& split, int pp, int vpp, int mtp_layers);

/// Whether vpp chunks can be cut from every stage of `split` (Megatron: per-rank layers % vpp).
bool vpp_divides(const StageSplit& split, int vpp);

/// The split a plan is priced with: its vpp chunks per stage, cut by Megatron's pipeline layout
/// where an even split does not divide (split_layers); a V-shaped schedule's two chunks are cut
/// from the even split.
inline StageSplit plan_split(const ModelSpec& model, const ParallelConfig& parallel) {
  return split_layers(model.layers, parallel.pp, parallel.first_stage_layers, parallel.last_stage_layers,
                      is_v_shape(parallel.schedule) ? 1 : parallel.vpp);
}

}  // namespace pplan
