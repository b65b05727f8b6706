# lit configuration for waveopt: one directory per pass plus cli/, frontend/,
# and (with waverun) diff/.
import os
import lit.formats

config.name = "waveopt"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".spvasm", ".comp", ".hlsl", ".test", ".glsl"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.waveopt_obj_root, "test", "lit")

config.substitutions.append(("%waveopt", os.path.join(config.waveopt_bin_dir, "waveopt")))
config.substitutions.append(("%waverun", os.path.join(config.waveopt_bin_dir, "waverun")))
config.substitutions.append(("%spirv-as", config.spirv_as))
config.substitutions.append(("%spirv-dis", config.spirv_dis))
config.substitutions.append(("%spirv-val", config.spirv_val))
# spirv-opt ships beside spirv-val (SPIRV-Tools).
config.substitutions.append(("%spirv-opt", os.path.join(os.path.dirname(config.spirv_val), "spirv-opt")))
config.substitutions.append(("%glslang", config.glslang))
config.substitutions.append(("%FileCheck", config.filecheck))
config.substitutions.append(("%not", config.llvm_not))
config.substitutions.append(("%python", config.python))
config.substitutions.append(("%srcroot", config.waveopt_src_root))

# Lavapipe for every Vulkan run: only its ICD, no shader cache (the cache
# ignores LP_NATIVE_VECTOR_WIDTH), deterministic atomic order.
for var in ["VK_ICD_FILENAMES", "VK_DRIVER_FILES", "MESA_SHADER_CACHE_DISABLE",
            "LP_NUM_THREADS", "HOME", "TMPDIR", "WAVEOPT_SWEEP_STRIDE"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.environment["MESA_SHADER_CACHE_DISABLE"] = "true"
config.environment["LP_NUM_THREADS"] = "1"
