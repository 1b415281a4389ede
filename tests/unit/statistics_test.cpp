// The statistics core against values worked out by hand.
#include "common/statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace initbench;

TEST(Statistics, MeansByAggregation) {
    const std::vector<double> xs = {1, 2, 4};
    EXPECT_DOUBLE_EQ(*aggregate(xs, Agg::amean), 7.0 / 3);
    EXPECT_DOUBLE_EQ(*aggregate(xs, Agg::hmean), 3 / (1 + 0.5 + 0.25)); // 12/7
    EXPECT_DOUBLE_EQ(*aggregate(xs, Agg::gmean), 2);                    // cube root of 8
    EXPECT_EQ(parse_agg("hmean"), Agg::hmean);
    EXPECT_EQ(parse_agg("avg"), Agg::amean);
    EXPECT_EQ(agg_label(Agg::gmean), "Gmean");
}

TEST(Statistics, NoHarmonicMeanOfARoundWithoutOperations) {
    const std::vector<double> xs = {10, 0, 20};
    EXPECT_FALSE(aggregate(xs, Agg::hmean));
    EXPECT_FALSE(aggregate(xs, Agg::gmean));
    EXPECT_DOUBLE_EQ(*aggregate(xs, Agg::amean), 10);
    EXPECT_FALSE(aggregate(std::vector<double>{}, Agg::amean));
}

TEST(Statistics, SampleStandardDeviation) {
    const std::vector<double> xs = {2, 4, 4, 4, 5, 5, 7, 9}; // mean 5, squares sum 32
    EXPECT_DOUBLE_EQ(arithmetic_mean(xs), 5);
    EXPECT_DOUBLE_EQ(sample_variance(xs, 5), 32.0 / 7);
    EXPECT_DOUBLE_EQ(sample_stddev(xs, 5), std::sqrt(32.0 / 7));
    EXPECT_EQ(sample_stddev(std::vector<double>{3}, 3), 0);
}
