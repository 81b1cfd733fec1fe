// glibc functions that the static libstdc++/libgcc of GCC 12 (built on glibc 2.36) would import
// with a symbol version newer than older systems have; compiled into the bundled programs only
// (cmake/Bundle.cmake, GPUBENCH_STATIC_RUNTIME), so that they start on glibc 2.34 (RHEL 9) and
// 2.35 (Ubuntu 22.04). Defined in the executable, the static link resolves libstdc++'s and
// libgcc's references to these definitions and imports nothing. The linker exports them (libc
// defines the same names), so a shared library that calls them (a target's libgcc_s under
// cuBLAS) gets these too: they answer as glibc's do. libc's own calls stay inside libc.
//  - arc4random (GLIBC_2.36): std::random_device; every program pulls it in (cow-string-inst.o
//    refers to random_device::_M_init).
//  - _dl_find_object (GLIBC_2.35): the unwinder (libgcc_eh) finds the .eh_frame_hdr of the object
//    that holds a return address with it, for every C++ exception; here the same answer comes
//    from dl_iterate_phdr (GLIBC_2.2.5), which is how libgcc found it before glibc 2.35.
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>

extern "C" uint32_t arc4random() noexcept {
  uint32_t value = 0;
  auto* bytes = reinterpret_cast<unsigned char*>(&value);
  size_t filled = 0;
  while (filled < sizeof value) {
    const ssize_t got = getrandom(bytes + filled, sizeof value - filled, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      std::abort();  // arc4random cannot fail; getrandom(2) only does before Linux 3.17
    }
    filled += static_cast<size_t>(got);
  }
  return value;
}

namespace {
struct FindObject {
  uintptr_t address;
  dl_find_object* result;
  bool found;
};

// dl_iterate_phdr callback: the object whose PT_LOAD segments hold the address, its mapped range
// and its PT_GNU_EH_FRAME (.eh_frame_hdr). Returns 1 to stop at the first match.
int find_object(dl_phdr_info* info, size_t /*size*/, void* data) {
  auto* search = static_cast<FindObject*>(data);
  uintptr_t start = UINTPTR_MAX;
  uintptr_t end = 0;
  uintptr_t eh_frame = 0;
  bool holds = false;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    const uintptr_t begin = info->dlpi_addr + segment.p_vaddr;
    if (segment.p_type == PT_LOAD) {
      start = std::min(start, begin);
      end = std::max(end, begin + segment.p_memsz);
      if (search->address >= begin && search->address < begin + segment.p_memsz) holds = true;
    } else if (segment.p_type == PT_GNU_EH_FRAME) {
      eh_frame = begin;
    }
  }
  if (!holds) return 0;
  *search->result = dl_find_object{};
  search->result->dlfo_map_start = reinterpret_cast<void*>(start);
  search->result->dlfo_map_end = reinterpret_cast<void*>(end);
  search->result->dlfo_eh_frame = eh_frame ? reinterpret_cast<void*>(eh_frame) : nullptr;
  search->found = true;
  return 1;
}
}  // namespace

extern "C" int _dl_find_object(void* address, dl_find_object* result) noexcept {
  FindObject search{reinterpret_cast<uintptr_t>(address), result, false};
  dl_iterate_phdr(find_object, &search);
  return search.found ? 0 : -1;
}
