// Temporary outputs removed on SIGINT/SIGTERM (see interrupt_cleanup.h).
#include "io/interrupt_cleanup.h"

#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstring>
#include <mutex>

namespace treematch::io {
namespace {

/// One registered path. The handler may run on any thread at any moment, so it only reads slots
/// whose state is kLive and calls unlink(2), which is async-signal-safe; a path is copied in
/// before its slot becomes live and stays there until the slot is taken again.
struct Slot {
  enum State : int { kFree, kFilling, kLive };
  std::atomic<int> state{kFree};
  std::array<char, RemovedOnInterrupt::kMaxPathBytes> path{};
};

std::array<Slot, RemovedOnInterrupt::kMaxRegistered> slots;

extern "C" void remove_and_end(int signal) {
  for (Slot& slot : slots) {
    if (slot.state.load(std::memory_order_acquire) == Slot::kLive) {
      static_cast<void>(::unlink(slot.path.data()));
    }
  }
  // The signal's default action ends the process, as if no handler had been installed.
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

void remove_temporaries_on_interrupt() {
  static std::once_flag installed;
  std::call_once(installed, [] {
    struct sigaction action {};
    action.sa_handler = remove_and_end;
    sigemptyset(&action.sa_mask);
    for (const int signal : {SIGINT, SIGTERM}) {
      // A signal the process was started ignoring (nohup, a background job) stays ignored.
      struct sigaction inherited {};
      if (sigaction(signal, nullptr, &inherited) == 0 && inherited.sa_handler == SIG_IGN) continue;
      static_cast<void>(sigaction(signal, &action, nullptr));
    }
  });
}

RemovedOnInterrupt::RemovedOnInterrupt(const std::string& path) {
  if (path.size() >= kMaxPathBytes) return;
  for (int i = 0; i < kMaxRegistered; ++i) {
    Slot& slot = slots[static_cast<std::size_t>(i)];
    int expected = Slot::kFree;
    if (!slot.state.compare_exchange_strong(expected, Slot::kFilling)) continue;
    std::memcpy(slot.path.data(), path.c_str(), path.size() + 1);
    slot.state.store(Slot::kLive, std::memory_order_release);
    slot_ = i;
    return;
  }
}

RemovedOnInterrupt::~RemovedOnInterrupt() {
  if (slot_ >= 0) slots[static_cast<std::size_t>(slot_)].state.store(Slot::kFree);
}

}  // namespace treematch::io
