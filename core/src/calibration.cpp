#include "pplan/calibration.h"

#include <string_view>

namespace pplan {

const ArchitectureCalibration& architecture_calibration(const Calibration& calibration,
                                                        const char* architecture) {
  const std::string_view a = architecture;
  if (a == "ampere") return calibration.ampere;
  if (a == "blackwell") return calibration.blackwell;
  return calibration.hopper;
}

}  // namespace pplan
