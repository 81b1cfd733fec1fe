// take_devices: device_selection.hpp's two steps with the environment variable they read.
#include "suites/common/device_flag.hpp"

#include <cstdlib>

#include "suites/common/device_selection.hpp"

namespace gpubench::suite {

std::vector<int> take_devices(int& argc, char** argv, const std::function<int()>& count_devices) {
  const DeviceRequest request = take_device_request(argc, argv, std::getenv("GPUBENCH_DEVICE"));
  return resolve_devices(request, count_devices());
}

}  // namespace gpubench::suite
