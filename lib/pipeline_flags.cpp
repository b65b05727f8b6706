// waveopt's flags outside the command line: RegisterFlags (flags into one's
// own spvtools::Optimizer) and ParseOptionFlag (flags into Options, for the
// command line and the C API alike).
#include <cstdlib>

#include "lib/inline_loop_callees.h"
#include "passes/registry.h"
#include "waveopt/pipeline.h"

namespace waveopt {
namespace {

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool IsWaveoptPass(const std::string& name) {
  for (const PassInfo& p : RegisteredPasses()) {
    if (name == p.name) return true;
  }
  return false;
}

// "--name=params" → name, params (empty when there is no '=').
void SplitFlag(const std::string& flag, std::string* name, std::string* params) {
  *name = flag.substr(2);
  params->clear();
  const size_t eq = name->find('=');
  if (eq != std::string::npos) {
    *params = name->substr(eq + 1);
    name->resize(eq);
  }
}

// Whether SPIRV-Tools takes |flag| as a pass flag.
bool IsSpirvOptFlag(const std::string& flag) {
  spvtools::Optimizer probe(SPV_ENV_UNIVERSAL_1_6);
  probe.SetMessageConsumer(
      [](spv_message_level_t, const char*, const spv_position_t&, const char*) {});
  return probe.RegisterPassFromFlag(flag);
}

bool ParseSpecIdBase(const std::string& value, uint32_t* base) {
  char* end = nullptr;
  const unsigned long n = std::strtoul(value.c_str(), &end, 10);
  if (value.empty() || value[0] == '-' || *end != '\0' || n > 2147483000ul) return false;
  *base = static_cast<uint32_t>(n);
  return true;
}

bool ParseSubgroupSize(const std::string& value, uint32_t* size) {
  char* end = nullptr;
  const unsigned long n = std::strtoul(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || n == 0 || n > 128 || (n & (n - 1)) != 0) return false;
  *size = static_cast<uint32_t>(n);
  return true;
}

// "a, b, c": the registered passes' names, for error messages.
std::string PassNames() {
  std::string names;
  for (const PassInfo& p : RegisteredPasses())
    names += (names.empty() ? "" : ", ") + std::string(p.name);
  return names;
}

// --pass-params=<pass>:<params>. A wrong pass name is named as such, with
// the passes there are: the form is right, the name is not.
bool ParsePassParams(const std::string& v, Options* options, std::string* error) {
  const size_t colon = v.find(':');
  if (colon == std::string::npos || colon == 0) {
    *error = "--pass-params is <waveopt pass>:<parameters>, not '" + v + "'";
    return false;
  }
  const std::string name = v.substr(0, colon);
  if (!IsWaveoptPass(name)) {
    *error =
        "--pass-params: '" + name + "' is no waveopt pass (waveopt passes: " + PassNames() + ")";
    return false;
  }
  options->pass_params[name] = v.substr(colon + 1);
  return true;
}

// A decimal number from 1 to 2^32-1, all of |s|.
bool ParsePositive(const std::string& s, uint32_t* n) {
  if (s.empty() || s.size() > 10 || s.find_first_not_of("0123456789") != std::string::npos) {
    return false;
  }
  const unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
  if (v == 0 || v > 0xffffffffull) return false;
  *n = static_cast<uint32_t>(v);
  return true;
}

// <line>, <file>:<line> or %<id> into |only|.
bool ParseWhere(const std::string& where, OnlyRewrite* only) {
  if (!where.empty() && where[0] == '%') return ParsePositive(where.substr(1), &only->site_id);
  const size_t colon = where.rfind(':');
  if (colon == std::string::npos) return ParsePositive(where, &only->line);
  only->file = where.substr(0, colon);
  return !only->file.empty() && ParsePositive(where.substr(colon + 1), &only->line);
}

// The flags that set a field of |options| rather than add a step.
bool ParseSetting(const std::string& a, Options* options, std::string* error, bool* known) {
  *known = true;
  if (StartsWith(a, "--target-env=")) {
    if (ParseTargetEnv(a.substr(13), &options->target_env)) {
      options->has_target_env = true;
      return true;
    }
    *error = "unsupported target environment '" + a.substr(13) + "'";
  } else if (StartsWith(a, "--subgroup-size=")) {
    if (ParseSubgroupSize(a.substr(16), &options->subgroup_size)) return true;
    *error = "--subgroup-size must be a power of two from 1 to 128";
  } else if (StartsWith(a, "--target=") || StartsWith(a, "--assume-driver=")) {
    const std::string v = a.substr(a.find('=') + 1);
    if (ParseTarget(v, &options->target)) {
      options->has_target = true;
      return true;
    }
    *error = a.substr(0, a.find('=')) +
             " is portable, amd, nvidia, intel, cpu or none (--assume-driver also takes "
             "generic and radv), not '" +
             v + "'";
  } else if (StartsWith(a, "--spec-id-base=")) {
    if (ParseSpecIdBase(a.substr(15), &options->spec_id_base)) return true;
    *error = "--spec-id-base takes a SpecId from 0 to 2147483000, not '" + a.substr(15) + "'";
  } else if (a == "--no-versions") {
    options->versions = false;
    return true;
  } else if (StartsWith(a, "--pass-params=")) {
    return ParsePassParams(a.substr(14), options, error);
  } else if (StartsWith(a, "--only-rewrite=")) {
    return ParseOnlyRewrite(a.substr(15), &options->only_rewrite, error);
  } else if (StartsWith(a, "--hlsl-dialect=")) {
    const std::string v = a.substr(15);
    if (v == "glslang" || v == "dxc") {
      options->hlsl_dxc = v == "dxc";
      return true;
    }
    *error =
        "--hlsl-dialect is glslang or dxc (the compiler the HLSL output is for), not '" + v + "'";
  } else if (a == "--float-reassoc") {
    options->float_reassoc = true;
    return true;
  } else if (a == "--validate-after-all") {
    options->validate_after_all = true;
    return true;
  } else if (a == "--relax-block-layout") {
    options->block_layout = BlockLayout::kRelaxed;
    return true;
  } else if (a == "--uniform-buffer-standard-layout") {
    options->block_layout = BlockLayout::kUniformStandard;
    return true;
  } else if (a == "--scalar-block-layout") {
    options->block_layout = BlockLayout::kScalar;
    return true;
  } else if (a == "--skip-block-layout") {
    options->block_layout = BlockLayout::kSkip;
    return true;
  } else if (a == "--skip-validation") {
    options->validate_input = options->validate_output = false;
    return true;
  } else {
    *known = false;
  }
  return false;
}

}  // namespace

bool RegisterFlags(spvtools::Optimizer* optimizer, const std::vector<std::string>& flags,
                   const PassConfig& config, std::string* error) {
  for (const std::string& flag : flags) {
    std::string name, params;
    if (StartsWith(flag, "--")) SplitFlag(flag, &name, &params);
    if (flag == kInlineLoopCalleesFlag) {
      optimizer->RegisterPass(spvtools::Optimizer::PassToken(MakeInlineLoopCalleesPass()));
    } else if (!name.empty() && IsWaveoptPass(name)) {
      PassConfig own = config;
      own.params = params;
      std::unique_ptr<spvtools::opt::Pass> pass = MakePass(name, own, error);
      if (!pass) return false;
      optimizer->RegisterPass(spvtools::Optimizer::PassToken(std::move(pass)));
    } else if (!optimizer->RegisterPassFromFlag(flag)) {
      *error = "unknown flag " + flag;
      return false;
    }
  }
  return true;
}

bool ParseOnlyRewrite(const std::string& value, OnlyRewrite* only, std::string* error) {
  const size_t at = value.find('@');
  OnlyRewrite parsed;
  parsed.pass = value.substr(0, at);
  if (at != std::string::npos && at > 0 && !IsWaveoptPass(parsed.pass)) {
    *error = "--only-rewrite: '" + parsed.pass +
             "' is no waveopt pass (waveopt passes: " + PassNames() + ")";
    return false;
  }
  if (at == std::string::npos || at == 0 || !ParseWhere(value.substr(at + 1), &parsed)) {
    *error =
        "--only-rewrite is <pass>@<line>, <pass>@<file>:<line> or <pass>@%<id> (an applied "
        "remark's location), not '" +
        value + "'";
    return false;
  }
  *only = parsed;
  return true;
}

bool ParseOptionFlag(const std::string& a, Options* options, std::string* error) {
  bool known = false;
  const bool ok = ParseSetting(a, options, error, &known);
  if (known) return ok;
  if (a == "-O") {
    options->pipeline.push_back({PipelineStep::Kind::kOptimize, "", ""});
    return true;
  }
  if (StartsWith(a, "--")) {
    std::string name, params;
    SplitFlag(a, &name, &params);
    if (IsWaveoptPass(name)) {
      options->pipeline.push_back({PipelineStep::Kind::kWaveopt, name, params});
      return true;
    }
    if (a == kInlineLoopCalleesFlag || IsSpirvOptFlag(a)) {
      options->pipeline.push_back({PipelineStep::Kind::kSpirvOpt, a, ""});
      return true;
    }
  }
  *error = "unknown flag " + a;
  if (a.size() > 2 && StartsWith(a, "-O")) {
    // -O0..-O3, -Os, -Oz from other compilers (spirv-opt's -Os included).
    *error += ": waveopt has one optimization pipeline, -O (leave it out for none)";
  }
  return false;
}

}  // namespace waveopt
