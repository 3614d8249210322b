// Tests of the presets (fast, default, strong): what each is made of, the quality the fast one
// keeps on stencils, and the properties every preset keeps (a permutation, never costlier than
// the identity, the same mapping for any thread count).
#include <gtest/gtest.h>
#include <oneapi/tbb/global_control.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "src/driver/treematch.h"
#include "src/model/context.h"
#include "src/model/cost.h"
#include "src/patterns/geometric_pattern.h"
#include "src/patterns/stencil_pattern.h"
#include "src/strategies/identity.h"
#include "src/strategies/multilevel_top_down.h"
#include "src/tree/topology.h"
#include "tests/src/hierarchical_pattern.h"

namespace treematch {
namespace {

using testing::hierarchical_pattern;
using testing::random_permutation;
using testing::tree_of;

constexpr Preset kPresets[] = {Preset::kFast, Preset::kDefault, Preset::kStrong};

// The strategies that proposed a candidate (one that does not apply to the input proposes none).
std::vector<std::string> strategies_run(const TreeMatchResult& result) {
  std::vector<std::string> names;
  for (const StrategyTrace& trace : result.strategies) {
    if (trace.candidates > 0) names.push_back(trace.strategy);
  }
  return names;
}

//   A 32 x 16 x 16 stencil, ranks shuffled, on the benchmark's machine shape (64 switches x 16
//   nodes x 2 packages x 4 cores), where the nested blocks are the optimum (see
//   MultilevelTopDown.ShuffledStencilMapsAtTheNestedBlocksCost): the fast preset stays within 3%
//   of it, which TreeMatch's walk alone (the fast preset's walk settings) does not.
TEST(Presets, FastIsWithinThreePercentOfTheOptimumOnShuffledStencils) {
  const Topology tree = tree_of({64, 16, 2, 4});
  const std::vector<CellBox> boxes = {{4, 4, 8}, {2, 2, 2}, {2, 2, 1}, {1, 1, 1}};
  const Context fast = preset_context(Preset::kFast);
  Context walk_only = fast;
  walk_only.driver.strategies = {Strategy::kBottomUp, Strategy::kIdentity};
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const StencilSpec spec{.nx = 32, .ny = 16, .nz = 16, .seed = seed};
    const CommGraph graph = make_stencil_27(spec);
    const double optimum = evaluate_cost(graph, tree, nested_block_mapping(spec, boxes)).weighted;
    const TreeMatchResult ours = treematch_map(graph, tree, fast);
    EXPECT_EQ(ours.strategy, "multilevel-top-down") << "seed " << seed;
    EXPECT_LE(ours.cost.weighted, 1.03 * optimum) << "seed " << seed;
    EXPECT_GE(ours.cost.weighted, optimum * (1.0 - 1e-12)) << "seed " << seed;
    const double walk = treematch_map(graph, tree, walk_only).cost.weighted;
    EXPECT_GT(walk, 1.03 * optimum) << "seed " << seed << ": the walk alone would do";
  }
}

// The fast preset runs the multilevel mapping, or else the walk: never both; the identity is
// always priced as the floor.
TEST(Presets, FastRunsTheWalkOnlyWhereTheMultilevelMappingDoesNotApply) {
  const Topology tree = tree_of({8, 2, 4});
  const CommGraph graph = make_stencil_27({.nx = 4, .ny = 4, .nz = 4, .seed = 5});
  Context fast = preset_context(Preset::kFast);
  const TreeMatchResult multilevel = treematch_map(graph, tree, fast);
  EXPECT_EQ(strategies_run(multilevel),
            (std::vector<std::string>{"multilevel-top-down", "identity"}));

  fast.multilevel.max_entries = graph.nnz() - 1;  // too large for it now
  const TreeMatchResult walk = treematch_map(graph, tree, fast);
  EXPECT_EQ(strategies_run(walk), (std::vector<std::string>{"bottom-up", "identity"}));
  EXPECT_EQ(walk.strategy, "bottom-up");

  fast.driver.first_that_applies = false;  // the list read as "all of them"
  EXPECT_EQ(strategies_run(treematch_map(graph, tree, fast)),
            (std::vector<std::string>{"bottom-up", "identity"}));
  fast.multilevel.max_entries = graph.nnz();
  EXPECT_EQ(strategies_run(treematch_map(graph, tree, fast)),
            (std::vector<std::string>{"multilevel-top-down", "bottom-up", "identity"}));
}

// Above driver.multilevel_only_above processes the default preset makes neither the walk over the
// whole tree nor the greedy top-down mappings where it makes the multilevel top-down one; strong's
// own candidates make them only where no multilevel one is made (the default preset's among them
// keep theirs).
TEST(Presets, DefaultLeavesLargeInputsToTheMultilevelMapping) {
  const Topology tree = tree_of({8, 2, 4});
  const CommGraph graph = make_stencil_27({.nx = 4, .ny = 4, .nz = 4, .seed = 5});
  Context ctx = preset_context(Preset::kDefault);
  const auto run = [&](const Context& c) { return strategies_run(treematch_map(graph, tree, c)); };
  using Names = std::vector<std::string>;
  EXPECT_EQ(run(ctx), (Names{"bottom-up", "greedy-top-down", "multilevel-top-down", "identity"}))
      << "64 processes: at most the limit";
  ctx.driver.multilevel_only_above = graph.size() - 1;
  EXPECT_EQ(run(ctx), (Names{"multilevel-top-down", "identity"})) << "above the limit";
  ctx.multilevel.max_entries = graph.nnz() - 1;  // no multilevel candidate now
  EXPECT_EQ(run(ctx), (Names{"bottom-up", "greedy-top-down", "identity"}));
  ctx.multilevel.max_entries = graph.nnz();
  ctx.driver.strategies = {Strategy::kBottomUp, Strategy::kGreedyTopDown, Strategy::kIdentity};
  EXPECT_EQ(run(ctx), (Names{"bottom-up", "greedy-top-down", "identity"})) << "nor here";
  Context strong = preset_context(Preset::kStrong);
  EXPECT_EQ(strong.driver.multilevel_only_above, 0);
  // Strong makes no multilevel candidate of its own; the default preset's, made beside, is what
  // leaves its own walk and greedy mappings out.
  EXPECT_EQ(run(strong), (Names{"bottom-up (default preset)", "greedy-top-down (default preset)",
                                "multilevel-top-down (default preset)", "identity (default preset)",
                                "identity", "pair remapping"}));
  Context alone = strong;
  alone.driver.include_default = false;
  EXPECT_EQ(run(alone), (Names{"bottom-up", "greedy-top-down", "identity", "pair remapping"}))
      << "no multilevel candidate, so its own walk and greedy mappings";
  EXPECT_NE(describe(ctx).find("driver.multilevel_only_above = 63\n"), std::string::npos);
  set_option(strong, "driver.multilevel_only_above", "5");
  EXPECT_EQ(strong.driver.multilevel_only_above, 5);
}

// Strong makes the default preset's candidates first, but not where they would repeat its own:
// without the whole matrix only the walks run, unrefined, with the same options.
TEST(Presets, StrongMakesTheDefaultCandidatesOnlyWhereTheyDiffer) {
  const Topology tree = tree_of({8, 2, 4});
  const CommGraph graph = make_stencil_27({.nx = 4, .ny = 4, .nz = 4, .seed = 5});
  const auto default_runs = [&](const Context& ctx) {
    std::size_t count = 0;
    for (const StrategyTrace& trace : treematch_map(graph, tree, ctx).strategies)
      count += trace.strategy.find("(default preset)") != std::string::npos ? 1 : 0;
    return count;
  };
  Context strong = preset_context(Preset::kStrong);
  EXPECT_EQ(default_runs(strong), preset_context(Preset::kDefault).driver.strategies.size());
  strong.driver.whole_matrix_max_entries = graph.nnz() - 1;  // only the walks now
  EXPECT_EQ(default_runs(strong), 0u);
  strong.grouping.seeds_per_process = 1;  // the walks differ from the default's
  EXPECT_GT(default_runs(strong), 0u);
  strong.driver.include_default = false;
  strong.driver.whole_matrix_max_entries = graph.nnz();
  EXPECT_EQ(default_runs(strong), 0u);
}

// Strong's own walks with costly links first are the ones its own options make, whether it takes
// them from the default preset's run (the same walks, made once) or not (another grouping).
TEST(Presets, StrongsOwnWalksWithCostlyLinksFirstAreItsOwn) {
  const Topology tree = testing::costly_tree({4, 4, 2, 4}, {100.0, 10.0, 1.0, 1.0});
  const CommGraph graph = make_stencil_27({.nx = 8, .ny = 4, .nz = 4, .seed = 3});
  const auto walk_cost = [&](const Context& ctx, const std::string& name) {
    for (const StrategyTrace& trace : treematch_map(graph, tree, ctx).strategies)
      if (trace.strategy == name) return trace.best_weighted;
    ADD_FAILURE() << "no trace " << name;
    return 0.0;
  };
  // Refined alike, so that the costs compare the walks: the default preset's refinement.
  Context strong = preset_context(Preset::kStrong);
  strong.refinement = preset_context(Preset::kDefault).refinement;
  Context alone = strong;
  alone.driver.include_default = false;
  const double shared = walk_cost(strong, "prioritised-links");
  EXPECT_EQ(shared, walk_cost(strong, "prioritised-links (default preset)"));
  EXPECT_EQ(shared, walk_cost(alone, "prioritised-links"));

  strong.grouping.largest_index_last = !strong.grouping.largest_index_last;
  alone.grouping = strong.grouping;
  const double own = walk_cost(alone, "prioritised-links");
  ASSERT_NE(own, walk_cost(strong, "prioritised-links (default preset)"))
      << "the other grouping makes other walks";
  EXPECT_EQ(walk_cost(strong, "prioritised-links"), own);
}

// Every preset: one rank per leaf, never costlier than the identity (rank i on leaf i), on a
// pattern made for a tree (permuted) and on a shuffled stencil.
TEST(Presets, EveryPresetMapsOneToOneAndNeverCostlierThanTheIdentity) {
  const Topology tree = tree_of({4, 4, 2, 4});
  const CommGraph hierarchical =
      hierarchical_pattern(tree, random_permutation(tree.leaf_count(), 3), 3.0);
  const CommGraph stencil = make_stencil_27({.nx = 8, .ny = 4, .nz = 4, .seed = 2});
  for (const Preset preset : kPresets) {
    for (const CommGraph* graph : {&hierarchical, &stencil}) {
      const TreeMatchResult result = treematch_map(*graph, tree, preset_context(preset));
      std::vector<Index> leaves = result.mapping.leaf_of_rank;
      std::sort(leaves.begin(), leaves.end());
      std::vector<Index> all(static_cast<std::size_t>(tree.leaf_count()));
      std::iota(all.begin(), all.end(), 0);
      EXPECT_EQ(leaves, all) << to_string(preset);
      const double identity = evaluate_cost(*graph, tree, identity_mapping(graph->size())).weighted;
      EXPECT_LE(result.cost.weighted, identity) << to_string(preset);
    }
  }
}

TEST(Presets, EveryPresetGivesTheSameMappingForAnyThreadCount) {
  const Topology tree = tree_of({16, 8, 2, 4});
  const CommGraph graph = make_stencil_27({.nx = 16, .ny = 8, .nz = 8, .seed = 7});
  for (const Preset preset : kPresets) {
    std::vector<Index> reference;
    for (const int threads : {1, 2, 4}) {
      const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                      static_cast<std::size_t>(threads));
      const std::vector<Index> leaves =
          treematch_map(graph, tree, preset_context(preset)).mapping.leaf_of_rank;
      if (reference.empty()) {
        reference = leaves;
      } else {
        EXPECT_EQ(leaves, reference) << to_string(preset) << ", " << threads << " threads";
      }
    }
  }
}

//   The k-way refinements of each split (opt-in): the flat one with its local search, and the
//   V-cycles, each on an irregular pattern (a 512-part geometric graph on 8 x 8 x 2 x 4 cores,
//   splits of 8 parts): the mapping changes, is one rank per leaf, and is the same at 1, 2 and 4
//   threads (each split is refined in its own task, seeded by its node, not by the order the
//   tasks run in).
TEST(Presets, KwayRefinementsGiveTheSameMappingForAnyThreadCount) {
  const Topology tree = tree_of({8, 8, 2, 4});
  const CommGraph graph =
      make_geometric_pattern({.ranks = 512, .points = 16384, .hotspots = 4, .seed = 3});
  const Context base = preset_context(Preset::kDefault);
  const std::vector<Index> without = treematch_map(graph, tree, base).mapping.leaf_of_rank;
  Context flat = base;
  flat.partition.kway_passes = 4;
  flat.partition.kway_kick_work = 100.0;
  Context vcycles = base;
  vcycles.partition.kway_vcycles = 4;
  vcycles.multilevel.vcycle_budget = 0;  // 4, not more for a small input
  for (const auto& [name, ctx] : {std::pair{"flat", flat}, std::pair{"V-cycles", vcycles}}) {
    std::vector<Index> reference;
    for (const int threads : {1, 2, 4}) {
      const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                      static_cast<std::size_t>(threads));
      const std::vector<Index> leaves = treematch_map(graph, tree, ctx).mapping.leaf_of_rank;
      if (reference.empty()) {
        reference = leaves;
      } else {
        EXPECT_EQ(leaves, reference) << name << ", " << threads << " threads";
      }
    }
    EXPECT_NE(reference, without) << name << ": the refinement changed no split";
    std::vector<Index> sorted = reference;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i) EXPECT_EQ(sorted[i], static_cast<Index>(i));
  }
}

// A small input (256 ranks, about 1300 entries) gets up to 64 k-way V-cycles a split in the
// default preset instead of 16, where the 16 lowered the cut: another mapping, no costlier, the
// same at any thread count; with the budget at 0 it is the 16-cycle mapping.
TEST(Presets, DefaultMakesMoreKwayVcyclesOnSmallInputs) {
  const Topology tree = testing::costly_tree({8, 2, 16}, {3.0, 2.0, 1.0});
  const CommGraph graph = make_geometric_pattern(
      {.ranks = 256, .points = 256 * 48, .degree = 8.0, .hotspots = 8, .seed = 1});
  const Context ctx = preset_context(Preset::kDefault);
  ASSERT_EQ(multilevel_more_kway_vcycles(graph.nnz(), ctx.partition, ctx.multilevel), 48);
  Context sixteen = ctx;
  sixteen.multilevel.vcycle_budget = 0;
  const TreeMatchResult fewer = treematch_map(graph, tree, sixteen);
  std::vector<Index> reference;
  for (const int threads : {1, 2, 4}) {
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                    static_cast<std::size_t>(threads));
    const TreeMatchResult more = treematch_map(graph, tree, ctx);
    if (reference.empty()) reference = more.mapping.leaf_of_rank;
    EXPECT_EQ(more.mapping.leaf_of_rank, reference) << threads << " threads";
    EXPECT_LE(more.cost.weighted, fewer.cost.weighted) << threads << " threads";
  }
  EXPECT_NE(reference, fewer.mapping.leaf_of_rank) << "the cycles beyond 16 changed no split";
}

TEST(Presets, NamesReadBackAndNothingElseIsAPreset) {
  for (const Preset preset : kPresets) EXPECT_EQ(parse_preset(to_string(preset)), preset);
  for (const char* name : {"", "Fast", "eco", "fast ", "defaults"}) {
    EXPECT_FALSE(parse_preset(name).has_value()) << name;
  }
}

TEST(Presets, TheDriverOptionIsSetAndPrinted) {
  Context ctx = preset_context(Preset::kDefault);
  EXPECT_FALSE(ctx.driver.first_that_applies);
  EXPECT_NE(describe(ctx).find("driver.first_that_applies = 0\n"), std::string::npos);
  set_option(ctx, "driver.first_that_applies", "true");
  EXPECT_TRUE(ctx.driver.first_that_applies);
  EXPECT_NE(describe(preset_context(Preset::kFast)).find("driver.first_that_applies = 1\n"),
            std::string::npos);
  EXPECT_THROW(set_option(ctx, "driver.first_that_applies", "maybe"), std::invalid_argument);
}

TEST(Presets, FastsPartitionKnobsAreSetAndPrinted) {
  // Only fast skips mirrored starts and makes 3 starts on small graphs.
  const Context fast = preset_context(Preset::kFast);
  EXPECT_TRUE(fast.partition.side_blind_ties);
  EXPECT_EQ(fast.partition.uncoarsened_tries, 3);
  for (const Preset preset : {Preset::kDefault, Preset::kStrong}) {
    const Context ctx = preset_context(preset);
    EXPECT_FALSE(ctx.partition.side_blind_ties) << to_string(preset);
    EXPECT_EQ(ctx.partition.uncoarsened_tries, 0) << to_string(preset);
  }
  const std::string printed = describe(fast);
  for (const char* line :
       {"partition.side_blind_ties = 1\n", "partition.uncoarsened_tries = 3\n"}) {
    EXPECT_NE(printed.find(line), std::string::npos) << line;
  }
  Context ctx = preset_context(Preset::kDefault);
  set_option(ctx, "partition.side_blind_ties", "1");
  set_option(ctx, "partition.uncoarsened_tries", "2");
  EXPECT_TRUE(ctx.partition.side_blind_ties);
  EXPECT_EQ(ctx.partition.uncoarsened_tries, 2);
  EXPECT_THROW(set_option(ctx, "partition.uncoarsened_tries", "-1"), std::invalid_argument);
}

}  // namespace
}  // namespace treematch
