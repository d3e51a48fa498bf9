#include "pplan/model/pipeline.h"

#include <algorithm>

namespace pplan {

double bubble_ratio(int pp, int vpp, double microbatches) {
  if (pp <= 1 || microbatches <= 0) return 0.0;
  return (pp - 1) / (double(vpp) * microbatches);
}

double bubble_fraction(int pp, int vpp, double microbatches) {
  if (pp <= 1 || microbatches <= 0) return 0.0;
  return (pp - 1.0) / (double(vpp) * microbatches + pp - 1.0);
}

}  // namespace pplan
