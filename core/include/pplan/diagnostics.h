#pragma once
/// Diagnostics: why a plan is infeasible or worth a warning. Stable dotted codes, one table.
///
/// | code                         | severity | meaning                                          |
/// |------------------------------|----------|--------------------------------------------------|
/// | plan.gpu_count_mismatch      | error    | tp·pp·dp·cp differs from the cluster's GPUs      |
/// | plan.heads_not_divisible     | error    | attention heads not divisible by tp              |
/// | plan.kv_heads_not_divisible  | error    | kv heads and tp divide neither way (Megatron)    |
/// | plan.layers_not_divisible    | error    | layers cannot be split over pp stages            |
/// | plan.batch_not_divisible     | error    | global batch not divisible by micro_batch·dp     |
/// | plan.vpp_not_divisible       | error    | vpp does not divide the layers per stage         |
/// | plan.vpp_needs_pp            | error    | interleaving (vpp > 1) needs pp > 1              |
/// | plan.vpp_microbatches        | error    | interleaving needs m >= pp and m % pp == 0       |
/// | plan.cp_seq_not_divisible    | error    | seq_len not divisible by 2·cp                    |
/// | plan.ep_not_divisible        | error    | experts not divisible by ep, or ep ∤ dp·cp       |
/// | plan.ep_without_moe          | error    | ep > 1 on a dense model                          |
/// | plan.out_of_memory           | error    | the peak stage exceeds the GPU's memory          |
/// | plan.low_headroom            | warning  | fits, but above the usable share of memory       |
/// | plan.tp_exceeds_node         | warning  | tp spans more GPUs than one NVLink domain        |
/// | plan.ep_spans_nodes          | warning  | the EP all-to-all group leaves one node          |
/// | plan.sp_needs_tp             | warning  | sequence_parallel ignored at tp = 1              |
/// | plan.fp8_unsupported         | warning  | fp8 asked on a GPU without FP8: priced in BF16   |
/// | plan.pp_bubble_large         | warning  | bubble over 20% of the step                      |
/// | plan.mfu_counts_masked_attention | warning | MFU above 100%: Narayanan et al. eq. 3 counts  |
/// |                              |          | the masked half of causal attention (mfu_causal  |
/// |                              |          | counts what runs and stays below 100%)           |
/// | plan.gpus_per_node_mismatch  | warning  | gpus not a multiple of gpus_per_node             |
/// | plan.defaults_filled         | info     | evaluate filled in parallel fields the scenario  |
/// |                              |          | left out (api.cpp; lists them)                   |
///
/// Input errors (schema.*, input.*) are not diagnostics: see json_io.h.

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace pplan {

/// How bad a diagnostic is: errors make a plan infeasible, warnings do not.
enum class Severity { kError, kWarning, kInfo };

/// One reason, machine-readable (`code`) and human-readable (`message`).
struct Diagnostic {
  std::string code;
  Severity severity = Severity::kError;
  std::string message;
};

/// "error" | "warning" | "info".
const char* severity_name(Severity severity);

/// Input the engine refuses: a stable dotted code (schema.*, input.*, request.*, import.*; the
/// table is in io/json_io.h), the JSON pointer of the offending field and a message.
class InputError : public std::runtime_error {
 public:
  InputError(std::string code, std::string path, const std::string& message)
      : std::runtime_error(message), code_(std::move(code)), path_(std::move(path)) {}
  const std::string& code() const { return code_; }
  const std::string& path() const { return path_; }

 private:
  std::string code_;
  std::string path_;
};

}  // namespace pplan
