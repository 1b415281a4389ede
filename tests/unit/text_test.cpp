// common/text: the helpers the guest and the host share.
#include "common/text.h"

#include <gtest/gtest.h>

#include <vector>

using namespace initbench;

TEST(SignedAmount, SignPercentAndNumber) {
    auto a = parse_signed_amount("-15%");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->value, 15);
    EXPECT_EQ(a->sign, '-');
    EXPECT_TRUE(a->percent);
    a = parse_signed_amount("2.5");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->value, 2.5);
    EXPECT_EQ(a->sign, 0);
    EXPECT_FALSE(a->percent);
    EXPECT_EQ(parse_signed_amount(">3")->sign, '>');
}

TEST(SignedAmount, AnythingElseIsRefused) {
    for (const char* bad : {"", "%", "+", "+%", "5%%", "five", "5 %", " 5", "1e999", "nan", "5x", "--5"})
        EXPECT_FALSE(parse_signed_amount(bad)) << bad;
}

TEST(Text, JoinAndFormat) {
    EXPECT_EQ(join(std::vector<std::string>{"a", "b", "c"}, ", "), "a, b, c");
    EXPECT_EQ(join(std::vector<std::string>{}, ","), "");
    EXPECT_EQ(format_number(0.5), "0.5");
    EXPECT_EQ(format_number(12.3456, "%+.2f%%"), "+12.35%");
    EXPECT_TRUE(is_space('\v'));
    EXPECT_FALSE(is_space('x'));
}

TEST(Text, SplitKeepsEveryPiece) {
    using V = std::vector<std::string_view>;
    EXPECT_EQ(split_on("pipe|socket", '|'), (V{"pipe", "socket"}));
    EXPECT_EQ(split_on("a||b|", '|'), (V{"a", "", "b", ""}));
    EXPECT_EQ(split_on("", ','), (V{""}));
    EXPECT_EQ(split_on("one", ','), (V{"one"}));
}

TEST(Text, WholeIntegersOnly) {
    EXPECT_EQ(parse_integer<unsigned>("42"), 42u);
    EXPECT_EQ(parse_integer<long>("-20"), -20);
    for (const char* bad : {"", "-1", " 1", "1 ", "1x", "0x10", "99999999999"})
        EXPECT_FALSE(parse_integer<unsigned>(bad)) << bad;
}

enum class Colour { red, green, blue };
constexpr Named<Colour> kColours[] = {{Colour::red, "red"}, {Colour::green, "green"}, {Colour::blue, "blue"}};

TEST(Text, EnumNamesBothWays) {
    static_assert(name_of(kColours, Colour::blue) == "blue");
    EXPECT_EQ(value_named(kColours, "green"), Colour::green);
    EXPECT_FALSE(value_named(kColours, "Green"));
    EXPECT_EQ(name_of(kColours, static_cast<Colour>(7)), "red"); // not in the table: the first
}

// A command line's choices from the table: all of them, or all but some, in order.
TEST(Text, EnumNamesAsChoices) {
    EXPECT_EQ(names_of(kColours), (std::vector<std::string>{"red", "green", "blue"}));
    EXPECT_EQ(names_of(kColours, {Colour::green}), (std::vector<std::string>{"red", "blue"}));
}

TEST(Text, HexOfBytesInOrder) {
    const unsigned char id[] = {0x00, 0x0f, 0xa5, 0xff};
    EXPECT_EQ(to_hex(id), "000fa5ff");
    EXPECT_EQ(to_hex({}), "");
}

TEST(Text, Utf8ValidAndMadeSafe) {
    EXPECT_TRUE(valid_utf8("fork \xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
    EXPECT_FALSE(valid_utf8("\xc0\xaf"));         // overlong '/'
    EXPECT_FALSE(valid_utf8("\xed\xa0\x80"));     // a surrogate
    EXPECT_FALSE(valid_utf8("\xf4\x90\x80\x80")); // past U+10FFFF
    EXPECT_FALSE(valid_utf8("\xe2\x82"));         // cut short
    EXPECT_EQ(utf8_safe("a\xffz\xc3\xa9"), "a?z\xc3\xa9");
    EXPECT_EQ(utf8_length("\xe2\x82\xac", 0), 3u);
}
