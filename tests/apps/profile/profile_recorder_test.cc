// The profiling library's counters, peer groups and collective model, without MPI.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <thread>
#include <vector>

#include "apps/profile/collective_volume.h"
#include "apps/profile/traffic_recorder.h"

namespace treematch::profile {
namespace {

constexpr std::array kAll = {TrafficClass::kPointToPoint, TrafficClass::kCollective,
                             TrafficClass::kOneSided};

/// The matrix_row of `classes` as a dense vector of world_size values.
std::vector<double> dense_row(const TrafficRecorder& recorder,
                              std::span<const TrafficClass> classes, VolumeMetric metric) {
  const kernels::Csr row = recorder.matrix_row(classes, metric);
  EXPECT_EQ(row.n, 1);
  EXPECT_EQ(row.offsets.size(), 2u);
  std::vector<double> dense(static_cast<std::size_t>(recorder.world_size()), 0.0);
  for (std::size_t k = 0; k < row.targets.size(); ++k) {
    if (k > 0) {
      EXPECT_LT(row.targets[k - 1], row.targets[k]) << "columns sorted";
    }
    EXPECT_GT(row.weights[k], 0.0) << "only non-zero entries";
    dense[static_cast<std::size_t>(row.targets[k])] = row.weights[k];
  }
  return dense;
}

std::vector<double> dense_row(const TrafficRecorder& recorder, TrafficClass traffic,
                              VolumeMetric metric) {
  const std::array classes = {traffic};
  return dense_row(recorder, classes, metric);
}

TEST(TrafficRecorder, KeepsClassesApartAndSumsThemInTheTotalRow) {
  TrafficRecorder recorder(/*world_size=*/5, Concurrency::kSerialized, /*counting=*/true);
  recorder.record(TrafficClass::kPointToPoint, 3, 100);
  recorder.record(TrafficClass::kPointToPoint, 3, 20);
  recorder.record(TrafficClass::kCollective, 3, 7);
  recorder.record(TrafficClass::kOneSided, 0, 8, /*messages=*/2);
  recorder.record(TrafficClass::kCollective, 4, 0);  // a 0-byte message (Barrier)

  using V = std::vector<double>;
  EXPECT_EQ(dense_row(recorder, TrafficClass::kPointToPoint, VolumeMetric::kBytes),
            (V{0, 0, 0, 120, 0}));
  EXPECT_EQ(dense_row(recorder, TrafficClass::kPointToPoint, VolumeMetric::kMessages),
            (V{0, 0, 0, 2, 0}));
  EXPECT_EQ(dense_row(recorder, TrafficClass::kCollective, VolumeMetric::kBytes),
            (V{0, 0, 0, 7, 0}));
  EXPECT_EQ(dense_row(recorder, TrafficClass::kCollective, VolumeMetric::kMessages),
            (V{0, 0, 0, 1, 1}));
  EXPECT_EQ(dense_row(recorder, kAll, VolumeMetric::kBytes), (V{8, 0, 0, 127, 0}));
  EXPECT_EQ(dense_row(recorder, kAll, VolumeMetric::kMessages), (V{2, 0, 0, 3, 1}));
}

TEST(TrafficRecorder, CountingFlagIsTheCallersToCheck) {
  TrafficRecorder recorder(2, Concurrency::kSerialized, /*counting=*/false);
  EXPECT_FALSE(recorder.counting());
  recorder.set_counting(true);
  EXPECT_TRUE(recorder.counting());
}

TEST(TrafficRecorder, IncomingOneSidedDataGoesToTheSendersRow) {
  // Rank 1 of 3 got 40 bytes from rank 0 (a Get) and 8 from rank 2.
  TrafficRecorder origin(3, Concurrency::kSerialized, true);
  EXPECT_FALSE(origin.has_incoming());
  origin.record_incoming(0, 40);
  origin.record_incoming(2, 8);
  EXPECT_TRUE(origin.has_incoming());
  EXPECT_EQ(origin.incoming()[0], (Volume{1, 40}));
  // The exchange at MPI_Finalize hands rank 0 what rank 1 saw coming from it: column 1 of 0's row.
  TrafficRecorder target(3, Concurrency::kSerialized, true);
  std::vector<Volume> from_peers(3);
  from_peers[1] = origin.incoming()[0];
  target.add_from_peers(from_peers);
  EXPECT_EQ(dense_row(target, TrafficClass::kOneSided, VolumeMetric::kBytes),
            (std::vector<double>{0, 40, 0}));
  EXPECT_EQ(target.row(TrafficClass::kPointToPoint)[1], Volume{});
}

TEST(TrafficRecorder, ConcurrentRecordingLosesNothing) {
  TrafficRecorder recorder(4, Concurrency::kConcurrent, true);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 100000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&recorder, t] {
      for (int i = 0; i < kPerThread; ++i) recorder.record(TrafficClass::kPointToPoint, t % 2, 3);
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(recorder.row(TrafficClass::kPointToPoint)[0], (Volume{2 * kPerThread, 6 * kPerThread}));
  EXPECT_EQ(recorder.row(TrafficClass::kPointToPoint)[1], (Volume{2 * kPerThread, 6 * kPerThread}));
}

// A communicator of 4 members seen from member 1 (world rank 2); member 2 is outside the world.
//   member:      0  1  2   3
//   world rank:  5  2  -1  7
PeerGroup sample_group() {
  return PeerGroup({5, 2, -1, 7}, /*rank=*/1);
}

TEST(PeerGroup, TranslatesMembersToWorldRanksAndSkipsOutsiders) {
  TrafficRecorder recorder(8, Concurrency::kSerialized, true);
  const PeerGroup group = sample_group();
  group.send(recorder, TrafficClass::kPointToPoint, 0, 10);
  group.send(recorder, TrafficClass::kPointToPoint, 2, 99);  // outside MPI_COMM_WORLD
  group.send(recorder, TrafficClass::kPointToPoint, 3, 1);
  group.receive(recorder, 3, 16);
  EXPECT_EQ(dense_row(recorder, TrafficClass::kPointToPoint, VolumeMetric::kBytes),
            (std::vector<double>{0, 0, 0, 0, 0, 10, 0, 1}));
  EXPECT_EQ(recorder.incoming()[7], (Volume{1, 16}));
}

TEST(PeerGroup, DeferredVolumesAreSpreadOnceAtFlush) {
  TrafficRecorder recorder(8, Concurrency::kSerialized, true);
  PeerGroup group = sample_group();
  group.to_all_others(recorder, 4);
  group.to_all_others(recorder, 6);
  group.to_higher(recorder, 8);
  EXPECT_EQ(dense_row(recorder, TrafficClass::kCollective, VolumeMetric::kBytes),
            std::vector<double>(8, 0.0))
      << "nothing recorded before the flush";
  group.flush(recorder);
  group.flush(recorder);  // a second flush adds nothing
  // Every other member (world 5, 7) gets 2 messages / 10 bytes; higher members (3 -> world 7)
  // one more of 8 bytes.
  EXPECT_EQ(dense_row(recorder, TrafficClass::kCollective, VolumeMetric::kBytes),
            (std::vector<double>{0, 0, 0, 0, 0, 10, 0, 18}));
  EXPECT_EQ(dense_row(recorder, TrafficClass::kCollective, VolumeMetric::kMessages),
            (std::vector<double>{0, 0, 0, 0, 0, 2, 0, 3}));
}

// The model on MPI_COMM_WORLD of 4 ranks, seen from rank 2.
class CollectiveModel : public ::testing::Test {
 protected:
  TrafficRecorder recorder{4, Concurrency::kSerialized, true};
  PeerGroup world{{0, 1, 2, 3}, /*rank=*/2};

  std::vector<double> bytes() {
    world.flush(recorder);
    return dense_row(recorder, TrafficClass::kCollective, VolumeMetric::kBytes);
  }
  std::vector<double> messages() {
    world.flush(recorder);
    return dense_row(recorder, TrafficClass::kCollective, VolumeMetric::kMessages);
  }
};

using V = std::vector<double>;

TEST_F(CollectiveModel, BarrierIsOneEmptyMessageToEveryOther) {
  collective::barrier(recorder, world);
  EXPECT_EQ(bytes(), (V{0, 0, 0, 0}));
  EXPECT_EQ(messages(), (V{1, 1, 0, 1}));
}

TEST_F(CollectiveModel, RootSendsToAllOnlyAtTheRoot) {
  collective::from_root(recorder, world, /*root=*/0, 80);  // not the root: nothing
  collective::from_root(recorder, world, /*root=*/2, 16);
  EXPECT_EQ(bytes(), (V{16, 16, 0, 16}));
}

TEST_F(CollectiveModel, NonRootsSendTheirBlockToTheRoot) {
  collective::to_root(recorder, world, /*root=*/2, 800);  // the root itself: nothing
  collective::to_root(recorder, world, /*root=*/0, 12);
  EXPECT_EQ(bytes(), (V{12, 0, 0, 0}));
}

TEST_F(CollectiveModel, AllreduceAndScanReachEveryOtherAndEveryHigherMember) {
  collective::to_all(recorder, world, 24);
  collective::to_higher(recorder, world, 8);
  EXPECT_EQ(bytes(), (V{24, 24, 0, 32}));
  EXPECT_EQ(messages(), (V{1, 1, 0, 2}));
}

TEST_F(CollectiveModel, VectorVariantsSendEachMemberItsCount) {
  const std::array counts = {1, 2, 3, 4};
  collective::to_each_counted(recorder, world, counts, /*type_size=*/8);  // Alltoallv
  collective::scatterv(recorder, world, /*root=*/1, counts, 4);           // not the root
  collective::scatterv(recorder, world, /*root=*/2, counts, 1);
  collective::to_each(recorder, world, [](int m) { return std::uint64_t{100} * m; });
  EXPECT_EQ(bytes(), (V{8 + 1 + 0, 16 + 2 + 100, 0, 32 + 4 + 300}));
  EXPECT_EQ(messages(), (V{3, 3, 0, 3}));
}

}  // namespace
}  // namespace treematch::profile
