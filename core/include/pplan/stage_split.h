#pragma once
/// How a plan's layer stack is cut into pipeline stages: vocabulary shared by the framework
/// rules (which splits a framework can run), the model (what each stage holds and costs) and
/// the launch generators (the flags that reproduce the split). Pure, below every layer.

#include <string>

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

/// Whether vpp chunks can be cut from every stage of `split` (Megatron: per-rank layers % vpp).
bool vpp_divides(const StageSplit& split, int vpp);

}  // namespace pplan
