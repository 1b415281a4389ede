// YAML out through libyaml's emitter: the emitter quotes and escapes every scalar as YAML
// requires, so a value with a quote, a colon or a newline cannot change a document's shape.
#pragma once

#include <memory>
#include <string>
#include <string_view>

struct yaml_emitter_s;

namespace initbench {

class YamlWriter {
public:
    enum class Style { block, flow };

    YamlWriter();
    ~YamlWriter();
    YamlWriter(const YamlWriter&) = delete;
    YamlWriter& operator=(const YamlWriter&) = delete;

    void begin_map(Style style = Style::block);
    void end_map();
    void begin_seq(Style style = Style::block);
    void end_seq();
    // A plain scalar where YAML allows one, quoted where it does not.
    void scalar(std::string_view text);
    void scalar(long long number) { scalar(std::to_string(number)); }
    // A scalar that must stay a string (a URL, a regex): single-quoted.
    void quoted(std::string_view text);

    // Ends the document; throws std::runtime_error if libyaml refused an event.
    std::string finish();

private:
    // Emits an event that its libyaml initializer (which returned `made`) filled in.
    void emit(int made, void* event);
    std::unique_ptr<yaml_emitter_s> emitter_;
    std::string out_;
    bool finished_ = false;
};

} // namespace initbench
