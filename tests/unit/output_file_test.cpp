// The files the CLI writes for its user: whole or not at all, and a failure names the file
// and the reason.
#include "host/base/output_file.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using namespace initbench;

namespace {

class OutputFile : public ::testing::Test {
protected:
    void SetUp() override {
        char name[] = "/tmp/initbench-output-file-XXXXXX";
        ASSERT_NE(mkdtemp(name), nullptr);
        dir = name;
    }
    void TearDown() override { fs::remove_all(dir); }

    static std::string read(const fs::path& p) {
        std::ifstream in(p);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }

    fs::path dir;
};

TEST_F(OutputFile, ReplacesTheFileWholeAndLeavesNoTemporary) {
    const fs::path out = dir / "r.json";
    ASSERT_TRUE(write_output_file(out, "old\n"));
    ASSERT_TRUE(write_output_file(out, "new\n"));
    EXPECT_EQ(read(out), "new\n");
    EXPECT_FALSE(fs::exists(dir / "r.json.tmp"));
    EXPECT_TRUE(output_writable(out));
}

TEST_F(OutputFile, AFailureNamesTheFileAndWhy) {
    const fs::path missing = dir / "no-such-dir" / "r.json";
    auto written = write_output_file(missing, "x");
    ASSERT_FALSE(written);
    EXPECT_EQ(written.error().message(), "cannot write " + missing.string() + ".tmp: No such file or directory");
    auto writable = output_writable(missing);
    ASSERT_FALSE(writable);
    EXPECT_EQ(writable.error().message(),
              "cannot write " + missing.string() + ": directory " + (dir / "no-such-dir").string() +
                  ": No such file or directory");
}

TEST_F(OutputFile, AFailedRenameKeepsTheOldContentsAndRemovesTheTemporary) {
    const fs::path out = dir / "comparison.json";
    fs::create_directory(out); // the name is taken by a directory: the rename fails
    fs::create_directory(out / "inside");
    auto written = write_output_file(out, "x");
    ASSERT_FALSE(written);
    EXPECT_NE(written.error().message().find("cannot write " + out.string() + ": "), std::string::npos)
        << written.error().message();
    EXPECT_TRUE(fs::is_directory(out / "inside"));
    EXPECT_FALSE(fs::exists(dir / "comparison.json.tmp"));
}

// What is not a regular file (/dev/stdout, a pipe, a link) is written through. Tried on a link
// only: a broken build must not replace this machine's /dev/null.
TEST_F(OutputFile, ALinkIsWrittenThroughNotReplaced) {
    const fs::path target = dir / "target.json", link = dir / "link.json";
    ASSERT_TRUE(write_output_file(target, "old"));
    fs::create_symlink(target, link);
    ASSERT_TRUE(write_output_file(link, "new"));
    EXPECT_TRUE(fs::is_symlink(link));
    EXPECT_EQ(read(target), "new");
}

} // namespace
