// A suite main's --device flag and GPUBENCH_DEVICE variable, read and resolved in one call.
#pragma once

#include <functional>
#include <vector>

namespace gpubench::suite {

// The GPUs a suite runs on: take_device_request on argv (removing --device, adjusting argc) and the
// GPUBENCH_DEVICE variable, then resolve_devices against count_devices(). count_devices is called
// only once the request has parsed, so a bad --device exits before CUDA starts. Throws
// gpubench::Error (bad_input) as take_device_request and resolve_devices do.
std::vector<int> take_devices(int& argc, char** argv, const std::function<int()>& count_devices);

}  // namespace gpubench::suite
