// A tiny shared library for test_dynlib: the tests copy it under the names the search looks for
// (fixture, not a real CUDA or HDF5 library) and check which copy was loaded and that dlsym works.
extern "C" __attribute__((visibility("default"))) int gpubench_fake_answer() {
  return 42;
}
