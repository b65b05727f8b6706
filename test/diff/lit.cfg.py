# lit configuration of the differential suite: every .comp/.test file here is
# one or more one-line tests of the form
#   RUN: %diff <shader> [--waveopt-flags="..."] [--waverun="..."] [--against <other>] [--expect=differ]
# (see run_diff.py). Shaders in Inputs/ are partners, not tests.
import os
import lit.formats

config.name = "waveopt-diff"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".comp", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in", "run_diff.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.waveopt_obj_root, "test", "diff")

config.substitutions.append(
    ("%diff", "%s %s --bin %s" % (config.python,
                                  os.path.join(config.waveopt_src_root, "test", "diff", "run_diff.py"),
                                  config.waveopt_bin_dir)))
config.substitutions.append(("%waverun", os.path.join(config.waveopt_bin_dir, "waverun")))
config.substitutions.append(("%FileCheck", config.filecheck))
config.substitutions.append(("%not", config.llvm_not))
config.substitutions.append(("%python", config.python))

# waverun sets these itself; kept here so that a direct run sees them too.
for var in ["HOME", "TMPDIR"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.environment["MESA_SHADER_CACHE_DISABLE"] = "true"
config.environment["LP_NUM_THREADS"] = "1"
