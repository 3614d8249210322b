// How a rank of a distributed mapping hands freed memory back: its peak resident size is what the
// job's nodes must hold while it maps (each rank's share of the plain run's peak).
#pragma once

#include <cstddef>

namespace treematch::distributed {

/// Blocks of at least this many bytes get pages of their own, returned to the system when freed.
/// 8 MiB: on S3 at 4 ranks (2026-11-30) 1 MiB lowered the largest rank's peak a little more
/// (`fast` 271 MiB against 291) but took 1.4 to 1.9x the time (a page fault per page of every
/// new block); 8 MiB took the same time as glibc's own policy.
inline constexpr std::size_t kOwnPagesBytes = std::size_t{8} << 20;

/// From now on every allocation of at least kOwnPagesBytes is mapped on its own and unmapped when
/// freed (glibc's mallopt M_MMAP_THRESHOLD, which also keeps glibc from raising that threshold as
/// large blocks are freed). By default glibc serves blocks of up to 32 MiB from its heap once
/// such a block was freed, and the pages of freed ones stay resident: on S3 at 4 ranks that held
/// the largest rank's peak 12 to 36 MiB higher. Does nothing under another C library.
void return_large_blocks_to_system();

}  // namespace treematch::distributed
