#include "pplan/stage_split.h"

#include <algorithm>
#include <utility>

namespace pplan {

int StageSplit::max_layers() const {
  return std::max({first_layers, middle_layers, last_layers});
}

int StageSplit::layers_on_stage(int stage, int pp) const {
  if (stage == 0) return first_layers;
  if (stage == pp - 1) return last_layers;
  return middle_layers;
}

static StageSplit invalid(std::string reason) {
  StageSplit s;
  s.reason = std::move(reason);
  return s;
}

StageSplit split_layers(int layers, int pp, int first_override, int last_override) {
  if (pp < 1) return invalid("pp must be at least 1");
  if (pp > layers) {
    return invalid("pp = " + std::to_string(pp) + " stages exceed the " + std::to_string(layers) +
                   " layers");
  }
  StageSplit s;
  s.valid = true;
  if (pp == 1) {
    s.first_layers = s.last_layers = s.units_per_stage = layers;
    return s;
  }
  if (first_override > 0 || last_override > 0) {
    const int first = first_override > 0 ? first_override : last_override;
    const int last = last_override > 0 ? last_override : first_override;
    const int middle_total = layers - first - last;
    const int middle_stages = pp - 2;
    if (middle_total < 0 || (middle_stages == 0 && middle_total != 0) ||
        (middle_stages > 0 && (middle_total <= 0 || middle_total % middle_stages != 0))) {
      return invalid("first_stage_layers = " + std::to_string(first) + " and last_stage_layers = " +
                     std::to_string(last) + " leave " + std::to_string(middle_total) +
                     " layers, which do not split evenly over " + std::to_string(middle_stages) +
                     " middle stages");
    }
    s.first_layers = first;
    s.last_layers = last;
    s.middle_layers = middle_stages > 0 ? middle_total / middle_stages : 0;
    s.units_per_stage = 0;  // explicit split: each stage must divide by vpp on its own
    s.uneven = !(first == last && (middle_stages == 0 || first == s.middle_layers));
    return s;
  }
  if (layers % pp == 0) {
    const int per = layers / pp;
    s.first_layers = s.last_layers = s.units_per_stage = per;
    s.middle_layers = pp > 2 ? per : 0;
    return s;
  }
  if ((layers + 2) % pp == 0 && (layers + 2) / pp >= 2) {
    const int units = (layers + 2) / pp;
    s.first_layers = s.last_layers = units - 1;
    s.middle_layers = pp > 2 ? units : 0;
    s.units_per_stage = units;
    s.embedding_counted = s.loss_counted = s.uneven = true;
    return s;
  }
  if ((layers + 1) % pp == 0 && (layers + 1) / pp >= 2) {
    const int units = (layers + 1) / pp;
    s.first_layers = units - 1;
    s.last_layers = units;
    s.middle_layers = pp > 2 ? units : 0;
    s.units_per_stage = units;
    s.embedding_counted = s.uneven = true;
    return s;
  }
  const int per = (layers + pp - 1) / pp;
  const int rest = layers - (pp - 2) * per;
  const int first = rest / 2;
  const int last = rest - first;
  if (first < 1 || last < 1 || last > per) {
    return invalid(std::to_string(layers) + " layers cannot be split over " + std::to_string(pp) +
                   " stages");
  }
  s.first_layers = first;
  s.last_layers = last;
  s.middle_layers = pp > 2 ? per : 0;
  s.units_per_stage = 0;
  s.uneven = true;
  return s;
}

StageSplit split_layers(int layers, int pp, int first_override, int last_override, int vpp) {
  StageSplit s = split_layers(layers, pp, first_override, last_override);
  if (vpp <= 1 || pp <= 1 || !s.valid || vpp_divides(s, vpp) || first_override > 0 || last_override > 0) return s;
  const int chunks = pp * vpp;
  const int chunk = (layers + chunks - 1) / chunks;
  // The last chunk's layers with a full first chunk, or with one layer fewer there.
  const int short_first = layers - (chunks - 1) * chunk < 0 ? 1 : 0;
  if (layers - (chunks - 1) * chunk + short_first < 0 || chunk - short_first < 1) return s;
  StageSplit out;
  out.valid = out.uneven = true;
  out.chunk_layers = chunk;
  out.first_chunk_layers = chunk - short_first;
  out.layout_vpp = vpp;
  out.first_layers = chunk * vpp - short_first;
  out.middle_layers = pp > 2 ? chunk * vpp : 0;
  out.last_layers = layers - (pp - 1) * chunk * vpp + short_first;
  return out;
}

std::string pipeline_layout(const StageSplit& split, int pp, int vpp, int mtp_layers) {
  const auto layers = [](int n) {
    return n == 0 ? std::string() : n == 1 ? std::string("t") : "t*" + std::to_string(n);
  };
  const int chunks = pp * vpp;
  const int c = split.chunk_layers;
  const int last = split.last_layers - (vpp - 1) * c;
  std::string out = "E" + layers(split.first_chunk_layers) + "|";
  const int middle = chunks - 2;
  if (middle == 1) out += layers(c) + "|";
  if (middle > 1) out += "(" + layers(c) + "|)*" + std::to_string(middle);
  out += layers(last) + std::string(std::max(0, mtp_layers), 'm') + "L";
  return out;
}

bool vpp_divides(const StageSplit& split, int vpp) {
  if (split.chunk_layers > 0) return vpp == split.layout_vpp;
  if (vpp <= 1) return true;
  if (split.units_per_stage > 0) return split.units_per_stage % vpp == 0;
  return split.first_layers % vpp == 0 && split.last_layers % vpp == 0 &&
         split.middle_layers % vpp == 0;
}

}  // namespace pplan
