// Workgroup-wide max and sum for the row shaders (softmax.comp, add_norm.comp): every one of the
// WG invocations calls them, in uniform control flow, and every one gets the same result.
//   SUBGROUP_OPS (a second build of the shader, used where the device has subgroup arithmetic in
//   compute shaders; VulkanBackend::make_pipelines): each subgroup reduces in registers
//   (subgroupMax / subgroupAdd) and its first live invocation writes the partial; after a barrier
//   the first subgroup combines the partials (a lane per partial, then once more in registers) and
//   writes the result to red[0]; after a second every invocation reads it, and a third frees red:
//   3 barriers in place of the tree's log2(WG) + 2. (Every invocation combining all partials
//   itself, one barrier fewer, was 2× slower than the tree on lavapipe: 32 partials × 256 reads.)
//   Otherwise: a tree in shared memory.
// The including shader enables GL_KHR_shader_subgroup_arithmetic under SUBGROUP_OPS (an
// #extension must precede the declarations) and declares WG before including this file.

shared float red[WG];

#ifdef SUBGROUP_OPS

// The partials red[0, gl_NumSubgroups) combined by the first subgroup, a lane per partial.
float combine_max(float v) {
  v = subgroupMax(v);
  if (subgroupElect()) red[gl_SubgroupID] = v;
  barrier();
  if (gl_SubgroupID == 0) {
    float r = uintBitsToFloat(0xff800000u);  // −∞
    for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) r = max(r, red[i]);
    r = subgroupMax(r);
    if (subgroupElect()) red[0] = r;
  }
  barrier();
  const float r = red[0];
  barrier();  // red is free for the next reduction
  return r;
}

float combine_sum(float v) {
  v = subgroupAdd(v);
  if (subgroupElect()) red[gl_SubgroupID] = v;
  barrier();
  if (gl_SubgroupID == 0) {
    float r = 0.0;
    for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) r += red[i];
    r = subgroupAdd(r);
    if (subgroupElect()) red[0] = r;
  }
  barrier();
  const float r = red[0];
  barrier();
  return r;
}

#else

float combine_max(float v) {
  red[gl_LocalInvocationID.x] = v;
  barrier();
  for (uint s = WG / 2; s > 0; s >>= 1) {
    if (gl_LocalInvocationID.x < s) red[gl_LocalInvocationID.x] = max(red[gl_LocalInvocationID.x], red[gl_LocalInvocationID.x + s]);
    barrier();
  }
  const float r = red[0];
  barrier();
  return r;
}

float combine_sum(float v) {
  red[gl_LocalInvocationID.x] = v;
  barrier();
  for (uint s = WG / 2; s > 0; s >>= 1) {
    if (gl_LocalInvocationID.x < s) red[gl_LocalInvocationID.x] += red[gl_LocalInvocationID.x + s];
    barrier();
  }
  const float r = red[0];
  barrier();
  return r;
}

#endif
