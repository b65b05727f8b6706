// Each invocation writes how many lanes of its subgroup are active. The
// shader does not mention gl_SubgroupSize, so a shader cache keyed without
// lavapipe's vector width would reuse one width's code for all widths.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0) buffer Lanes { uint lanes[]; };

void main() {
  lanes[gl_GlobalInvocationID.x] = subgroupBallotBitCount(subgroupBallot(true));
}
