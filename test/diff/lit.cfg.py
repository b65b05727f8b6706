# lit configuration of the differential suite: every .comp/.frag/.test file here is
# one or more one-line tests of the form
#   RUN: %diff <shader> [--waveopt-flags="..."] [--waverun="..."] [--against <other>] [--expect=differ]
# (see run_diff.py). Shaders in Inputs/ are partners, not tests.
import os
import lit.formats

config.name = "waveopt-diff"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".comp", ".frag", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in", "run_diff.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.waveopt_obj_root, "test", "diff")

config.substitutions.append(
    ("%diff", "%s %s --bin %s" % (config.python,
                                  os.path.join(config.waveopt_src_root, "test", "diff", "run_diff.py"),
                                  config.waveopt_bin_dir)))
config.substitutions.append(("%waverun", os.path.join(config.waveopt_bin_dir, "waverun")))
config.substitutions.append(("%waveopt", os.path.join(config.waveopt_bin_dir, "waveopt")))
# The equivalence kernels (issue 23) live in the lit suite; forms.py runs
# their rewrites here (test/diff/forms).
# (%formsdir first: lit substitutes in order, and %forms is its prefix.)
config.substitutions.append(("%formsdir", os.path.join(config.waveopt_src_root, "test", "lit", "forms")))
config.substitutions.append(("%forms", "%s %s" % (
    config.python, os.path.join(config.waveopt_src_root, "test", "lit", "forms", "forms.py"))))
config.substitutions.append(("%FileCheck", config.filecheck))
config.substitutions.append(("%not", config.llvm_not))
config.substitutions.append(("%python", config.python))

# waverun sets these itself; kept here so that a direct run sees them too.
for var in ["HOME", "TMPDIR"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.environment["MESA_SHADER_CACHE_DISABLE"] = "true"
config.environment["LP_NUM_THREADS"] = "1"

# Binding kinds waverun runs (on lavapipe and on the simulator): a test that
# needs one says `REQUIRES: <feature>` and is UNSUPPORTED until then.
import subprocess
_probes = {
    "waverun-texel-buffers": "probe_texel_buffer.comp",
    "waverun-separate-images": "probe_separate_image.hlsl",
    "waverun-device-addresses": "probe_device_address.comp",
}
_waverun = os.path.join(config.waveopt_bin_dir, "waverun")
_env = dict(os.environ, MESA_SHADER_CACHE_DISABLE="true", LP_NUM_THREADS="1")
for _feature, _probe in sorted(_probes.items()):
    _shader = os.path.join(config.test_source_root, "batch-uniform-loads", "Inputs", _probe)
    _ok = os.path.exists(_waverun)
    for _extra in ([], ["--sim"]):
        if not _ok:
            break
        try:
            _ok = subprocess.run([_waverun, "run", _shader] + _extra, env=_env, timeout=60,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            _ok = False
    if _ok:
        config.available_features.add(_feature)
