// LAVA on the host: the job `initbench lava-job` writes (read back with libyaml's document
// loader, an independent reader of what the emitter wrote) and the log lines LAVA writes.
#include "host/lab/lava_job.h"
#include "host/results/lava_log.h"

#include <gtest/gtest.h>
#include <yaml.h>

#include <stdexcept>
#include <string>
#include <vector>

using namespace initbench;

namespace {

// A loaded YAML document and a path lookup into it: keys for mappings, "0", "1"… for sequences.
class Doc {
public:
    explicit Doc(const std::string& text) {
        yaml_parser_t p;
        yaml_parser_initialize(&p);
        yaml_parser_set_input_string(&p, reinterpret_cast<const unsigned char*>(text.data()), text.size());
        loaded_ = yaml_parser_load(&p, &doc_) == 1;
        yaml_parser_delete(&p);
    }
    ~Doc() {
        if (loaded_)
            yaml_document_delete(&doc_);
    }
    bool loaded() const { return loaded_; }

    std::string at(const std::vector<std::string>& path) {
        yaml_node_t* n = yaml_document_get_root_node(&doc_);
        for (const auto& step : path) {
            if (!n)
                return "<missing>";
            if (n->type == YAML_MAPPING_NODE) {
                yaml_node_t* next = nullptr;
                for (auto* pair = n->data.mapping.pairs.start; pair < n->data.mapping.pairs.top; ++pair)
                    if (scalar(yaml_document_get_node(&doc_, pair->key)) == step)
                        next = yaml_document_get_node(&doc_, pair->value);
                n = next;
            } else if (n->type == YAML_SEQUENCE_NODE) {
                const size_t i = std::stoul(step);
                auto* items = n->data.sequence.items.start;
                n = items + i < n->data.sequence.items.top ? yaml_document_get_node(&doc_, items[i]) : nullptr;
            } else {
                return "<not a collection>";
            }
        }
        return n ? scalar(n) : "<missing>";
    }

private:
    static std::string scalar(yaml_node_t* n) {
        if (!n || n->type != YAML_SCALAR_NODE)
            return "<not a scalar>";
        return {reinterpret_cast<const char*>(n->data.scalar.value), n->data.scalar.length};
    }
    yaml_document_t doc_{};
    bool loaded_ = false;
};

} // namespace

TEST(LavaJob, ValuesThatLookLikeYamlStayValues) {
    LavaJobSpec spec;
    spec.kernel_url = "http://lab/it's: #1/bzImage";
    spec.image_url = "file:///srv/[images]/{initbench}.cpio.gz";
    spec.params = {"initbench.profile=default", "initbench.phases=none,fork"};
    Doc doc(lava_job_yaml(spec));
    ASSERT_TRUE(doc.loaded());
    EXPECT_EQ(doc.at({"device_type"}), "qemu");
    EXPECT_EQ(doc.at({"actions", "0", "deploy", "images", "kernel", "url"}), spec.kernel_url);
    EXPECT_EQ(doc.at({"actions", "0", "deploy", "images", "ramdisk", "url"}), spec.image_url);
    EXPECT_EQ(doc.at({"actions", "0", "deploy", "images", "kernel", "image_arg"}),
              "-kernel {kernel} -append \"console=ttyS0,115200 initbench.format=lava panic=-1 "
              "initbench.profile=default initbench.phases=none,fork\"");
    EXPECT_EQ(doc.at({"timeouts", "job", "minutes"}), "15");
    EXPECT_EQ(doc.at({"actions", "1", "boot", "prompts", "0"}), "Run /init as init process");
    EXPECT_EQ(doc.at({"actions", "2", "test", "monitors", "0", "pattern"}), lava_monitor_pattern());
    EXPECT_EQ(doc.at({"actions", "2", "test", "monitors", "0", "fixupdict", "skip"}), "skip");
}

// A URL of bytes that are not UTF-8 is refused by name; it used to make lava-job spin
// forever (libyaml refused the event and the writer emitted it all the same).
TEST(LavaJob, AValueThatIsNotUtf8IsRefusedByName) {
    LavaJobSpec spec;
    spec.kernel_url = "http://lab/\xff\xfe/bzImage";
    spec.image_url = "http://lab/initbench.cpio.gz";
    try {
        lava_job_yaml(spec);
        ADD_FAILURE() << "a job was written";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("not valid UTF-8: http://lab/"), std::string::npos)
            << e.what();
    }
}

TEST(LavaJob, BoardJobBootsOverTftp) {
    LavaJobSpec spec;
    spec.kernel_url = "http://lab/Image";
    spec.image_url = "http://lab/initbench.cpio.gz";
    spec.device_type = "bcm2711-rpi-4-b";
    spec.arch = "aarch64";
    spec.kernel_type = "image";
    Doc doc(lava_job_yaml(spec));
    ASSERT_TRUE(doc.loaded());
    EXPECT_EQ(doc.at({"actions", "0", "deploy", "to"}), "tftp");
    EXPECT_EQ(doc.at({"actions", "0", "deploy", "kernel", "type"}), "image");
    EXPECT_EQ(doc.at({"actions", "1", "boot", "method"}), "u-boot");
    EXPECT_EQ(doc.at({"actions", "1", "boot", "kernel_args"}), "console=ttyAMA0,115200 initbench.format=lava");
    EXPECT_EQ(doc.at({"context"}), "<missing>");
}

TEST(LavaJob, QuoteInAKernelParameterIsRefused) {
    LavaJobSpec spec;
    spec.kernel_url = "http://lab/bzImage";
    spec.image_url = "http://lab/initbench.cpio.gz";
    spec.params = {"initbench.cmd=\"echo hi\""};
    EXPECT_THROW(lava_job_yaml(spec), std::invalid_argument);
}

// A value with spaces (a shell's initbench.module.params="a=1 b=2") would reach the board
// as two parameters: refused, with where such a value goes instead.
TEST(LavaJob, ASpaceInAKernelParameterIsRefused) {
    LavaJobSpec spec;
    spec.kernel_url = "http://lab/bzImage";
    spec.image_url = "http://lab/initbench.cpio.gz";
    spec.params = {"initbench.module.params=a=1 b=2"};
    try {
        lava_job_yaml(spec);
        ADD_FAILURE() << "accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("experiment file"), std::string::npos) << e.what();
    }
}

TEST(LavaLog, ArchivedAndPrintedFormsGiveTheMessage) {
    for (std::string prefix : {"- ", "  - ", ""}) {
        auto l = parse_lava_line(prefix + R"({"dt": "2026-12-01T06:00:00.1", "lvl": "target", "msg": "IB1 0 ab {\"v\":2}"})");
        ASSERT_TRUE(l) << prefix;
        EXPECT_EQ(l->lvl, "target");
        EXPECT_EQ(l->msg, "IB1 0 ab {\"v\":2}");
    }
}

TEST(LavaLog, YamlEscapesAreDecoded) {
    // \x, \u, \U, \e, \N, \_ as PyYAML's double-quoted style (LAVA's logger) writes them.
    auto l = parse_lava_line(R"(- {"dt": "t", "lvl": "target", "msg": "a\x09b \u00e9 \U0001F600 \e[0m \N\_"})");
    ASSERT_TRUE(l);
    EXPECT_EQ(*l->msg, "a\tb \xC3\xA9 \xF0\x9F\x98\x80 \x1b[0m \xC2\x85\xC2\xA0");
}

TEST(LavaLog, NestedValuesAreSkippedAndLaterKeysRead) {
    auto l = parse_lava_line(R"(- {"dt": "t", "lvl": "results", "msg": {"case": "x", "result": "pass"}, "extra": "e"})");
    ASSERT_TRUE(l);
    EXPECT_EQ(l->lvl, "results");
    EXPECT_FALSE(l->msg);
}

TEST(LavaLog, CutLineIsNotAnEntry) {
    // YAML cannot tell a flow mapping from a key until it ends: a cut line is console text,
    // where a cut frame shows up as damage.
    EXPECT_FALSE(parse_lava_line(R"(- {"dt": "t", "lvl": "target", "msg": "IB1 0 ab {\"v)"));
    EXPECT_FALSE(parse_lava_line(R"({"dt": "t", "lvl": "target", "msg": "IB1 0 ab"})" "\x80"));
}

TEST(LavaLog, ConsoleTextIsNotALavaLine) {
    for (const char* s : {"[    0.000000] Linux version 6.1.0", "IB1 0 ab {\"v\":2}", "- item", "{\"v\": 2}", "", "- {"})
        EXPECT_FALSE(parse_lava_line(s)) << s;
}
