// The framework rules: first_framework_problem() is what the search calls for every candidate,
// so it must agree with framework_problems() and with what the launch generators refuse, and
// it must not allocate. Operator new is counted in this test executable only.
#include "pplan/io/launch_json.h"
#include "pplan/framework/framework.h"
#include "pplan/framework/rules.h"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <regex>
#include <set>
#include <cstdlib>
#include <new>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "../support/scenario_files.h"
#include "pplan/launch/launch.h"
#include "pplan/model/estimate.h"

namespace {
std::atomic<long long> allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  ++allocations;
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  ++allocations;
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace {

using pplan::LaunchFramework;
using pplan::ParallelConfig;
using pplan::Scenario;

const std::vector<LaunchFramework> kFrameworks = {
    LaunchFramework::kMegatron, LaunchFramework::kTorchtitan, LaunchFramework::kTorchtitanToml,
    LaunchFramework::kDeepSpeed, LaunchFramework::kNemo};

std::vector<Scenario> scenarios() {
  std::vector<Scenario> out;
  for (const char* model :
       {"llama3-8b", "llama3-70b", "llama3-405b", "deepseek-v3", "mixtral-8x7b", "gpt3-175b"}) {
    for (const char* precision : {"bf16", "fp8"}) {
      for (const char* gpu : {"h100-sxm", "a100-80gb", "b200"}) {
        out.push_back(pplan::testing::scenario_from(
            std::string(R"({"schema_version": 1, "model": ")") + model +
            R"(", "cluster": {"gpu": ")" + gpu +
            R"(", "gpus": 64, "gpus_per_node": 8}, "training": {"seq_len": 4096, "global_batch": 256, "precision": ")" +
            precision + R"(", "overlap_grad_reduce": true}})"));
      }
    }
  }
  return out;
}

/// A random grid over the cluster (sometimes one that does not tile it).
ParallelConfig random_grid(std::mt19937& rng, const Scenario& s) {
  auto pick = [&rng](std::vector<int> v) { return v[rng() % v.size()]; };
  ParallelConfig p;
  p.tp = pick({1, 2, 4, 8, 16});
  p.pp = pick({1, 1, 2, 4, 8});
  p.cp = pick({1, 1, 2});
  p.dp = std::max(1, s.cluster.gpus / (p.tp * p.pp * p.cp));
  if (rng() % 10 == 0) p.dp += 1;
  p.ep = s.model.moe ? pick({1, 2, 4, 8}) : (rng() % 20 == 0 ? 2 : 1);
  p.vpp = pick({1, 1, 2, 3});
  p.micro_batch = pick({1, 2});
  p.sequence_parallel = p.tp > 1 && rng() % 3 != 0;
  p.recompute = static_cast<pplan::Recompute>(rng() % 3);
  p.zero = pick({0, 1, 2, 3});
  return p;
}

TEST(FrameworkRules, CheapCheckAgreesWithTheFullListAndTheGenerators) {
  std::mt19937 rng(13);
  int refused = 0, launched = 0;
  for (const Scenario& s : scenarios()) {
    for (int trial = 0; trial < 12; ++trial) {
      const ParallelConfig p = random_grid(rng, s);
      const pplan::Estimate plan = pplan::evaluate(s, p);
      for (LaunchFramework f : kFrameworks) {
        const std::vector<pplan::LaunchProblem> all = pplan::framework_problems(f, s, p);
        const char* first = pplan::first_framework_problem(f, s, p);
        if (all.empty()) {
          EXPECT_EQ(first, nullptr) << pplan::framework_name(f) << " " << first;
        } else {
          ASSERT_NE(first, nullptr) << pplan::framework_name(f);
          EXPECT_EQ(all.front().code, first);
          for (const auto& problem : all) EXPECT_FALSE(problem.message.empty()) << problem.code;
        }
        // The generator refuses exactly these problems.
        const nlohmann::ordered_json r = pplan::launch_response(
            s, plan, pplan::framework_name(f));  // the format of the same name
        if (all.empty()) {
          ++launched;
          EXPECT_FALSE(r.contains("problems")) << r["problems"].dump();
          EXPECT_FALSE(r["text"].get<std::string>().empty());
        } else {
          ++refused;
          ASSERT_TRUE(r.contains("problems"));
          ASSERT_EQ(r["problems"].size(), all.size());
          for (std::size_t i = 0; i < all.size(); ++i)
            EXPECT_EQ(r["problems"][i]["code"], all[i].code);
        }
      }
    }
  }
  EXPECT_GT(launched, 100);
  EXPECT_GT(refused, 100);
}

TEST(FrameworkRules, CheapCheckDoesNotAllocate) {
  std::mt19937 rng(7);
  const std::vector<Scenario> all = scenarios();
  std::vector<ParallelConfig> grids;
  std::vector<const Scenario*> owners;
  for (const Scenario& s : all) {
    for (int i = 0; i < 20; ++i) {
      ParallelConfig p = random_grid(rng, s);
      // The search hands over only grids whose layers split (split_layers explains an invalid
      // split in a string).
      if (!pplan::split_layers(s.model.layers, p.pp).valid) continue;
      grids.push_back(p);
      owners.push_back(&s);
    }
  }
  ASSERT_GT(grids.size(), 500u);
  int found = 0;
  const long long before = allocations.load();
  for (std::size_t i = 0; i < grids.size(); ++i) {
    for (LaunchFramework f : kFrameworks)
      found += pplan::first_framework_problem(f, *owners[i], grids[i]) != nullptr;
  }
  EXPECT_EQ(allocations.load() - before, 0);
  EXPECT_GT(found, 0);
  // The counter counts: the full list with its messages allocates.
  const long long control = allocations.load();
  EXPECT_FALSE(
      pplan::framework_problems(LaunchFramework::kTorchtitan, *owners[0], grids[0]).empty() &&
      allocations.load() == control);
}

// NVIDIA's FP8 recipes keep FP8 weights (Megatron-Bridge mixed_precision.py: every FP8 preset
// sets fp8_param_gather = True), which Megatron allows only with the distributed optimizer; the
// other frameworks have no such switch; the scenario's own value always wins.
TEST(FrameworkRules, FP8WeightsAreMegatronCoresDefaultWhereMegatronAllowsThem) {
  const auto training = [](const char* framework, const char* precision, const char* keep) {
    return pplan::testing::scenario_from(std::string(R"({"model": "llama3-8b", "cluster": {"gpu": "h100-sxm", "gpus": 8},
        "training": {"seq_len": 4096, "global_batch": 64, "precision": ")") + precision +
                                         R"(", "framework": ")" + framework + "\"" + keep + "}}")
        .training;
  };
  EXPECT_FALSE(pplan::keeps_fp8_params(training("megatron-core", "fp8", ""), 0));
  EXPECT_TRUE(pplan::keeps_fp8_params(training("megatron-core", "fp8", ""), 1));
  EXPECT_TRUE(pplan::keeps_fp8_params(training("megatron-core", "fp8", ""), 3));
  EXPECT_FALSE(pplan::keeps_fp8_params(training("megatron-core", "fp8", R"(, "fp8_param_gather": false)"), 1));
  EXPECT_TRUE(pplan::keeps_fp8_params(training("megatron-lm", "fp8", R"(, "fp8_param_gather": true)"), 1));
  EXPECT_FALSE(pplan::keeps_fp8_params(training("megatron-lm", "fp8", ""), 1));
  EXPECT_FALSE(pplan::keeps_fp8_params(training("torchtitan", "fp8", ""), 1));
  EXPECT_FALSE(pplan::keeps_fp8_params(training("deepspeed", "fp8", ""), 1));
  EXPECT_FALSE(pplan::keeps_fp8_params(training("megatron-core", "bf16", ""), 1));
}

TEST(FrameworkRules, NamesAndOrder) {
  EXPECT_STREQ(pplan::framework_name(LaunchFramework::kTorchtitanToml), "torchtitan-toml");
  // The grid comes first: a grid that does not tile the cluster says so before anything else.
  Scenario s = pplan::testing::scenario_from(
      R"({"schema_version": 1, "model": "llama3-8b", "cluster": {"gpu": "a100-80gb", "gpus": 64},
          "training": {"seq_len": 4096, "global_batch": 257, "precision": "fp8"}})");
  ParallelConfig p;
  p.tp = 2;
  p.dp = 16;
  for (LaunchFramework f : kFrameworks) {
    EXPECT_STREQ(pplan::first_framework_problem(f, s, p), "launch.world_size_mismatch")
        << pplan::framework_name(f);
  }
  p.dp = 32;  // tiles; now the batch (257 is odd) and FP8 on Ampere
  const auto problems = pplan::framework_problems(LaunchFramework::kMegatron, s, p);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].code, "megatron.batch_not_divisible");
  EXPECT_EQ(problems[1].code, "megatron.fp8_unsupported");
}

}  // namespace

TEST(FrameworkRules, EveryProblemCodeNamesItsSource) {
  // Every code the rules can report (each "<prefix>.<name>" literal in rules.cpp) names the
  // framework's own source line, "<Project> <8-hex commit> <path>:<line>", or says it is
  // pplan's own rule ("pplan: why"). A new rule without a row here fails.
  std::ifstream file(std::string(PPLAN_SOURCE_DIR) + "/core/src/framework/rules.cpp");
  ASSERT_TRUE(file.good());
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const std::regex code_literal("\"((megatron|torchtitan|deepspeed|launch|nemo)\\.[a-z0-9_]+)\"");
  const std::regex cited(
      "(Megatron-LM|torchtitan|DeepSpeed|Megatron-DeepSpeed|NeMo|NeMo-Run|TransformerEngine) "
      "[0-9a-f]{8} [^ ]+:[0-9]+");
  std::set<std::string> codes;
  for (std::sregex_iterator it(text.begin(), text.end(), code_literal), end; it != end; ++it)
    codes.insert((*it)[1].str());
  EXPECT_GT(codes.size(), 60u);
  int own = 0;
  for (const std::string& code : codes) {
    const std::string source(pplan::problem_source(code));
    if (source.rfind("pplan: ", 0) == 0) {
      ++own;
      continue;
    }
    EXPECT_TRUE(std::regex_match(source, cited)) << code << " cites " << source;
  }
  // pplan's own: the three "priced for another framework" rules, DeepSpeed's missing TP
  // overlap, Megatron-DeepSpeed's missing module list, torchtitan's and Megatron-DeepSpeed's
  // missing FP8 store of SwiGLU's input and FP8 attention, Megatron-DeepSpeed's missing FP8
  // parameters and activation offload, NeMo 2.0's missing NVFP4 plugin, which have no line to
  // point at.
  EXPECT_EQ(own, 12);
  EXPECT_TRUE(pplan::problem_source("megatron.no_such_rule").empty());
}
