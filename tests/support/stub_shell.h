#pragma once
// Test helper: runs a generated bash script with PATH holding only logging stubs, so every
// external command the script would execute is recorded instead of run. cat, head and awk
// log and then do their real work (the scripts write their configs with `cat > f <<EOF`).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "scenario_files.h"

namespace pplan::testing {

/// Commands a hijacked script might call, and the launchers a launch script does call.
inline const std::vector<std::string>& stubbed_commands() {
  static const std::vector<std::string> commands = {
      "torchrun", "srun",     "sbatch", "scontrol", "python", "python3", "deepspeed", "nvidia-smi",
      "touch",    "rm",       "curl",   "wget",     "sh",     "bash",    "dash",      "zsh",
      "cat",      "head",     "tail",   "awk",      "sed",    "grep",    "hostname",  "mkdir",
      "cp",       "mv",       "chmod",  "ln",       "nc",     "ssh",     "scp",       "env",
      "id",       "whoami",   "tee",    "ls",       "date",   "sleep",   "kill",      "perl",
      "ruby",     "node",     "base64", "xargs",    "dd",     "openssl", "git",       "pip",
      "uname",    "printenv", "echo",   "printf",   "true",   "false"};
  return commands;
}

struct StubRun {
  int exit_code = -1;
  std::vector<std::vector<std::string>> calls;  ///< argv of every stub call, argv[0] = name
  std::string work_dir;                         ///< the script's working directory
  std::string stderr_text;
};

/// Directory of stubs, created once per process.
inline const std::string& stub_bin_dir(const std::string& root) {
  static const std::string dir = [&root] {
    namespace fs = std::filesystem;
    const std::string bin = root + "/pplan_stubs_" + std::to_string(::getpid());
    fs::create_directories(bin);
    for (const std::string& name : stubbed_commands()) {
      std::string real;
      if (name == "cat") real = "/bin/cat";
      if (name == "head") real = fs::exists("/usr/bin/head") ? "/usr/bin/head" : "/bin/head";
      if (name == "awk") real = fs::exists("/usr/bin/awk") ? "/usr/bin/awk" : "/bin/awk";
      std::ofstream stub(bin + "/" + name, std::ios::binary);
      // One write per call: the commands of a pipeline log at the same time.
      stub << "#!/bin/bash\n"
              "rec=\"${0##*/}\"; for a in \"$@\"; do rec+=$'\\037'\"$a\"; done\n"
              "printf '%s\\036' \"$rec\" >> \"$PPLAN_STUB_LOG\"\n";
      if (!real.empty()) stub << "exec " << real << " \"$@\"\n";
      stub.close();
      fs::permissions(bin + "/" + name, fs::perms::owner_all | fs::perms::group_read |
                                            fs::perms::group_exec | fs::perms::others_read |
                                            fs::perms::others_exec);
    }
    return bin;
  }();
  return dir;
}

/// Runs `script` with bash in a fresh directory under `root`, with only the stubs on PATH.
inline StubRun run_under_stubs(const std::string& script, const std::string& root) {
  namespace fs = std::filesystem;
  static int counter = 0;
  const std::string bin = stub_bin_dir(root);
  const std::string dir =
      root + "/pplan_run_" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
  fs::remove_all(dir);
  fs::create_directories(dir + "/work");
  std::ofstream(dir + "/script.sh", std::ios::binary) << script;
  const std::string command = "cd '" + dir + "/work' && env -i PATH='" + bin + "' HOME='" + dir +
                              "/work' PPLAN_STUB_LOG='" + dir +
                              "/log' SLURM_JOB_NODELIST='node[1-2]' SLURM_JOB_ID=4242 "
                              "SLURM_CPUS_PER_TASK=64 TORCHTITAN_DIR='" +
                              dir + "/work' /bin/bash '" + dir + "/script.sh' > '" + dir +
                              "/out' 2> '" + dir + "/err'";
  StubRun run;
  const int status = std::system(command.c_str());
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.work_dir = dir + "/work";
  run.stderr_text = read_text(dir + "/err");
  const std::string log = read_text(dir + "/log");
  std::vector<std::string> argv;
  std::string word;
  for (char c : log) {
    if (c == '\037' || c == '\036') {
      argv.push_back(word);
      word.clear();
      if (c == '\036') {
        run.calls.push_back(argv);
        argv.clear();
      }
    } else {
      word += c;
    }
  }
  return run;
}

}  // namespace pplan::testing
