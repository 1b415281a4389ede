// `initbench export --format junit`: the statuses as JUnit's outcomes, and text that cannot
// break the XML. (tests/unit/test_export_schema.py validates whole documents with xmllint.)
#include "host/export/xml_writer.h"
#include "tests/unit/export_fixture.h"

namespace initbench::exporting {
namespace {

size_t count(const std::string& text, const std::string& part) {
    size_t n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
        n++;
    return n;
}

TEST(ExportJunit, EscapesWhatXmlCannotHoldAsIs) {
    EXPECT_EQ(xml_escape("a<b & c>d \"q\""), "a&lt;b &amp; c&gt;d \"q\"");
    EXPECT_EQ(xml_escape("a<b & \"q\"\nz", true), "a&lt;b &amp; &quot;q&quot;&#10;z");
    EXPECT_EQ(xml_escape(std::string("x\x01y\x1b")), "x\xEF\xBF\xBDy\xEF\xBF\xBD");
    XmlWriter w;
    w.open("a", {{"name", "<&\">"}});
    w.text("]]> </a>");
    const std::string out = w.finish();
    EXPECT_NE(out.find("<a name=\"&lt;&amp;&quot;&gt;\">]]&gt; &lt;/a&gt;</a>"), std::string::npos) << out;
}

Model one_of_each() {
    Model m;
    Kernel k;
    k.key = "k";
    k.label = "new";
    m.kernels.push_back(k);
    auto test = [&](TestStatus s, std::optional<Decision> v, std::string excerpt) {
        Test t;
        t.id = std::to_string(m.tests.size());
        t.suite = "new";
        t.name = "fork/ops_per_s <&> " + t.id;
        t.status = s;
        t.verdict = v;
        t.excerpt = std::move(excerpt);
        t.misc = {{"reason", "a \"quoted\" <reason> & more"}};
        m.tests.push_back(t);
    };
    test(TestStatus::done, std::nullopt, "");
    test(TestStatus::skip, std::nullopt, "not in BTF");
    test(TestStatus::error, std::nullopt, "the log is incomplete");
    test(TestStatus::fail, Decision::different, "DIFFERENT, in the worse direction");
    test(TestStatus::pass, Decision::same, "");
    test(TestStatus::done, Decision::unknown, "about 9 a side would likely decide");
    return m;
}

TEST(ExportJunit, EachStatusIsItsOutcome) {
    const std::string xml = junit_document(one_of_each());
    EXPECT_EQ(count(xml, "<testcase "), 6u);
    EXPECT_EQ(count(xml, "<failure "), 1u);
    EXPECT_EQ(count(xml, "<error "), 1u);
    // SKIP, and UNKNOWN, which is neither a pass nor a failure.
    EXPECT_EQ(count(xml, "<skipped "), 2u);
    EXPECT_NE(xml.find("<skipped message=\"about 9 a side would likely decide\"/>"), std::string::npos) << xml;
    EXPECT_NE(xml.find("tests=\"6\" failures=\"1\" errors=\"1\" skipped=\"2\""), std::string::npos) << xml;
    EXPECT_NE(xml.find("name=\"fork/ops_per_s &lt;&amp;&gt; 0\""), std::string::npos);
    EXPECT_NE(xml.find("value=\"a &quot;quoted&quot; &lt;reason&gt; &amp; more\""), std::string::npos);
    EXPECT_EQ(xml.find("<reason>"), std::string::npos);
}

} // namespace
} // namespace initbench::exporting
