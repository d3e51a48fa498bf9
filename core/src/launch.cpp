#include "pplan/launch.h"

#include "pplan/json_io.h"

namespace pplan {

std::vector<std::string> launch_formats() { return {}; }

nlohmann::ordered_json launch_response(const Scenario&, const Estimate&, const std::string& format) {
  throw InputError("request.bad_option", "/format",
                   "launch format \"" + format.substr(0, 40) + "\" is not available yet");
}

}  // namespace pplan
