// pplan_accuracy: how close pplan comes to the published and measured runs in tests/data/.
//   pplan_accuracy [--data DIR] cases     every published figure beside pplan's (fitted, held out,
//                                         newer releases)
//   pplan_accuracy [--data DIR] summary   per metric, per source, Korthikanti Table 5, vTrain
//   pplan_accuracy [--data DIR] measured  every vTrain run beside pplan's step time
//   pplan_accuracy readme                 the accuracy section of docs/accuracy.md, as Markdown
//   pplan_accuracy readme-summary         its summary, the README's accuracy block
//   pplan_accuracy readme --write FILE... regenerates every generated block of each FILE
//   pplan_accuracy readme --check FILE... exit 1, saying so, when a block differs or a relative
//                                         link is missing (ctest ReadmeClaims: README.md, docs/)
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "accuracy.h"
#include "readme.h"
#include "readme_blocks.h"

namespace {

using namespace pplan::validation;

void print_cases(const std::vector<CaseRun>& runs) {
  std::printf("%-50s %-24s %10s %10s %8s  %-4s %s\n", "case", "metric", "published", "pplan", "error",
              "fits", "tags");
  for (const CaseRun& r : runs) {
    for (const Figure& f : r.figures) {
      const bool primary = f.metric == r.primary;
      std::printf("%-50s %c%-23s %10.4g %10.4g %8s  %-4s %s\n", r.id.c_str(), primary ? '*' : ' ',
                  f.metric.c_str(), f.published, f.predicted.value_or(0),
                  f.predicted ? signed_pct(*f.predicted / f.published - 1).c_str() : "-",
                  r.fits ? "yes" : "NO", r.tags.c_str());
    }
  }
}

void print_summary(const PublishedScore& s) {
  std::printf("%-24s %5s %7s %7s %7s %6s %6s %6s %8s\n", "metric", "cases", "median", "mean", "bias",
              "<=10%", "<=15%", "<=20%", "Spearman");
  auto row = [](const std::string& name, const ErrorStats& e) {
    std::printf("%-24s %5d %7s %7s %7s %6s %6s %6s %8s\n", name.c_str(), e.cases, pct(e.median).c_str(),
                pct(e.mean).c_str(), pct(e.bias).c_str(), pct(e.within10).c_str(),
                pct(e.within15).c_str(), pct(e.within20).c_str(), fixed(e.spearman, 2).c_str());
  };
  for (const auto& [metric, e] : s.per_metric) row(metric, e);
  row("primary (one per case)", s.primary);
  std::printf("\nprimary figure by source\n");
  for (const auto& [group, e] : s.per_group) row(group, e);
  std::printf("\nefficiency rank correlation %.2f; one MFU for every case (%.3f, best in hindsight) "
              "leaves a median error of %s; judged to fit %d/%d, without a plan %d\n",
              s.efficiency_spearman, s.constant_mfu, pct(s.constant_mfu_median).c_str(), s.fits,
              s.cases, s.without_plan);
}

void print_korthikanti(const std::vector<CaseRun>& runs) {
  double sum = 0, worst = 0;
  int n = 0;
  for (const CaseRun& r : runs) {
    if (r.group.rfind("Korthikanti", 0) != 0) continue;
    for (const Figure& f : r.figures) {
      if (f.metric != "iteration_time_s" || !f.predicted) continue;
      const double e = std::fabs(*f.predicted / f.published - 1);
      sum += e;
      worst = std::max(worst, e);
      ++n;
      std::printf("  %-36s %8.2f s published, %8.2f s pplan (%s)\n", r.id.c_str(), f.published,
                  *f.predicted, signed_pct(*f.predicted / f.published - 1).c_str());
    }
  }
  std::printf("Korthikanti 2022 Table 5 iteration time: mean error %s, max %s over %d runs\n",
              pct(n ? sum / n : 0).c_str(), pct(worst).c_str(), n);
}

void print_measured(const MeasuredScore& m) {
  std::printf("vTrain single node (%d runs): mean error %s, bias %s (+ = pplan slower), median %s, "
              "within 10%% %s, fit %d\n",
              m.cases, pct(m.mean).c_str(), signed_pct(m.bias).c_str(), pct(m.median).c_str(),
              pct(m.within10).c_str(), m.fits);
}

}  // namespace

int main(int argc, char** argv) {
  std::string data = PPLAN_DATA_DIR;
  std::string command = "summary";
  std::vector<std::string> write_paths, check_paths;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--data" && i + 1 < argc) {
      data = argv[++i];
    } else if (arg == "--write" && i + 1 < argc) {
      write_paths.push_back(argv[++i]);
    } else if (arg == "--check" && i + 1 < argc) {
      check_paths.push_back(argv[++i]);
    } else {
      command = arg;
    }
  }
  try {
    if (command == "readme") {
      if (!write_paths.empty()) return write_readme(write_paths, data);
      if (!check_paths.empty()) return check_readme(check_paths, data);
      std::fputs(accuracy_markdown(data).c_str(), stdout);
      return 0;
    }
    if (command == "readme-summary") {
      std::fputs(accuracy_summary_markdown(accuracy_inputs(data)).c_str(), stdout);
      return 0;
    }
    const auto published = nlohmann::json::parse(read_file_text(data + "/published-runs.json"));
    const std::vector<CaseRun> runs = run_published(published);
    // Newer releases' runs: a file without held_out groups, so all of it is CaseSet::kFitted.
    auto newer = [&] {
      return run_published(prepare_published(
          nlohmann::json::parse(read_file_text(data + "/published-runs-newer.json"))));
    };
    if (command == "cases") {
      print_cases(runs);
      std::printf("\nheld out (never fitted):\n");
      print_cases(run_published(prepare_published(published, CaseSet::kHeldOut)));
      std::printf("\nnewer releases (never fitted, outside the goal set):\n");
      print_cases(newer());
      return 0;
    }
    if (command == "measured") {
      const auto measured = nlohmann::json::parse(read_file_text(data + "/vtrain-single-node.json"));
      for (const MeasuredRun& r : run_measured(measured)) {
        std::printf("%-22s %9.4f s measured %9.4f s pplan %8s\n", r.id.c_str(), r.measured_s,
                    r.predicted_s, signed_pct(r.predicted_s / r.measured_s - 1).c_str());
      }
      return 0;
    }
    print_summary(score_published(runs));
    std::printf("\nheld out (never fitted):\n");
    print_summary(score_published(run_published(prepare_published(published, CaseSet::kHeldOut))));
    std::printf("\nnewer releases (never fitted, outside the goal set):\n");
    print_summary(score_published(newer()));
    std::printf("\n");
    print_korthikanti(runs);
    const auto measured = nlohmann::json::parse(read_file_text(data + "/vtrain-single-node.json"));
    print_measured(score_measured(run_measured(measured)));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pplan_accuracy: %s\n", e.what());
    return 1;
  }
  return 0;
}
