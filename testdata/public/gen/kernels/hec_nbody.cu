// HeCBench nbody-cuda (Intel's oneAPI n-body sample, ported): accelerate_particles
// (all-pairs gravity, a thread per particle, rsqrtf) and update_particles.
#include "../../src/HeCBench/src/nbody-cuda/GSimulation.cu"
