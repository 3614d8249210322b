// Options of a mapping run, one sub-struct per phase; presets patch a copy.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/types.h"
#include "src/model/progress.h"
#include "src/tree/link_model.h"

namespace treematch {

/// How one level's groups are chosen (GroupProcesses of the paper).
struct GroupingContext {
  /// Enumerate every k-subset while C(p, k) stays at or below this; above it, candidates come
  /// from communication neighbourhoods.
  double exhaustive_limit = 20000.0;
  /// Neighbourhood candidates started per process (with each of its heaviest partners).
  int seeds_per_process = 2;
  /// Candidates grow along at most this many strongest links per process (at least 4k): dense
  /// rows would otherwise make growth O(p) per member.
  kernels::Index strongest_links = 64;
  /// Swap rounds that repair each level's partition before aggregation (0 = none).
  int partition_passes = 2;
  /// Candidate rounds over the processes left ungrouped before the final deterministic packing.
  int max_rounds = 3;
  /// The three independent-set heuristics of the paper; the level keeps the cheapest result.
  bool smallest_value_first = true;
  bool largest_index_last = true;
  bool weighted_degree_first = true;
  /// Work budget (conflict-list entries) above which the weighted-degree heuristic is skipped,
  /// as the paper's threshold; counted, not timed, so results stay deterministic.
  double weighted_degree_budget = 5.0e7;
  /// Search steps allowed to the largest-index-last heuristic per level.
  std::int64_t largest_index_budget = 200000;

  bool operator==(const GroupingContext&) const = default;
};

/// Which arities TreeMatch walks (Table 2 of the seed paper).
enum class AritySplit {
  kTable2,  ///< split a level of arity k into k/d then d exactly when C(p,k) > d C(p,k/d)
  kNever,   ///< walk the tree's own arities
  kBest,    ///< walk both and keep the cheaper mapping (ties: Table 2)
};

/// The bottom-up walk (src/walk/bottom_up.h).
struct WalkContext {
  AritySplit split = AritySplit::kBest;
};

/// The walks that put the links above each depth first (src/strategies/prioritised_links.h):
/// when link costs differ by level, the levels under each costly link are merged into one arity
/// so that its traffic is cut first...
struct PrioritisedLinksContext {
  /// ... up to this many processes (65536 in `strong`): they won none of the 6 benchmark cases
  /// where they apply (16 to 4096 processes; on G1 they took 0.06 s of 0.54 s), only small
  /// patterns where the bisections miss the cheapest top cut (8 processes in
  /// tests/apps/quality_cli_test.cc),
  kernels::Index max_processes = 2048;
  /// ... skipping a depth whose merged arity exceeds this: growing groups of 128 costs more than
  /// all the other candidates together (G1) and such walks never won on the benchmark.
  kernels::Index max_arity = 64;
};

/// Top-down mappings cut above each depth by greedy splits, bottom-up below
/// (src/strategies/greedy_top_down.h)...
struct GreedyTopDownContext {
  kernels::Index max_processes = 8192;  ///< ... up to this many processes
  std::int64_t max_entries = 1 << 17;   ///< ... and matrix entries
};

/// Top-down mappings whose nodes above the walk's levels are split by the multilevel partitioner
/// (ctx.partition), bottom-up below (src/strategies/multilevel_top_down.h), once per seed...
struct MultilevelTopDownContext {
  /// ... with budget / entries seeds, the cheapest kept. 400000 and 16, not 75000 and 8: on the
  /// corpus' 38 instances up to 16384 ranks 21 cheaper (up to 5.7%, geometric mean -0.83%) and
  /// none costlier, 10 -> 6 above the best peer, for 2.5x the time on 2 cores (the seeds are
  /// parallel tasks); G1 3 -> 16 seeds. Above 200000 entries (S1's 390072, S2, S3) one seed.
  std::int64_t budget = 400000;
  int max_runs = 16;  ///< ... at least 1 and at most this many
  /// ... and each seed's bisections whose attempts disagree make up to
  /// max(partition.attempts, ceil(attempt_budget / seeds)) attempts
  /// (partition.disagreement_attempts; 0: none more): where the entries leave room for few seeds,
  /// more attempts escape a bent cut high in the recursion instead. 36: on the corpus' 43
  /// instances 0.43% cheaper in geometric mean, 15 cheaper (knn3d-8192 -6.7%, below VieM strong's
  /// cost; knn3d-65536 -2.3%), none costlier, for 1.3-3.9x the time on irregular inputs of 1 to 7
  /// seeds (knn3d-65536 3.7 -> 13.3 s) and 2.5-2.8x on the dense hierarchical ones; the stencils'
  /// attempts agree, their time stays (apps/bench/README.md, "The attempt budget").
  int attempt_budget = 36;
  /// ... up to this many matrix entries (it copies the matrix into each node's subgraph and its
  /// coarse levels: a dense 16384^2 matrix would take gigabytes).
  std::int64_t max_entries = std::int64_t{1} << 23;
  /// ... the walk mapping the lowest walk_levels levels inside each subtree (the nodes above depth
  /// max(1, depth - walk_levels) are split; 0: down to the leaves) in the even seeds' mappings
  /// (the first, 0, among them), odd_seed_walk_levels in the odd seeds'. 1 and 2, not 2 and 2: the
  /// partitioner splits the level above the cores (a node's sockets) in half the seeds, where the
  /// walk's groups cut more; on the corpus' 43 instances 17 cheaper (geo2d-256-hops -0.9%,
  /// roads-65536-hops -0.5%), 1 costlier (powerlaw-1024 +0.08%), geometric mean -0.08%, 7% less
  /// time summed. 1 in every seed: 27 cheaper, 4 costlier, -0.10%, but powerlaw-256 +0.57%, above
  /// the cost of 70e2973's `default` (apps/bench/README.md, "The walk's levels").
  int walk_levels = 1;
  int odd_seed_walk_levels = 2;
  /// ... each seed's splits whose partition.kway_vcycles (above 0) k-way V-cycles lowered the cut
  /// making more, up to min(max_vcycles, vcycle_budget / entries) in all: small inputs, whose
  /// cycles cost little, get more where they find cuts. 131072 and 64: on the corpus 4
  /// instances cheaper (geo2d-256-hops -0.49%, below VieM strong's cost; geo2d-1024 -0.17%,
  /// cloverleaf-960-hops -0.11%, cloverleaf-640-partial -0.08%), none costlier, the 12 inputs
  /// below 8192 entries x1.08 the time in geometric mean (x1.26 with the cycles on every split:
  /// roads-256 and the other 256-rank inputs came near VieM strong's time), the others
  /// untouched; 65536: geo2d-256-hops only ties VieM (apps/bench/README.md, "More k-way
  /// V-cycles on small inputs").
  std::int64_t vcycle_budget = 131072;
  int max_vcycles = 64;
  /// ... the seeds made `seed_step` at a time, and no more once at least `agreeing_seeds` of those
  /// made map at the cheapest of their costs, before refinement (0: every seed made): seeds that
  /// agree have found the pattern's grain, and more find it again. 4 and 2: of the corpus' 43
  /// instances 4 stop with the same mappings (stencil-8x8x4-shuffled and cloverleaf-1024 after 4
  /// of 16 seeds, 0.19 -> 0.13 s and 0.32 -> 0.13 s; roads-256 after 8, 0.13 -> 0.09 s;
  /// knn2d-256 after 12), where no seeds agree the time stays; of the bench's 21 default cases that
  /// ran 10 stop (PACOS 16-128, clover-128 and -480, MapLib AMG, CG and LULESH, netloc-app), all at
  /// the same cost but netloc-app, +0.00036% (one seed of the 16 maps below the 11 that agree). 3
  /// agreeing stops neither stencil-8x8x4-shuffled nor cloverleaf-1024 after 4: their odd seeds
  /// (odd_seed_walk_levels) differ before refinement (apps/bench/README.md, "Seeds that agree").
  int seed_step = 4;
  int agreeing_seeds = 2;
};

/// The multilevel partitioner that splits a tree node's processes among its children
/// (src/partition/multilevel_partition.h).
struct PartitionContext {
  /// Coarsening stops at this many vertices, or when a level shrinks by less than 10%.
  kernels::Index coarsest = 128;
  /// Greedy-growing starts tried on the coarsest graph of each bisection; the best cut is kept.
  /// A start that grows a bisection an earlier one grew is skipped (FM would end where it did).
  int initial_tries = 4;
  /// FM breaks a tie between the two sides' best moves on a balanced bisection by the smaller
  /// vertex, not by side 1, so that it makes the same moves on a bisection with its sides
  /// swapped; a start that grows the mirror of an earlier start's bisection (into two equal
  /// targets) is then skipped as well. Inside S1's nodes half of the starts are such repeats or
  /// mirrors. The tie-break moves mappings both ways (default preset, 22 bench cases: 5 costlier
  /// by up to 0.8%, S2 0.07% off the optimum), so only `fast` sets it.
  bool side_blind_ties = false;
  /// Starts on a graph too small to coarsen (0: initial_tries).
  int uncoarsened_tries = 0;
  /// FM passes per level (each stops early after a pass without improvement).
  int fm_passes = 4;
  /// A pass gives up after this many moves (plus n / 100) without a better state: how far it
  /// climbs out of a local minimum. 100, not 200 (now in `strong`): no bench case costlier, G1
  /// 0.13% and clover-640 0.3% cheaper, S1 and S2 still at the optimum, S1 -10% CPU; 50 (the
  /// fast preset's) puts S2 0.07% above the optimum.
  int fm_stall = 100;
  /// V-cycles after the first multilevel pass (re-coarsen inside the sides, refine again).
  int vcycles = 1;
  /// Rounds of max-flow refinement (src/partition/flow_refinement.h) after FM at every level of
  /// each V-cycle (none without V-cycles), each round followed by FM and kept when it lowers the
  /// cut at no worse balance; a round that finds nothing better halves the corridor's reach. 0
  /// (no preset sets it yet): 2 with `default` on the 43 corpus instances took the geometric
  /// mean 0.18% lower, 14 cheaper (up to -1.6%), 7 costlier (up to +0.56%), for 19% more time
  /// (apps/bench/README.md, "Flow refinement"); in the first uncoarsening too: -0.21%, 6
  /// costlier (up to +0.82%), +41% time.
  int flow_rounds = 0;
  /// The corridor's reach: how far past its target a side may go were the whole corridor moved
  /// to it, as a fraction of the graph's vertices (at least FM's slack at that level). 0.03: on
  /// the 14 irregular instances of apps/bench/README.md, "Flow refinement", 0.015 and 0.06 both
  /// gained less.
  double flow_reach = 0.03;
  /// Independent multilevel bisections per split, each with its own matchings and starts; the
  /// lowest cut wins. One bent cut high in the recursion spoils every part below it, and a new
  /// coarsening escapes it where more starts on the same coarsest graph do not. 3, not 4: the
  /// same mappings on the bench cases but G1, 0.03% cheaper there with 11% less time.
  int attempts = 3;
  /// ... and a bisection that shapes q parts max(attempts, ceil(log2 q)) times when set.
  bool grow_attempts = true;
  /// ... but a bisection of a graph of at most `coarsest` vertices (not coarsened: its attempts
  /// differ only by their growing starts) at most this many times (0: no limit). 2: S1 -7% CPU
  /// with the same mapping, G1 -7% and 0.08% cheaper, S2 at the optimum, the other bench cases
  /// unchanged; 1 made G1 0.08% costlier.
  int uncoarsened_attempts = 2;
  /// When all but at most one (at least two) of this many first attempts (>= 2; 0 = never) of a
  /// bisection of a graph with at least agreement_vertices vertices reach their lowest cut,
  /// before their V-cycles or after them, the earliest of those is kept and the other attempts
  /// are not made (it acts where the grown count exceeds it: S1's first split makes 3 attempts of
  /// the 7 its 128 parts ask for). Two of three, judged before the V-cycles and again after them
  /// (three of three after them until 2026-11-26): S1 -19% CPU with the same mapping, the other
  /// bench cases' mappings unchanged (S2: another one at the optimum).
  int agreeing_attempts = 3;
  kernels::Index agreement_vertices = 1024;
  /// When every attempt of a bisection is made and only one reached their lowest cut, three more
  /// at a time until two have reached it or this many are made in all (0, or at most `attempts`:
  /// none more). A lowest cut found once among scattered cuts is a lucky draw: the bisections of
  /// irregular graphs scatter, the stencils' agree. Set for each multilevel seed from
  /// multilevel.attempt_budget; none on graphs too small to coarsen while uncoarsened_attempts
  /// limits their attempts.
  int disagreement_attempts = 0;
  /// Passes over every two parts of a tree node's multilevel split joined by edges, each pair
  /// refined as a bisection of its own by V-cycles (src/partition/part_pair_refinement.h; none
  /// without V-cycles), the swap passes again after a pass that changed a part; a pass that
  /// changes nothing ends them (0: none). 2, with pair_neighbours 3, in `default` and `strong`:
  /// the corpus' geometric mean -0.28% for `default`, 28 of 43 instances cheaper (knn2d-256
  /// -3.5%, geo2d-256-hops -0.9%, powerlaw3d-4096-uneven -0.33%), 2 costlier (roads-256 +0.19%,
  /// knn2d-4096-hops +0.07%); S1 +9% time (same mapping), G1 +18% for -0.26%
  /// (apps/bench/README.md, "Pairs of parts").
  int pair_passes = 2;
  /// ... each pair's V-cycles coarsening down to this many vertices.
  kernels::Index pair_coarsest = 16;
  /// ... only the pairs among the 3 heaviest of one of their two parts (0: every pair). On the
  /// corpus 61% of the pairs that gained were the heaviest of one of their parts, 88% among the
  /// 3 heaviest, for 59% of the pairs' work; S1's stencil parts touch up to 26 others. Every
  /// pair: -0.29% on the corpus, S1 +41% time; 2: -0.25%, powerlaw3d-4096-uneven 0.2% costlier
  /// than with 3.
  int pair_neighbours = 3;
  /// Passes of k-way FM over a tree node's multilevel split of 3 or more parts after the pairs
  /// (src/partition/kway_refinement.h; 0: none), moving single processes between any parts, and
  /// after each kick of its local search, which runs until it visited kway_kick_work times the
  /// split's entries (0: no search); the swap passes again after a change.
  int kway_passes = 0;
  double kway_kick_work = 0.0;
  /// V-cycles of k-way FM over a tree node's multilevel split of 3 or more parts after the pairs
  /// and kway_passes (src/partition/kway_vcycles.h; 0: none): coarsened inside the parts, whole
  /// clusters move between any parts; the swap passes again after a change. 16: on the corpus'
  /// 43 instances 30 cheaper (geo2d-3000-partial -2.1%, powerlaw-1024 -2.0%, towns3d-8192-hops
  /// -0.7%, below VieM strong's cost), none costlier, geometric mean -0.47%, for 1.16x the time
  /// summed (x1.2 per instance; the stencils and CloverLeaf x1.2-1.5 for no gain); 8: -0.37%
  /// for 1.07x, towns3d-8192-hops still above VieM (apps/bench/README.md, "k-way V-cycles").
  int kway_vcycles = 16;
  /// ... and this many more on a split where one of those lowered the cut (set by the multilevel
  /// top-down strategy from multilevel.vcycle_budget, as disagreement_attempts).
  int kway_more_vcycles = 0;
  /// Passes of pairwise swaps between the parts after the bisections (each stops the polishing
  /// when it swaps nothing): the k-way cut of a tree node's split.
  int swap_passes = 8;
  /// Seeds the visit order of the matching and the growing starts (fixed, so results repeat).
  std::uint64_t seed = 1;
};

/// Where processes may go.
struct PlacementContext {
  kernels::Index oversubscribe = 1;            ///< processes allowed per leaf
  std::vector<kernels::Index> allowed_leaves;  ///< logical leaves usable; empty = all
};

/// What happens to each candidate mapping afterwards.
struct RefinementContext {
  bool swaps = true;  ///< refine each candidate (src/refine/refinement.h; never raises the cost)
  /// ... when the matrix has at most this many entries (the fast preset refines only small ones,
  /// where it costs milliseconds)
  std::int64_t max_entries = std::numeric_limits<std::int64_t>::max();
  /// Whether candidates of a matrix of `entries` entries are refined (given the whole matrix).
  [[nodiscard]] bool applies(std::int64_t entries) const { return swaps && entries <= max_entries; }
  bool subtrees = true;  ///< also exchange whole subtrees, top down, before single processes
  int cycles = 2;        ///< at most this many top-down sweeps over the levels
  int rounds = 4;        ///< propose-then-apply rounds per level and sweep
  int partners = 3;      ///< each process looks at the blocks of its heaviest partners...
  int blocks_tried = 2;  ///< ... and prices every leaf of the best of those blocks
};

/// The kept mapping's sibling subtrees mapped again two at a time
/// (src/strategies/pair_remapping.h).
struct PairRemapContext {
  /// Passes over the pairs that exchange traffic (0 = none), until one changes nothing.
  int rounds = 0;
  int runs = 4;  ///< multilevel top-down mappings (seeds) made of each pair, each refined
  /// Bisection attempts in those mappings (partition.attempts for them): many cheap restarts
  /// find more than a few costly ones (on G1 3 gave the same costs as strong's 8 in 40% less
  /// time).
  int attempts = 3;
  /// Only on inputs of at most this many processes: a round costs a mapping of every pair that
  /// talks (S2: 4164 pairs of 128-process groups, for a mapping already at the optimum).
  kernels::Index max_processes = 8192;
  /// A pair whose mapping found nothing cheaper is mapped again from other seeds, while neither
  /// of its subtrees changes, at most this many times (at least rounds - 1: in every round).
  int retries = 15;
};

/// What the kept mapping is judged by (the candidates are always made and refined by the sum).
enum class Objective {
  kSum,         ///< the weighted cost (bytes x distance); equal costs go to the lower congestion
  kCongestion,  ///< then the congestion norm lowered, the weighted cost rising by sum_tolerance at
                ///< most
};

/// The objective and the machine's links it is measured on (src/refine/congestion_refinement.h).
struct ObjectiveContext {
  Objective kind = Objective::kSum;
  /// kCongestion: the weighted cost may rise by this share of the kept mapping's at most.
  double sum_tolerance = 0.01;
  /// kCongestion: passes over the hot links, until one moves nothing.
  int passes = 8;
  /// Not an option: the machine's links (--link-model); empty = the fat-tree preset.
  LinkModel links;
};

struct BaselineContext {
  std::uint64_t seed = 1;  ///< random and MPIPP starts
};

/// A candidate mapping the driver tries, one file each under src/strategies/.
enum class Strategy {
  kBottomUp,           ///< TreeMatch's walk (Algorithm 1) over the tree's levels
  kPrioritisedLinks,   ///< the walk with the levels under each costly link merged, per depth
  kGreedyTopDown,      ///< greedy splits above each depth, the walk below, per depth
  kMultilevelTopDown,  ///< multilevel bisections above the walk's levels, the walk below, per seed
  kIdentity,           ///< rank i on slot i (what a launcher does by default)
};

/// What the driver (src/driver/treematch.h) runs: the strategies in order, each candidate refined,
/// the cheapest (weighted cost) kept, the earlier on ties.
struct DriverContext {
  std::vector<Strategy> strategies{Strategy::kBottomUp, Strategy::kPrioritisedLinks,
                                   Strategy::kGreedyTopDown, Strategy::kMultilevelTopDown,
                                   Strategy::kIdentity};
  /// The refinement and every strategy but the walk need the whole matrix in every process: by
  /// default they run on matrices of at most this many entries (the size at which the
  /// distributed levels gather it anyway), with or without mpirun, so the mapping never depends
  /// on the rank count...
  std::int64_t whole_matrix_max_entries = std::int64_t{1} << 22;
  bool whole_matrix_forced = false;  ///< ... unless forced (--refine), gathering a distributed one
  /// Once a strategy has given a candidate, the later ones are skipped (the identity, the floor,
  /// still runs): a list read as "this one, or else that one where it does not apply" (the fast
  /// preset: the multilevel top-down mapping, or the walk on matrices too large for it).
  bool first_that_applies = false;
  /// Above this many processes, where the multilevel top-down candidate is made, the walk over
  /// the whole tree and the greedy top-down candidates are not (the multilevel one splits the
  /// same way, better, and walks inside the nodes anyway). On the 43 corpus instances they win
  /// none at any size (the same costs with 0); on the bench's default set the greedy top-down
  /// mapping still wins clover-256 (1.3%) and clover-128 (0.03%), nothing above 512 (the same
  /// mappings with 512 as with 2048); from 513 to 2048 processes skipping them takes 13% off
  /// `default`'s time on the 9 corpus instances there (17% off `strong`'s, whose default-preset
  /// candidates run them).
  kernels::Index multilevel_only_above = 512;
  /// Runs the default preset's strategies first (with this context's machine, placement and
  /// threads), so that the mapping is never costlier than the default preset's (strong: more
  /// attempts give lower cuts, not always cheaper mappings; clover-320 and maplib-btmz were
  /// 0.1-0.4% costlier without it).
  bool include_default = false;

  /// Whether `strategies` names `strategy`.
  [[nodiscard]] bool lists(Strategy strategy) const;
  /// Whether a matrix of `entries` entries is held whole for the refinement and the strategies
  /// but the walk.
  [[nodiscard]] bool holds_whole_matrix(std::int64_t entries) const {
    return whole_matrix_forced || entries <= whole_matrix_max_entries;
  }
};

/// How much time a mapping may take, in the manner of KaMinPar's presets and SharedMap's
/// fast/eco/strong: each is a Context (preset_context); every option can still be changed.
enum class Preset {
  kFast,     ///< one cheap multilevel split per node, the walk inside; refines small matrices only
  kDefault,  ///< the cheapest of the walks and top-down candidates, refined
  kStrong,   ///< the default's candidates, then more candidates and attempts for lower cost
};

struct Context {
  Preset preset = Preset::kDefault;  ///< the preset this context started from (for printing)
  GroupingContext grouping;
  WalkContext walk;
  PrioritisedLinksContext prioritised;
  GreedyTopDownContext greedy_top_down;
  MultilevelTopDownContext multilevel;
  PlacementContext placement;
  PartitionContext partition;
  RefinementContext refinement;
  PairRemapContext pair_remap;
  ObjectiveContext objective;
  BaselineContext baselines;
  DriverContext driver;
  int threads = 0;  ///< 0 = all hardware threads
  /// Not an option: where the driver reports its steps (a terminal's progress line); null: nowhere.
  ProgressObserver* progress = nullptr;
};

std::string to_string(AritySplit split);
std::string to_string(Strategy strategy);
std::string to_string(Preset preset);
std::string to_string(Objective objective);
/// "sum" or "congestion"; nothing for any other name.
std::optional<Objective> parse_objective(std::string_view name);
/// "fast", "default" or "strong"; nothing for any other name.
std::optional<Preset> parse_preset(std::string_view name);

/// The context of a preset.
Context preset_context(Preset preset);

/// The default preset.
Context default_context();

/// Prints the effective context, one option per line (verbose mode): "name = value".
std::string describe(const Context& ctx);

/// Sets the option `name` (as describe() prints it: "partition.attempts",
/// "driver.strategies", ...) to `value` (a number, 0/1/true/false, a split "table2|never|best",
/// or a comma list of strategies). Throws std::invalid_argument saying what is wrong: an unknown
/// name (listing the names), or a value that is not of the option's kind or out of its range.
void set_option(Context& ctx, std::string_view name, std::string_view value);

}  // namespace treematch
