// Launch configurations. The oracle is independent of the generator:
// - every Megatron command is parsed back from the generated bash and checked against the
//   flag table dumped from Megatron-LM's own parser (tests/data/megatron-flags.tsv, dumped from
//   Megatron-LM d98e8a64): every flag exists, takes a value iff it should, every choice is valid,
//   no flag twice;
// - the parsed arguments are re-validated with the constraints Megatron's validate_args and
//   TransformerConfig enforce (Megatron-LM d98e8a64 megatron/training/arguments.py validate_args),
//   written out here again;
// - world size, node count and batch arithmetic are read back from every format and must agree;
// - golden files for the examples (UPDATE_GOLDEN=1 regenerates them; review the diff).
#include "pplan/launch/launch.h"

#include <gtest/gtest.h>

#include "../support/golden.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../support/launch_requests.h"
#include "../support/stub_shell.h"
#include "pplan/io/api.h"

namespace {

using nlohmann::json;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

json launch(const json& scenario, const std::string& format) {
  return pplan::testing::launch_request(scenario, format);
}

// ---------------------------------------------------------------------------------------
// The Megatron flag table.

struct FlagInfo {
  std::string dest;
  bool takes_value = true;
  std::vector<std::string> choices;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::vector<std::string> parse_choices(const std::string& text) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  std::smatch m;
  std::regex pattern;
  if (text.find('<') != std::string::npos) {
    pattern = std::regex(R"(<\w+\.(\w+):)");  // [<AttnBackend.flash: 1>, ...]
  } else if (text.find('\'') != std::string::npos) {
    pattern = std::regex(R"('([^']*)')");
  } else {
    pattern = std::regex(R"((-?\d+))");
  }
  for (auto it = std::sregex_iterator(text.begin(), text.end(), pattern);
       it != std::sregex_iterator(); ++it) {
    out.push_back((*it)[1]);
  }
  return out;
}

const std::map<std::string, FlagInfo>& flag_table() {
  static const std::map<std::string, FlagInfo> table = [] {
    std::map<std::string, FlagInfo> t;
    std::istringstream in(read_file(std::string(PPLAN_DATA_DIR) + "/megatron-flags.tsv"));
    std::string line;
    std::getline(in, line);  // header: group flags dest action default choices
    while (std::getline(in, line)) {
      const std::vector<std::string> cols = split(line, '\t');
      if (cols.size() < 6) continue;
      FlagInfo info;
      info.dest = cols[2];
      const std::string& action = cols[3];
      // store_true ("True"), store_false ("False"), BooleanOptional and help take no value.
      info.takes_value = action.empty();
      info.choices = parse_choices(cols[5]);
      for (std::string name : split(cols[1], '/')) {
        name.erase(0, name.find_first_not_of(' '));
        name.erase(name.find_last_not_of(' ') + 1);
        if (!name.empty()) t[name] = info;
      }
    }
    return t;
  }();
  return table;
}

TEST(MegatronFlagTable, LoadsTheSnapshotParser) {
  const auto& t = flag_table();
  EXPECT_GT(t.size(), 800u);
  ASSERT_TRUE(t.count("--recompute-granularity"));
  EXPECT_EQ(t.at("--recompute-granularity").choices,
            (std::vector<std::string>{"full", "selective"}));
  ASSERT_TRUE(t.count("--attention-backend"));
  EXPECT_EQ(t.at("--attention-backend").choices.size(), 5u);
  EXPECT_FALSE(t.at("--sequence-parallel").takes_value);
  EXPECT_FALSE(t.at("--disable-bias-linear").takes_value);
  EXPECT_TRUE(t.at("--num-layers").takes_value);
}

// ---------------------------------------------------------------------------------------
// Reading the generated bash back.

/// Shell words of one line: comments (outside quotes) dropped, quotes removed.
std::vector<std::string> shell_words(const std::string& line) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        cur += c;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      in_word = true;
      continue;
    }
    if (c == '#' && !in_word) break;
    if (c == ' ' || c == '\t' || c == '\\') {
      if (in_word) words.push_back(cur);
      cur.clear();
      in_word = false;
      continue;
    }
    cur += c;
    in_word = true;
  }
  if (in_word) words.push_back(cur);
  return words;
}

std::vector<std::string> lines_of(const std::string& text) { return split(text, '\n'); }

/// NAME=( ... ) arrays of a script, as shell words.
std::map<std::string, std::vector<std::string>> bash_arrays(const std::string& text) {
  std::map<std::string, std::vector<std::string>> arrays;
  const std::regex open(R"(^([A-Z_]+)=\($)");
  std::string current;
  for (const std::string& line : lines_of(text)) {
    std::smatch m;
    if (current.empty() && std::regex_match(line, m, open)) {
      current = m[1];
      arrays[current];
      continue;
    }
    if (!current.empty()) {
      if (line == ")") {
        current.clear();
        continue;
      }
      for (const std::string& w : shell_words(line)) arrays[current].push_back(w);
    }
  }
  return arrays;
}

/// The pretrain_gpt.py arguments: the arrays referenced on the (uncommented) launch line.
std::vector<std::string> megatron_arguments(const std::string& text) {
  const auto arrays = bash_arrays(text);
  const std::vector<std::string> lines = lines_of(text);
  std::vector<std::string> args;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("#", 0) == 0 || lines[i].find("pretrain_gpt.py") == std::string::npos)
      continue;
    std::string command = lines[i];
    std::size_t j = i;
    while (!lines[j].empty() && lines[j].back() == '\\' && j + 1 < lines.size())
      command += "\n" + lines[++j];
    const std::string after = command.substr(command.find("pretrain_gpt.py"));
    const std::regex ref(R"(\$\{([A-Z_]+)\[@\]\})");
    for (auto it = std::sregex_iterator(after.begin(), after.end(), ref);
         it != std::sregex_iterator(); ++it) {
      const auto found = arrays.find((*it)[1]);
      EXPECT_NE(found, arrays.end()) << "array " << (*it)[1] << " is referenced but not defined";
      if (found != arrays.end())
        args.insert(args.end(), found->second.begin(), found->second.end());
    }
    return args;
  }
  ADD_FAILURE() << "no pretrain_gpt.py launch line";
  return args;
}

using ArgMap = std::map<std::string, std::vector<std::string>>;

/// Parses argv against the flag table; records failures. Returns flag -> values.
ArgMap parse_against_table(const std::vector<std::string>& argv, const std::string& context) {
  const auto& table = flag_table();
  ArgMap args;
  std::set<std::string> dests;
  for (std::size_t i = 0; i < argv.size();) {
    const std::string& flag = argv[i];
    EXPECT_EQ(flag.rfind("--", 0), 0u) << context << ": stray value " << flag;
    std::vector<std::string> values;
    std::size_t j = i + 1;
    while (j < argv.size() && argv[j].rfind("--", 0) != 0) values.push_back(argv[j++]);
    i = j;
    const auto info = table.find(flag);
    if (info == table.end()) {
      ADD_FAILURE() << context << ": " << flag << " is not a Megatron-LM flag";
      continue;
    }
    EXPECT_TRUE(args.count(flag) == 0) << context << ": " << flag << " given twice";
    EXPECT_TRUE(dests.insert(info->second.dest).second)
        << context << ": " << flag << " sets " << info->second.dest << " twice";
    if (info->second.takes_value) {
      EXPECT_FALSE(values.empty()) << context << ": " << flag << " needs a value";
    } else {
      EXPECT_TRUE(values.empty()) << context << ": " << flag << " takes no value";
    }
    for (const std::string& v : values) {
      if (info->second.choices.empty()) continue;
      const auto& c = info->second.choices;
      EXPECT_NE(std::find(c.begin(), c.end(), v), c.end())
          << context << ": " << flag << " " << v << " is not a valid choice";
    }
    args[flag] = values;
  }
  return args;
}

long long int_arg(const ArgMap& a, const std::string& flag, long long fallback) {
  const auto it = a.find(flag);
  if (it == a.end() || it->second.empty()) return fallback;
  return std::stoll(it->second[0]);
}

bool has(const ArgMap& a, const std::string& flag) { return a.count(flag) > 0; }

/// Megatron's --pipeline-model-parallel-layout, unrolled as its parser does (Megatron-LM
/// core_v0.16.0 pipeline_parallel_layer_layout.py parse_str_to_list: commas dropped, "(x)*n" then
/// "c*n" repeated, chunks split on "|"): one string of E/t/m/L per chunk.
std::vector<std::string> layout_chunks(std::string text) {
  text = std::regex_replace(text, std::regex(","), "");
  for (const std::regex& pattern : {std::regex(R"(\(([^)]+)\)\*(\d+))"), std::regex(R"((.)\*(\d+))")}) {
    std::smatch match;
    while (std::regex_search(text, match, pattern)) {
      std::string repeated;
      for (int i = 0; i < std::stoi(match[2]); ++i) repeated += match[1].str();
      text = match.prefix().str() + repeated + match.suffix().str();
    }
  }
  std::vector<std::string> chunks(1);
  for (char c : text) {
    if (c == '|') chunks.emplace_back();
    else chunks.back() += c;
  }
  return chunks;
}

/// What the test knows about a scenario independently of the engine.
struct Expected {
  long long gpus = 0;
  int gpus_per_node = 8;
  int global_batch = 0;
  int seq_len = 0;
  std::string architecture;
  std::string gpu_id;
};

std::string architecture_of(const std::string& gpu_id) {
  if (gpu_id.rfind("a100", 0) == 0) return "ampere";
  if (gpu_id == "b200") return "blackwell";
  return "hopper";  // h100-sxm, h200 and custom GPUs (json_io's default)
}

/// Megatron's validate_args / TransformerConfig rules (Megatron-LM d98e8a64 validate_args), applied
/// to the parsed command and the torchrun world. Written independently of core/src/launch/*.cpp.
void expect_megatron_accepts(const ArgMap& a, const ArgMap& torchrun, const std::string& script,
                             const Expected& x, const std::string& context) {
  SCOPED_TRACE(context);
  const long long world =
      int_arg(torchrun, "--nproc_per_node", 0) * int_arg(torchrun, "--nnodes", 0);
  EXPECT_EQ(world, x.gpus);
  const long long tp = int_arg(a, "--tensor-model-parallel-size", 1);
  const long long pp = int_arg(a, "--pipeline-model-parallel-size", 1);
  const long long cp = int_arg(a, "--context-parallel-size", 1);
  const long long ep = int_arg(a, "--expert-model-parallel-size", 1);
  ASSERT_EQ(world % (tp * pp * cp), 0);  // §1.3.1
  const long long dp = world / (tp * pp * cp);
  const long long mbs = int_arg(a, "--micro-batch-size", 0);
  const long long gbs = int_arg(a, "--global-batch-size", 0);
  EXPECT_EQ(gbs, x.global_batch);
  ASSERT_GT(mbs, 0);
  EXPECT_EQ(gbs % (mbs * dp), 0);  // §1.3.4
  const long long m = gbs / (mbs * dp);
  const long long layers = int_arg(a, "--num-layers", 0);
  const long long heads = int_arg(a, "--num-attention-heads", 0);
  EXPECT_EQ(heads % tp, 0);  // §1.3.8
  if (has(a, "--group-query-attention")) {
    const long long g = int_arg(a, "--num-query-groups", 1);
    EXPECT_TRUE(g % tp == 0 || tp % g == 0);
  }
  EXPECT_EQ(int_arg(a, "--hidden-size", 0) % heads, 0);
  // §1.3.5 / 1.3.6: layers vs pipeline.
  const long long counted = layers + (has(a, "--account-for-embedding-in-pipeline-split") ? 1 : 0) +
                            (has(a, "--account-for-loss-in-pipeline-split") ? 1 : 0);
  const bool first = has(a, "--decoder-first-pipeline-num-layers");
  const bool last = has(a, "--decoder-last-pipeline-num-layers");
  const int vp_forms = has(a, "--num-layers-per-virtual-pipeline-stage") +
                       has(a, "--num-virtual-stages-per-pipeline-rank") +
                       has(a, "--pipeline-model-parallel-layout");
  EXPECT_LE(vp_forms, 1);
  long long vp = 1;
  const bool layout = has(a, "--pipeline-model-parallel-layout");
  if (layout) {
    // transformer_config.py: no other split flag beside it; validate_layer_layout: E first, L last,
    // each once, every decoder layer and MTP layer once, the MTP in a rank's last chunk.
    EXPECT_FALSE(first || last || has(a, "--account-for-embedding-in-pipeline-split") ||
                 has(a, "--account-for-loss-in-pipeline-split"));
    const std::vector<std::string> chunks = layout_chunks(a.at("--pipeline-model-parallel-layout").at(0));
    ASSERT_EQ(chunks.size() % pp, 0u);
    vp = static_cast<long long>(chunks.size()) / pp;
    std::string flat;
    for (const std::string& c : chunks) flat += c;
    EXPECT_EQ(flat.front(), 'E');
    EXPECT_EQ(flat.back(), 'L');
    EXPECT_EQ(std::count(flat.begin(), flat.end(), 'E'), 1);
    EXPECT_EQ(std::count(flat.begin(), flat.end(), 'L'), 1);
    EXPECT_EQ(std::count(flat.begin(), flat.end(), 't'), layers);
    EXPECT_EQ(std::count(flat.begin(), flat.end(), 'm'), int_arg(a, "--mtp-num-layers", 0));
    for (std::size_t i = 0; i + pp < chunks.size(); ++i) EXPECT_EQ(chunks[i].find('m'), std::string::npos);
  } else if (has(a, "--num-layers-per-virtual-pipeline-stage")) {
    EXPECT_FALSE(first || last) << "uneven PP + VP needs --num-virtual-stages-per-pipeline-rank";
    EXPECT_EQ(counted % pp, 0);
    const long long per_stage = counted / pp;
    const long long n = int_arg(a, "--num-layers-per-virtual-pipeline-stage", 1);
    EXPECT_EQ(per_stage % n, 0);
    vp = per_stage / n;
  } else if (has(a, "--num-virtual-stages-per-pipeline-rank")) {
    vp = int_arg(a, "--num-virtual-stages-per-pipeline-rank", 1);
  }
  if (first || last) {
    EXPECT_FALSE(has(a, "--account-for-embedding-in-pipeline-split") ||
                 has(a, "--account-for-loss-in-pipeline-split"));
    long long rest = layers;
    long long middle = pp;
    for (const char* flag :
         {"--decoder-first-pipeline-num-layers", "--decoder-last-pipeline-num-layers"}) {
      if (!has(a, flag)) continue;
      const long long n = int_arg(a, flag, 0);
      EXPECT_GT(n, 0);
      if (vp > 1) EXPECT_EQ(n % vp, 0) << flag;
      rest -= n;
      middle -= 1;
    }
    EXPECT_EQ(rest != 0, middle != 0) << rest << " middle layers on " << middle << " stages";
    if (middle > 0) {
      EXPECT_EQ(rest % middle, 0);
      if (vp > 1) EXPECT_EQ((rest / middle) % vp, 0);
    }
  } else if (!layout) {
    EXPECT_EQ(counted % pp, 0) << counted << " layers (with embedding/loss) over pp " << pp;
    if (vp > 1 && counted % pp == 0) EXPECT_EQ((counted / pp) % vp, 0);
  }
  if (vp > 1) {  // §1.3.7
    EXPECT_GT(pp, 1);
    EXPECT_GE(m, pp);
    EXPECT_EQ(m % pp, 0);
  }
  const long long seq = int_arg(a, "--seq-length", 0);
  EXPECT_EQ(seq, x.seq_len);
  if (cp > 1) EXPECT_EQ(seq % (2 * cp), 0);                    // §1.3.9
  EXPECT_GE(int_arg(a, "--max-position-embeddings", 0), seq);  // §1.3.16
  if (has(a, "--sequence-parallel")) EXPECT_GT(tp, 1);         // §1.3.10 (no silent no-op)
  if (has(a, "--tp-comm-overlap")) EXPECT_TRUE(has(a, "--sequence-parallel"));  // §1.3.11
  const bool dist_opt = has(a, "--use-distributed-optimizer");
  const bool fsdp = has(a, "--use-megatron-fsdp");
  if (has(a, "--overlap-param-gather")) {  // §1.3.13
    EXPECT_TRUE(dist_opt || fsdp);
    EXPECT_TRUE(has(a, "--overlap-grad-reduce"));
  }
  if (has(a, "--fp8-param-gather")) EXPECT_TRUE(dist_opt || fsdp);  // §1.3.14
  EXPECT_FALSE(has(a, "--fp16") && has(a, "--bf16"));
  if (has(a, "--fp8-format")) EXPECT_NE(x.architecture, "ampere");
  const auto gran = a.find("--recompute-granularity");  // §1.3.15
  if (gran != a.end() && gran->second.at(0) == "full") {
    EXPECT_TRUE(has(a, "--recompute-method"));
    EXPECT_TRUE(has(a, "--recompute-num-layers"));
  } else {
    EXPECT_FALSE(has(a, "--recompute-method"));
    EXPECT_FALSE(has(a, "--recompute-num-layers"));
  }
  if (fsdp) {
    ASSERT_TRUE(has(a, "--ckpt-format"));
    EXPECT_EQ(a.at("--ckpt-format").at(0), "fsdp_dtensor");
  }
  if (ep > 1) {  // §1.3.2, §1.3.3
    ASSERT_TRUE(has(a, "--num-experts"));
    EXPECT_EQ(int_arg(a, "--num-experts", 0) % ep, 0);
    const long long etp = int_arg(a, "--expert-tensor-parallel-size", tp);
    EXPECT_EQ(world % (etp * ep * pp), 0);
  }
  // §1.3.12: CUDA_DEVICE_MAX_CONNECTIONS.
  const bool exports_one =
      script.find("\nexport CUDA_DEVICE_MAX_CONNECTIONS=1 ") != std::string::npos;
  if (fsdp) {
    EXPECT_FALSE(exports_one) << "Megatron-FSDP asserts CUDA_DEVICE_MAX_CONNECTIONS != 1";
  } else if ((tp > 1 || cp > 1) && x.architecture != "blackwell") {
    EXPECT_TRUE(exports_one) << "TP/CP before Blackwell needs CUDA_DEVICE_MAX_CONNECTIONS=1";
  }
}

// ---------------------------------------------------------------------------------------
// Reading numbers back from the other formats.

long long find_int(const std::string& text, const std::string& pattern) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(pattern))) {
    ADD_FAILURE() << "pattern not found: " << pattern;
    return -1;
  }
  return std::stoll(m[1]);
}

/// World, nodes and batch read back from every format must agree with the scenario.
/// `scenario` as `format`'s own framework prices it: torchtitan and DeepSpeed refuse a plan
/// priced for Megatron (launch.*.priced_for_another_framework), so the random plans are priced
/// again for them with that framework's default switches.
json priced_for_format(json scenario, const std::string& format) {
  const char* framework = format.rfind("torchtitan", 0) == 0 ? "torchtitan"
                          : format == "deepspeed"            ? "deepspeed"
                                                             : nullptr;
  if (framework == nullptr) return scenario;
  scenario["training"]["framework"] = framework;
  scenario["training"].erase("overlap_grad_reduce");
  scenario["training"].erase("overlap_param_gather");
  return scenario;
}

void expect_formats_agree(const json& scenario, const Expected& x, long long tp, long long pp,
                          long long cp, long long mbs) {
  const long long nodes = x.gpus > x.gpus_per_node ? x.gpus / x.gpus_per_node : 1;
  const long long per_node = x.gpus > x.gpus_per_node ? x.gpus_per_node : x.gpus;
  const long long dp = x.gpus / (tp * pp * cp);
  const long long m = x.global_batch / (mbs * dp);
  const long long tokens = 1LL * x.global_batch * x.seq_len;

  const std::string slurm = launch(scenario, "slurm")["text"];
  EXPECT_EQ(find_int(slurm, R"(#SBATCH --nodes=(\d+))"), nodes);
  EXPECT_EQ(find_int(slurm, R"(#SBATCH --gpus-per-node=(\d+))"), per_node);
  EXPECT_EQ(find_int(slurm, R"(torchrun --nnodes (\d+))"), nodes);
  EXPECT_EQ(find_int(slurm, R"(--nproc_per_node (\d+))"), per_node);
  const std::string megatron = launch(scenario, "megatron")["text"];
  EXPECT_EQ(parse_against_table(megatron_arguments(slurm), "slurm"),
            parse_against_table(megatron_arguments(megatron), "megatron"));

  const json titan_response = launch(priced_for_format(scenario, "torchtitan"), "torchtitan");
  if (!titan_response.contains("problems")) {
    const std::string titan = titan_response["text"];
    EXPECT_EQ(find_int(titan, R"(--nnodes (\d+))"), nodes);
    EXPECT_EQ(find_int(titan, R"(--nproc_per_node (\d+))"), per_node);
    const long long rep = find_int(titan, R"(data_parallel_replicate_degree = (\d+))");
    const long long shard = find_int(titan, R"(data_parallel_shard_degree = (\d+))");
    EXPECT_EQ(rep * shard * find_int(titan, R"(tensor_parallel_degree = (\d+))") *
                  find_int(titan, R"(pipeline_parallel_degree = (\d+))") *
                  find_int(titan, R"(context_parallel_degree = (\d+))"),
              x.gpus);
    EXPECT_EQ(find_int(titan, R"(num_tokens_per_train_step = (\d+))"), tokens);
    EXPECT_EQ(find_int(titan, R"(num_tokens_per_microbatch_per_dp_rank = (\d+))"), mbs * x.seq_len);
    if (pp > 1)
      EXPECT_EQ(find_int(titan, R"(num_pp_microbatches = (\d+))") * mbs * rep * shard,
                x.global_batch);
  }
  const json toml_response = launch(priced_for_format(scenario, "torchtitan-toml"), "torchtitan-toml");
  if (!toml_response.contains("problems")) {
    const std::string toml = toml_response["text"];
    const long long trep = find_int(toml, R"(data_parallel_replicate_degree = (\d+))");
    const long long tshard = find_int(toml, R"(data_parallel_shard_degree = (\d+))");
    EXPECT_EQ(trep * tshard * find_int(toml, R"(\ntensor_parallel_degree = (\d+))") *
                  find_int(toml, R"(\npipeline_parallel_degree = (\d+))") *
                  find_int(toml, R"(\ncontext_parallel_degree = (\d+))"),
              x.gpus);
    EXPECT_EQ(find_int(toml, R"(global_batch_size = (\d+))"), x.global_batch);
    EXPECT_EQ(find_int(toml, R"(seq_len = (\d+))"), x.seq_len);
    const long long local = find_int(toml, R"(local_batch_size = (\d+))");
    if (pp > 1) {
      EXPECT_EQ(local * trep * tshard, x.global_batch);
      EXPECT_EQ(local % find_int(toml, R"(pipeline_parallel_microbatch_size = (\d+))"), 0);
    } else {
      EXPECT_EQ(x.global_batch % (local * trep * tshard), 0);
    }
    EXPECT_EQ(find_int(toml, R"(--nnodes (\d+))"), nodes);
  }

  const json ds_response = launch(priced_for_format(scenario, "deepspeed"), "deepspeed");
  if (!ds_response.contains("problems")) {
    const std::string ds = ds_response["text"];
    const std::string marker = "<<'PPLAN_EOF'\n";
    const std::size_t open = ds.find(marker);
    const std::size_t close = ds.find("\nPPLAN_EOF\n", open);
    ASSERT_NE(open, std::string::npos);
    const json config = json::parse(ds.substr(open + marker.size(), close - open - marker.size()));
    EXPECT_EQ(config["train_batch_size"].get<long long>(), x.global_batch);
    EXPECT_EQ(config["train_micro_batch_size_per_gpu"].get<long long>() *
                  config["gradient_accumulation_steps"].get<long long>() * (x.gpus / (tp * pp)),
              x.global_batch);  // DeepSpeed's _batch_assertion; DP = world/(tp·pp) (no CP there)
    EXPECT_EQ(find_int(ds, R"(--nnodes (\d+))"), nodes);
    EXPECT_EQ(find_int(ds, R"(--nproc_per_node (\d+))"), per_node);
    EXPECT_EQ(find_int(ds, R"(--global-batch-size (\d+))"), x.global_batch);
  }

  const std::string nemo = launch(scenario, "nemo")["text"];
  EXPECT_EQ(find_int(nemo, R"(num_nodes=(\d+))"), nodes);
  EXPECT_EQ(find_int(nemo, R"(num_gpus_per_node=(\d+))"), per_node);
  EXPECT_EQ(find_int(nemo, R"(global_batch_size = (\d+))"), x.global_batch);
  const long long nemo_mbs = find_int(nemo, R"(micro_batch_size = (\d+))");
  const long long nemo_dp = x.gpus / (find_int(nemo, R"(tensor_model_parallel_size = (\d+))") *
                                      find_int(nemo, R"(pipeline_model_parallel_size = (\d+))") *
                                      find_int(nemo, R"(context_parallel_size = (\d+))"));
  EXPECT_EQ(nemo_mbs * nemo_dp * m, x.global_batch);

  const json layout = launch(scenario, "layout")["layout"];
  EXPECT_EQ(layout["world_size"].get<long long>(), x.gpus);
  EXPECT_EQ(layout["nodes"].get<long long>(), nodes);
  const std::string nccl = launch(scenario, "nccl-tests")["text"];
  EXPECT_EQ(find_int(nccl, R"(salloc -N (\d+))"), nodes);
}

// ---------------------------------------------------------------------------------------
// Running the bash formats under logging stubs (tests/support/stub_shell.h).

/// The value after `flag` in `argv`, or -1.
long long argv_int(const std::vector<std::string>& argv, const std::string& flag) {
  for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == flag) return std::stoll(argv[i + 1]);
  }
  return -1;
}

/// Every bash format of `scenario` runs, calls only its launcher (and the rendezvous helpers
/// of SLURM, the `cat` that writes a config), and hands the launcher the priced sizes.
void expect_bash_formats_run_the_plan(const json& scenario, const Expected& x, long long tp,
                                      long long pp, long long cp, long long mbs, int* runs) {
  const std::string root = ::testing::TempDir() + "pplan_launch_stubs";
  std::filesystem::create_directories(root);
  const long long nodes = x.gpus > x.gpus_per_node ? x.gpus / x.gpus_per_node : 1;
  const long long per_node = x.gpus > x.gpus_per_node ? x.gpus_per_node : x.gpus;
  for (const std::string format :
       {"megatron", "slurm", "env", "torchtitan", "deepspeed", "nccl-tests"}) {
    SCOPED_TRACE(format);
    const json r = launch(priced_for_format(scenario, format), format);
    if (r.contains("problems")) continue;
    const pplan::testing::StubRun run = pplan::testing::run_under_stubs(r["text"], root);
    ++*runs;
    ASSERT_EQ(run.exit_code, 0) << run.stderr_text;
    std::vector<std::vector<std::string>> launches;
    for (const auto& call : run.calls) {
      const std::string& name = call[0];
      const bool launcher = (name == "torchrun" && format != "slurm" && format != "nccl-tests") ||
                            (name == "srun" && (format == "slurm" || format == "nccl-tests"));
      const bool helper =
          (format == "slurm" &&
           (name == "scontrol" || name == "head" || name == "awk" ||
            (name == "srun" && std::find(call.begin(), call.end(), "hostname") != call.end()))) ||
          ((format == "torchtitan" || format == "deepspeed") && name == "cat" && call.size() == 1);
      EXPECT_TRUE(launcher || helper) << format << " called " << name;
      if (launcher && !helper) launches.push_back(call);
    }
    if (format == "env") {
      EXPECT_TRUE(run.calls.empty());
      continue;
    }
    if (format == "nccl-tests") {
      for (const auto& call : launches) EXPECT_LE(argv_int(call, "-n"), x.gpus);
      continue;
    }
    ASSERT_EQ(launches.size(), 1u) << format;
    const std::vector<std::string>& argv = launches[0];
    EXPECT_EQ(argv_int(argv, "--nnodes"), nodes);
    EXPECT_EQ(argv_int(argv, "--nproc_per_node"), per_node);
    if (format == "torchtitan") {
      const std::string config = pplan::testing::read_text(run.work_dir + "/pplan_plan.py");
      EXPECT_EQ(find_int(config, R"(p\.tensor_parallel_degree = (\d+))"), tp);
      EXPECT_EQ(find_int(config, R"(p\.pipeline_parallel_degree = (\d+))"), pp);
      EXPECT_EQ(find_int(config, R"(p\.context_parallel_degree = (\d+))"), cp);
      EXPECT_EQ(find_int(config, R"(num_tokens_per_microbatch_per_dp_rank = (\d+))"),
                mbs * x.seq_len);
      continue;
    }
    EXPECT_EQ(argv_int(argv, "--tensor-model-parallel-size"), tp);
    EXPECT_EQ(argv_int(argv, "--pipeline-model-parallel-size"), pp);
    if (format != "deepspeed") EXPECT_EQ(argv_int(argv, "--context-parallel-size"), cp);
    EXPECT_EQ(argv_int(argv, "--micro-batch-size"), mbs);
    EXPECT_EQ(argv_int(argv, "--global-batch-size"), x.global_batch);
  }
}

// ---------------------------------------------------------------------------------------

json example(const std::string& name) { return pplan::testing::example_scenario(name); }

TEST(LaunchFormats, ListsEveryFormat) {
  EXPECT_EQ(pplan::launch_formats(),
            (std::vector<std::string>{"megatron", "slurm", "env", "torchtitan", "torchtitan-toml",
                                      "deepspeed", "nemo", "nccl-tests", "layout"}));
}

TEST(LaunchFormats, UnknownFormatIsABadOption) {
  const json r = launch(example("gpt3-175b-1024-a100"), "megatronn");
  EXPECT_FALSE(r["ok"].get<bool>());
  EXPECT_EQ(r["error"]["code"], "request.bad_option");
  EXPECT_EQ(r["error"]["path"], "/format");
}

TEST(MegatronLaunch, MethodExampleCommandParsesAndHasThePlansFlags) {
  const json r = launch(example("gpt3-175b-1024-a100"), "megatron");
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  const std::string text = r["text"];
  const ArgMap a = parse_against_table(megatron_arguments(text), "gpt3");
  // the method's worked example (examples/gpt3-175b-1024-a100.json): t = 8, p = 8, N = 16, b = 1, B = 1536, SP +
  // selective.
  EXPECT_EQ(a.at("--tensor-model-parallel-size"), std::vector<std::string>{"8"});
  EXPECT_EQ(a.at("--pipeline-model-parallel-size"), std::vector<std::string>{"8"});
  EXPECT_EQ(a.at("--global-batch-size"), std::vector<std::string>{"1536"});
  EXPECT_EQ(a.at("--micro-batch-size"), std::vector<std::string>{"1"});
  EXPECT_TRUE(has(a, "--sequence-parallel"));
  EXPECT_EQ(a.at("--recompute-granularity"), std::vector<std::string>{"selective"});
  EXPECT_EQ(a.at("--num-layers"), std::vector<std::string>{"96"});
  EXPECT_EQ(a.at("--hidden-size"), std::vector<std::string>{"12288"});
  EXPECT_FALSE(has(a, "--swiglu"));  // GPT-3: GeLU, learned positions, tied embeddings, biases
  EXPECT_FALSE(has(a, "--untie-embeddings-and-output-weights"));
  EXPECT_FALSE(has(a, "--disable-bias-linear"));
  EXPECT_FALSE(has(a, "--use-distributed-optimizer"));  // ZeRO 0
  const ArgMap torchrun = parse_against_table({}, "none");
  Expected x{1024, 8, 1536, 2048, "ampere", "a100-80gb"};
  const auto arrays = bash_arrays(text);
  ArgMap dist;
  const auto& d = arrays.at("DISTRIBUTED_ARGS");
  for (std::size_t i = 0; i + 1 < d.size(); i += 2) dist[d[i]] = {d[i + 1]};
  EXPECT_EQ(dist.at("--nnodes"), std::vector<std::string>{"128"});  // 1024 / 8
  expect_megatron_accepts(a, dist, text, x, "gpt3");
  (void)torchrun;
}

TEST(MegatronLaunch, LlamaStyleGqaInterleavedFp8) {
  const json r = launch(example("launch-llama3-70b-64-h100-fp8"), "megatron");
  ASSERT_TRUE(r["ok"].get<bool>());
  const ArgMap a = parse_against_table(megatron_arguments(r["text"]), "llama70b");
  EXPECT_TRUE(has(a, "--group-query-attention"));
  EXPECT_EQ(a.at("--num-query-groups"), std::vector<std::string>{"8"});
  EXPECT_TRUE(has(a, "--swiglu"));
  EXPECT_EQ(a.at("--normalization"), std::vector<std::string>{"RMSNorm"});
  EXPECT_EQ(a.at("--position-embedding-type"), std::vector<std::string>{"rope"});
  EXPECT_TRUE(has(a, "--untie-embeddings-and-output-weights"));
  EXPECT_TRUE(has(a, "--disable-bias-linear"));
  // 80 layers / pp 8 = 10 per rank; vpp 5 -> 2 layers per virtual stage.
  EXPECT_EQ(a.at("--num-layers-per-virtual-pipeline-stage"), std::vector<std::string>{"2"});
  EXPECT_TRUE(has(a, "--use-distributed-optimizer"));
  EXPECT_TRUE(has(a, "--overlap-param-gather"));
  EXPECT_EQ(a.at("--fp8-format"), std::vector<std::string>{"hybrid"});
}

TEST(MegatronLaunch, MoeUnevenPipeline) {
  const json r = launch(example("launch-deepseek-v3-1024-h100"), "megatron");
  ASSERT_TRUE(r["ok"].get<bool>());
  const ArgMap a = parse_against_table(megatron_arguments(r["text"]), "deepseek");
  EXPECT_EQ(a.at("--num-experts"), std::vector<std::string>{"256"});
  EXPECT_EQ(a.at("--moe-router-topk"), std::vector<std::string>{"8"});
  EXPECT_EQ(a.at("--expert-model-parallel-size"), std::vector<std::string>{"32"});
  EXPECT_EQ(a.at("--moe-layer-freq"), std::vector<std::string>{"([0]*3+[1]*58)"});
  EXPECT_EQ(a.at("--moe-shared-expert-intermediate-size"), std::vector<std::string>{"2048"});
  // 61 layers over 16 stages: first + last + 14·4 = 61.
  const long long f = int_arg(a, "--decoder-first-pipeline-num-layers", 0);
  const long long l = int_arg(a, "--decoder-last-pipeline-num-layers", 0);
  EXPECT_EQ((61 - f - l) % 14, 0);
  EXPECT_EQ(a.at("--recompute-granularity"), std::vector<std::string>{"full"});
}

// gpt-oss's gated MLP is Megatron's quick GeGLU, gate·sigmoid(1.702·gate), times (up + 1), both
// clamped at 7 (Megatron-Bridge gpt_oss_bridge.py sets activation_func quick_gelu,
// glu_linear_offset 1.0, activation_func_clamp_value 7.0), not --swiglu.
TEST(MegatronLaunch, GptOssClampedSwigluIsQuickGegluWithOffsetAndClamp) {
  const json s = {{"schema_version", 1},
                  {"model", "gpt-oss-120b"},
                  {"cluster", {{"gpu", "h100-sxm"}, {"gpus", 64}}},
                  {"training", {{"seq_len", 4096}, {"global_batch", 1280}, {"framework", "megatron-lm"}}},
                  {"parallel", {{"tp", 1}, {"pp", 4}, {"dp", 16}, {"ep", 8}, {"micro_batch", 1}, {"zero", 1}}}};
  const json r = launch(s, "megatron");
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  ASSERT_FALSE(r.contains("problems")) << r["problems"].dump();
  const ArgMap a = parse_against_table(megatron_arguments(r["text"]), "gpt-oss");
  EXPECT_TRUE(has(a, "--quick-geglu"));
  EXPECT_FALSE(has(a, "--swiglu"));
  EXPECT_EQ(a.at("--glu-linear-offset"), std::vector<std::string>{"1.0"});
  EXPECT_EQ(a.at("--activation-func-clamp-value"), std::vector<std::string>{"7.0"});
  EXPECT_EQ(a.at("--softmax-type"), std::vector<std::string>{"learnable"});
  // Megatron-DeepSpeed has no clamped SwiGLU: refused rather than launched as plain GeLU.
  json plain = s;
  plain["model"] = {{"name", "clamped"}, {"layers", 8}, {"hidden", 2048}, {"heads", 16}, {"kv_heads", 16},
                    {"ffn_hidden", 8192}, {"vocab", 32000}, {"activation", "clamped_swiglu"},
                    {"learned_positions", true}};
  plain["training"]["framework"] = "deepspeed";
  plain["parallel"] = {{"tp", 1}, {"pp", 1}, {"dp", 64}, {"micro_batch", 1}, {"zero", 1}};
  const json refused = launch(plain, "deepspeed");
  ASSERT_TRUE(refused.contains("problems")) << refused.dump().substr(0, 400);
  EXPECT_EQ(refused["problems"][0]["code"], "deepspeed.model_feature");
  EXPECT_NE(refused["problems"][0]["message"].get<std::string>().find("clamped SwiGLU"), std::string::npos);
}

TEST(MegatronLaunch, DeepSeekV3InterleavedRunsMegatronsPipelineLayout) {
  // 61 layers on pp 4 with vpp 4: no even split, so the chunks of 4 layers Megatron-Bridge's
  // DeepSeek-V3 recipes run (recipes/deepseek/h100/deepseek_v3.py (4, 4): embedding + 4, 14 × 4,
  // 1 + loss), written as one --pipeline-model-parallel-layout that sets the vpp itself.
  json s = {{"schema_version", 1},
            {"model", "deepseek-v3"},
            {"cluster", {{"gpu", "gb200"}, {"gpus", 256}, {"gpus_per_node", 4}, {"nvlink_domain_gpus", 72}}},
            {"training", {{"seq_len", 4096}, {"global_batch", 4096}, {"precision", "fp8"}, {"framework", "megatron-core"}}},
            {"parallel", {{"tp", 1}, {"pp", 4}, {"vpp", 4}, {"dp", 64}, {"ep", 64}, {"micro_batch", 1}, {"zero", 1}}}};
  const json r = launch(s, "megatron");
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 600);
  ASSERT_FALSE(r.contains("problems")) << r["problems"].dump();
  const ArgMap a = parse_against_table(megatron_arguments(r["text"]), "dsv3 layout");
  EXPECT_EQ(a.at("--pipeline-model-parallel-layout"), std::vector<std::string>{"Et*4|(t*4|)*14tL"});
  EXPECT_FALSE(has(a, "--num-layers-per-virtual-pipeline-stage"));
  EXPECT_FALSE(has(a, "--num-virtual-stages-per-pipeline-rank"));
  EXPECT_FALSE(has(a, "--decoder-first-pipeline-num-layers"));
  // NeMo carries the same layout to Megatron-Core through its strategy.
  const json nemo = launch(s, "nemo");
  ASSERT_TRUE(nemo["ok"].get<bool>());
  EXPECT_NE(nemo["text"].get<std::string>().find("pipeline_model_parallel_layout = \"Et*4|(t*4|)*14tL\""),
            std::string::npos);
}

TEST(MegatronLaunch, ZeroThreeIsMegatronFsdpAndUnsetsMaxConnections) {
  const json r = launch(example("launch-llama3-8b-8-b200-fsdp"), "megatron");
  ASSERT_TRUE(r["ok"].get<bool>());
  const std::string text = r["text"];
  const ArgMap a = parse_against_table(megatron_arguments(text), "fsdp");
  EXPECT_TRUE(has(a, "--use-megatron-fsdp"));
  EXPECT_EQ(a.at("--data-parallel-sharding-strategy"),
            std::vector<std::string>{"optim_grads_params"});
  EXPECT_EQ(a.at("--ckpt-format"), std::vector<std::string>{"fsdp_dtensor"});
  EXPECT_NE(text.find("\nunset CUDA_DEVICE_MAX_CONNECTIONS"), std::string::npos);
}

TEST(MegatronLaunch, AccountForEmbeddingAndLossLikeLlama3) {
  // 126 layers over pp 16: (126 + 2) / 16 = 8 units per stage (Llama 3 §3.3.2).
  json s = example("launch-llama3-70b-64-h100-fp8");
  s["model"] = "llama3-405b";
  s["cluster"] = {{"gpu", "h100-sxm"}, {"gpus", 16384}, {"gpus_per_node", 8}};
  s["training"] = {{"seq_len", 8192}, {"global_batch", 2048}, {"precision", "bf16"}};
  s["parallel"] = {{"tp", 8},  {"pp", 16},         {"dp", 128},           {"cp", 1},
                   {"vpp", 2}, {"micro_batch", 1}, {"recompute", "none"}, {"zero", 1}};
  const json r = launch(s, "megatron");
  ASSERT_TRUE(r["ok"].get<bool>());
  ASSERT_FALSE(r.contains("problems")) << r["problems"].dump();
  const ArgMap a = parse_against_table(megatron_arguments(r["text"]), "405b");
  EXPECT_TRUE(has(a, "--account-for-embedding-in-pipeline-split"));
  EXPECT_TRUE(has(a, "--account-for-loss-in-pipeline-split"));
  EXPECT_EQ(a.at("--num-layers-per-virtual-pipeline-stage"), std::vector<std::string>{"4"});
  EXPECT_FALSE(has(a, "--decoder-first-pipeline-num-layers"));
}

TEST(MegatronLaunch, UnevenStagesWithVirtualStagesUseStagesPerRank) {
  // 64 layers, pp 4, first = last = 14 -> middle stages 18 each; vpp 2 divides 14 and 18.
  json s = example("launch-llama3-8b-8-b200-fsdp");
  s["model"] = {{"name", "custom 64-layer"},
                {"layers", 64},
                {"hidden", 4096},
                {"heads", 32},
                {"kv_heads", 8},
                {"ffn_hidden", 14336},
                {"vocab", 128256},
                {"activation", "swiglu"}};
  s["cluster"]["gpus"] = 32;
  s["training"]["global_batch"] = 64;
  s["parallel"] = {{"tp", 8},
                   {"pp", 4},
                   {"dp", 1},
                   {"cp", 1},
                   {"vpp", 2},
                   {"micro_batch", 1},
                   {"first_stage_layers", 14},
                   {"last_stage_layers", 14},
                   {"zero", 1}};
  const json r = launch(s, "megatron");
  ASSERT_FALSE(r.contains("problems")) << r["problems"].dump();
  const ArgMap a = parse_against_table(megatron_arguments(r["text"]), "uneven-vp");
  EXPECT_EQ(a.at("--decoder-first-pipeline-num-layers"), std::vector<std::string>{"14"});
  EXPECT_EQ(a.at("--decoder-last-pipeline-num-layers"), std::vector<std::string>{"14"});
  EXPECT_EQ(a.at("--num-virtual-stages-per-pipeline-rank"), std::vector<std::string>{"2"});
  EXPECT_FALSE(has(a, "--num-layers-per-virtual-pipeline-stage"));
  // A custom model has no torchtitan config: refused there (how torchtitan expresses uneven
  // virtual stages for a preset: launch_frameworks_test.cpp
  // UnevenVirtualStagesAreExpressedExactly).
  s["training"]["framework"] = "torchtitan";  // priced as torchtitan runs it
  const json t = launch(s, "torchtitan");
  ASSERT_TRUE(t.contains("problems"));
  EXPECT_EQ(t["problems"][0]["code"], "torchtitan.no_model");
}

TEST(MegatronLaunch, ConstraintViolationsGiveProblemsAndNoCommand) {
  json s = example("gpt3-175b-1024-a100");
  s["training"]["global_batch"] = 1537;  // not a multiple of micro_batch·dp = 16
  const json r = launch(s, "megatron");
  ASSERT_TRUE(r["ok"].get<bool>());
  EXPECT_EQ(r["text"], "");
  ASSERT_TRUE(r.contains("problems"));
  EXPECT_EQ(r["problems"][0]["code"], "megatron.batch_not_divisible");

  json fp8 = example("gpt3-175b-1024-a100");
  fp8["training"]["precision"] = "fp8";  // A100 has no FP8
  const json rf = launch(fp8, "slurm");
  ASSERT_TRUE(rf.contains("problems"));
  EXPECT_EQ(rf["text"], "");

  json vpp = example("gpt3-175b-1024-a100");
  vpp["parallel"]["vpp"] = 5;  // 12 layers per stage are not divisible by 5
  const json rv = launch(vpp, "megatron");
  ASSERT_TRUE(rv.contains("problems"));
  EXPECT_EQ(rv["problems"][0]["code"], "megatron.vpp_not_divisible");
}

TEST(MegatronLaunch, OpenScenarioLaunchesTheSearchsBestPlan) {
  const json s = {{"schema_version", 1},
                  {"model", "llama3-8b"},
                  {"cluster", {{"gpu", "h100-sxm"}, {"gpus", 16}, {"gpus_per_node", 8}}},
                  {"training", {{"seq_len", 8192}, {"global_batch", 64}, {"precision", "bf16"}}}};
  const json r = launch(s, "megatron");
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  ASSERT_FALSE(r.contains("problems")) << r["problems"].dump();
  const json plans = json::parse(
      pplan::handle_request(json({{"command", "plan"}, {"scenario", s}, {"top", 1}}).dump()));
  const json& best = plans["plans"][0]["parallel"];
  EXPECT_EQ(r["plan"]["parallel"], best);
  const ArgMap a = parse_against_table(megatron_arguments(r["text"]), "open");
  EXPECT_EQ(int_arg(a, "--tensor-model-parallel-size", 0), best["tp"].get<int>());
  EXPECT_EQ(int_arg(a, "--pipeline-model-parallel-size", 0), best["pp"].get<int>());
  EXPECT_EQ(int_arg(a, "--micro-batch-size", 0), best["micro_batch"].get<int>());
  EXPECT_EQ(has(a, "--use-distributed-optimizer"), best["zero"].get<int>() >= 1);
}

TEST(DeepSpeedLaunch, UsesOnlyMegatronDeepSpeedFlags) {
  // Flags of deepspeedai/Megatron-DeepSpeed 4efb479d megatron/arguments.py (checked one by one),
  // plus --deepspeed / --deepspeed_config from deepspeed.add_config_arguments (DeepSpeed edaa7221
  // deepspeed/launcher/runner.py; Megatron-DeepSpeed 4efb479d megatron/arguments.py).
  const std::set<std::string> known = {"--tensor-model-parallel-size",
                                       "--pipeline-model-parallel-size",
                                       "--sequence-parallel",
                                       "--num-layers",
                                       "--hidden-size",
                                       "--ffn-hidden-size",
                                       "--num-attention-heads",
                                       "--num-key-value-heads",
                                       "--seq-length",
                                       "--max-position-embeddings",
                                       "--use-rotary-position-embeddings",
                                       "--rotary-position-embeddings-theta",
                                       "--normalization",
                                       "--disable-bias-linear",
                                       "--swiglu",
                                       "--untie-embeddings-and-output-weights",
                                       "--hidden-dropout",
                                       "--attention-dropout",
                                       "--no-query-key-layer-scaling",
                                       "--micro-batch-size",
                                       "--global-batch-size",
                                       "--train-iters",
                                       "--recompute-granularity",
                                       "--recompute-method",
                                       "--recompute-num-layers",
                                       "--bf16",
                                       "--lr",
                                       "--min-lr",
                                       "--lr-decay-style",
                                       "--lr-warmup-fraction",
                                       "--weight-decay",
                                       "--clip-grad",
                                       "--adam-beta1",
                                       "--adam-beta2",
                                       "--data-path",
                                       "--data-impl",
                                       "--split",
                                       "--tokenizer-type",
                                       "--tokenizer-model",
                                       "--vocab-file",
                                       "--merge-file",
                                       "--log-interval",
                                       "--eval-interval",
                                       "--eval-iters",
                                       "--no-pipeline-parallel",
                                       "--zero-stage",
                                       "--deepspeed",
                                       "--deepspeed_config",
                                       "--use-flash-attn-v2",
                                       "--make-vocab-size-divisible-by",
                                       "--deepspeed-activation-checkpointing"};
  json llama = example("launch-llama3-8b-8-b200-fsdp");
  llama["parallel"]["cp"] = 1;
  llama["parallel"]["dp"] = 8;
  llama["parallel"]["zero"] = 1;
  llama["parallel"]["recompute"] = "full";
  json gpt3 = example("gpt3-175b-1024-a100");
  gpt3["parallel"]["zero"] = 1;  // DeepSpeed's pipeline engine runs ZeRO-0 + bf16 as ZeRO-1
  json piped = llama;            // full recompute with a pipeline: DeepSpeed's checkpointing
  piped["training"]["overlap_grad_reduce"] = false;
  piped["parallel"]["tp"] = 2;
  piped["parallel"]["pp"] = 2;
  piped["parallel"]["dp"] = 2;
  int checked = 0;
  for (json s : {gpt3, llama, piped}) {
    s["training"]["framework"] = "deepspeed";  // priced as Megatron-DeepSpeed runs it
    const json r = launch(s, "deepspeed");
    ASSERT_FALSE(r.contains("problems")) << r["problems"].dump();
    const std::string text = r["text"];
    const std::string command = text.substr(text.find("pretrain_gpt.py"));
    std::set<std::string> seen;
    for (const std::string& line : lines_of(command)) {
      for (const std::string& w : shell_words(line)) {
        if (w.rfind("--", 0) != 0) continue;
        EXPECT_TRUE(known.count(w)) << w << " is not a Megatron-DeepSpeed flag";
        EXPECT_TRUE(seen.insert(w).second) << w << " twice";
        ++checked;
      }
    }
    EXPECT_TRUE(seen.count("--zero-stage"));
  }
  EXPECT_GT(checked, 40);
}

TEST(LaunchScripts, ShellFormatsPassBashSyntaxCheck) {
  if (std::system("bash -c true > /dev/null 2>&1") != 0) GTEST_SKIP() << "no bash";
  const std::string path = ::testing::TempDir() + "pplan_launch_check.sh";
  for (const std::string& name : {"gpt3-175b-1024-a100", "launch-llama3-70b-64-h100-fp8",
                                  "launch-deepseek-v3-1024-h100", "launch-llama3-8b-8-b200-fsdp"}) {
    for (const std::string& format :
         {"megatron", "slurm", "env", "torchtitan", "deepspeed", "nccl-tests"}) {
      const json r = launch(example(name), format);
      if (r.contains("problems")) continue;
      std::ofstream(path, std::ios::binary) << r["text"].get<std::string>();
      EXPECT_EQ(std::system(("bash -n '" + path + "'").c_str()), 0) << name << " " << format;
    }
  }
}

TEST(EnvLaunch, MaxConnectionsFollowsArchitectureAndParallelism) {
  const std::string hopper = launch(example("launch-llama3-70b-64-h100-fp8"), "env")["text"];
  EXPECT_NE(hopper.find("export CUDA_DEVICE_MAX_CONNECTIONS=1 "), std::string::npos);
  EXPECT_NE(hopper.find("export NCCL_P2P_NET_CHUNKSIZE=2097152"), std::string::npos);  // pp > 1
  EXPECT_NE(hopper.find("NCCL_IB_HCA"), std::string::npos);
  const std::string fsdp = launch(example("launch-llama3-8b-8-b200-fsdp"), "env")["text"];
  EXPECT_EQ(fsdp.find("export CUDA_DEVICE_MAX_CONNECTIONS=1"), std::string::npos);
  EXPECT_EQ(fsdp.find("NCCL_P2P_NET_CHUNKSIZE"), std::string::npos);  // pp = 1
  EXPECT_EQ(fsdp.find("NCCL_IB_HCA"), std::string::npos);             // one node
  // Every line is a variable with a one-line reason, or a comment.
  for (const std::string& line : lines_of(fsdp)) {
    if (line.empty() || line[0] == '#') continue;
    EXPECT_NE(line.find("  # "), std::string::npos) << line;
  }
}

TEST(NcclTestsLaunch, MessageSizesFollowThePlan) {
  const std::string text = launch(example("gpt3-175b-1024-a100"), "nccl-tests")["text"];
  // TP with SP: b·s·h·2 = 1·2048·12288·2 = 50331648 bytes, groups of 8 in one node.
  EXPECT_NE(text.find("all_gather_perf\" -b 50331648 -e 50331648"), std::string::npos) << text;
  EXPECT_NE(text.find("reduce_scatter_perf\" -b 50331648"), std::string::npos);
  // PP: b·s·h·2/t = 6291456 bytes between neighbouring stages (stride 128 ranks = 16 nodes).
  EXPECT_NE(text.find("NCCL_TESTS_SPLIT=\"MOD 128\" srun -N 32 -n 256"), std::string::npos) << text;
  EXPECT_NE(text.find("sendrecv_perf\" -b 6291456"), std::string::npos);
  // DP (ZeRO 0): all-reduce across 16 nodes, one rank per node per group.
  EXPECT_NE(text.find("NCCL_TESTS_SPLIT=\"MOD 8\" srun -N 16 -n 128"), std::string::npos);
  EXPECT_NE(text.find("all_reduce_perf"), std::string::npos);
  EXPECT_NE(text.find("pplan assumes: busbw"), std::string::npos);
}

TEST(NcclTestsLaunch, CountsBeyond64BitIntegersArePrintedNotWrapped) {
  // 100,000 GeLU layers of width 2^22: 6·h²·L = 1.0555e19 dense parameters on one GPU, more
  // than a long long holds. The fuzzer found the derivation printing -9223372036854775808.
  const json scenario = json::parse(R"({
    "model": {"name": "huge", "layers": 100000, "hidden": 4194304, "heads": 65536, "kv_heads": 65536,
              "ffn_hidden": 4194304, "vocab": 1000, "activation": "gelu"},
    "cluster": {"gpu": "h100-sxm", "gpus": 2, "gpus_per_node": 8},
    "training": {"seq_len": 8, "global_batch": 2},
    "parallel": {"tp": 1, "pp": 1, "dp": 2, "cp": 1, "micro_batch": 1, "zero": 0, "recompute": "full"}})");
  const std::string text = launch(scenario, "nccl-tests")["text"];
  EXPECT_NE(text.find("size: 1.0555"), std::string::npos) << text;
  EXPECT_NE(text.find("e+19 dense parameters per GPU"), std::string::npos) << text;
  EXPECT_EQ(text.find("-92233"), std::string::npos) << text;
}

TEST(LaunchProperties, RandomPlansAreAcceptedByMegatronAndFormatsAgree) {
  std::mt19937 rng(5);  // issue #5
  auto pick = [&rng](std::vector<int> v) { return v[rng() % v.size()]; };
  const std::vector<std::string> models = {"gpt3-175b",   "llama3-8b",   "llama3-70b",
                                           "llama3-405b", "deepseek-v3", "megatron-1t",
                                           "custom"};
  const std::vector<std::string> gpus = {"a100-80gb", "h100-sxm", "h200", "b200"};
  int launched = 0, refused = 0, uneven = 0, interleaved = 0, moe = 0, overlapped = 0,
      stub_runs = 0;
  for (int trial = 0; trial < 300; ++trial) {
    json s;
    s["schema_version"] = 1;
    const std::string model = models[rng() % models.size()];
    int heads = 0, layers = 0, experts = 0;
    if (model == "custom") {
      layers = pick({12, 24, 30, 32, 36});
      heads = pick({16, 32, 48});
      s["model"] = {{"name", "custom"},
                    {"layers", layers},
                    {"hidden", heads * 128},
                    {"heads", heads},
                    {"kv_heads", pick({4, 8, heads})},
                    {"ffn_hidden", heads * 128 * 3},
                    {"vocab", 32000},
                    {"activation", pick({0, 1}) ? "swiglu" : "gelu"}};
    } else {
      s["model"] = model;
      heads = model == "gpt3-175b"     ? 96
              : model == "megatron-1t" ? 160
              : model == "llama3-8b"   ? 32
              : model == "llama3-70b"  ? 64
                                       : 128;
      experts = model == "deepseek-v3" ? 256 : 0;
    }
    const std::string gpu = gpus[rng() % gpus.size()];
    const int tp = pick({1, 2, 4, 8});
    const int pp = pick({1, 1, 2, 3, 4, 8, 16});
    const int cp = pick({1, 1, 1, 2, 4});
    const int dp = pick({1, 2, 4, 8, 16, 32});
    const int mbs = pick({1, 1, 2});
    const int vpp = pick({1, 1, 2, 3, 4, 5});
    int ep = 1;
    if (experts > 0) {
      do ep = pick({1, 2, 4, 8, 16});
      while ((dp * cp) % ep != 0);
    }
    // Usually a valid batch; sometimes an off-by-some batch to exercise the problems path.
    const int global_batch =
        mbs * dp * pick({1, 2, 4, 8, 16, 24, 32, 64}) + (rng() % 8 == 0 ? 1 : 0);
    const int seq = pick({2048, 4096, 8192});
    const int world = tp * pp * cp * dp;
    s["cluster"] = {{"gpu", gpu}, {"gpus", world}, {"gpus_per_node", 8}};
    // Either Megatron stack; DP overlap on or off as a whole (Megatron allows the weight gather
    // overlap only with the gradient one: megatron.param_gather_needs_grad_reduce).
    const bool overlap = pick({0, 1, 1}) == 1;
    s["training"] = {{"seq_len", seq},
                     {"global_batch", global_batch},
                     {"precision", pick({0, 0, 1}) ? "fp8" : "bf16"},
                     {"framework", pick({0, 1}) ? "megatron-core" : "megatron-lm"},
                     {"overlap_grad_reduce", overlap},
                     {"overlap_param_gather", overlap}};
    s["parallel"] = {
        {"tp", tp},
        {"pp", pp},
        {"dp", dp},
        {"cp", cp},
        {"ep", ep},
        {"vpp", vpp},
        {"micro_batch", mbs},
        {"sequence_parallel", tp > 1 && pick({0, 1, 1})},
        {"recompute", std::vector<std::string>{"none", "selective", "full"}[rng() % 3]},
        {"zero", pick({0, 1, 2, 3})}};
    if (pp > 2 &&
        rng() % 5 == 0) {  // pinned uneven stages: --decoder-first/last-pipeline-num-layers
      s["parallel"]["first_stage_layers"] = pick({1, 2, 3, 4});
      s["parallel"]["last_stage_layers"] = pick({1, 2, 3, 4});
    }
    if (world > 8 && world % 8 != 0) continue;  // not whole nodes: covered by launch.partial_node
    const std::string context = s.dump();
    SCOPED_TRACE(context);
    const json r = launch(s, "megatron");
    ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
    Expected x{world, 8, global_batch, seq, architecture_of(gpu), gpu};
    if (r.contains("problems")) {
      ++refused;
      EXPECT_EQ(r["text"], "");
      // Each refusal names a rule; the simple ones are re-checked here.
      for (const json& p : r["problems"]) {
        const std::string code = p["code"];
        if (code == "megatron.batch_not_divisible")
          EXPECT_NE(global_batch % (mbs * dp), 0);
        else if (code == "megatron.heads_not_divisible")
          EXPECT_NE(heads % tp, 0);
        else if (code == "megatron.cp_seq_not_divisible")
          EXPECT_NE(seq % (2 * cp), 0);
        else if (code == "megatron.fp8_unsupported")
          EXPECT_EQ(x.architecture, "ampere");
        else if (code == "megatron.vpp_needs_pp")
          EXPECT_EQ(pp, 1);
        else if (code == "megatron.cp_needs_te_attention")  // Megatron-LM on Ampere: unfused
          EXPECT_TRUE(cp > 1 && x.architecture == "ampere" &&
                      s["training"].value("framework", "") == "megatron-lm");
        else if (code == "megatron.vpp_microbatches") {
          const int m = global_batch / (mbs * dp);
          EXPECT_TRUE(m < pp || m % pp != 0);
        } else {
          EXPECT_TRUE(code == "megatron.layers_not_divisible" ||
                      code == "megatron.vpp_not_divisible" || code == "megatron.query_groups")
              << code;
        }
      }
      // The plan is refused in every Megatron-based format too.
      EXPECT_TRUE(launch(s, "slurm").contains("problems"));
      EXPECT_TRUE(launch(s, "nemo").contains("problems"));
      continue;
    }
    ++launched;
    // Valid batch and heads were not refused: the generator never turns down what Megatron accepts
    // on these simple rules.
    const std::string text = r["text"];
    const ArgMap a = parse_against_table(megatron_arguments(text), "random");
    const auto arrays = bash_arrays(text);
    ArgMap dist;
    const auto& d = arrays.at("DISTRIBUTED_ARGS");
    for (std::size_t i = 0; i + 1 < d.size(); i += 2) dist[d[i]] = {d[i + 1]};
    expect_megatron_accepts(a, dist, text, x, "random");
    uneven += has(a, "--decoder-first-pipeline-num-layers") ||
              has(a, "--account-for-embedding-in-pipeline-split");
    interleaved += has(a, "--num-layers-per-virtual-pipeline-stage") ||
                   has(a, "--num-virtual-stages-per-pipeline-rank");
    moe += has(a, "--num-experts");
    overlapped += has(a, "--overlap-param-gather");
    EXPECT_EQ(has(a, "--overlap-grad-reduce"),
              s["training"]["overlap_grad_reduce"].get<bool>() && dp * cp > 1);
    EXPECT_EQ(int_arg(a, "--tensor-model-parallel-size", 0), tp);
    EXPECT_EQ(int_arg(a, "--pipeline-model-parallel-size", 0), pp);
    EXPECT_EQ(int_arg(a, "--context-parallel-size", 0), cp);
    EXPECT_EQ(has(a, "--sequence-parallel"), s["parallel"]["sequence_parallel"].get<bool>());
    expect_formats_agree(s, x, tp, pp, cp, mbs);
    expect_bash_formats_run_the_plan(s, x, tp, pp, cp, mbs, &stub_runs);
  }
  // The generator exercised both paths.
  std::cout << "random plans: " << launched << " launched (" << uneven << " uneven pipelines, "
            << interleaved << " interleaved, " << moe << " MoE), " << refused << " refused; "
            << stub_runs << " bash scripts run under stubs\n";
  EXPECT_GT(uneven, 0);
  EXPECT_GT(interleaved, 0);
  EXPECT_GT(moe, 0);
  EXPECT_GT(overlapped, 0);
  EXPECT_GT(launched, 30);
  EXPECT_GT(refused, 10);
  EXPECT_GT(stub_runs,
            4 * launched);  // megatron, slurm, env, nccl-tests always; often DeepSpeed, torchtitan
}

// ---------------------------------------------------------------------------------------
// Golden files: tests/golden/launch/<example>.<format>.txt (layout: .json).

/// Numbers that follow the lead's calibration of the time model (bus bandwidths pplan
/// assumes, memory estimates) are masked, so golden files pin what a user would copy.
std::string mask_model_numbers(const std::string& text) {
  std::string out;
  const std::regex number(R"(\d+(\.\d+)?)");
  for (const std::string& line : lines_of(text)) {
    const bool model_line = line.find("pplan assumes") != std::string::npos ||
                            line.find("pplan prices") != std::string::npos ||
                            line.find("pplan estimates") != std::string::npos ||
                            line.find("GB/s per GPU (achievable") != std::string::npos;
    out += (model_line ? std::regex_replace(line, number, "N") : line) + "\n";
  }
  return out;
}

TEST(LaunchGolden, ExamplesMatchGoldenFiles) {
  const std::vector<std::string> examples = {"gpt3-175b-1024-a100", "launch-llama3-70b-64-h100-fp8",
                                             "launch-deepseek-v3-1024-h100",
                                             "launch-llama3-8b-8-b200-fsdp"};
  // Plans the other frameworks launch as priced for them (training.framework; torchtitan and
  // DeepSpeed refuse the examples above, priced for Megatron): Llama 3 70B, TP 8 x interleaved
  // PP 4 x FSDP 2 and DeepSeek-V3 with EP 8 and FSDP, FP8, in torchtitan; Llama 3 8B, TP 2 x
  // PP 2, ZeRO-1, in DeepSpeed. The Megatron formats refuse these three.
  std::map<std::string, json> scenarios;
  for (const std::string& name : examples) scenarios[name] = example(name);
  scenarios["inline-llama3-70b-64-h100-tp8-pp4-fsdp"] = {
      {"schema_version", 1},
      {"model", "llama3-70b"},
      {"cluster", {{"gpu", "h100-sxm"}, {"gpus", 64}, {"gpus_per_node", 8}}},
      {"training",
       {{"seq_len", 8192}, {"global_batch", 128}, {"precision", "bf16"}, {"framework", "torchtitan"}}},
      {"parallel",
       {{"tp", 8},
        {"pp", 4},
        {"dp", 2},
        {"cp", 1},
        {"vpp", 5},
        {"micro_batch", 1},
        {"sequence_parallel", true},
        {"recompute", "full"},
        {"zero", 3}}}};
  scenarios["inline-llama3-8b-16-h100-tp2-pp2-zero1"] = {
      // what DeepSpeed's pipeline engine runs
      {"schema_version", 1},
      {"model", "llama3-8b"},
      {"cluster", {{"gpu", "h100-sxm"}, {"gpus", 16}, {"gpus_per_node", 8}}},
      {"training",
       {{"seq_len", 8192}, {"global_batch", 64}, {"precision", "bf16"}, {"framework", "deepspeed"}}},
      {"parallel",
       {{"tp", 2},
        {"pp", 2},
        {"dp", 4},
        {"cp", 1},
        {"micro_batch", 1},
        {"sequence_parallel", true},
        {"recompute", "full"},
        {"zero", 1}}}};
  scenarios["inline-deepseek-v3-256-h100-ep8-fsdp-fp8"] = {
      {"schema_version", 1},
      {"model", "deepseek-v3"},
      {"cluster", {{"gpu", "h100-sxm"}, {"gpus", 256}, {"gpus_per_node", 8}}},
      {"training",
       {{"seq_len", 4096},
        {"global_batch", 512},
        {"precision", "fp8"},
        {"framework", "torchtitan"},
        {"fp8_recipe", "current"}}},
      {"parallel",
       {{"tp", 1},
        {"pp", 1},
        {"dp", 256},
        {"cp", 1},
        {"ep", 8},
        {"micro_batch", 1},
        {"recompute", "full"},
        {"zero", 3}}}};
  const bool update = pplan::testing::update_golden();
  const std::string dir = std::string(PPLAN_SOURCE_DIR) + "/tests/golden/launch/";
  int compared = 0;
  for (const auto& [name, scenario] : scenarios) {
    for (const std::string& format : pplan::launch_formats()) {
      const json r = launch(scenario, format);
      ASSERT_TRUE(r["ok"].get<bool>()) << name << " " << format;
      std::string actual;
      std::string path;
      if (format == "layout") {
        if (r["layout"]["world_size"].get<long long>() > 64) continue;  // small worlds only
        actual = r["layout"].dump(1) + "\n";
        path = dir + name + ".layout.json";
      } else if (r.contains("problems")) {
        actual = r["problems"].dump(2) + "\n";
        path = dir + name + "." + format + ".problems.json";
      } else {
        actual = r["text"].get<std::string>();
        path = dir + name + "." + format + ".txt";
      }
      if (update) {
        std::ofstream(path, std::ios::binary) << actual;
        continue;
      }
      const std::string expected = read_file(path);
      ASSERT_FALSE(expected.empty())
          << "missing golden file " << path << " (run with UPDATE_GOLDEN=1)";
      EXPECT_EQ(mask_model_numbers(actual), mask_model_numbers(expected))
          << path << "\n" << pplan::testing::golden_review(expected, actual) << "If the change is intended, regenerate with "
          << "UPDATE_GOLDEN=1 tests/pplan_tests_launch --gtest_filter=LaunchGolden* and review the "
             "diff.";
      ++compared;
    }
  }
  if (!update) EXPECT_GE(compared, 30);
}

}  // namespace
