// Large blocks mapped on their own under glibc (see rank_memory.h).
#include "src/mpi/rank_memory.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace treematch::distributed {

void return_large_blocks_to_system() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(kOwnPagesBytes));
#endif
}

}  // namespace treematch::distributed
