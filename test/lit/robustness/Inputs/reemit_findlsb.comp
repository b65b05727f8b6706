#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 64) in;
layout(binding = 0) buffer B { uint v[]; };
// subgroupBallotFindLSB has no HLSL spelling: SPIRV-Cross refuses to emit it.
void main() { v[gl_GlobalInvocationID.x] += subgroupBallotFindLSB(subgroupBallot(v[gl_GlobalInvocationID.x] > 3u)); }
