// pplan_calibrate: fits the time model's fitted constants over the public runs in tests/data/.
//   pplan_calibrate fit            print the fitted constants beside the committed ones
//   pplan_calibrate fit --write    write them into core/presets/calibration/calibration.json
//   pplan_calibrate loso           leave-one-source-out: each source predicted by the fit without it,
//                                  vTrain's measured runs too
// The fit starts from fixed points (calibrate.h fit_anchor), never from the committed values:
// what it writes is what ctest's rerun finds.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "calibrate.h"
#include "readme.h"
#include "pplan/io/json_io.h"

namespace {

using namespace pplan;
using namespace pplan::validation;

/// 4 significant digits: the constants are not known better, and the file stays readable.
double rounded(double x) {
  if (x == 0) return 0;
  const double scale = std::pow(10.0, 3 - std::floor(std::log10(std::fabs(x))));
  return std::round(x * scale) / scale;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string data = PPLAN_DATA_DIR;
  const std::string calibration_path = PPLAN_CALIBRATION_FILE;
  const std::string command = argc > 1 ? argv[1] : "fit";
  const bool write = argc > 2 && std::string(argv[2]) == "--write";
  try {
    const auto published = prepare_published(nlohmann::json::parse(read_file_text(data + "/published-runs.json")));
    const auto measured = prepare_measured(nlohmann::json::parse(read_file_text(data + "/vtrain-single-node.json")));
    const nlohmann::ordered_json document = nlohmann::ordered_json::parse(read_file_text(calibration_path));
    const Calibration committed = parse_calibration(nlohmann::json::parse(read_file_text(calibration_path)), calibration_path);
    if (command == "fit") {
      std::vector<FitStart> starts;
      Calibration fitted = fit_from_starts(published, measured, committed, &starts);
      for (const FitStart& start : starts) {
        std::printf("start %.2f x anchor: objective %.6f\n", start.multiple, start.objective);
      }
      std::printf("committed: objective %.6f; kept: objective %.6f\n",
                  calibration_objective(published, measured, committed),
                  calibration_objective(published, measured, fitted));
      for (const FittedConstant& f : fitted_constants()) *f.get(fitted) = rounded(*f.get(fitted));
      fitted.ampere.attention_in_step = fitted.blackwell.attention_in_step = fitted.hopper.attention_in_step;
      Calibration copy = committed;
      for (const FittedConstant& f : fitted_constants()) {
        std::printf("%-24s committed %-10.4g fitted %-10.4g\n", f.name, *f.get(copy), *f.get(fitted));
      }
      if (write) {
        std::ofstream out(calibration_path, std::ios::binary);
        out << calibration_to_json(fitted, document).dump(2) << "\n";
        std::printf("wrote %s\n", calibration_path.c_str());
      }
      return 0;
    }
    if (command == "loso") {
      const std::vector<CaseRun> runs = leave_one_source_out(published, measured, committed);
      const PublishedScore s = score_published(runs);
      for (const auto& [group, e] : s.per_group) {
        std::printf("%-32s %3d cases  median %5.1f%%  mean %5.1f%%\n", group.c_str(), e.cases,
                    100 * e.median, 100 * e.mean);
      }
      std::printf("leave-one-source-out: median %.1f%%, within 15%% %.1f%%, efficiency rank %.2f\n",
                  100 * s.primary.median, 100 * s.primary.within15, s.efficiency_spearman);
      Calibration without;
      const MeasuredScore m = score_measured(measured_held_out(published, measured, committed, &without));
      std::printf("vTrain held out: mean %.1f%%, bias %+.1f%%, median %.1f%% (fit without it:",
                  100 * m.mean, 100 * m.bias, 100 * m.median);
      Calibration copy = committed;
      for (const FittedConstant& f : fitted_constants()) {
        std::printf(" %s %.4g -> %.4g", f.name, *f.get(copy), *f.get(without));
      }
      std::printf(")\n");
      return 0;
    }
    std::fprintf(stderr, "usage: pplan_calibrate fit [--write] | loso\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pplan_calibrate: %s\n", e.what());
    return 1;
  }
}
