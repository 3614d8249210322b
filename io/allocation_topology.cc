// The job's machines as one Topology: hwloc describes each node, MPI exchanges, then check, build.
#include "io/allocation_topology.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "io/hwloc_topology.h"
#include "io/input_error.h"
#include "src/mpi/mpi_environment.h"
#include "src/mpi/mpi_traffic.h"
#include "src/mpi/owned_comm.h"
#include "src/tree/unbalanced_tree.h"

namespace treematch::distributed {
namespace {

// ---- serialisation of a node description (or of the error that prevented one) --------------

enum class Record : std::int64_t { kNode = 1, kError = 2 };

class Writer {
 public:
  void integer(std::int64_t value) {
    const auto* bytes = reinterpret_cast<const char*>(&value);
    buffer_.insert(buffer_.end(), bytes, bytes + sizeof value);
  }
  void real(double value) {
    std::int64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    integer(bits);
  }
  void text(const std::string& value) {
    integer(static_cast<std::int64_t>(value.size()));
    buffer_.insert(buffer_.end(), value.begin(), value.end());
  }
  [[nodiscard]] std::vector<char> take() { return std::move(buffer_); }

 private:
  std::vector<char> buffer_;
};

class Reader {
 public:
  Reader(const char* data, std::size_t size) : data_(data), size_(size) {}
  std::int64_t integer() {
    need(sizeof(std::int64_t));
    std::int64_t value = 0;
    std::memcpy(&value, data_ + position_, sizeof value);
    position_ += sizeof value;
    return value;
  }
  double real() {
    const std::int64_t bits = integer();
    double value = 0;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }
  std::string text() {
    const std::int64_t length = integer();
    if (length < 0) throw std::runtime_error("allocation: corrupt node description");
    need(static_cast<std::size_t>(length));
    std::string value(data_ + position_, static_cast<std::size_t>(length));
    position_ += static_cast<std::size_t>(length);
    return value;
  }

 private:
  void need(std::size_t bytes) const {
    if (size_ - position_ < bytes) throw std::runtime_error("allocation: corrupt node description");
  }
  const char* data_;
  std::size_t size_;
  std::size_t position_ = 0;
};

std::vector<char> serialise(const NodeDescription& node) {
  Writer out;
  out.integer(static_cast<std::int64_t>(Record::kNode));
  out.text(node.host);
  const Topology& tree = node.topology;
  out.integer(tree.depth());
  for (const TreeLevel& level : tree.levels()) {
    out.integer(level.arity);
    out.real(level.link_cost);
    out.text(level.name);
  }
  out.integer(tree.leaf_count());
  for (const Index os : tree.leaf_os_indexes()) out.integer(os);  // -1 for a hole
  for (Index leaf = 0; leaf < tree.leaf_count(); ++leaf) {
    const std::span<const Index> cpus = tree.cpus(leaf);
    out.integer(static_cast<std::int64_t>(cpus.size()));
    for (const Index cpu : cpus) out.integer(cpu);
  }
  return out.take();
}

std::vector<char> serialise_error(const std::string& message) {
  Writer out;
  out.integer(static_cast<std::int64_t>(Record::kError));
  out.text(message);
  return out.take();
}

Index checked(std::int64_t value, std::int64_t least = 0) {
  if (value < least || value > std::numeric_limits<Index>::max()) {
    throw std::runtime_error("allocation: corrupt node description");
  }
  return static_cast<Index>(value);
}

/// A node description, or throws the error its node reported (the same text on every rank).
NodeDescription deserialise(const char* data, std::size_t size) {
  Reader in(data, size);
  const std::int64_t record = in.integer();
  if (record == static_cast<std::int64_t>(Record::kError)) throw std::runtime_error(in.text());
  if (record != static_cast<std::int64_t>(Record::kNode)) {
    throw std::runtime_error("allocation: corrupt node description");
  }
  NodeDescription node;
  node.host = in.text();
  const Index depth = checked(in.integer());
  std::vector<TreeLevel> levels;
  for (Index d = 0; d < depth; ++d) {
    TreeLevel level;
    level.arity = checked(in.integer());
    level.link_cost = in.real();
    level.name = in.text();
    levels.push_back(std::move(level));
  }
  const Index leaves = checked(in.integer());
  std::vector<Index> os;
  os.reserve(static_cast<std::size_t>(leaves));
  for (Index leaf = 0; leaf < leaves; ++leaf) os.push_back(checked(in.integer(), -1));
  std::vector<Offset> offsets{0};
  std::vector<Index> cpus;
  for (Index leaf = 0; leaf < leaves; ++leaf) {
    const Index count = checked(in.integer());
    for (Index c = 0; c < count; ++c) cpus.push_back(checked(in.integer()));
    offsets.push_back(static_cast<Offset>(cpus.size()));
  }
  try {
    node.topology = Topology(std::move(levels), std::move(os))
                        .with_leaf_cpus(std::move(offsets), std::move(cpus));
  } catch (const std::invalid_argument& error) {
    throw std::runtime_error(std::string("allocation: corrupt node description: ") + error.what());
  }
  return node;
}

// ---- MPI helpers ----------------------------------------------------------------------------

int checked_count(std::size_t bytes) {
  if (bytes > static_cast<std::size_t>(INT_MAX)) {
    throw std::runtime_error("allocation: a node description exceeds 2 GiB");
  }
  return static_cast<int>(bytes);
}

}  // namespace

std::string this_host_name() {
  std::array<char, 256> buffer{};
  errno = 0;
  if (gethostname(buffer.data(), buffer.size() - 1) != 0) {
    throw std::system_error(errno, std::generic_category(), "gethostname failed");
  }
  return std::string(buffer.data());
}

NetworkShape parse_network(const std::string& text) {
  if (text.empty() || text == "flat") return {};
  const auto colon = text.find(':');
  const auto number = [&](const std::string& part) -> Index {
    if (part.empty() || part.size() > 9 ||
        part.find_first_not_of("0123456789") != std::string::npos) {
      return 0;
    }
    return static_cast<Index>(std::stoi(part));
  };
  const Index switches = colon == std::string::npos ? 0 : number(text.substr(0, colon));
  const Index per_switch = colon == std::string::npos ? 0 : number(text.substr(colon + 1));
  if (switches < 1 || per_switch < 1) {
    throw io::InputError("--network", "'" + text +
                                          "' is not SWITCHES:NODES_PER_SWITCH (e.g. 128:16, both "
                                          ">= 1) or 'flat'");
  }
  return NetworkShape{switches, per_switch};
}

void check_nodes_distinct(const std::vector<NodeDescription>& nodes) {
  if (nodes.empty()) throw io::InputError("allocation", "no node described");
  std::map<std::string, std::size_t> first_with_host;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto [it, inserted] = first_with_host.emplace(nodes[i].host, i);
    if (!inserted) {
      throw io::InputError("allocation", "nodes " + std::to_string(it->second) + " and " +
                                             std::to_string(i) + " both report host name '" +
                                             nodes[i].host + "'");
    }
  }
}

namespace {

/// What Open MPI 4.1 tells nodes apart by (per level, its name and how many of its objects hold a
/// usable leaf; then the number of usable PUs), and what it does not look at: the usable PUs.
struct NodeSignature {
  std::vector<std::pair<std::string, Index>> present_per_level;
  std::vector<Index> pus;

  static NodeSignature of(const Topology& tree) {
    NodeSignature signature;
    for (int depth = 1; depth <= tree.depth(); ++depth) {
      const Index block = tree.leaves_below(depth);
      Index present = 0;
      for (Index first = 0; first < tree.leaf_count(); first += block) {
        for (Index leaf = first; leaf < first + block; ++leaf) {
          if (!tree.is_present(leaf)) continue;
          ++present;
          break;
        }
      }
      signature.present_per_level.emplace_back(
          tree.levels()[static_cast<std::size_t>(depth - 1)].name, present);
    }
    for (const Index leaf : tree.present_leaves()) {
      const std::span<const Index> cpus = tree.cpus(leaf);
      signature.pus.insert(signature.pus.end(), cpus.begin(), cpus.end());
    }
    std::sort(signature.pus.begin(), signature.pus.end());
    signature.present_per_level.emplace_back("PU", static_cast<Index>(signature.pus.size()));
    return signature;
  }
};

}  // namespace

std::vector<std::vector<std::string>> open_mpi_alike_nodes(
    const std::vector<NodeDescription>& nodes) {
  std::vector<NodeSignature> signatures;
  signatures.reserve(nodes.size());
  for (const NodeDescription& node : nodes) signatures.push_back(NodeSignature::of(node.topology));
  std::vector<std::vector<std::string>> groups;
  std::vector<bool> grouped(nodes.size(), false);
  for (std::size_t a = 0; a < nodes.size(); ++a) {
    if (grouped[a]) continue;
    std::vector<std::string> group{nodes[a].host};
    bool differ = false;  // two nodes of one signature with the same PUs are not confused
    for (std::size_t b = a + 1; b < nodes.size(); ++b) {
      if (signatures[b].present_per_level != signatures[a].present_per_level) continue;
      grouped[b] = true;
      group.push_back(nodes[b].host);
      differ = differ || signatures[b].pus != signatures[a].pus;
    }
    if (differ) groups.push_back(std::move(group));
  }
  return groups;
}

AllocationTopology build_allocation_topology(const std::vector<NodeDescription>& nodes,
                                             const NetworkShape& network) {
  check_nodes_distinct(nodes);
  const auto node_count = static_cast<Index>(nodes.size());
  // The network levels keep their arities: spare node slots become holes.
  std::vector<TreeLevel> network_levels;
  std::vector<std::vector<Index>> slots_of_nodes;
  std::int64_t slots = node_count;
  if (network.switches == 0) {
    network_levels.push_back(TreeLevel{node_count, 1.0, "Node"});
    for (Index m = 0; m < node_count; ++m) slots_of_nodes.push_back({m});
  } else {
    slots = static_cast<std::int64_t>(network.switches) * network.nodes_per_switch;
    if (slots < node_count) {
      throw io::InputError("--network", std::to_string(network.switches) + " switches x " +
                                            std::to_string(network.nodes_per_switch) +
                                            " nodes offer " + std::to_string(slots) +
                                            " node slots but the job runs on " +
                                            std::to_string(node_count) + " nodes");
    }
    network_levels.push_back(TreeLevel{network.switches, 1.0, "Switch"});
    network_levels.push_back(TreeLevel{network.nodes_per_switch, 1.0, "Node"});
    for (Index m = 0; m < node_count; ++m) {
      slots_of_nodes.push_back({m / network.nodes_per_switch, m % network.nodes_per_switch});
    }
  }
  std::vector<UnbalancedTree> trees;
  trees.reserve(nodes.size());
  for (const NodeDescription& node : nodes) trees.push_back(unbalanced_view(node.topology));

  AllocationTopology allocation;
  try {
    Index stride = 0;
    const UnbalancedTree joined = join_trees(network_levels, slots_of_nodes, trees, stride);
    allocation.topology = balanced_superset(joined).with_machine_os_stride(stride);
  } catch (const std::invalid_argument& error) {
    throw io::InputError("--network", error.what());
  }
  allocation.nodes = node_count;
  allocation.open_mpi_alike = open_mpi_alike_nodes(nodes);
  for (std::int64_t m = 0; m < slots; ++m) {
    allocation.hosts.push_back(m < node_count ? nodes[static_cast<std::size_t>(m)].host
                                              : "unused-slot-" + std::to_string(m));
  }
  return allocation;
}

NodeDescription describe_this_node(const io::TopologyOptions& options) {
  NodeDescription node;
  node.host = this_host_name();
  // hwloc's default load keeps only the allowed PUs (no HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED):
  // exactly the cores a batch system's cgroup gives this job on this node, numbered as Open MPI
  // numbers them.
  node.topology = io::read_this_machine(options);
  return node;
}

AllocationTopology gather_allocation_topology(MPI_Comm comm, const NetworkShape& network,
                                              const io::TopologyOptions& options) {
  int rank = 0;
  int size = 0;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  OwnedComm node_comm;
  check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node_comm.out()),
            "MPI_Comm_split_type");
  int node_rank = 0;
  check_mpi(MPI_Comm_rank(node_comm.get(), &node_rank), "MPI_Comm_rank");

  // Each rank learns the rank (in comm) of its node's leader, the lowest rank there (key = rank).
  int leader = rank;
  check_mpi(MPI_Bcast(&leader, 1, MPI_INT, 0, node_comm.get()), "MPI_Bcast");
  std::vector<int> leader_of_rank(static_cast<std::size_t>(size));
  check_mpi(MPI_Allgather(&leader, 1, MPI_INT, leader_of_rank.data(), 1, MPI_INT, comm),
            "MPI_Allgather");

  // Leaders describe their node (or the error that prevented it); every rank receives them all.
  std::vector<char> mine;
  if (node_rank == 0) {
    try {
      mine = serialise(describe_this_node(options));
    } catch (const std::exception& error) {
      std::string host = "?";
      try {
        host = this_host_name();
      } catch (const std::exception&) {
        // keep "?": the description error is the one to report
      }
      mine = serialise_error("allocation: node '" + host + "': " + error.what());
    }
  }
  const int my_bytes = checked_count(mine.size());
  std::vector<int> bytes(static_cast<std::size_t>(size));
  check_mpi(MPI_Allgather(&my_bytes, 1, MPI_INT, bytes.data(), 1, MPI_INT, comm), "MPI_Allgather");
  std::vector<int> displacements(static_cast<std::size_t>(size), 0);
  std::int64_t total = 0;
  for (std::size_t r = 0; r < bytes.size(); ++r) {
    if (total > INT_MAX) throw std::runtime_error("allocation: node descriptions exceed 2 GiB");
    displacements[r] = static_cast<int>(total);
    total += bytes[r];
  }
  if (total > INT_MAX) throw std::runtime_error("allocation: node descriptions exceed 2 GiB");
  std::vector<char> all(static_cast<std::size_t>(total));
  {
    const CountedCall counted(mine.size() * static_cast<std::size_t>(size - 1));
    check_mpi(MPI_Allgatherv(mine.data(), my_bytes, MPI_CHAR, all.data(), bytes.data(),
                             displacements.data(), MPI_CHAR, comm),
              "MPI_Allgatherv");
  }

  // Nodes in the order of their leaders' ranks; the same data, so the same result, on every rank.
  std::vector<NodeDescription> nodes;
  std::vector<Index> node_of_leader(static_cast<std::size_t>(size), -1);
  for (int r = 0; r < size; ++r) {
    if (leader_of_rank[static_cast<std::size_t>(r)] != r) continue;
    node_of_leader[static_cast<std::size_t>(r)] = static_cast<Index>(nodes.size());
    nodes.push_back(deserialise(all.data() + displacements[static_cast<std::size_t>(r)],
                                static_cast<std::size_t>(bytes[static_cast<std::size_t>(r)])));
  }
  AllocationTopology allocation = build_allocation_topology(nodes, network);
  allocation.node_of_rank.assign(static_cast<std::size_t>(size), 0);
  for (std::size_t r = 0; r < leader_of_rank.size(); ++r) {
    allocation.node_of_rank[r] = node_of_leader[static_cast<std::size_t>(leader_of_rank[r])];
  }
  return allocation;
}

AllocationTopology read_allocation_topology(const NetworkShape& network,
                                            const io::TopologyOptions& options) {
  int initialized = 0;
  int finalized = 0;
  check_mpi(MPI_Initialized(&initialized), "MPI_Initialized");
  check_mpi(MPI_Finalized(&finalized), "MPI_Finalized");
  if (initialized != 0 && finalized == 0)
    return gather_allocation_topology(MPI_COMM_WORLD, network, options);
  return build_allocation_topology({describe_this_node(options)}, network);
}

}  // namespace treematch::distributed
