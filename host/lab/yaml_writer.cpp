#include "host/lab/yaml_writer.h"

#include "common/text.h"

#include <stdexcept>
#include <yaml.h>

namespace initbench {
namespace {

int append(void* data, unsigned char* buffer, size_t size) {
    static_cast<std::string*>(data)->append(reinterpret_cast<const char*>(buffer), size);
    return 1;
}

// YAML is text: a value of other bytes (a URL typed in another encoding) is refused by name.
void check_utf8(std::string_view text) {
    if (!valid_utf8(text))
        throw std::runtime_error("yaml: not valid UTF-8: " + utf8_safe(text));
}

yaml_char_t* text_ptr(std::string_view s) {
    return reinterpret_cast<yaml_char_t*>(const_cast<char*>(s.data()));
}

} // namespace

YamlWriter::YamlWriter() : emitter_(std::make_unique<yaml_emitter_t>()) {
    if (!yaml_emitter_initialize(emitter_.get()))
        throw std::runtime_error("yaml: cannot initialize the emitter");
    yaml_emitter_set_output(emitter_.get(), append, &out_);
    yaml_emitter_set_unicode(emitter_.get(), 1);
    yaml_emitter_set_width(emitter_.get(), -1); // long values stay on one line
    yaml_event_t e;
    emit(yaml_stream_start_event_initialize(&e, YAML_UTF8_ENCODING), &e);
    emit(yaml_document_start_event_initialize(&e, nullptr, nullptr, nullptr, 1), &e);
}

YamlWriter::~YamlWriter() { yaml_emitter_delete(emitter_.get()); }

void YamlWriter::emit(int made, void* event) {
    // libyaml refuses to make a scalar event of bytes that are not UTF-8; emitting the event
    // it did not make would read garbage (lava-job spun forever on such a URL).
    if (!made)
        throw std::runtime_error("yaml: libyaml refused an event (a value that is not UTF-8?)");
    if (!yaml_emitter_emit(emitter_.get(), static_cast<yaml_event_t*>(event)))
        throw std::runtime_error(std::string("yaml: ") +
                                 (emitter_->problem ? emitter_->problem : "the emitter refused an event"));
}

void YamlWriter::begin_map(Style style) {
    yaml_event_t e;
    emit(yaml_mapping_start_event_initialize(&e, nullptr, nullptr, 1,
                                             style == Style::flow ? YAML_FLOW_MAPPING_STYLE
                                                                  : YAML_BLOCK_MAPPING_STYLE),
         &e);
}

void YamlWriter::end_map() {
    yaml_event_t e;
    emit(yaml_mapping_end_event_initialize(&e), &e);
}

void YamlWriter::begin_seq(Style style) {
    yaml_event_t e;
    emit(yaml_sequence_start_event_initialize(&e, nullptr, nullptr, 1,
                                              style == Style::flow ? YAML_FLOW_SEQUENCE_STYLE
                                                                   : YAML_BLOCK_SEQUENCE_STYLE),
         &e);
}

void YamlWriter::end_seq() {
    yaml_event_t e;
    emit(yaml_sequence_end_event_initialize(&e), &e);
}

void YamlWriter::scalar(std::string_view text) {
    check_utf8(text);
    yaml_event_t e;
    emit(yaml_scalar_event_initialize(&e, nullptr, nullptr, text_ptr(text),
                                      static_cast<int>(text.size()), 1, 1, YAML_ANY_SCALAR_STYLE),
         &e);
}

void YamlWriter::quoted(std::string_view text) {
    check_utf8(text);
    yaml_event_t e;
    emit(yaml_scalar_event_initialize(&e, nullptr, nullptr, text_ptr(text),
                                      static_cast<int>(text.size()), 0, 1,
                                      YAML_SINGLE_QUOTED_SCALAR_STYLE),
         &e);
}

std::string YamlWriter::finish() {
    if (!finished_) {
        yaml_event_t e;
        emit(yaml_document_end_event_initialize(&e, 1), &e);
        emit(yaml_stream_end_event_initialize(&e), &e);
        finished_ = true;
    }
    return out_;
}

} // namespace initbench
