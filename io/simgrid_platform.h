// A machine tree and its link model as a SimGrid platform, and a mapping as an SMPI hostfile: what
// `smpirun -platform P.xml -hostfile H` needs to simulate a job placed by a mapping.
#pragma once

#include <string>

#include "src/model/mapping.h"
#include "src/tree/link_model.h"
#include "src/tree/topology.h"

namespace treematch::io {

/// Bandwidth written for a free link (SimGrid takes no infinite bandwidth): 1 PB/s.
inline constexpr double kFreeLinkBandwidth = 1e15;

/// SimGrid platform (DTD 4.1) of `topology` with the links of `model`: a host "h<leaf>" per present
/// leaf (computing `host_flops` per second), a router "r<depth>_<vertex>" per inner vertex (r0_0
/// the root), and per vertex below the root one SPLITDUPLEX link "l<depth>_<vertex>" to its parent
/// with its level's bandwidth and latency (each direction carries the bandwidth on its own, and
/// everything below the vertex shares it, as link_loads counts). Routes are the tree's: each
/// vertex declares its link up to its parent and the zone (DijkstraCache: each route computed
/// once) joins them. Throws
/// std::invalid_argument when the model has not one link per level.
std::string simgrid_platform_xml(const Topology& topology, const LinkModel& model,
                                 double host_flops);

/// The SMPI hostfile of `mapping` on that platform: line r names rank r's host ("h<leaf>").
std::string simgrid_hostfile(const Mapping& mapping);

}  // namespace treematch::io
