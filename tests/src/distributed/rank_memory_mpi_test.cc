// Under mpiexec: with several ranks a rank's large blocks get pages of their own, given back when
// freed; a single rank keeps glibc's own policy.
#include <malloc.h>
#include <mpi.h>

#include <cstdlib>
#include <cstring>

#include <gtest/gtest.h>

#include "src/mpi/rank_memory.h"

namespace {

/// Keeps the compiler from dropping a block that is written and freed unread.
void keep(void* block) {
  asm volatile("" : : "g"(block) : "memory");
}

/// Whether a block of 2 x kOwnPagesBytes allocated right after one of 3 x kOwnPagesBytes was
/// freed gets pages of its own. By default glibc then serves it from its heap: freeing the larger
/// block raised its threshold for such blocks to that block's size (up to 32 MiB).
bool mapped_on_its_own() {
  const std::size_t freed_bytes = 3 * treematch::distributed::kOwnPagesBytes;
  const std::size_t bytes = 2 * treematch::distributed::kOwnPagesBytes;
  void* larger = std::malloc(freed_bytes);
  std::memset(larger, 1, freed_bytes);
  keep(larger);
  std::free(larger);
  const std::size_t mapped_before = mallinfo2().hblks;
  void* block = std::malloc(bytes);
  std::memset(block, 1, bytes);
  keep(block);
  const bool mapped = mallinfo2().hblks > mapped_before;
  std::free(block);
  return mapped;
}

}  // namespace

TEST(RankMemory, SeveralRanksGiveLargeFreedBlocksBack) {
  int ranks = 0;
  ASSERT_EQ(MPI_Comm_size(MPI_COMM_WORLD, &ranks), MPI_SUCCESS);
  EXPECT_EQ(mapped_on_its_own(), ranks > 1) << ranks << " rank(s)";
}
