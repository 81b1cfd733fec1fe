// Random (version 4) UUIDs for runs, so databases from many nodes merge without clashes.
#pragma once

#include <string>

namespace gpubench {

// "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx", lower case, from the OS random source.
std::string make_uuid_v4();
bool is_uuid(const std::string& text);

}  // namespace gpubench
